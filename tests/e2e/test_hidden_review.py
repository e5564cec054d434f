"""An adversarial review of hidden information: a fantasyland hand, a pineapple discard, a
chinese set (or a declared natural) before the showdown and the deck reach nobody but their
owner, through any channel: every message a player can see (deleted since or edited since:
every revision; content, embeds, components, attachment names), the renderer's inputs for the
public pictures, a restart mid-hand, the AI's inputs and its decisions, and the terminal game.
(Two defects it found are fixed: the terminal game printed its random seed, and the AI was
handed the whole hand.)"""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
from collections.abc import Iterable
from typing import Any

import pytest

import cogs.ofc
import cogs.presenter
import cogs.views
from engine import Hand, Rules
from engine.actions import Place
from engine.ai import choose_move, choose_natural, suggest
from engine.cards import DECK, Card, parse_cards
from renderer import HandView, ShowdownView, TableView

from .conftest import World, fill_move, hs_of, make_world, panel_cards, table_of
from .fakediscord import FakeMessage, FakeUser

pytestmark = pytest.mark.e2e


# --------------------------------------------------------------------------- what is seen
def _component_text(components: Iterable[dict[str, Any]]) -> list[str]:
    out = []
    stack = list(components)
    while stack:
        c = stack.pop()
        for key in ("label", "placeholder", "content", "custom_id"):
            if c.get(key):
                out.append(str(c[key]))
        for o in c.get("options") or ():
            out += [str(o.get("label", "")), str(o.get("value", "")),
                    str(o.get("description", ""))]
        stack += list(c.get("components") or ())
    return out


def every_text(m: FakeMessage) -> str:
    """All a message ever showed: its current state and every earlier revision (content,
    embeds, components, attachment file names)."""
    parts = [m.text, *(a.filename for a in m.attachments), *_component_text(m.components)]
    for rev in m.revisions:
        parts.append(str(rev.get("content") or ""))
        parts.append(json.dumps(rev.get("embeds") or [], ensure_ascii=False))
        parts += _component_text(rev.get("components") or [])
        parts += [str(a) for a in rev.get("attachments") or []]
    return "\n".join(parts)


def ever_seen_by(w: World, user: FakeUser) -> list[FakeMessage]:
    """Every message ``user`` could see at some point (deleted ones included)."""
    out = []
    for m in w.fake.messages(include_deleted=True):
        if m.visible_to is not None and m.visible_to is not user:
            continue
        if m.channel.is_dm:
            if m.channel.recipient is not user:
                continue
        else:
            guild = w.fake.guilds.get(m.channel.guild_id or 0)
            if guild is None or user.id not in guild.members:
                continue
        out.append(m)
    return out


def spellings(card: str) -> list[str]:
    return [card, Card(card).pretty]


def found(text: str, cards: Iterable[str]) -> list[str]:
    hits = []
    for c in cards:
        for s in spellings(c):
            if re.search(rf"(?<![0-9A-Za-z]){re.escape(s)}(?![0-9a-z])", text):
                hits.append(s)
    return hits


def assert_unseen(w: World, user: FakeUser, cards: set[str], what: str) -> None:
    for m in ever_seen_by(w, user):
        hits = found(every_text(m), cards)
        assert not hits, f"{user.name} saw {what} {hits} in {every_text(m)!r}"


def seat_user(w: World, hs: int) -> FakeUser | None:
    t = table_of(w)
    seat = t.seat_by_no(t.hand_seats[hs])
    return next((u for u in w.users.values() if seat and u.id == seat.user_id), None)


def secrets_now(w: World) -> dict[int, set[str]]:
    """Per hand seat what only its owner may know now (pending, discards, a hidden set, a
    declared natural), and under -1 the deck (nobody)."""
    h = table_of(w).hand
    out: dict[int, set[str]] = {}
    dealt: set[Card] = set()
    for s in range(h.n):
        mine = {*h.pending[s], *h.discards[s], *h.natural_cards[s]}
        dealt |= mine | set(h.boards[s].cards)
        if h.hidden(s):
            mine |= set(h.boards[s].cards)
        out[s] = {str(c) for c in mine}
    out[-1] = {str(c) for c in DECK if c not in dealt}
    return out


def checkpoint(w: World, humans: Iterable[FakeUser]) -> None:
    """Nothing any human could ever see names a card another seat (or the deck) holds
    hidden now, unless that human may see it now."""
    t = table_of(w)
    h = t.hand
    if h is None or h.is_over:
        return
    secrets = secrets_now(w)
    for u in humans:
        seat = t.seat_of_user(u.id)
        mine = t.hand_seat_of(seat.seat_no) if seat is not None else None
        public = {str(c) for c in h.cards_seen_by(mine)}
        for owner, cards in secrets.items():
            if owner != mine:
                assert_unseen(w, u, cards - public, f"seat {owner}'s hidden cards")


# --------------------------------------------------------------------------- renderer spy
class RenderSpy:
    """Records every view the bot draws and checks it against the table at that instant."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.views: list[tuple[Any, Any]] = []
        self.problems: list[str] = []
        original = cogs.presenter.render

        async def spy(fn: Any, view: Any, t: Any = None) -> bytes:
            self.check(view, t)
            self.views.append((view, t))
            return await original(fn, view, t)

        for mod in (cogs.presenter, cogs.views, cogs.ofc):
            monkeypatch.setattr(mod, "render", spy)

    def check(self, view: Any, t: Any) -> None:
        hand = t.hand if t is not None else None
        if isinstance(view, TableView):
            shown = {c for s in view.seats for c in (*s.board.cards, *s.last_placed)}
            allowed = hand.cards_seen_by(None) if hand is not None else set()
            if shown - allowed:
                self.problems.append(f"table picture shows {sorted(map(str, shown - allowed))}")
        elif isinstance(view, HandView):
            if hand is None:
                return
            hs = t.hand_seat_of(view.number - 1)
            shown = {*view.cards, *view.board.cards, *view.discards, *(c for c, _ in view.selected)}
            allowed = hand.cards_seen_by(hs)
            if hs is None or shown - allowed:
                self.problems.append(f"panel of {view.name} shows {sorted(map(str, shown))}")
        elif isinstance(view, ShowdownView) and hand is not None and not hand.is_over:
            self.problems.append("a showdown drawn while the hand is played")

    def showdown_cards(self) -> set[str]:
        out: set[str] = set()
        for view, _ in self.views:
            if isinstance(view, ShowdownView):
                for b in view.settlement.boards:
                    if b is not None:
                        out |= {str(c) for c in b.cards}
                for cards in view.natural_cards:
                    out |= {str(c) for c in cards}
        return out


def private_pictures_are_private(w: World) -> None:
    for m in w.fake.messages(include_deleted=True):
        names = [a.filename for a in m.attachments]
        if any(n in ("hand.png", "fantasyland.png") for n in names):
            assert m.ephemeral or m.channel.is_dm, (names, m.channel)


def answer(rec: Any) -> str:
    return "\n".join([(rec.callback_data or {}).get("content") or "",
                      *(m.content or "" for m in rec.followups)])


async def wait_showdown(w: World, timeout: float = 60) -> FakeMessage:
    return await w.fake.wait_for_message(
        w.chan, lambda m: "Showdown — hand #1" in (m.content or ""), timeout=timeout,
        include_existing=True)


async def stored_final(w: World) -> dict[str, Any]:
    (row, _), = await w.store.history(table_of(w).id, 1)
    return dict(row.state)


# --------------------------------------------------------------------------- e2e sweeps
async def test_pineapple_fantasyland_and_bot_discards_through_every_channel_and_a_restart(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """alice plays a 15-card fantasyland (by DM) while bob and a bot play their streets; at
    every step nothing any human ever saw (deleted pings and every edit of the table message
    included) names another seat's pending cards, discards, hidden set or the deck; the
    public pictures get only public cards; a restart mid-hand posts nothing hidden; the
    showdown never shows a discard."""
    spy = RenderSpy(monkeypatch)
    async with make_world(tmp_path, seed_factory=lambda: "hid-pine") as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="pineapple", timer=60)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.alice, "ofc addbot", level="easy")
        t = table_of(w)
        await w.store.update_table(t.id, extra={"fantasyland": {"0": 15}})
        await w.service._refresh(t)
        await w.slash(w.alice, "ofc start")
        humans = (w.alice, w.bob, w.carol)  # carol: a spectator in the server
        dm = await w.fake.wait_for_message(w.alice, lambda m: "Fantasyland" in (m.content or ""),
                                           include_existing=True)
        fl_cards = panel_cards(dm.content)
        assert len(fl_cards) == 15
        checkpoint(w, humans)
        moves = 0
        restarted = False
        while True:
            t = table_of(w)
            if t.hand is None or t.hand.is_over:
                break
            bob_hs = hs_of(w, w.bob)
            if not t.hand.may_act(bob_hs):
                await asyncio.sleep(0.05)
                continue
            cards = panel_cards((await w.slash(w.bob, "ofc hand")).content)
            # the regular player, on a real-stakes street: no suggestion, nothing named
            r = await w.fake.slash(w.bob, w.chan, "ofc suggest", timeout=30)
            assert r.ephemeral and "practice tables and fantasyland" in answer(r)
            for cmd in ("ofc table", "ofc history", "ofc rules", "ofc stats", "ofc leaderboard"):
                await w.fake.slash(w.carol, w.chan, cmd, timeout=30)
            await asyncio.sleep(0.2)
            checkpoint(w, humans)
            r = await w.slash(w.bob, "ofc place", move=fill_move(t, bob_hs, cards))
            assert r.content.startswith("✅"), r.content
            moves += 1
            await asyncio.sleep(0.2)
            checkpoint(w, humans)
            if moves == 2:  # alice sets her fantasyland, then the bot restarts mid-hand
                alice_hs = hs_of(w, w.alice)
                r = await w.slash(w.alice, "ofc place", move=fill_move(t, alice_hs, fl_cards))
                assert "Your hand is set" in r.content, r.content
                await asyncio.sleep(0.2)
                checkpoint(w, humans)
            if moves == 3 and not restarted:
                restarted = True
                await w.stop_bot()
                await w.start_bot()
                await w.fake.wait_for_message(
                    w.chan, lambda m: "play resumes" in (m.content or ""), include_existing=True)
                await w.slash(w.bob, "ofc table")
                await asyncio.sleep(0.3)
                checkpoint(w, humans)
        assert restarted
        await wait_showdown(w)
        await asyncio.sleep(0.3)
        final = await stored_final(w)
        discards = final["engine"]["state"]["discards"]
        users = final["users"]
        assert len(discards[users.index(w.alice.id)]) == 2
        for who in humans:
            others = {c for i, d in enumerate(discards) if users[i] != who.id for c in d}
            assert_unseen(w, who, others, "another seat's discards")
        assert not spy.showdown_cards() & {c for d in discards for c in d}
        assert not spy.problems, spy.problems
        assert any(isinstance(v, TableView) for v, _ in spy.views)
        private_pictures_are_private(w)
        w.fake.assert_clean()


async def test_chinese_sets_and_a_declared_natural_stay_hidden_until_the_showdown(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bob declares the dragon he holds, alice sets, a bot sets: before the showdown no other
    player learns a card of theirs, nor that bob declared (the table says 'set' for all)."""
    spy = RenderSpy(monkeypatch)
    dragon = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    async with make_world(tmp_path, seed_factory=lambda: "hid-chinese",
                          deck_factory=lambda t: dragon) as w:
        await w.start_bot()
        await w.slash(w.alice, "ofc new", variant="chinese", timer=60)
        await w.slash(w.bob, "ofc join")
        await w.slash(w.carol, "ofc join")
        await w.slash(w.alice, "ofc addbot", level="easy")
        await w.slash(w.alice, "ofc start")
        humans = (w.alice, w.bob, w.carol, w.dave)
        r = await w.slash(w.bob, "ofc declare", natural="dragon")
        assert r.ephemeral and "declared dragon" in r.content
        cards = panel_cards((await w.slash(w.alice, "ofc hand")).content)
        t = table_of(w)
        r = await w.slash(w.alice, "ofc place", move=fill_move(t, hs_of(w, w.alice), cards))
        assert "Your hand is set" in r.content
        await w.fake.wait_until(lambda: table_of(w).hand is not None and all(
            table_of(w).hand.done[s] for s in range(4) if seat_user(w, s) is None), 30, "bot")
        mark = max(m.id for m in w.fake.messages(include_deleted=True))
        for who in (w.alice, w.carol, w.dave):
            for cmd in ("ofc table", "ofc history", "ofc suggest"):
                await w.fake.slash(who, w.chan, cmd, timeout=30)
        await asyncio.sleep(0.3)
        checkpoint(w, humans)
        assert mark
        for who in (w.alice, w.carol, w.dave):
            for m in ever_seen_by(w, who):
                assert "declared" not in every_text(m).lower(), every_text(m)
                assert "dragon" not in every_text(m).lower(), every_text(m)
        assert not spy.problems, spy.problems
        private_pictures_are_private(w)
        # carol's clock runs out: then the showdown shows the dragon
        w.clock.offset += 200
        w.service.rearm()
        show = await wait_showdown(w)
        assert "dragon" in show.content.lower()
        assert not spy.problems, spy.problems
        w.fake.assert_clean()


# --------------------------------------------------------------------------- the AI's inputs
def _twin(a: Hand, seat: int) -> Hand:
    """A hand that looks the same to ``seat`` as ``a`` (same seed, same seen cards at the same
    places) but whose every other card (the deck, the other seats' pending cards and
    discards) is a different one."""
    seen = a.cards_seen_by(seat)
    deck = list(a._deck)
    hidden_pos = [i for i, c in enumerate(deck) if c not in seen]
    hidden = [deck[i] for i in hidden_pos]
    rotated = hidden[7:] + hidden[:7]
    for i, c in zip(hidden_pos, rotated, strict=True):
        deck[i] = c
    b = Hand(a.rules, a.names, a.button, a.fantasyland, seed=a.seed, deck=deck)
    for action in a.log:
        assert isinstance(action, Place)
        placed = {c for c, _ in action.placements}
        dropped = tuple(c for c in b.pending[action.seat] if c not in placed)
        b.place(action.seat, action.placements, dropped, auto=action.auto)
    assert b.cards_seen_by(seat) == seen and b.view_for(seat) == a.view_for(seat)
    assert b._deck[b._next:] != a._deck[a._next:]
    return b


@pytest.mark.parametrize("variant,streets", [("pineapple", 2), ("pineapple", 3), ("ofc", 4)])
def test_the_ai_decides_the_same_whatever_it_cannot_see(variant: str, streets: int) -> None:
    """The bots' move, a timeout's move and a suggestion depend only on what the seat may see:
    a hand with the same visible cards but another deck and other hidden discards gets the
    same answer (the AI cannot be using the deck or the others' hidden cards)."""
    rules = Rules(variant=variant)
    a = Hand(rules, ["a", "b", "c"] if variant == "pineapple" else ["a", "b", "c", "d"],
             button=0, fantasyland={2: 14} if variant == "pineapple" else {3: 13},
             seed=f"hid-ai-{variant}-{streets}")
    rng = random.Random(5)
    while len(a.log) < streets * 2:
        s = next(x for x in a.to_act() if not a.fantasyland[x])
        placed, dropped = choose_move(a, s, "easy", rng=rng, simulations=16)
        a.place(s, placed, dropped)
    seat = next(x for x in a.to_act() if not a.fantasyland[x])
    b = _twin(a, seat)
    for level in ("easy", "normal"):
        assert (choose_move(a, seat, level, rng=random.Random(1), simulations=48)
                == choose_move(b, seat, level, rng=random.Random(1), simulations=48))
        assert (choose_move(a, seat, level, simulations=48)
                == choose_move(b, seat, level, simulations=48))
    sa = suggest(a, seat, "normal", rng=random.Random(2), simulations=48)
    sb = suggest(b, seat, "normal", rng=random.Random(2), simulations=48)
    assert (sa.placements, sa.discards, sa.explanation) == (sb.placements, sb.discards,
                                                            sb.explanation)
    ca, cb = Hand.from_json(a.to_json()), Hand.from_json(b.to_json())
    assert ca.autoplay(seat) == cb.autoplay(seat)
    fl = next(x for x in range(a.n) if a.fantasyland[x])  # a set decides from its cards only
    assert choose_move(a, fl, "easy") == choose_move(_twin(a, fl), fl, "easy")
    assert choose_natural(a, fl) is None


async def test_the_hand_given_to_the_ai_holds_nothing_its_seat_cannot_see(
    tmp_path: Any,
) -> None:
    """The bot's AI (and a timeout's, and /ofc suggest) was handed a full copy of the hand: its
    seed, hence the deck order, and the other seats' pending cards and pineapple discards (only
    the AI's own discipline kept it from using them); now ``Hand.redacted_for`` the seat."""
    async with make_world(tmp_path, seed_factory=lambda: "hid-thinker") as w:
        given: list[tuple[Hand, int, Hand]] = []
        await w.start_bot()
        thinker = w.service.thinker
        real_run = thinker.run

        async def run(fn: Any, *args: Any, **kw: Any) -> Any:
            t = table_of(w)
            hand = getattr(fn, "__self__", None)
            if not isinstance(hand, Hand):
                hand = next((a for a in args if isinstance(a, Hand)), None)
            seat = next(a for a in args if isinstance(a, int) and not isinstance(a, bool))
            if hand is not None and t.hand is not None:
                given.append((hand, seat, Hand.from_json(t.hand.to_json())))
            return await real_run(fn, *args, **kw)

        thinker.run = run
        await w.slash(w.alice, "ofc new", variant="pineapple", stake=0, buyin=0)
        await w.slash(w.alice, "ofc addbot", level="easy")
        await w.slash(w.alice, "ofc start")
        for _ in range(3):  # alice plays two streets, the bot answers each
            await w.fake.wait_until(lambda: table_of(w).hand is not None and table_of(w).hand
                                    .may_act(hs_of(w, w.alice)), 30, "alice's turn")
            t = table_of(w)
            hs = hs_of(w, w.alice)
            cards = panel_cards((await w.slash(w.alice, "ofc hand")).content)
            await w.slash(w.alice, "ofc place", move=fill_move(t, hs, cards))
        await w.fake.wait_until(lambda: len(given) >= 3, 30, "the bot thought")
        leaks = []
        for hand, seat, real in given:
            if hand.seed == real.seed:
                leaks.append(f"seat {seat}: the deck's seed")
            if list(hand._deck[real._next:]) == list(real._deck[real._next:]):
                leaks.append(f"seat {seat}: the deck order")
            for o in range(real.n):
                if o != seat and real.discards[o] and hand.discards[o] == real.discards[o]:
                    leaks.append(f"seat {seat}: seat {o}'s discards")
        assert not leaks, leaks
        w.fake.assert_clean()


# --------------------------------------------------------------------------- terminal game
def _terminal(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> str:
    import bot.play

    monkeypatch.setattr(bot.play.secrets, "token_hex", lambda n=None: "5eed1e55")
    out = io.StringIO()
    bot.play.main(["--variant", "pineapple", "--bots", "1", "--level", "easy", "--sims", "12",
                   "--no-images"],
                  stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return out.getvalue()


def test_the_terminal_game_never_names_a_bots_hidden_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Five 'auto' streets, then quit before the last: the bot's discards and the cards not
    dealt yet are never printed (in either spelling)."""
    text = _terminal(monkeypatch, ["auto"] * 4 + ["quit"])
    deck = Hand(Rules(variant="pineapple"), ["You", "Bot 1"], 1, seed="5eed1e55/1")._deck
    # the human's first five cards are the first dealt; the bot's and the rest never shown
    assert all(str(c) in text or c.pretty in text for c in deck[:5])
    for c in deck[31:]:  # never dealt before the quit (5+5, then 3 a street each, in turn)
        assert not found(text, [str(c)]), c


def test_the_terminal_game_does_not_print_what_the_deck_is_made_from(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
) -> None:
    """The deck of hand k is random.Random(f'{seed}/{k}').shuffle(DECK): a random seed printed
    at the start (it was, with the replay hint) or naming the images (they were) gives the
    player every card to come and the bots' hidden sets and discards. It is told when the game
    ends (a quit too), and the images are named after the date."""
    text = _terminal(monkeypatch, ["quit"])
    deck = Hand(Rules(variant="pineapple"), ["You", "Bot 1"], 1, seed="5eed1e55/1")._deck
    # (the seed does give the deal: the player's first cards are the deck's first)
    mine = re.search(r"Your cards: (.*?)\s{2}", text)
    assert mine and all(c.pretty in mine.group(1) or str(c) in mine.group(1) for c in deck[:5])
    before_the_end, end = text.split("Game over")
    assert "5eed1e55" not in before_the_end and "--seed 5eed1e55" in end
    import bot.play

    monkeypatch.setattr(bot.play.secrets, "token_hex", lambda n=None: "5eed1e55")
    out = io.StringIO()
    bot.play.main(["--variant", "pineapple", "--bots", "1", "--level", "easy", "--sims", "12",
                   "--images", str(tmp_path)],
                  stdin=io.StringIO("auto\n" * 6), stdout=out)
    text = out.getvalue()
    if "No images" in text:
        pytest.skip("renderer not usable")
    names = [p.name for p in tmp_path.glob("*.png")]
    assert names and not any("5eed1e55" in n for n in names)
    assert all(re.match(r"play-\d{8}-\d{6}-hand01-", n) for n in names), names
    assert "5eed1e55" not in text.split("Game over")[0]
