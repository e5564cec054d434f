"""``units_moved`` when short stacks cap each other in a cascade (RULES.md "Stakes": nobody
loses more than the stack they brought; a capped loser's creditors are paid shares in
proportion to what each is owed, in whole units, the remainder to the earliest creditor left
of the button).  A mutation review found that the passes stopped after 4n^2+4 even when the
caps had not settled (tests/bot/test_mutation_units2_review.py, LONG_CASCADE): a seat could
lose more than its stack and the store refused the hand.  The passes now go on until nothing
changes; after ``PLAIN_PASSES`` a share may only go down, which makes the end certain."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.scoring as scoring
from engine import units_moved

# Four seats, stake 25, stacks of one point's worth but one: 72 passes to settle.
LONG = ([[0, 59, -47, -3], [-59, 0, 49, 1], [47, -49, 0, -3], [3, -1, 3, 0]], 25,
        [25, 25, 25, 100], 3)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[list[int]], int, list[int], int]:
    """Pair results (antisymmetric, up to ±200 points), a unit, short stacks, a button."""
    n = draw(st.integers(2, 4))
    m = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            v = draw(st.integers(-200, 200))
            m[i][j], m[j][i] = v, -v
    unit = draw(st.sampled_from([1, 2, 5, 25, 100, 1000]))
    stacks = [draw(st.integers(0, 4 * unit)) for _ in range(n)]
    return m, unit, stacks, draw(st.integers(0, n - 1))


def _shares(owed: dict[int, int], payable: int, order: list[int]) -> dict[int, int]:
    """RULES.md's shares, written again: in proportion, whole units, the remainder to the
    earliest creditor left of the button (up to what it is owed)."""
    total = sum(owed.values())
    shares = {c: owed[c] * payable // total for c in owed}
    rest = payable - sum(shares.values())
    for c in order:
        if c in owed and rest > 0:
            extra = min(rest, owed[c] - shares[c])
            shares[c] += extra
            rest -= extra
    return shares


def _settled(m: list[list[int]], unit: int, stacks: list[int], button: int,
             u: list[list[int]]) -> bool:
    """Every seat pays what the rules say given what it receives: all it owes, or (short)
    its stack plus what it receives, shared among its creditors."""
    n = len(m)
    order = [(button + 1 + k) % n for k in range(n)]
    for seat in range(n):
        owed = {c: -m[seat][c] * unit for c in order if m[seat][c] < 0}
        if not owed:
            continue
        receipts = sum(x for x in u[seat] if x > 0)
        payable = min(sum(owed.values()), max(0, stacks[seat] + receipts))
        if {c: u[c][seat] for c in owed} != _shares(owed, payable, order):
            return False
    return True


def _pairs(m: list[list[int]], unit: int, stacks: list[int], button: int) -> list[list[int]]:
    return scoring.capped_transfers([[x * unit for x in row] for row in m], stacks, button)


def test_a_cascade_of_72_passes_settles_within_every_stack() -> None:
    m, unit, stacks, button = LONG
    assert units_moved(m, unit, stacks, button) == [-25, -25, -25, 75]
    assert _settled(m, unit, stacks, button, _pairs(m, unit, stacks, button))


@settings(max_examples=300, deadline=None)
@given(tables())
def test_nobody_loses_more_than_their_stack_and_every_hand_sums_to_zero(
    t: tuple[list[list[int]], int, list[int], int],
) -> None:
    m, unit, stacks, button = t
    got = units_moved(m, unit, stacks, button)
    assert sum(got) == 0
    for seat, won in enumerate(got):
        assert -won <= stacks[seat]
        assert won <= sum(x for x in m[seat] if x > 0) * unit  # nobody is paid more than
        assert -won <= -sum(x for x in m[seat] if x < 0) * unit  # they won, nor pays more


@settings(max_examples=300, deadline=None)
@given(tables())
def test_the_caps_settle_where_every_seat_pays_what_the_rules_say(
    t: tuple[list[list[int]], int, list[int], int],
) -> None:
    """Where the passes end (well within ``PLAIN_PASSES`` in these), every seat pays all it
    owes or, short, its stack plus what it receives, in the rules' shares: a fixed point."""
    m, unit, stacks, button = t
    u = _pairs(m, unit, stacks, button)
    assert all(u[i][j] == -u[j][i] for i in range(len(m)) for j in range(len(m)))
    assert _settled(m, unit, stacks, button, u)


@settings(max_examples=200, deadline=None)
@given(tables())
def test_when_shares_may_only_go_down_the_passes_end_within_every_stack(
    t: tuple[list[list[int]], int, list[int], int],
) -> None:
    """The phase after ``PLAIN_PASSES`` (here from the first pass): it ends, nobody loses
    more than their stack, and the hand sums to zero."""
    m, unit, stacks, button = t
    before = scoring.PLAIN_PASSES
    scoring.PLAIN_PASSES = 0
    try:
        got = units_moved(m, unit, stacks, button)
    finally:
        scoring.PLAIN_PASSES = before
    assert sum(got) == 0 and all(-won <= s for won, s in zip(got, stacks, strict=True))


def test_the_long_cascade_with_shares_only_going_down_from_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scoring, "PLAIN_PASSES", 0)
    m, unit, stacks, button = LONG
    got = units_moved(m, unit, stacks, button)
    assert sum(got) == 0 and all(-won <= s for won, s in zip(got, stacks, strict=True))
