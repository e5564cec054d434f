"""Review of the day's changes 7f8f7c6..HEAD (wording: ``sentence``/``signed``, "+0 u" left
out at stake-0 tables, private empty recaps; the operator's first day: settings, the write
probe, SIGTERM, regular backups' names, ``check`` of a damaged database; the pictures
against their text twins).

Each test "Was a defect (fixed)" is a defect found (written as a strict xfail, then fixed):
it asserts the right behaviour; its docstring says what a user saw, why it was wrong and
where it came from.
The plain tests pin what was checked and found right (the reference the defects are
measured against)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from cogs.presenter import for_message, table_view
from engine.notation import sentence, signed, signed_amount
from renderer.scene import Scene
from renderer.table import describe_table, table_scene
from tests.bot.test_operator_review import _env, new_database, ofc_bot
from tests.e2e.conftest import make_world, table_of
from tests.e2e.test_copy_review import both_surrender, history_line

e2e = pytest.mark.e2e


# =============================================================================== what is right
def test_sentence_and_signed_as_documented() -> None:
    """``sentence`` adds a full stop after a word, a number, a bracket or a quote, never
    after ``.!?…:``, a code span or an emoji; ``signed`` has a real minus and an unsigned 0."""
    assert sentence("It is bob's turn") == "It is bob's turn."
    assert sentence("not 4") == "not 4."
    assert sentence("(see `/ofc rules`)") == "(see `/ofc rules`)."
    assert sentence("Done.") == "Done."
    assert sentence("e.g. `Ah discard`") == "e.g. `Ah discard`"
    assert sentence("Thanks 🌴") == "Thanks 🌴"
    assert sentence("") == ""
    assert (signed(3), signed(-2), signed(0)) == ("+3", "−2", "0")
    assert signed_amount(-1, "unit") == "−1 unit" and signed_amount(0, "pt") == "0 pts"


@e2e
async def test_the_same_even_hand_reads_0_units_in_showdown_recap_and_own_history(
        tmp_path: Any) -> None:
    """The reference for the first finding: alice and bob both surrender hand #1 at a table
    of 5 units a point. The showdown says "total 0 points, 0 units", the recap "(0 units)"
    and ``/ofc history mine`` "0 pts, 0 u": the table plays for units, and this hand moved
    none."""
    async with make_world(tmp_path, seed_factory=lambda: "s32-even-ref",
                          next_hand_delay=3600) as w:
        sd = await both_surrender(w)
        assert sd.content.count("total 0 points, 0 units") == 2, sd.content
        recap = await w.slash(w.carol, "ofc recap")
        assert recap.content.count("0 points (0 units)") == 2, recap.content
        mine = await w.slash(w.alice, "ofc history", mine=True)
        assert "0 pts, 0 u" in history_line(mine.content), mine.content
        w.fake.assert_clean()


# =============================================================================== defects
@e2e
async def test_table_history_keeps_the_units_of_an_even_hand_at_a_staked_table(
        tmp_path: Any) -> None:
    """Was a defect (fixed).

    alice and bob both surrender hand #1 at a table of 5 units a point (an even hand).
    The showdown says "total 0 points, 0 units" for each, the recap "(0 units)", and alice's
    ``/ofc history mine`` "— 0 pts, 0 u (surrendered)"; but the channel's ``/ofc history``
    reads "alice 0 pts (surrendered); bob 0 pts (surrendered)": no units at all, as at a
    stake-0 table (or a hand where every human only played bots). The same hand, at a table
    that plays for units, is told two ways, and a reader of the channel's history cannot tell
    a staked table's hand from a stake-0 one.

    The change meant to leave "+0 u" out at stake-0 tables ("PlayerHand carries its table's
    stake": ``my_hand_line`` uses ``units=bool(h.stake)``), but ``history`` in cogs/ofc.py
    guesses it from the results instead (``moved = any(r.units for r in results)``), which
    is false for every hand that moved no units at a staked table."""
    async with make_world(tmp_path, seed_factory=lambda: "s32-even",
                          next_hand_delay=3600) as w:
        await both_surrender(w)
        history = await w.slash(w.carol, "ofc history")
        line = history_line(history.content)
        assert line.count("0 pts, 0 u") == 2, line
        w.fake.assert_clean()


@e2e
async def test_leaving_a_stake_0_table_does_not_say_0_units_returned(tmp_path: Any) -> None:
    """Was a defect (fixed).

    At a ``stake:0`` ``buyin:0`` table (its title "Open Face · no units") bob joins and the
    channel reads "🪑 **bob** sat down." (the change took "with 0 units" out of it: units
    are not what is played for there). bob then runs ``/ofc leave`` and is told "You left
    the table; 0 units returned to your balance." — the "0 units" the join message no
    longer says, now on the way out.

    From ``TableService.leave`` (bot/service.py: ``f"You left the table; {plural(amount,
    'unit')} returned to your balance."``, whatever the stake and the amount); the join's
    fix (cogs/ofc.py ``join``: ``brought = ... if seat.stack else ""``) was not carried
    over."""
    async with make_world(tmp_path, seed_factory=lambda: "s32-leave0") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0)
        joined = await w.slash(w.bob, "ofc join")
        assert "sat down" in joined.content and "0 units" not in joined.content
        left = await w.slash(w.bob, "ofc leave")
        assert "You left the table" in left.content, left.content
        assert "0 units" not in left.content, left.content
        w.fake.assert_clean()


@e2e
async def test_joining_again_at_a_stake_0_table_does_not_say_0_units_in_the_stack(
        tmp_path: Any) -> None:
    """Was a defect (fixed).

    At a ``stake:0`` ``buyin:0`` table bob, already seated, runs ``/ofc join`` again (he
    did not see his seat yet) and reads "⚠️ You are already seated at this table (0 units in
    your stack)." — the "0 units" the change took out of the join announcement at such a
    table (units are not what it plays for; its title says "no units").

    From ``TableService.join`` (bot/service.py: ``f"You are already seated at this table
    ({plural(seated.stack, 'unit')} in your stack)."``, whatever the stake); the same for
    a seat leaving ("You are seated (0 units in your stack) and leave ...")."""
    async with make_world(tmp_path, seed_factory=lambda: "s32-rejoin0") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0)
        await w.slash(w.bob, "ofc join")
        again = await w.slash(w.bob, "ofc join")
        assert again.ephemeral and "already seated" in again.content, again.content
        assert "0 units" not in again.content, again.content
        w.fake.assert_clean()


@e2e
async def test_a_stake_0_tables_seats_show_no_0_units(tmp_path: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Was a defect (fixed).

    alice opens a ``stake:0`` ``buyin:0`` table and bob joins. The table's picture is
    titled "Open Face · no units" and draws "0 units" under each name; its text twin says
    "alice — top: - | middle: - | bottom: - · stack 0". The change made the showdown of such
    a table give no units ("not '0 units' for each") and the join say "sat down." without
    "with 0 units", but the table message, in the channel all evening, still counts units
    the table never plays for, right under a title that says it plays for none.

    From ``table_view`` (cogs/presenter.py: ``stack=None if seat.is_bot else seat.stack``,
    whatever the stake: ``None`` is how the picture and the text leave a stack out) and
    ``renderer/table.py`` (``_seat`` draws ``compact(seat.stack)`` + " units",
    ``describe_seat`` "· stack N")."""
    async with make_world(tmp_path, seed_factory=lambda: "s32-table0") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", stake=0, buyin=0)
        await w.slash(w.bob, "ofc join")
        view = table_view(table_of(w))
        assert view.title.endswith("no units"), view.title
        drawn: list[str] = []
        real = Scene.text

        def record(self: Scene, xy: tuple[int, int], text: str, *a: Any, **k: Any) -> int:
            drawn.append(text)
            return real(self, xy, text, *a, **k)

        monkeypatch.setattr(Scene, "text", record)
        table_scene(view)
        text = describe_table(for_message(view))
        assert not any("unit" in x for x in drawn if x != view.title), drawn
        assert "stack 0" not in text, text
        w.fake.assert_clean()


def _damage_the_schema_page(db: Path) -> Path:
    """``db`` with the b-tree header of its first page (the schema, ``sqlite_master``)
    overwritten: the file header (``SQLite format 3``, ``user_version``) stays whole."""
    with open(db, "r+b") as f:
        f.seek(100)
        f.write(b"\xff" * 12)
    return db


def test_check_of_a_database_damaged_in_its_schema_does_not_call_it_foreign(
        tmp_path: Path) -> None:
    """Was a defect (fixed).

    The bot's own ``ofc.sqlite3`` (created and migrated by the bot) takes a disk fault on
    its first page, past the file header. The operator runs ``ofc-bot check`` (README: "1
    with the list of what is not [sound]") and reads "ofc-bot check: .../ofc.sqlite3 is not
    an OFC Table database (database disk image is malformed)", status 2 (``backup`` says the
    same). It is their OFC Table database, damaged: the change made ``check`` "list the
    damage of a database too damaged to count" and stopped calling a database it could not
    read "not an OFC Table database" (an operator told so may start a fresh one instead of
    restoring a backup), but SQLite's "malformed" (SQLITE_CORRUPT) is a
    ``sqlite3.DatabaseError`` that is not an ``OperationalError``.

    From ``bot/maintenance.py`` ``_ours``: ``except sqlite3.DatabaseError`` still answers
    "is not an OFC Table database" for every error but ``OperationalError``, a damaged
    schema page included."""
    db = new_database(tmp_path / "ofc.sqlite3")
    _damage_the_schema_page(db)
    r = ofc_bot("check", "--database", str(db), cwd=tmp_path, env=_env())
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode != 0, r.stdout
    assert "malformed" in r.stderr, r.stderr
    assert "not an OFC Table database" not in r.stderr, r.stderr


def test_restore_over_a_database_damaged_in_its_schema_works(tmp_path: Path) -> None:
    """The remedy for the finding above works: ``ofc-bot restore`` over that damaged file
    keeps it aside and puts the backup back."""
    good = new_database(tmp_path / "good.sqlite3")
    from bot.maintenance import backup

    backup(good, tmp_path / "saved.sqlite3")
    db = tmp_path / "ofc.sqlite3"
    shutil.copyfile(good, db)
    _damage_the_schema_page(db)
    r = ofc_bot("restore", str(tmp_path / "saved.sqlite3"), cwd=tmp_path, env=_env())
    assert r.returncode == 0, r.stderr
    r = ofc_bot("check", "--database", str(db), cwd=tmp_path, env=_env())
    assert r.returncode == 0, r.stderr
