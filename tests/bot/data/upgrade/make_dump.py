"""Make one database of tests/bot/test_upgrade_review.py with an OLDER version of the bot.

Run it with that version's own code (its worktree and virtual environment), never this
checkout's::

    git worktree add /tmp/upgrade-<hash> <hash>
    cd /tmp/upgrade-<hash> && python3.11 -m venv .venv && .venv/bin/pip install -e '.[dev]'
    .venv/bin/python /work/main/tests/bot/data/upgrade/make_dump.py \
        /work/main/tests/bot/data/upgrade/<hash>.sql

It drives that version's TableService and Store without Discord (as its tests/bot/
test_service.py does: the service's own autoplay stands for the players' moves), stops it as
the bot stops (``shutdown``, then the store closed) and writes the database as SQL text
(``sqlite3``'s ``iterdump``, with ``PRAGMA user_version``, which a dump leaves out).  Every
table sits in its own channel, the same in every dump (the test finds them by channel):

guild 10 (default settings)
  1001 ofc, scoring 2-4, stake 2, buy-in 300, 90 s clock: alice, bob, carol; two hands
       settled, carol sitting out, hand 3 on a later street, the player to act with a card
       picked and put on a row in the panel (a draft, not confirmed)
  1002 pineapple: dave, erin and an easy bot; one hand settled, hand 2 on street 3 (discards
       made); strict top and the two-colour deck where the version has /ofc options
  1003 chinese: frank, grace, heidi; one hand settled, hand 2 with frank's and grace's sets
       made (grace asked to leave), heidi's not
  1004 pineapple: ivan, judy; one stacked hand settled that sent ivan or judy to a 14-card
       fantasyland, the bot stopped before the next deal (the fantasyland owed)
  1005 ofc, stake 3: mallory, nick; one stacked hand that sent one of them to fantasyland,
       hand 2 that fantasyland hand, set so that it stays in fantasyland (the other player
       one street in), and the table closing
guild 11 (start balance 2000, default buy-in 400; idle_hours 48 where the version has it)
  2001 ofc: kate, leo; one stacked hand that sent one of them to fantasyland, hand 2 its
       fantasyland hand being played (not set yet; the other player two streets in)
  2002 ofc: alice, peggy; one hand settled, then closed (after a second hand settled)
  2003 chinese practice: quinn and a normal bot; one hand settled
  2004 ofc: rita opened it, sam and tom joined; rita left during hand 1, hand 2 dealt to sam
       and tom
  and a grant of 500 units to kate by the admin (user 900).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import itertools
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from typing import Any

from bot.service import TableService
from bot.store import Store
from engine import Hand, parse_cards

G1, G2 = 10, 11
ADMIN = 900
ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE, HEIDI = range(101, 109)
IVAN, JUDY, KATE, LEO, MALLORY, NICK, PEGGY, QUINN = range(109, 117)
RITA, SAM, TOM = range(117, 120)

# Two boards (card -> row, 0 top, 1 middle, 2 bottom): the first earns a fantasyland (queens
# on top), the second plays a clean board; then the discards of each seat (pineapple).
EARNER = {"Qh": 0, "Qd": 0, "2c": 0, "Kh": 1, "Kd": 1, "3c": 1, "4d": 1, "7s": 1,
          "Ah": 2, "Ad": 2, "As": 2, "8c": 2, "9d": 2}
OTHER = {"5c": 0, "6d": 0, "8h": 0, "9s": 1, "9c": 1, "Tc": 1, "Jd": 1, "2h": 1,
         "Js": 2, "Jc": 2, "3h": 2, "3s": 2, "5d": 2}
DISCARDS = (["2s", "4s", "6s", "7c"], ["7d", "8d", "8s", "Th"])


def _cards(names: list[str]) -> list[Any]:
    return list(parse_cards(" ".join(names)))


def stacked_deck(variant: str) -> list[Any]:
    """The cards in dealing order for two players (the first to act gets EARNER's board)."""
    boards = [list(EARNER), list(OTHER)]
    if variant == "ofc":
        streets = [[b[:5] for b in boards]] + [[b[5 + k: 6 + k] for b in boards]
                                                for k in range(8)]
    else:
        streets = [[b[:5] for b in boards]] + [
            [b[5 + 2 * k: 7 + 2 * k] + [d[k]] for b, d in zip(boards, DISCARDS, strict=True)]
            for k in range(4)]
    return _cards([c for street in streets for cards in street for c in cards])


ROWS = {c: r for board in (EARNER, OTHER) for c, r in board.items()}
# A fantasyland hand whose setting stays in fantasyland (full house in the middle, quads at
# the bottom), and the other player's cards in that hand.
STAYS = {"Ks": 0, "Kc": 0, "5h": 0, "7c": 1, "7d": 1, "7h": 1, "8s": 1, "8d": 1,
         "9c": 2, "9d": 2, "9h": 2, "9s": 2, "Ac": 2}
BESIDE = ["2c", "3d", "4s", "5c", "5d", "6h", "Tc", "Jd", "Qh", "Qd", "2h", "2d", "6s"]


def staying_deck() -> list[Any]:
    """An ofc fantasyland hand for two (the fantasyland dealt first): STAYS, then BESIDE."""
    return _cards([*STAYS, *BESIDE])


class Builder:
    def __init__(self, svc: TableService) -> None:
        self.svc = svc

    def table(self, channel: int) -> Any:
        return self.svc.table_in_channel(channel)

    async def until(self, what: Any, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while not what():
            if time.monotonic() > deadline:
                raise RuntimeError("timed out")
            await asyncio.sleep(0.01)

    async def move(self, channel: int, hs: int | None = None, regular: bool = False) -> None:
        """One decision as a player would make it (the autoplay's choice, not marked auto);
        ``regular``: of a seat not in fantasyland."""
        t = self.table(channel)
        async with t.lock:
            assert t.hand is not None and not t.hand.is_over
            if hs is None:
                hs = next(s for s in t.hand.to_act() if not (regular and t.hand.fantasyland[s]))
            copy = Hand.from_json(t.hand.to_json())
            action = copy.autoplay(hs)
            if "auto" in {f.name for f in dataclasses.fields(action)}:
                action = dataclasses.replace(action, auto=False)
            t.hand.apply(action)
            await self.svc._after_action(t)

    async def place_by(self, channel: int, hs: int, rows: dict[str, int]) -> None:
        """Seat ``hs`` places the cards it holds by ``rows``."""
        t = self.table(channel)
        async with t.lock:
            req = t.hand.requirement(hs)
            t.hand.place(hs, [(c, rows[str(c)]) for c in req.cards], [])
            await self.svc._after_action(t)

    async def scripted(self, channel: int) -> None:
        """Play a stacked hand to its end by ROWS (the cards not in ROWS are discarded)."""
        t = self.table(channel)
        while t.hand is not None and not t.hand.is_over:
            async with t.lock:
                hs = t.hand.to_act()[0]
                req = t.hand.requirement(hs)
                placed = [(c, ROWS[str(c)]) for c in req.cards if str(c) in ROWS]
                dropped = [c for c in req.cards if str(c) not in ROWS]
                t.hand.place(hs, placed, dropped)
                await self.svc._after_action(t)

    async def finish(self, channel: int) -> int:
        """Play the hand to its end; its number."""
        t = self.table(channel)
        number = t.row.hand_no
        while t.hand is not None and not t.hand.is_over and t.row.hand_no == number:
            await self.move(channel)
        return number

    async def next_hand(self, channel: int, number: int) -> None:
        t = self.table(channel)
        await self.until(lambda: t.hand is not None and t.row.hand_no == number)

    async def street(self, channel: int, street: int, extra: int = 0,
                     regular: bool = False) -> None:
        """Play until the hand reaches ``street``, then ``extra`` decisions more (``regular``:
        the seats in fantasyland do not set their hands)."""
        t = self.table(channel)
        while t.hand.street < street:
            await self.move(channel, regular=regular)
        for _ in range(extra):
            await self.move(channel, regular=regular)


async def build(path: str) -> None:
    seeds = (f"upgrade-{n}" for n in itertools.count(1))
    decks: dict[int, list[Any]] = {}
    store = await Store.open(path)
    svc = TableService(store, None, next_hand_delay=0.05, seed_factory=lambda: next(seeds),
                       deck_factory=lambda t: decks.pop(t.row.channel_id, None),
                       bot_delay=3600.0)
    b = Builder(svc)
    settings: dict[str, Any] = {"start_balance": 2000, "default_buyin": 400}
    try:
        await svc.update_settings(G2, True, **settings, idle_hours=48)
    except Exception:  # (a version before idle tables)
        await svc.update_settings(G2, True, **settings)
    has_options = hasattr(svc, "set_options")

    # 1001: ofc, two hands, carol sitting out, hand 3 on a later street
    await svc.new_table(G1, 1001, ALICE, "alice", variant="ofc", stake=2, buyin=300,
                        scoring="2-4", timer=90)
    await svc.join(G1, 1001, BOB, "bob")
    await svc.join(G1, 1001, CAROL, "carol", buyin=150)
    await svc.start(1001, ALICE)
    await b.finish(1001)
    await b.next_hand(1001, 2)
    await svc.sit_out(1001, CAROL, True)
    await b.finish(1001)
    await b.next_hand(1001, 3)
    await b.street(1001, 3, extra=1)
    t1 = b.table(1001)  # the player to act has picked a card and pressed a row (a draft)
    hs = t1.hand.to_act()[0]
    req = t1.hand.requirement(hs)
    seat = t1.seat_by_no(t1.hand_seats[hs])
    row = next(r for r in range(3) if req.free[r])
    key = (t1.id, seat.user_id, seat.seat_no, t1.row.hand_no, svc.step_of(t1, hs))
    await svc.panel_action(*key, "pick", [str(req.cards[0])])
    await svc.panel_action(*key, ("top", "middle", "bottom")[row])

    # 1002: pineapple with a bot, hand 2 with discards made
    await svc.new_table(G1, 1002, DAVE, "dave", variant="pineapple", timer=300)
    await svc.join(G1, 1002, ERIN, "erin")
    await svc.add_bot(1002, DAVE, "easy")
    if has_options:
        try:
            await svc.set_options(1002, DAVE, False, deck="two", strict_top=True)
        except Exception as e:  # (an option this version does not have)
            print("set_options:", e, file=sys.stderr)
    await svc.start(1002, DAVE)
    await b.finish(1002)
    await b.next_hand(1002, 2)
    await b.street(1002, 3, extra=1)

    # 1003: chinese, hand 2 with two sets made, one of them leaving
    await svc.new_table(G1, 1003, FRANK, "frank", variant="chinese", timer=300)
    await svc.join(G1, 1003, GRACE, "grace")
    await svc.join(G1, 1003, HEIDI, "heidi")
    await svc.start(1003, FRANK)
    await b.finish(1003)
    await b.next_hand(1003, 2)
    t3 = b.table(1003)
    for user in (FRANK, GRACE):
        await b.move(1003, t3.hand_seat_of(t3.seat_of_user(user).seat_no))
    await svc.leave(1003, GRACE)

    # 2001: ofc, a fantasyland earned, its hand being played
    await svc.new_table(G2, 2001, KATE, "kate", variant="ofc", timer=300)
    await svc.join(G2, 2001, LEO, "leo")
    decks[2001] = stacked_deck("ofc")
    await svc.start(2001, KATE)
    await b.scripted(2001)
    await b.next_hand(2001, 2)
    await b.street(2001, 3, regular=True)

    # 1005: ofc, closing during a fantasyland hand whose setting stays in fantasyland
    await svc.new_table(G1, 1005, MALLORY, "mallory", variant="ofc", stake=3, timer=300)
    await svc.join(G1, 1005, NICK, "nick")
    decks[1005] = stacked_deck("ofc")
    await svc.start(1005, MALLORY)
    decks[1005] = staying_deck()
    await b.scripted(1005)
    await b.next_hand(1005, 2)
    t5 = b.table(1005)
    await b.place_by(1005, next(hs for hs, c in enumerate(t5.hand.fantasyland) if c), STAYS)
    await b.street(1005, 2, regular=True)
    await svc.close(1005, MALLORY, False)

    # 2002: ofc, closed after two hands
    await svc.new_table(G2, 2002, ALICE, "alice", variant="ofc", timer=300)
    await svc.join(G2, 2002, PEGGY, "peggy")
    await svc.start(2002, ALICE)
    await b.finish(2002)
    await b.next_hand(2002, 2)
    await svc.close(2002, ALICE, False)
    t22 = b.table(2002)
    await b.finish(2002)
    await b.until(lambda: t22.row.status == "closed")

    # 2003: chinese practice against a bot
    await svc.new_table(G2, 2003, QUINN, "quinn", variant="chinese", timer=300)
    await svc.add_bot(2003, QUINN, "normal")
    await svc.start(2003, QUINN)
    await b.finish(2003)
    await b.next_hand(2003, 2)

    # 2004: ofc whose creator left (during hand 1): sam and tom play on, hand 2 dealt
    await svc.new_table(G2, 2004, RITA, "rita", variant="ofc", timer=300)
    await svc.join(G2, 2004, SAM, "sam")
    await svc.join(G2, 2004, TOM, "tom")
    await svc.start(2004, RITA)
    await svc.leave(2004, RITA)
    await b.finish(2004)
    await b.next_hand(2004, 2)

    grant = svc.grant
    kw = {"reason": "welcome"} if "reason" in inspect.signature(grant).parameters else {}
    await grant(G2, ADMIN, KATE, "kate", 500, True, **kw)

    # 1004 last: pineapple, the fantasyland owed when the bot stops (no next deal)
    await svc.new_table(G1, 1004, IVAN, "ivan", variant="pineapple", timer=300)
    await svc.join(G1, 1004, JUDY, "judy")
    decks[1004] = stacked_deck("pineapple")
    svc.next_hand_delay = 3600.0
    await svc.start(1004, IVAN)
    await b.scripted(1004)
    t4 = b.table(1004)
    await b.until(lambda: t4.hand is None)
    await asyncio.sleep(0.3)  # (the showdown goes out)

    await svc.shutdown()
    await store.close()


def main() -> None:
    out = sys.argv[1]
    commit = subprocess.run(["git", "log", "-1", "--format=%h %ad", "--date=iso"],
                            capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ofc.sqlite3")
        asyncio.run(build(path))
        db = sqlite3.connect(path)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        hands = db.execute("SELECT COUNT(*) FROM hands").fetchone()[0]
        lines = list(db.iterdump())
        db.close()
    with open(out, "w", encoding="utf-8") as f:
        f.write(f"-- Made by tests/bot/data/upgrade/make_dump.py at commit {commit} (schema "
                f"{version}, {hands} hands): 2 servers, 9 tables (ofc mid-hand on a later "
                "street with a panel draft, pineapple with discards and a bot, chinese with "
                "sets made, a fantasyland owed, one being played, a closing table in a "
                "fantasyland hand, a closed one, a practice table, one its creator left), a "
                "sitting-out player, a leaver, a grant.\n")
        f.write(f"PRAGMA user_version = {version};\n")
        for line in lines:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
