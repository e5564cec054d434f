"""Hypothesis strategies shared by the engine tests."""

from hypothesis import strategies as st

from engine import DECK, Board


@st.composite
def boards(draw: st.DrawFn, n: int = 1) -> list[Board]:
    cards = draw(st.permutations(DECK))
    out = []
    for i in range(n):
        chunk = cards[13 * i : 13 * (i + 1)]
        out.append(Board(tuple(chunk[:3]), tuple(chunk[3:8]), tuple(chunk[8:13])))
    return out
