"""A review of how the bot treats player names and Discord's limits in everything it posts or
answers, through the real discord.py client: members with hostile or awkward display names
(``@everyone``, ``@here``, user and role mention text, markdown, code fences, masked links and
URLs, newlines, zero-width and right-to-left characters, emoji, 32 characters, names that differ
only in case, a name that is another member's mention) drive every command that shows a name.

Each message is checked by an independent reading of Discord's markdown (``assert_safe``): it
pings nobody it should not, no markdown from a name is live outside the bot's own (nothing
hidden or swallowed: no spoiler, no unbalanced code fence, no masked link, no heading, quote or
small text at a line start), each name is still shown as typed, and every message fits
Discord's 2000 characters."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from bot.store import HandResult

from .conftest import World, make_world, panel_cards, table_of
from .fakediscord import FakeInteraction, FakeMessage, FakeUser

pytestmark = pytest.mark.e2e

LIMIT = 2000
ZWSP = "\u200b"
PNG = b"\x89PNG\r\n\x1a\n"

# the bot's own markdown: inline code (`/ofc join`), bold (**name**), code blocks (the table)
FENCE = "```"


# --------------------------------------------------------------------------- the checker
def split_code(text: str) -> tuple[list[str], list[str]]:
    """The parts of ``text`` outside code blocks and the code blocks' contents (a fence left
    open is an error: everything after it would be swallowed into one block)."""
    parts = text.split(FENCE)
    assert len(parts) % 2 == 1, f"an unclosed code fence swallows the rest: {text!r}"
    return parts[0::2], parts[1::2]


def unescaped(text: str) -> str:
    """``text`` (outside code) with every backslash-escaped character taken out: what is left
    is the markdown Discord would read (each escaped character a placeholder)."""
    return re.sub(r"\\.", "\x00", text, flags=re.S)


def rendered(text: str) -> str:
    """What a reader sees of ``text``: escapes resolved (outside code), the zero-width space
    of an escaped mention taken out."""
    outside, code = split_code(text)
    out = []
    for i, part in enumerate(outside):
        out.append(re.sub(r"\\(.)", r"\1", part, flags=re.S).replace(ZWSP, ""))
        if i < len(code):
            out.append(code[i])
    return "".join(out)


def live_markdown(text: str) -> list[str]:
    """Markdown that Discord would read in ``text`` and the bot never writes itself."""
    problems = []
    outside, _ = split_code(text)
    for part in outside:
        s = unescaped(part)
        for token in ("||", "~~", "__"):
            if token in s:
                problems.append(f"live {token!r}")
        if s.replace("**", "").count("*") % 2:
            problems.append("a lone live '*' (italics)")
        if s.count("**") % 2:
            problems.append("unbalanced live '**'")
        if s.count("`") % 2:
            problems.append("unbalanced live '`'")
        if re.search(r"\[[^\]\n]*\]\([^)\n]*\)", s):
            problems.append("a live masked link")
        if re.search(r"(?m)^[ \t]*(#{1,3} |-# |> |>>> )", s):
            problems.append("a live heading / small text / quote at a line start")
        if re.search(r"@(everyone|here)\b", s):
            problems.append("a live @everyone/@here")
        if re.search(r"<@&\d+>", s):
            problems.append("a live role mention")
    return problems


MENTION = re.compile(r"<@!?(\d+)>")


def sent_allowed_mentions(w: World, m: FakeMessage) -> dict[str, Any] | None:
    """The ``allowed_mentions`` the bot sent with ``m``: the message keeps those it was created
    with; the first follow-up after a "thinking" defer edits the loading message, so its own
    are read from the request that carried it."""
    if m.allowed_mentions is not None:
        return m.allowed_mentions
    for req in reversed(w.fake.requests):
        payload = req.payload if isinstance(req.payload, dict) else {}
        if req.method in ("POST", "PATCH") and payload.get("content") == m.content:
            return payload.get("allowed_mentions")
    return None


def pinged(w: World, m: FakeMessage) -> list[int]:
    """The users ``m`` notifies (as ``FakeMessage.pinged``, with the mentions it was sent
    with)."""
    ids = [int(x) for x in dict.fromkeys(MENTION.findall(m.content or ""))]
    am = sent_allowed_mentions(w, m)
    if am is None or "users" in (am.get("parse") or []):
        return ids
    users = {int(u) for u in am.get("users") or []}
    return [i for i in ids if i in users]


def assert_safe(w: World, messages: Iterable[FakeMessage], *, names: Sequence[str] = (),
                pings: Iterable[int] = (), ephemeral: bool | None = None) -> str:
    """Every message: at most 2000 characters, pings only ``pings``, never @everyone or a role,
    no live markdown from a name; every one of ``names`` shown as typed in one of them.
    Returns the messages' rendered text, joined."""
    allowed = set(pings)
    seen = []
    for m in messages:
        content = m.content or ""
        assert len(content) <= LIMIT, (len(content), content[:200])
        if ephemeral is not None:
            assert m.ephemeral is ephemeral, (m.ephemeral, content)
        if not m.ephemeral:  # (an ephemeral answer notifies nobody)
            assert set(pinged(w, m)) <= allowed, (pinged(w, m), content)
            am = sent_allowed_mentions(w, m)
            parse = (am or {}).get("parse") if am is not None else ["everyone", "roles",
                                                                      "users"]
            assert "everyone" not in (parse or []) or not re.search(
                r"@(everyone|here)", content), (am, content)
            assert "roles" not in (parse or []) or not re.search(r"<@&\d+>", content), (
                am, content)
        assert not live_markdown(content), (live_markdown(content), content)
        seen.append(rendered(content))
    text = "\n".join(seen)
    for name in names:
        name = name.replace(ZWSP, "")
        assert name in text or name.replace("`", "ˋ") in text, (name, text)
    return text


async def until_said(w: World, r: FakeInteraction, text: str) -> None:
    """Wait until the answer ``r`` (its follow-ups too) says ``text``."""
    await w.fake.wait_until(lambda: text in "".join(m.content or "" for m in r.messages), 5,
                            f"the answer saying {text!r}")


def bot_messages(w: World, include_deleted: bool = True) -> list[FakeMessage]:
    return [m for m in w.fake.messages(w.chan, include_deleted=include_deleted)
            if m.author is w.fake.bot]


def assert_channel_safe(w: World, names: Sequence[str], pings: Iterable[int] = ()) -> None:
    """Every public message of the bot in the channel (turn pings only ping their players)."""
    allowed = set(pings)
    for m in bot_messages(w):
        if m.ephemeral:
            continue
        expected = allowed if (m.content or "").startswith("🎯") else set()
        assert_safe(w, [m], pings=expected)
    # every name shown as typed somewhere in the channel (table message, showdown...)
    assert_safe(w, [m for m in bot_messages(w, False) if not m.ephemeral], names=names)


# --------------------------------------------------------------------------- helpers
def hostile(w: World, *names: str) -> list[FakeUser]:
    """Members of the world's server whose display names are ``names``."""
    return [w.fake.add_user(f"member{i}", guild=w.guild, global_name=n)
            for i, n in enumerate(names)]


def whole_set(cards: list[str]) -> str:
    return (" ".join(cards[:5]) + " bottom " + " ".join(cards[5:10]) + " middle "
            + " ".join(cards[10:]) + " top foul")


async def showdown(w: World, number: int = 1) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: f"Showdown — hand #{number}**" in (m.content or ""),
        include_existing=True, timeout=20)


async def chinese_hand(w: World, users: Sequence[FakeUser], stake: int = 1) -> FakeMessage:
    """``users`` open (the first), join and play a hand of chinese poker (whole sets by text)."""
    if w.bot is None:
        await w.start_bot()
    r = await w.slash(users[0], "ofc new", variant="chinese", stake=stake, seats=len(users))
    assert "opened" in r.content, r.content
    for u in users[1:]:
        r = await w.slash(u, "ofc join")
        assert "sat down" in r.content, r.content
    r = await w.slash(users[0], "ofc start")
    assert "is dealt" in r.content, r.content
    await w.fake.wait_until(lambda: table_of(w).hand is not None, 5, "the deal")
    for u in users:
        cards = panel_cards((await w.slash(u, "ofc hand")).content)
        r = await w.slash(u, "ofc place", move=whole_set(cards))
        assert r.ephemeral and r.content.startswith("✅"), r.content
    return await showdown(w)


async def table_message(w: World, predicate: Any = None) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: bool(m.files) and m.files[0][0].startswith("table-") and (
            predicate is None or predicate(m)), include_existing=True, timeout=10)


async def seed_board(w: World, players: Sequence[tuple[int, str]], channel_id: int = 7) -> None:
    """Hands already played in the world's server by ``players`` (user id, name): one counted
    hand each, two players a hand, points +-1, no units moved."""
    store = w.store
    g = w.guild.id
    table = await store.create_table(g, channel_id, players[0][0],
                                     {"variant": "ofc", "fantasyland": True}, 1, 0, 2, 100.0)
    for k in range(0, len(players), 2):
        pair = list(players[k:k + 2])
        if len(pair) < 2:
            pair.append(players[0])
        hand = await store.create_hand(table.id, k + 1, "s", {"variant": "ofc"}, {}, 200.0 + k)
        await store.finish_hand(hand.id, {}, [
            HandResult(user_id=u, seat_no=i, name=n, points=1 - 2 * i, units=0,
                       fantasyland=i == 0)
            for i, (u, n) in enumerate(pair)], {}, 200.0 + k)
    for u, n in players:
        await store.ensure_player(g, u, n)


# =========================================================================== the table
NAMES_MENTIONS = ("@everyone **bold", "@here ||spoiler", "~~strike~~ __under__ *it")


async def test_mention_and_markdown_names_at_a_chinese_table(tmp_path: Any) -> None:
    """Fine: four members named ``@everyone **bold``, ``@here ||spoiler``, a real role's
    mention and strikes, underlines and italics open, join and play a hand: the opening, the
    seats, the table message (names in its code block, bold in its status line) and the
    showdown show each name as typed, ping nobody (the role neither) and keep the bot's own
    formatting; every picture is drawn."""
    async with make_world(tmp_path, seed_factory=lambda: "names-mentions") as w:
        role = w.fake.add_role(w.guild, "Moderators")
        names = (*NAMES_MENTIONS, f"<@&{role.id}> @everyone")
        users = hostile(w, *names)
        live = await chinese_hand(w, users)
        await table_message(w, lambda m: "Between hands" in (m.content or ""))
        text = assert_safe(w, [live], names=names, pings=())
        assert "@everyone **bold vs @here ||spoiler" in text, text
        assert_channel_safe(w, names, pings=[u.id for u in users])
        assert live.files and live.files[0][1].startswith(PNG)
        turn = [m for m in bot_messages(w) if (m.content or "").startswith("🎯")]
        assert turn and set(pinged(w, turn[0])) == {u.id for u in users}, turn
        assert not any(n in (turn[0].content or "") for n in names)
        table = await table_message(w)
        assert table.files[0][1].startswith(PNG)
        assert (table.content or "").rstrip().endswith(FENCE), table.content
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_a_name_that_is_a_members_mention_does_not_ping_from_the_table_message(
    tmp_path: Any,
) -> None:
    """Was a defect (a name that is a member's mention pinged them from the table message), fixed:
    the table message (and ``/ofc table``) is sent with no mentions allowed
    (``presenter.QUIET``).
    Defect: a member whose display name is another member's mention (``<@bob's id>``)
    sits at a table: every table message posted (after each showdown, ``/ofc table``) has
    the name raw inside its code block and is sent allowing user pings, so Discord notifies
    bob at each hand although he does not even play.  Every other message escapes the name.
    The table message should ping nobody (no user mentions allowed, or the mention broken
    like everywhere else)."""
    async with make_world(tmp_path, seed_factory=lambda: "names-bob") as w:
        users = hostile(w, "carla", f"<@{w.bob.id}>")
        live = await chinese_hand(w, users)
        assert_safe(w, [live], names=[f"<@{w.bob.id}>"])  # (the showdown is fine)
        table = await table_message(w, lambda m: "Between hands" in (m.content or ""))
        again = await w.slash(users[0], "ofc table")
        assert again.ok and again.message is not None
        w.fake.assert_clean()
        for m in (table, again.message):
            assert w.bob.id not in pinged(w, m), (m.pinged, m.allowed_mentions, m.content)


NAMES_LINES = ("```py\n# heading", "> quote `tick", "-# small [click](https://evil)",
               "\u202eevil\u200b 😀 王伟 https://e.vil")


async def test_code_fence_heading_quote_link_names_keep_the_messages_whole(
    tmp_path: Any,
) -> None:
    """Fine: names with a code fence and a newline before ``# heading``, a quote and a lone
    backtick, ``-#`` small text with a masked link, right-to-left and zero-width characters,
    emoji, CJK and a raw URL: no fence left open (the table's code block is closed), no heading,
    quote or link made live, the names shown as typed; the pictures are drawn."""
    async with make_world(tmp_path, seed_factory=lambda: "names-lines") as w:
        users = hostile(w, *NAMES_LINES)
        live = await chinese_hand(w, users)
        await table_message(w, lambda m: "Between hands" in (m.content or ""))
        assert_safe(w, [live], names=NAMES_LINES)
        assert_channel_safe(w, NAMES_LINES, pings=[u.id for u in users])
        table = await table_message(w)
        outside, code = split_code(table.content or "")
        assert len(code) == 1 and "ˋˋˋpy" in code[0], table.content
        for m in bot_messages(w, False):
            for _, data in m.files:
                assert data.startswith(PNG) and len(data) > 1000
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


# =========================================================================== answers
async def test_history_tables_stats_balance_and_leave_show_names_privately(
    tmp_path: Any,
) -> None:
    """Fine: after a hand of players named with mentions and markdown, ``/ofc history`` (the
    list and ``hand:1``), ``/ofc tables``, ``/ofc stats`` and ``/ofc balance user:`` (of
    another hostile member) name them as typed, privately, pinging nobody, each message within
    2000 characters and with its picture; ``/ofc leave`` tells the channel without a ping."""
    async with make_world(tmp_path, seed_factory=lambda: "names-answers") as w:
        names = ("@everyone **bold", "||spoiler", "```\nfence", "# big <@&1234567890123456789>")
        users = hostile(w, *names)
        live = await chinese_hand(w, users)
        r = await w.slash(w.carol, "ofc history")
        assert r.ok and "#1" in r.content
        assert_safe(w, r.messages, names=names, ephemeral=True)
        r = await w.fake.slash(w.carol, w.chan, "ofc history", options={"hand": 1})
        text = assert_safe(w, r.messages, names=names, ephemeral=True)
        assert rendered(live.content or "") in text
        assert r.files and r.files[0][1].startswith(PNG)
        r = await w.slash(w.carol, "ofc tables")
        assert "4/4 seated" in r.content
        assert_safe(w, r.messages, names=names, ephemeral=True)
        for u, name in zip(users, names, strict=True):
            r = await w.slash(w.carol, "ofc stats", user=u)
            assert r.ok and r.files and r.files[0][1].startswith(PNG), r
            assert_safe(w, r.messages, names=[name], ephemeral=True)
            r = await w.slash(w.carol, "ofc balance", user=u)
            assert r.ok and "units" in r.content, r.content
            assert_safe(w, r.messages, names=[name], ephemeral=True)
        r = await w.slash(users[2], "ofc leave")
        assert r.ephemeral and "left the table" in r.content, r.content
        told = await w.fake.wait_for_message(
            w.chan, lambda m: "left the table" in (m.content or ""), include_existing=True)
        assert f"<@{users[2].id}>" in (told.content or "") and pinged(w, told) == []
        assert_safe(w, [told])
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_names_that_differ_only_in_case_and_32_character_names(tmp_path: Any) -> None:
    """Fine: ``Ann`` and ``ann`` and two 32-character names full of markdown play a hand: the
    showdown keeps each name apart (case kept), every message fits, the picture is drawn and
    the history list names all four."""
    async with make_world(tmp_path, seed_factory=lambda: "names-case") as w:
        long1 = "*_" * 16
        long2 = "|`" * 16
        names = ("Ann", "ann", long1, long2)
        assert len(long1) == len(long2) == 32
        users = hostile(w, *names)
        live = await chinese_hand(w, users)
        text = assert_safe(w, [live], names=names)
        assert "Ann vs ann:" in text, text
        assert live.files[0][1].startswith(PNG)
        r = await w.slash(w.carol, "ofc history")
        assert_safe(w, r.messages, names=names, ephemeral=True)
        assert_channel_safe(w, names, pings=[u.id for u in users])
        w.fake.assert_clean()


# =========================================================================== leaderboard
HOSTILE_BOARD = ("@everyone", "@here **x", "||hidden", "```", "# title", "> quote",
                 "-# small", "[click](https://evil)", "~~s~~ __u__", "line\nbreak",
                 "\u202eright-to-left", "zero\u200bwidth", "😀🎲", "Dup", "dup")


async def test_the_leaderboard_by_every_key_names_as_typed(tmp_path: Any) -> None:
    """Fine: a server whose players are named with mentions, markdown, fences, links, a newline,
    right-to-left and zero-width characters, emoji and names that differ only in case (and
    itself named ``||Night`` ``**``): ``/ofc leaderboard`` by units, points, hands and
    fantasylands (all time and by day) lists every one as typed, pings nobody, fits and draws
    its picture."""
    async with make_world(tmp_path, seed_factory=lambda: "names-board") as w:
        w.guild.name = "||Night **"
        role = w.fake.add_role(w.guild, "Mods")
        names = (*HOSTILE_BOARD, f"<@&{role.id}>", f"<@{w.bob.id}>")
        members = hostile(w, *names)
        await w.start_bot()
        await seed_board(w, [(u.id, n) for u, n in zip(members, names, strict=True)])
        for by in ("units", "points", "hands", "fantasylands"):
            r = await w.slash(w.carol, "ofc leaderboard", by=by)
            assert r.ok and r.files and r.files[-1][1].startswith(PNG), r
            text = assert_safe(w, r.messages, ephemeral=False)
            assert "||Night ** leaderboard" in text
            shown = [n for n in names if n.replace(ZWSP, "") in text]
            assert len(shown) >= 10, (by, text)
        r = await w.slash(w.carol, "ofc leaderboard", by="hands", period="all")
        assert_safe(w, r.messages, names=names)
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_a_long_leaderboard_is_split_not_cut(tmp_path: Any) -> None:
    """Was a defect (the text was cut at 1,990 characters), fixed: what does not fit one message
    follows in the next (``split_message``).
    Defect: 22 players tie (one hand each), so the board lists 20 rows; their names are
    32 characters with markdown (each such character shown with its escape): the text is cut
    at 1990 characters (``text[:1990 - len(note)]``), so the last rows (and half a name, maybe
    half an escape) are lost from the text, which is the only way a screen reader or a search
    reaches them.  What does not fit one message should follow in the next, as /ofc history
    and the showdown do."""
    async with make_world(tmp_path, seed_factory=lambda: "names-long-board") as w:
        names = [f"{k:02d}" + "_*" * 15 for k in range(22)]
        assert all(len(n) == 32 for n in names)
        members = hostile(w, *names)
        await w.start_bot()
        await seed_board(w, [(u.id, n) for u, n in zip(members, names, strict=True)])
        r = await w.slash(w.carol, "ofc leaderboard", by="hands")
        assert r.ok and r.files
        await w.fake.wait_until(  # (the rest follows the first message)
            lambda: any("tied at rank" in (m.content or "") for m in r.messages), 10,
            "the leaderboard's last message")
        w.fake.assert_clean()
        text = assert_safe(w, r.messages)
        assert "2 more players tied at rank 1" in text, text[-300:]
        drawn = [n for n in names if n in text]
        assert len(drawn) == 20, (len(drawn), text[-300:])


# =========================================================================== grants
REASON = ("@everyone @here <@{bob}> <@&{role}> ||spoiler ``` # not a heading "
          "[click](https://evil) **bold __under ~~strike `tick > quote -# small ")


async def test_grant_and_audit_with_hostile_names_and_200_character_reasons(
    tmp_path: Any,
) -> None:
    """Fine: a server manager grants units to members named with mentions and markdown, with
    reasons of 200 characters full of mentions, fences, spoilers and links: the channel's
    answer names the member and the reason as typed (the reason on one line), pings nobody (bob
    and the role neither); ``/ofc-admin audit count:25`` lists all 25 grants, privately, split
    into messages of at most 2000 characters, mentions shown and never pinged."""
    async with make_world(tmp_path, seed_factory=lambda: "names-grants") as w:
        role = w.fake.add_role(w.guild, "Mods")
        names = ("@everyone **x", f"<@{w.bob.id}> ||y", "```z\n# big")
        members = hostile(w, *names)
        await w.start_bot()
        reason = REASON.format(bob=w.bob.id, role=role.id)
        reason = (reason * 3)[:200]
        assert len(reason) == 200
        for k in range(25):
            who, name = members[k % 3], names[k % 3]
            r = await w.slash(w.admin, "ofc-admin grant", user=who, amount=k + 1,
                              reason=reason.replace("\n", " "))
            assert r.ok and "Logged for audit" in r.content, r.content
            text = assert_safe(w, r.messages, names=[name, reason], ephemeral=False)
            assert text.count("\n") == name.count("\n"), text
        r = await w.slash(w.admin, "ofc-admin audit", count=25)
        await w.fake.wait_until(lambda: sum((m.content or "").count(" gave ")
                                            for m in r.messages) >= 25, 5, "25 grants")
        assert r.ok and len(r.messages) > 1, [len(m.content or "") for m in r.messages]
        text = assert_safe(w, r.messages, names=[reason], ephemeral=True)
        assert text.count(" gave ") == 25 and text.count(reason) == 25, text
        assert all(not m.pinged for m in r.messages)
        assert all(m.allowed_mentions == {"parse": []} for m in r.messages), [
            m.allowed_mentions for m in r.messages]
        r = await w.slash(w.admin, "ofc-admin audit", user=w.carol)
        assert r.ephemeral and r.content == "No units were granted to **carol** yet."
        r = await w.slash(w.admin, "ofc balance", user=members[1])
        assert_safe(w, r.messages, names=[names[1]], ephemeral=True)
        assert await w.store.verify_ledger() == []
        w.fake.assert_clean()


async def test_rules_and_help_are_private_and_fit(tmp_path: Any) -> None:
    """Fine: ``/ofc rules`` at a table and ``/ofc help`` (a member's and a server manager's,
    with the ``/ofc-admin`` commands) are private and every message fits 2000 characters."""
    async with make_world(tmp_path, seed_factory=lambda: "names-help") as w:
        users = hostile(w, "@everyone ||rules")
        await w.start_bot()
        await w.slash(users[0], "ofc new", variant="pineapple", stake=1)
        r = await w.slash(w.carol, "ofc rules")
        assert r.ok and r.content.startswith("• ")
        assert_safe(w, r.messages, ephemeral=True)
        for who in (w.carol, w.admin):
            r = await w.slash(who, "ofc help")
            if who is w.admin:
                await until_said(w, r, "/ofc-admin sync")
            text = assert_safe(w, r.messages, ephemeral=True)
            assert "/ofc leaderboard" in text
            assert ("/ofc-admin grant" in text) is (who is w.admin), text
        w.fake.assert_clean()


# =========================================================================== telling apart
INVISIBLE = re.compile(r"[\s\u200b-\u200f\u2060\ufeff\u3164\u202a-\u202e]+")


def seat_labels(showdown_text: str, players: int) -> list[str]:
    """The label each seat's line of a showdown's text starts with (before " — ")."""
    lines = showdown_text.split("\n")[2:2 + players]
    return [line.split(" — ", 1)[0] for line in lines]


async def test_the_showdown_text_tells_case_different_names_apart(tmp_path: Any) -> None:
    """Fine: ``Ann``, ``ann``, ``ANN`` and ``Ánn``: each seat's line of the showdown text has
    its own visible label."""
    async with make_world(tmp_path, seed_factory=lambda: "names-ann") as w:
        users = hostile(w, "Ann", "ann", "ANN", "Ánn")
        live = await chinese_hand(w, users)
        labels = seat_labels(live.content or "", 4)
        assert labels == ["Ann", "ann", "ANN", "Ánn"], labels
        w.fake.assert_clean()


async def test_the_showdown_text_tells_same_and_invisible_names_apart(tmp_path: Any) -> None:
    """Was a defect (same or invisible names could not be told apart in the text), fixed:
    ``renderer.showdown.text_labels`` (``Player N``, ``Sam (seat 2)``).
    Defect: two members both shown as ``Sam`` (display names need not be unique) and two
    whose names are invisible (zero-width spaces; U+3164) play a hand: the picture tells them
    apart (seat discs, ``Player N``), but its text twin reads ``Sam vs Sam: ... Sam fouled →
    Sam +4`` and ``Sam vs : ... → +2``: a screen reader (or anyone reading the text) cannot
    tell who won what.  Each seat's label in the text should be visible and distinct (the
    seat number, or ``Player N`` as the image draws it)."""
    async with make_world(tmp_path, seed_factory=lambda: "names-same") as w:
        users = hostile(w, "Sam", "Sam", "\u200b\u200b", "\u3164")
        live = await chinese_hand(w, users)
        w.fake.assert_clean()
        labels = [INVISIBLE.sub("", x) for x in seat_labels(live.content or "", 4)]
        assert all(labels) and len(set(labels)) == 4, labels


async def test_removebot_echoes_a_typed_name_without_breaking_the_answer(
    tmp_path: Any,
) -> None:
    """Was a defect (the typed name's markdown broke the answer), fixed: ``service._as_typed``
    escapes it.
    Defect: ``/ofc removebot bot:**`` (or a lone backtick) at a table with two bots answers
    ``No bot '**' here: **Ada (bot)** (seat 2), **Turing (bot)** (seat 3).``: the typed text is
    not escaped, so its ``**`` pairs with the list's and the bold shifts (a backtick turns the
    rest into code).  The typed text should be shown as typed, the list of bots intact."""
    async with make_world(tmp_path, seed_factory=lambda: "names-removebot") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="ofc", bots=2)
        for typed in ("**", "`x"):
            r = await w.slash(w.alice, "ofc removebot", bot=typed)
            assert r.ephemeral and r.content.startswith("⚠️ No bot"), r.content
            assert len(table_of(w).bots) == 2
            assert not live_markdown(r.content), (live_markdown(r.content), r.content)
        w.fake.assert_clean()
