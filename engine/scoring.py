"""Settlement between every pair of players, and points -> units with the stack cap."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .board import Board, chinese_row_bonus
from .evaluator import HIGH_CARD
from .naturals import compare_naturals
from .rules import Rules


@dataclass(frozen=True)
class PairResult:
    """One pair of players settled, from seat ``a``'s point of view (``b`` gets ``-total``)."""

    a: int
    b: int
    rows: tuple[int, int, int] | None
    """+1 a won the row, -1 b won it, 0 tie; None when rows were not compared."""
    row_points: tuple[int, int, int]
    """Points to a from each row (chinese bonuses included)."""
    scoop: int
    """+1 a scooped (won all three rows), -1 b scooped, 0 neither."""
    bonus: int
    """Scoop / overall bonus points to a."""
    royalties: tuple[int, int]
    """Royalties of a and b that were paid in this pair."""
    fouled: tuple[bool, bool]
    surrendered: tuple[bool, bool]
    naturals: tuple[str | None, str | None]
    natural_points: int
    moon: tuple[bool, bool]
    moon_points: int
    surrender_points: int
    total: int
    note: str = ""

    @property
    def royalty_points(self) -> int:
        return self.royalties[0] - self.royalties[1]

    def flipped(self) -> PairResult:
        """The same result seen from b."""

        def swap(t: tuple[Any, Any]) -> tuple[Any, Any]:
            return (t[1], t[0])

        return PairResult(
            a=self.b,
            b=self.a,
            rows=None if self.rows is None else (-self.rows[0], -self.rows[1], -self.rows[2]),
            row_points=(-self.row_points[0], -self.row_points[1], -self.row_points[2]),
            scoop=-self.scoop,
            bonus=-self.bonus,
            royalties=swap(self.royalties),
            fouled=swap(self.fouled),
            surrendered=swap(self.surrendered),
            naturals=swap(self.naturals),
            natural_points=-self.natural_points,
            moon=swap(self.moon),
            moon_points=-self.moon_points,
            surrender_points=-self.surrender_points,
            total=-self.total,
            note=self.note,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b,
            "rows": None if self.rows is None else list(self.rows),
            "row_points": list(self.row_points), "scoop": self.scoop, "bonus": self.bonus,
            "royalties": list(self.royalties), "fouled": list(self.fouled),
            "surrendered": list(self.surrendered), "naturals": list(self.naturals),
            "natural_points": self.natural_points, "moon": list(self.moon),
            "moon_points": self.moon_points, "surrender_points": self.surrender_points,
            "total": self.total, "note": self.note,
        }


@dataclass(frozen=True)
class Settlement:
    """The result of one hand: ``totals`` (points, seat order, sum 0) and the breakdown."""

    totals: list[int]
    pairs: list[PairResult]
    fouled: list[bool]
    royalties: list[int]
    row_royalties: list[tuple[int, int, int]]
    surrendered: list[bool]
    naturals: list[str | None]
    moon: list[bool]
    boards: list[Board | None] = field(default_factory=list)

    def pair(self, a: int, b: int) -> PairResult:
        for p in self.pairs:
            if p.a == a and p.b == b:
                return p
            if p.a == b and p.b == a:
                return p.flipped()
        raise KeyError((a, b))

    def matrix(self) -> list[list[int]]:
        """m[i][j]: points i receives from j."""
        n = len(self.totals)
        m = [[0] * n for _ in range(n)]
        for p in self.pairs:
            m[p.a][p.b] = p.total
            m[p.b][p.a] = -p.total
        return m

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": self.totals,
            "pairs": [p.to_json() for p in self.pairs],
            "fouled": self.fouled,
            "royalties": self.royalties,
            "row_royalties": [list(r) for r in self.row_royalties],
            "surrendered": self.surrendered,
            "naturals": self.naturals,
            "moon": self.moon,
        }


def shoots_moon(board: Board) -> bool:
    """A complete board's bottom is jack-high or lower, no pair or better (the moon's test;
    whether the board fouls is the caller's to check)."""
    bottom = board.values()[2]
    return bottom.category == HIGH_CARD and bottom.ranks[0] <= 11


def settle(
    boards: Sequence[Board | None],
    rules: Rules | None = None,
    surrendered: Iterable[int] = (),
    naturals: Mapping[int, str] | None = None,
) -> Settlement:
    """Settle a finished hand.  ``boards`` in seat order; a seat that surrendered or declared a
    natural may have ``None`` (or any board: it is not compared)."""
    rules = rules or Rules()
    n = len(boards)
    surr = [False] * n
    for s in surrendered:
        surr[s] = True
    nat: list[str | None] = [None] * n
    for seat, name in (naturals or {}).items():
        if name not in rules.natural_values:
            raise ValueError(f"'{name}' is not a natural at this table")
        nat[seat] = name
    chinese = rules.variant == "chinese"
    fouled = [False] * n
    row_roy: list[tuple[int, int, int]] = [(0, 0, 0)] * n
    moon = [False] * n
    for i, board in enumerate(boards):
        if surr[i] or nat[i]:
            fouled[i] = surr[i] and not chinese  # ofc/pineapple: surrender scores as a foul
            continue
        if board is None or not board.is_complete:
            raise ValueError(f"Seat {i} has no finished board")
        fouled[i] = board.is_foul(rules)
        row_roy[i] = board.row_royalties(rules)
        if rules.shoot_the_moon and not fouled[i]:
            moon[i] = shoots_moon(board)
    royalties = [sum(r) for r in row_roy]
    pairs = []
    for a in range(n):
        for b in range(a + 1, n):
            pairs.append(_pair(a, b, boards, rules, surr, nat, fouled, royalties, moon))
    totals = [0] * n
    for p in pairs:
        totals[p.a] += p.total
        totals[p.b] -= p.total
    return Settlement(
        totals=totals, pairs=pairs, fouled=fouled, royalties=royalties, row_royalties=row_roy,
        surrendered=surr, naturals=nat, moon=moon, boards=list(boards),
    )


def _pair(
    a: int, b: int, boards: Sequence[Board | None], rules: Rules, surr: list[bool],
    nat: list[str | None], fouled: list[bool], royalties: list[int], moon: list[bool],
) -> PairResult:
    chinese = rules.variant == "chinese"
    rows: tuple[int, int, int] | None = None
    row_points = (0, 0, 0)
    scoop = bonus = natural_points = moon_points = surrender_points = 0
    roy = (0, 0)
    note = ""
    if chinese and (surr[a] or surr[b]):
        if surr[a] and surr[b]:
            note = "both surrendered"
        else:
            surrender_points = rules.chinese_surrender * (-1 if surr[a] else 1)
            note = "surrender"
    elif nat[a] or nat[b]:
        natural_points = compare_naturals(nat[a], nat[b], rules)
        note = "natural"
    elif fouled[a] and fouled[b]:
        note = "both fouled" if not (surr[a] or surr[b]) else "both fouled or surrendered"
    else:
        if fouled[a] or fouled[b]:
            rows = (-1, -1, -1) if fouled[a] else (1, 1, 1)
            note = "surrender" if (surr[a] or surr[b]) else "foul"
        else:
            va, vb = boards[a].values(), boards[b].values()  # type: ignore[union-attr]
            o = [(x > y) - (x < y) for x, y in zip(va, vb, strict=True)]
            rows = (o[0], o[1], o[2])
        assert rows is not None
        pts = []
        for r, outcome in enumerate(rows):
            if outcome == 0:
                pts.append(0)
                continue
            winner = a if outcome > 0 else b
            unit = 1
            if chinese and rules.chinese_bonuses:
                unit = chinese_row_bonus(r, boards[winner].values()[r])  # type: ignore[union-attr]
            pts.append(unit * outcome)
        row_points = (pts[0], pts[1], pts[2])
        wins_a = rows.count(1)
        wins_b = rows.count(-1)
        if wins_a == 3:
            scoop = 1
        elif wins_b == 3:
            scoop = -1
        bonus = scoop * rules.scoop_bonus
        if wins_a != wins_b:
            bonus += rules.overall_bonus * (1 if wins_a > wins_b else -1)
        roy = (0 if fouled[a] else royalties[a], 0 if fouled[b] else royalties[b])
    if moon[a] != moon[b] and not (chinese and (surr[a] or surr[b])) and not (nat[a] or nat[b]):
        moon_points = rules.shoot_the_moon_points * (1 if moon[a] else -1)
    total = (
        sum(row_points) + bonus + roy[0] - roy[1] + natural_points + moon_points
        + surrender_points
    )
    return PairResult(
        a=a, b=b, rows=rows, row_points=row_points, scoop=scoop, bonus=bonus, royalties=roy,
        fouled=(fouled[a], fouled[b]), surrendered=(surr[a], surr[b]),
        naturals=(nat[a], nat[b]), natural_points=natural_points, moon=(moon[a], moon[b]),
        moon_points=moon_points, surrender_points=surrender_points, total=total, note=note,
    )


PLAIN_PASSES = 1000
"""``units_moved``: passes of the caps as the rules say them before a share may only go down
(random searches of four players, pair results up to ±200 points and units up to 1,000,
needed at most 92; the bound only makes the end certain)."""


def units_moved(
    settlement: Settlement | Sequence[Sequence[int]],
    unit: int = 1,
    stacks: Sequence[int] | None = None,
    button: int = 0,
) -> list[int]:
    """Units each seat wins (+) or loses (-): points x ``unit``, nobody losing more than their
    stack.  A capped loser pays what it has (plus what it won from others) to the opponents it
    owes, in proportion to what each is owed, in whole units; the remainder goes to the earliest
    creditor left of the button.  Always sums to zero.

    The caps are applied again, pass after pass, until nothing changes (a capped loser pays
    its creditors less, who may then be capped in turn: a cascade can take tens of passes).
    Whole-unit shares are not monotone in what a loser pays (one unit less can give one
    creditor one unit more), so after ``PLAIN_PASSES`` passes a share may only go down: each
    later change lowers a whole number that cannot go below 0, so the passes end, and where
    they end every stack covers its loss."""
    m = settlement.matrix() if isinstance(settlement, Settlement) else [list(r) for r in settlement]
    n = len(m)
    u = [[m[i][j] * unit for j in range(n)] for i in range(n)]
    if stacks is None:
        return [sum(r) for r in u]
    return [sum(r) for r in capped_transfers(u, stacks, button)]


def capped_transfers(u: list[list[int]], stacks: Sequence[int], button: int) -> list[list[int]]:
    """``units_moved``'s pairs: ``u[i][j]`` the units ``i`` wins from ``j`` (antisymmetric,
    changed in place and returned), capped by the stacks as ``units_moved`` says."""
    n = len(u)
    order = [(button + 1 + k) % n for k in range(n)]
    claims = [row[:] for row in u]  # what each is owed before any cap: shares follow these
    passes = 0
    while True:
        only_down = passes >= PLAIN_PASSES
        passes += 1
        changed = False
        for loser in order:
            net = sum(u[loser])
            if -net <= stacks[loser]:
                continue
            receipts = sum(x for x in u[loser] if x > 0)
            owed = {c: -claims[loser][c] for c in order if claims[loser][c] < 0}
            total_owed = sum(owed.values())
            payable = min(total_owed, max(0, stacks[loser] + receipts))
            shares = {c: owed[c] * payable // total_owed for c in owed}
            rest = payable - sum(shares.values())
            for c in order:
                if c in owed and rest > 0:
                    extra = min(rest, owed[c] - shares[c])
                    shares[c] += extra
                    rest -= extra
            for c, share in shares.items():
                if only_down:
                    share = min(share, u[c][loser])
                if u[c][loser] != share:
                    u[c][loser] = share
                    u[loser][c] = -share
                    changed = True
        if not changed:
            return u
