"""``python -m bench.latency``: its players read the bot's panels and play legal moves, and the
quick run (the real bot against the loopback Discord) measures every kind of interaction in
both phases.  Structure only: timings are the benchmark's to report, never a test's."""

from __future__ import annotations

from typing import Any

import pytest

from bench import latency
from bot.service import Draft, PanelState
from cogs.presenter import panel_text
from engine import Hand, Rules
from engine.notation import parse_move


def _panel(hand: Hand, seat: int) -> PanelState:
    return PanelState(
        table_id=1, seat_no=seat, hand_no=7, step=0, requirement=hand.requirement(seat),
        board=hand.boards[seat], draft=Draft(), fantasyland=bool(hand.fantasyland[seat]),
        discards=hand.discards[seat], waiting_for="", name="x",
    )


@pytest.mark.parametrize("variant, fantasyland", [
    ("ofc", None), ("pineapple", None), ("chinese", None), ("pineapple", 17), ("ofc", 13),
])
def test_players_read_the_panel_and_play_whole_hands(variant: str, fantasyland: int | None
                                                     ) -> None:
    """Every decision of a hand, made from the panel's text as the bench's players make it,
    parses as a move of that requirement and is legal, until the showdown."""
    fl = {0: fantasyland} if fantasyland else None
    hand = Hand(Rules(variant=variant), ["a", "b"], 1, fl, f"latency-{variant}")  # type: ignore[arg-type]
    while not hand.is_over:
        for seat in hand.to_act():
            req = hand.requirement(seat)
            assert req is not None
            p = latency.parse_panel(panel_text(_panel(hand, seat), variant, deadline=2e9))
            assert p is not None and p.hand_no == 7
            assert p.cards == [str(c) for c in req.shown]
            assert (p.place, p.discard, p.is_set) == (req.place, req.discard, req.is_set)
            assert [3, 5, 5] == [p.counts[i] + req.free[i] for i in range(3)]
            placed, drop = latency.plan_move(p)
            text = latency.move_text(placed, drop)
            assert text.endswith(" foul")
            cards, discards = parse_move(text.removesuffix(" foul"), req, hand.boards[seat])
            assert sorted(str(c) for c, _ in cards) == sorted(c for c, _ in placed)
            hand.place(seat, cards, discards)
    assert hand.settlement is not None


def test_a_panel_that_asks_nothing_is_no_move() -> None:
    assert latency.parse_panel("**Your panel** — hand #3\nIt is bob's turn.\nBoard — top: -"
                               " (0/3) | middle: - (0/5) | bottom: - (0/5)") is None


@pytest.fixture(scope="module")
def quick() -> dict[str, Any]:
    return latency.run(["--quick"])


@pytest.mark.e2e
def test_quick_run_measures_every_kind_in_both_phases(quick: dict[str, Any]) -> None:
    r = quick
    assert set(r["phases"]) == {"idle", "load"}
    assert r["phases"]["load"]["tables"] == [k.key for k in latency.TABLE_KINDS]
    assert all(n >= 1 for n in r["phases"]["idle"]["hands"].values())
    assert r["phases"]["load"]["hands"] and all(
        n >= 1 for n in r["phases"]["load"]["hands"].values())
    for table in (t.key for t in latency.TABLE_KINDS):
        assert r["by_table"][table]["initial"]["n"] > 0, table
    for group, kinds in (("kinds", latency.KINDS), ("finals", latency.FINALS)):
        for kind, _ in kinds:
            for phase in ("idle", "load"):
                stats = r[group][kind][phase]
                assert stats["n"] > 0, (group, kind, phase)
                assert set(stats) == {"n", "p50", "p95", "max", "over"}
    assert r["interactions"] >= sum(r["kinds"][k][p]["n"] for k, _ in latency.KINDS
                                    for p in ("idle", "load"))
    # the bot understood the stand-in and stopped cleanly
    assert r["fake"]["unhandled"] == [] and r["fake"]["internal_errors"] == []
    assert r["exit_code"] == 0, "\n".join(r["stop_tail"])
    assert r["stop_tail"] == []
    # its way out, step by step (OFCBot.close), and how long it took
    steps = [line.split("ofc.bot: ")[1] for line in r["stop_steps"]]
    assert steps[0].startswith("stopping: the tables") and steps[-1] == "stopped", steps
    assert 0 < r["stop_seconds"] < latency.STOP_WAIT


@pytest.mark.e2e
def test_the_report_has_every_row_and_the_verdict(quick: dict[str, Any]) -> None:
    text = latency.render(quick)
    assert text.startswith("$ python -m bench.latency --quick")
    for _, label in latency.KINDS + latency.FINALS:
        assert label in text
    assert "load/idle" in text and "initial responses later than 3 s:" in text
    assert "every initial response within 3 s:" in text
