"""Review of bb41790..ebf4634: the all-time standings table (migration 005), fonts.fit_name,
the timeout notice said before its showdown, /ofc leaderboard period:month and
/ofc-admin audit with grant reasons.  The three defects found ("Was a defect") are fixed."""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import bot.service as service_module
from bot.service import TableService
from bot.store import HandResult, Store
from engine import Board, Rules
from renderer import LeaderboardView, LeaderRow, SeatView, TableView
from renderer.fonts import fit_name, fit_text, text_width
from renderer.leaderboard import leaderboard_scene
from renderer.showdown import _chip_span, initial_word, pair_items, showdown_scene
from renderer.table import table_scene
from tests.bot.test_service import Clock, Recorder, make, until
from tests.bot.test_store import back_to_schema_4
from tests.renderer import test_visual_review as tv

from .conftest import make_world

G, G2, CH = 1111, 2222, 5555
ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
RULES = {"variant": "pineapple", "fantasyland": True}

drawn = tv.drawn  # the renderer review's fixture: every text a scene draws, with its ink box
panels = tv.panels


# =========================================================================== 1. standings
# The leaderboard's all-time query before 8bf21b4 (bb41790:bot/store/store.py, leaderboard)
OLD_ALL_TIME = """
    SELECT r.user_id,
           COALESCE(MAX(p.name), MAX(r.name), '') AS name,
           COALESCE(SUM(l.amount), 0) AS units,
           SUM(COALESCE(r.ranked_points, r.points)) AS points,
           COUNT(*) AS hands,
           SUM(r.fantasyland) AS fantasylands
    FROM results r
    LEFT JOIN ledger l
           ON l.hand_id = r.hand_id AND l.user_id = r.user_id AND l.kind = 'hand'
    LEFT JOIN players p ON p.guild_id = r.guild_id AND p.user_id = r.user_id
    WHERE r.guild_id = ? AND r.counted = 1 AND r.is_bot = 0
    GROUP BY r.user_id
    ORDER BY {by} DESC, units DESC, points DESC, r.user_id ASC
"""


async def old_board(store: Store, guild: int, by: str, limit: int) -> list[tuple[Any, ...]]:
    rows = await store._all(OLD_ALL_TIME.format(by=by), (guild,))
    if 0 < limit < len(rows):
        last = rows[limit - 1][by]
        while limit < len(rows) and rows[limit][by] == last:
            limit += 1
    return [(r["user_id"], r["name"], r["units"], r["points"], r["hands"], r["fantasylands"])
            for r in rows[:limit]]


async def new_board(store: Store, guild: int, by: str, limit: int) -> list[tuple[Any, ...]]:
    return [(e.user_id, e.name, e.units, e.points, e.hands, e.fantasylands)
            for e in await store.leaderboard(guild, by, None, limit)]


async def assert_same_as_before(store: Store, guilds: tuple[int, ...]) -> None:
    for guild in guilds:
        for by in ("units", "points", "hands", "fantasylands"):
            for limit in (0, 1, 2, 3, 10):
                assert await new_board(store, guild, by, limit) == \
                    await old_board(store, guild, by, limit), (guild, by, limit)


async def random_server(store: Store, guild: int, channel: int, rng: random.Random,
                        hands: int, first_time: float) -> None:
    """Hands at a table of three humans and a bot: counted, practice, with the bot (ranked
    points set), with a player not seated (no player row, a result only), ties by design
    (small amounts), names changing from hand to hand and the players' own names renamed."""
    table = await store.create_table(guild, channel, ALICE, RULES, 1, 300, 5, first_time)
    for seat, (user, name) in enumerate(((ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"))):
        await store.seat_player(table.id, seat, guild, user, name, 300, first_time)
    await store.seat_player(table.id, 3, guild, 999, "Bot", 0, first_time, is_bot=True)
    for number in range(1, hands + 1):
        now = first_time + number
        kind = rng.choice(("counted", "counted", "practice", "bot", "ghost"))
        a, b = rng.randint(-2, 2), rng.randint(-2, 2)
        units = {ALICE: a, BOB: b, CAROL: -a - b}
        counted = kind != "practice"
        hand = await store.create_hand(table.id, number, "s", RULES, {}, now)
        results = [
            HandResult(user_id=user, seat_no=seat, name=rng.choice((f"{tag}", f"{tag}{number % 4}",
                                                                    "Zed", "ä")),
                       points=rng.randint(-3, 3) if counted else 0,
                       units=units[user] if counted else 0,
                       fantasyland=rng.random() < 0.3, counted=counted,
                       ranked_points=rng.randint(-2, 2) if kind == "bot" else None)
            for seat, (user, tag) in enumerate(((ALICE, "a"), (BOB, "b"), (CAROL, "c")))
        ]
        if kind == "bot":
            results.append(HandResult(user_id=999, seat_no=3, name="Bot", points=5, units=0,
                                      is_bot=True))
        if kind == "ghost":  # a human with a result but no player row, moving nothing
            results.append(HandResult(user_id=DAVE, seat_no=4, name=f"dave{number % 3}",
                                      points=rng.randint(-1, 1), units=0,
                                      fantasyland=rng.random() < 0.5))
        moves = {u: m for u, m in units.items() if counted and m}
        await store.finish_hand(hand.id, {}, results, moves, now)
        if number % 7 == 0:  # renamed (the players row wins over the results' names)
            await store.ensure_player(guild, rng.choice((ALICE, BOB)),
                                      rng.choice(("Alicia", "Bobby", "", "Älice")))


async def test_the_all_time_board_is_the_old_query_for_every_key_tie_and_server() -> None:
    """Fine: the standings give exactly what the old query gave, every key and limit (ties
    extended), two servers with the same players, names (players row first, else the
    greatest result name, also '' when renamed to ''), bots, practice, ranked points."""
    store = await Store.open(":memory:")
    try:
        rng = random.Random(11)
        await random_server(store, G, CH, rng, 60, 100.0)
        await random_server(store, G2, CH + 1, rng, 45, 1000.0)
        await assert_same_as_before(store, (G, G2))
        assert await store.verify_ledger() == []
        assert {e.user_id for e in await store.leaderboard(G, "hands", None, 100)} == {
            ALICE, BOB, CAROL, DAVE}
    finally:
        await store.close()


async def test_migration_005_backfills_two_servers_as_the_old_query(tmp_path: Path) -> None:
    """Fine: a schema-4 database with hands in two servers (bots, practice, ghosts): the
    backfill equals the old query, and hands after the migration keep it equal."""
    path = tmp_path / "old.db"
    store = await Store.open(path)
    rng = random.Random(3)
    await random_server(store, G, CH, rng, 30, 100.0)
    await random_server(store, G2, CH + 1, rng, 30, 1000.0)
    await store.close()
    back_to_schema_4(path)
    store = await Store.open(path)
    try:
        assert await store.schema_version() >= 5
        await assert_same_as_before(store, (G, G2))
        await random_server(store, G, CH + 2, rng, 20, 5000.0)
        await assert_same_as_before(store, (G, G2))
        assert await store.verify_ledger() == []
    finally:
        await store.close()


async def test_a_settlement_rolled_back_leaves_the_standings_as_they_were() -> None:
    """Fine: finish_hand failing after its results are written (the hands UPDATE) rolls the
    trigger's totals back with them; the retry counts the hand once."""
    store = await Store.open(":memory:")
    try:
        table = await store.create_table(G, CH, ALICE, RULES, 1, 300, 3, 10.0)
        await store.seat_player(table.id, 0, G, ALICE, "Alice", 300, 11.0)
        await store.seat_player(table.id, 1, G, BOB, "Bob", 300, 11.0)
        hand = await store.create_hand(table.id, 1, "s", RULES, {}, 12.0)
        results = [HandResult(user_id=ALICE, seat_no=0, name="Alice", points=3, units=3),
                   HandResult(user_id=BOB, seat_no=1, name="Bob", points=-3, units=-3)]
        before = await store.leaderboard(G, "units", None)
        real = store._db.execute

        def failing(sql: str, *args: Any) -> Any:
            if sql.startswith("UPDATE hands SET status = 'done'"):
                raise sqlite3.OperationalError("disk I/O error")
            return real(sql, *args)

        store._db.execute = failing  # type: ignore[method-assign]
        with pytest.raises(sqlite3.OperationalError):
            await store.finish_hand(hand.id, {}, results, {ALICE: 3, BOB: -3}, 13.0)
        store._db.execute = real  # type: ignore[method-assign]
        assert await store.leaderboard(G, "units", None) == before == []
        assert await store.verify_ledger() == []
        await store.finish_hand(hand.id, {}, results, {ALICE: 3, BOB: -3}, 14.0)
        board = await store.leaderboard(G, "units", None)
        assert [(e.user_id, e.units, e.hands) for e in board] == [(ALICE, 3, 1), (BOB, -3, 1)]
        assert await store.verify_ledger() == []
    finally:
        await store.close()


async def test_concurrent_settlements_and_boards_agree() -> None:
    """Fine: settlements of two tables and all-time boards interleaved on one store (its lock
    and transactions): every board read is a sum of whole hands, the end equals the old
    query."""
    store = await Store.open(":memory:")
    try:
        tables = []
        for k in range(2):
            table = await store.create_table(G, CH + k, ALICE, RULES, 1, 300, 3, 10.0)
            users = (ALICE, BOB) if k == 0 else (CAROL, DAVE)
            for seat, user in enumerate(users):
                await store.seat_player(table.id, seat, G, user, f"u{user}", 300, 11.0)
            tables.append((table.id, users))

        async def settle(table_id: int, users: tuple[int, int]) -> None:
            for number in range(1, 16):
                hand = await store.create_hand(table_id, number, "s", RULES, {}, 20.0 + number)
                a, b = users
                await store.finish_hand(hand.id, {}, [
                    HandResult(user_id=a, seat_no=0, name="x", points=1, units=1),
                    HandResult(user_id=b, seat_no=1, name="y", points=-1, units=-1)],
                    {a: 1, b: -1}, 20.0 + number)

        boards: list[Any] = []

        async def read() -> None:
            for _ in range(20):
                boards.append(await store.leaderboard(G, "hands", None, 10))
                await asyncio.sleep(0)

        await asyncio.gather(read(), *(settle(t, u) for t, u in tables))
        for board in boards:
            assert sum(e.units for e in board) == 0 and sum(e.points for e in board) == 0
        await assert_same_as_before(store, (G,))
        assert await store.verify_ledger() == []
    finally:
        await store.close()


def test_results_are_written_only_by_finish_hand_after_their_ledger_rows() -> None:
    """Fine: the trigger reads a hand's ledger row when its result is inserted; the only
    writer of results (Store.finish_hand) writes the ledger rows first, and nothing else in
    bot/ or cogs/ inserts results or 'hand' ledger rows."""
    root = Path(__file__).resolve().parents[2]
    sources = {p: p.read_text(encoding="utf-8") for d in ("bot", "cogs")
               for p in (root / d).rglob("*.py")}
    writers = [p.name for p, s in sources.items() if re.search(r"INSERT\s+INTO\s+results", s)]
    assert writers == ["store.py"]
    store_src = sources[root / "bot" / "store" / "store.py"]
    body = store_src[store_src.index("async def finish_hand"):store_src.index(
        "def _check_results")]
    assert body.index('"stack", "hand"') < body.index("INSERT INTO results")
    assert store_src.count('"stack", "hand"') == 1


# =========================================================================== 2. fit_name
SIZES = ((24, 200), (18, 130), (15, 100), (21, 240), (24, 90))
ODD = ["Zoë Ñúñez Đặng Thị Hồng", "Z̸̢̛̖͎̈́͊͝a̶̧̛͕̗͊l̷̰̈́g̴̛̳o̷̠͝", "王伟大师兄弟姐妹朋友们你好世界大师兄弟",
       "محمد عبد الله بن عبد العزيز ال", "🔥Dragon🔥 Slayer👨‍👩‍👧‍👦🎲🎲🎲",
       "ｱｲｳｴｵ全角ＡＢＣＤＥＦＧＨ", "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301",
       "W" * 32, "\u200b" * 5 + "Ghost" + "\u200b" * 5, "ﷺﷺﷺﷺﷺﷺﷺﷺ"]


def test_fit_name_never_exceeds_the_width() -> None:
    """Fine: 32-character names of any script, alike or not, never go past the width."""
    rng = random.Random(7)
    for size, width in SIZES:
        for base in ODD:
            for k in (1, 2, 3, 4):
                names = [(base + rng.choice(("", "Great", "Small", "大", "小", "😀", "é")))[:32]
                         for _ in range(k)]
                names += [base[:32]]
                for name in names:
                    shown = fit_name(name, names, "bold", size, width)
                    assert text_width(shown, "bold", size) <= width, (name, shown, width)
                    if text_width(name, "bold", size) <= width:
                        assert shown == name


def test_fit_name_of_identical_and_unlike_names_is_the_plain_cut() -> None:
    """Fine: names identical in full are cut alike (nothing tells them apart: their seat
    discs do); a name alike to none is cut as fit_text cuts it."""
    twin = "Alexander_the_Great_of_Macedonia"
    assert fit_name(twin, [twin, twin], "bold", 18, 130) == fit_text(twin, "bold", 18, 130)
    assert fit_name(twin, [twin, "Bob"], "bold", 18, 130) == fit_text(twin, "bold", 18, 130)


def test_wide_names_alike_are_told_apart() -> None:
    """Fine: two CJK names alike but for their end, at every size the images use."""
    a, b = "王伟大师兄弟姐妹朋友们你好世界大", "王伟大师兄弟姐妹朋友们你好世界小"
    for size, width in SIZES[:4]:
        sa, sb = (fit_name(n, (a, b), "bold", size, width) for n in (a, b))
        assert sa != sb and sa.endswith("大") and sb.endswith("小"), (sa, sb)


def test_three_names_alike_are_all_told_apart() -> None:
    """Was a defect: renderer/fonts.py:fit_name told a name apart only from the one most like
    it (``at = max(differ)``) and never checks its result against what the others show: of
    'Maximilian von Small Great', 'Maximilian von Great' and 'Maximilian von Small Romeo'
    (each pair line's names, 18 px in 130 px) the first two are both drawn 'Maxi…Great'.
    Same with 'xX_DarkSlayer_Green' / 'xX_DarkSlayer_420 Green' among four (chips).  Fixed:
    the names cut alike are given their texts together (fonts._apart)."""
    for names, size, width in (
        (("Maximilian von Small Great", "Maximilian von Great", "Maximilian von Small Romeo"),
         18, 130),
        (("xX_DarkSlayer_Green", "xX_DarkSlayer_One", "xX_DarkSlayer_420 One",
          "xX_DarkSlayer_420 Green"), 15, 100),
    ):
        shown = [fit_name(n, names, "bold", size, width) for n in names]
        assert len(set(shown)) == len(names), shown


def test_the_pair_lines_chips_start_where_the_chip_span_says(
        drawn: dict[int, list[Any]]) -> None:
    """Fine: _chip_span's start (the names measured with fit_name) is past where _pair_line
    draws both names, with long names alike (Latin and CJK), so chips never cover a name."""
    names = ("Alexander_the_Great_of_Macedonia", "Alexander_the_Small_of_Macedonia",
             "王伟大师兄弟姐妹朋友们你好世界大", "王伟大师兄弟姐妹朋友们你好世界小")
    boards = [Board.parse(tv.FULL), Board.parse(tv.FOUL), Board.parse(tv.BOARDS[0]),
              Board.parse(tv.BOARDS[1])]
    view = tv._showdown(names, boards, Rules(variant="pineapple"))
    scene = showdown_scene(view)
    texts = drawn[id(scene)]
    m = tv.M
    for p in (view.settlement.pair(a, b) for a, b in itertools.combinations(range(4), 2)):
        start, _ = _chip_span(p, names, m, 10_000)
        shown = [fit_name(names[k], names, "bold", m(18), m(130)) for k in (p.a, p.b)]
        measured = sum(text_width(s, "bold", m(18)) for s in shown)
        assert start >= measured + 2 * (m(26) + m(6)) + text_width("  vs  ", "regular", m(16))
        for s in shown:
            assert any(t == s for t, _ in texts), (s, [t for t, _ in texts])
    for (t1, b1), (t2, b2) in itertools.combinations(texts, 2):
        assert not tv._meets((b1[0] - 4, b1[1], b1[2] + 4, b1[3]), b2), (t1, b1, t2, b2)


@pytest.mark.parametrize("what", ["table", "showdown", "leaderboard"])
def test_four_long_names_alike_overlap_nothing(what: str, drawn: dict[int, list[Any]],
                                                panels: dict[int, list[Any]]) -> None:
    """Fine: four 32-character names alike (Latin, wide) on each image: no text touches
    another, none leaves its panel, each drawn name fits."""
    names = ("Alexander_the_Great_of_Macedonia", "Alexander_the_Small_of_Macedonia",
             "ＡＬＥＸＡＮＤＥＲ＿ＴＨＥ＿ＧＲＥＡＴ大", "ＡＬＥＸＡＮＤＥＲ＿ＴＨＥ＿ＧＲＥＡＴ小")
    boards = [Board.parse(b) for b in (tv.FULL, tv.PART, tv.BOARDS[0], tv.BOARDS[1])]
    if what == "table":
        scene = table_scene(TableView("OFC", "ofc", tuple(
            SeatView(n, b, stack=100, number=k + 1, is_button=k == 1)
            for k, (n, b) in enumerate(zip(names, boards, strict=True))), street=5, streets=9))
    elif what == "showdown":
        scene = showdown_scene(tv._showdown(names, [Board.parse(tv.FULL), Board.parse(tv.FOUL),
                                                    boards[2], boards[3]],
                                            Rules(variant="pineapple"), unit=1_000_000))
    else:
        scene = leaderboard_scene(LeaderboardView("Club", "units", "last 30 days", tuple(
            LeaderRow(k + 1, n, -10_000_000, 9_999, 99_999, 999)
            for k, n in enumerate(names))))
    texts = drawn[id(scene)]
    whole = (0, 0, scene.width, scene.height)
    for text, box in texts:
        assert tv._inside(box, whole), (text, box)
        for p in panels.get(id(scene), []):
            assert not tv._meets(box, p) or tv._inside(box, p), (text, box, p)
    for (t1, b1), (t2, b2) in itertools.combinations(texts, 2):
        assert not tv._meets((b1[0] - 4, b1[1], b1[2] + 4, b1[3]), b2), (t1, b1, t2, b2)


def test_chips_of_names_alike_fit_the_chip_width() -> None:
    """Fine: the 'fouled' chip's name (initial_word) stays within 100 px at 15 px."""
    names = ("Alexander_the_Great_of_Macedonia", "Alexander_the_Small_of_Macedonia", "王伟大师兄弟姐妹朋友们你好世界大")
    for n in names:
        assert text_width(initial_word(n, names), "bold", 15) <= 100
    view = tv._showdown(names[:2], [Board.parse(tv.FULL), Board.parse(tv.FOUL)],
                        Rules(variant="pineapple"))
    labels = [it.label for it in pair_items(view.settlement.pair(0, 1), names[:2], view.rules)]
    assert any("Small" in label for label in labels), labels


# =========================================================================== 3. timeout notes
class FailingSettle:
    """store.finish_hand raising ``times`` times (a database error), then the real one."""

    def __init__(self, store: Store, times: int) -> None:
        self.real = store.finish_hand
        self.left = times
        self.calls = 0

    async def __call__(self, *args: Any, **kw: Any) -> Any:
        self.calls += 1
        if self.left > 0:
            self.left -= 1
            raise sqlite3.OperationalError("database is locked")
        return await self.real(*args, **kw)


async def timed_out_hand(path: Path | str, clock: Clock, fail: int,
                         ) -> tuple[TableService, Recorder, Store, Any, FailingSettle]:
    """A chinese heads-up (10 s clock) whose two clocks run out: the timer sets both hands,
    the last move of the hand; settling fails ``fail`` times."""
    svc, rec, store = await make(path, clock=clock, next_hand_delay=60,
                                 seed_factory=lambda: "today-timeout")
    failing = FailingSettle(store, fail)
    store.finish_hand = failing  # type: ignore[method-assign]
    await svc.new_table(G, CH, ALICE, "alice", variant="chinese", timer=10)
    await svc.join(G, CH, BOB, "bob")
    await svc.start(CH, ALICE)
    t = svc.table_in_channel(CH)
    clock.offset += 200
    svc.rearm()
    return svc, rec, store, t, failing


def said(rec: Recorder) -> list[tuple[str, bool]]:
    return [(e[0], e[0] == "notice" and "Time ran out" in str(e[1])) for e in rec.events
            if e[0] in ("notice", "showdown")]


async def test_a_settlement_that_fails_then_succeeds_says_the_timeout_once_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fine: the first settlement fails, its retry settles: the notice goes out once, before
    the showdown; the next hand (no timeout) has no notice before its showdown."""
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.05)
    clock = Clock()
    svc, rec, store, t, failing = await timed_out_hand(":memory:", clock, 1)
    try:
        await until(lambda: any(e[0] == "showdown" for e in rec.events), 15)
        assert failing.calls == 2
        assert said(rec) == [("notice", True), ("showdown", False)], rec.events
        assert t.showdown_notes == []
        # the next hand, played to its end by commands: no stale note before its showdown
        rec.events.clear()
        await svc.sit_out(CH, ALICE, False)
        await svc.sit_out(CH, BOB, False)
        await svc._next_hand_later(t, 0.0)
        assert t.hand is not None
        while t.hand is not None and not t.hand.is_over:
            hs = t.hand.to_act()[0]
            async with t.lock:
                t.hand.autoplay(hs)
                await svc._after_action(t)
        await until(lambda: any(e[0] == "showdown" for e in rec.events), 15)
        assert [e[0] for e in rec.events if e[0] in ("notice", "showdown")] == ["showdown"]
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_hand_voided_after_its_timeout_says_the_timeout_once_then_the_void(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fine: every settlement fails, the hand is voided: the timeout notice once, then the
    void's notice, no showdown."""
    monkeypatch.setattr(service_module, "SETTLE_RETRY", 0.02)
    clock = Clock()
    svc, rec, store, t, failing = await timed_out_hand(":memory:", clock, 100)
    try:
        await until(lambda: any("voided" in str(e[1]) for e in rec.events), 15)
        notices = [str(e[1]) for e in rec.events if e[0] in ("notice", "showdown")]
        assert len(notices) == 2 and "Time ran out" in notices[0] and "voided" in notices[1]
        assert failing.calls == service_module.SETTLE_ATTEMPTS
        assert t.showdown_notes == [] and t.hand is None
    finally:
        await svc.shutdown()
        await store.close()


async def test_a_restart_before_the_settlement_keeps_the_timeout_notice(
        tmp_path: Path) -> None:
    """Was a defect: bot/service.py:TableService._timer kept the notice of a timeout that ended
    the hand in TableState.showdown_notes (memory only) until the settlement succeeds; when the
    settlement fails and the bot stops before its retry, the restart settles the hand
    (resume -> _showdown) and posts the showdown, but nobody is ever told their time ran out
    and that they now sit out (before 3572682 the notice went out at once).  Fixed: the notes
    are saved with the hand and its final state (ShowdownResult.notes)."""
    clock = Clock()
    db = tmp_path / "svc.sqlite3"
    svc, rec, store, t, failing = await timed_out_hand(db, clock, 100)
    await until(lambda: failing.calls >= 1, 15)
    await asyncio.sleep(0.1)
    assert t.hand is not None and t.hand.is_over  # saved over, not settled
    await svc.shutdown()
    await store.close()
    svc2, rec2, store2 = await make(db, clock=clock, next_hand_delay=60)
    try:
        await svc2.recover()
        await until(lambda: any(e[0] == "showdown" for e in rec2.events), 15)
        assert any(e[0] == "showdown" for e in rec2.events)
        told = [e for e in rec.events + rec2.events
                if e[0] == "notice" and "Time ran out" in str(e[1])]
        assert len(told) == 1, rec.events + rec2.events
    finally:
        await svc2.shutdown()
        await store2.close()


# =========================================================================== 4. month
async def test_the_month_board_is_the_last_30_days() -> None:
    """Fine: period 'month' counts hands of the last 30 days, not older ones; 'week' fewer."""
    clock = Clock()
    svc, rec, store = await make(clock=clock)
    try:
        now = clock()
        table = await store.create_table(G, CH, ALICE, RULES, 1, 300, 3, now - 40 * 86_400)
        await store.seat_player(table.id, 0, G, ALICE, "Alice", 300, now - 40 * 86_400)
        await store.seat_player(table.id, 1, G, BOB, "Bob", 300, now - 40 * 86_400)
        for number, days in enumerate((31, 29, 8, 0.5), start=1):
            when = now - days * 86_400
            hand = await store.create_hand(table.id, number, "s", RULES, {}, when)
            await store.finish_hand(hand.id, {}, [
                HandResult(user_id=ALICE, seat_no=0, name="Alice", points=1, units=1),
                HandResult(user_id=BOB, seat_no=1, name="Bob", points=-1, units=-1)],
                {ALICE: 1, BOB: -1}, when)
        hands = {p: [e.hands for e in await svc.leaderboard(G, "hands", p)]
                 for p in ("day", "week", "month", "all")}
        assert hands == {"day": [1, 1], "week": [1, 1], "month": [3, 3], "all": [4, 4]}
    finally:
        await svc.shutdown()
        await store.close()


async def test_the_month_leaderboard_command(tmp_path: Path) -> None:
    async with make_world(tmp_path) as w:
        await w.start_bot()
        r = await w.slash(w.alice, "ofc leaderboard", period="month")
        assert "last 30 days" in (r.content or ""), r.content
        w.fake.assert_clean()


# =========================================================================== 5. audit
def unescaped(text: str, ch: str) -> int:
    """How many ``ch`` in ``text`` are not escaped with a backslash."""
    return len(re.findall(rf"(?<!\\){re.escape(ch)}", text))


async def test_the_audit_of_25_long_reasons_fits_discords_limit_and_pings_nobody(
        tmp_path: Path) -> None:
    """Fine: 25 grants with 200-character reasons full of markdown (no masked links: see
    below) and mentions: the audit
    goes out in several private messages under 2,000 characters, every grant once, newest
    first, no mention left live, times as Discord timestamps."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        evil = f"@everyone <@{w.admin.id}> <@&{w.guild.id}> **b** __u__ ||s|| ~~t~~ "
        reason = (evil * 10)[:200]
        for k in range(25):
            r = await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=k + 1,
                              reason=reason)
            assert "@everyone" not in r.content and f"<@{w.admin.id}>" not in r.content
        r = await w.slash(w.admin, "ofc-admin audit", count=25)
        seen = -1
        while seen != len(r.messages):  # the follow-ups after the first message
            seen = len(r.messages)
            await asyncio.sleep(0.3)
        messages = r.messages
        assert len(messages) > 1 and all(m.ephemeral for m in messages)
        assert all(len(m.content) <= 2000 for m in messages)
        lines = [line for m in messages for line in m.content.split("\n")]
        assert len(lines) == 25
        assert [int(re.search(r"gave \+(\d+) unit", line)[1]) for line in lines] == list(  # type: ignore[index]
            range(25, 0, -1))
        for line in lines:
            assert re.match(r"<t:\d+:f> <@\d+> gave ", line), line
            reason_part = line.split(" — ", 1)[1]
            assert "@everyone" not in reason_part and f"<@{w.admin.id}>" not in reason_part
            assert "**" not in reason_part.replace("\\*", "")
        w.fake.assert_clean()


async def test_the_audit_is_the_servers_own_and_for_its_managers(tmp_path: Path) -> None:
    """Fine: a manager of another server reads that server's (empty) log there, never this
    one's; a member of this server cannot read it; in a DM it is refused."""
    async with make_world(tmp_path) as w:
        g2 = w.fake.add_guild("Other")
        c2 = w.fake.add_text_channel(g2, "elsewhere")
        w.fake.add_member(g2, w.bob, manage_guild=True)
        w.dev_guild = False  # global commands: in both servers
        await w.start_bot()
        await w.slash(w.admin, "ofc-admin grant", user=w.carol, amount=5, reason="secret")
        r = await w.fake.slash(w.bob, c2, "ofc-admin audit")
        assert r.ephemeral and r.content == "No units were granted yet.", r.content
        try:
            r = await w.slash(w.bob, "ofc-admin audit")
        except Exception as exc:  # the fake refuses: the command needs Manage Server
            assert "permission" in str(exc)
        else:
            assert "secret" not in "\n".join(m.content or "" for m in r.messages)
        try:
            r = await w.fake.slash(w.admin, w.fake.dm_channel(w.admin), "ofc-admin audit")
        except Exception as exc:  # not offered in DMs
            assert exc is not None
        else:
            assert "secret" not in "\n".join(m.content or "" for m in r.messages)


async def test_lone_markdown_of_reasons_stays_escaped_across_audit_lines(
        tmp_path: Path) -> None:
    """Fine: a lone '*' in each of two reasons is escaped (md escapes every '*'), so they do
    not pair up into italics across the audit's lines."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=3, reason="5*2 bonus_")
        await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=4, reason="late *fix")
        r = await w.slash(w.admin, "ofc-admin audit")
        assert unescaped(r.content or "", "*") == 0, r.content
        assert unescaped(r.content or "", "_") == 0, r.content
        w.fake.assert_clean()


async def test_markdown_between_two_masked_links_in_a_reason_is_escaped(
        tmp_path: Path) -> None:
    """Was a defect: cogs/presenter.py:md relied on discord.utils.escape_markdown, whose
    masked-link pattern is greedy: from the first '[' to the last ')' of the text it only puts a
    backslash before the '[' and leaves everything between as typed.  A grant reason
    '[a](b) **bold** ||spoiler|| [c](d)' shows bold and a spoiler in the public grant reply
    and in /ofc-admin audit (cogs/ofc.py:OFCAdmin.grant/audit; a 32-character player name
    can do it too).  Fix: md escapes every markdown character itself (a backslash before
    each of  \\ * _ ~ | ` > # [ ] ( ) -  after escape_mentions).  Fixed: md escapes each
    bracket on its own (cogs/presenter.py _MARKDOWN)."""
    async with make_world(tmp_path) as w:
        await w.start_bot()
        reason = "[a](b) **bold** ||spoiler|| [c](d)"
        r = await w.slash(w.admin, "ofc-admin grant", user=w.bob, amount=3, reason=reason)
        grant = r.content or ""
        r = await w.slash(w.admin, "ofc-admin audit")
        audit = r.content or ""
        for text in (grant, audit):
            assert "**bold**" not in text and "||spoiler||" not in text, text
