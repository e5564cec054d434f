"""A declared natural is revealed face up at the showdown, in the image and in the text."""

from engine import Board, Rules, parse_cards, settle
from renderer import ShowdownView, describe_showdown, render_showdown, showdown_layout


def _view(with_cards: bool) -> ShowdownView:
    rules = Rules(variant="chinese")
    dragon = tuple(parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"))
    other = Board.parse("2h 3h 4d / 5d 5h 6d 6h 7s / 8c 8d 9c 9d Th")
    st = settle([None, other], rules, naturals={0: "dragon"})
    return ShowdownView(("Ann", "Bob"), st, rules, natural_cards=(dragon, ()) if with_cards else ())


def test_natural_cards_drawn_face_up_and_listed() -> None:
    view = _view(True)
    faces = {str(s.card) for s in showdown_layout(view) if s.kind == "face" and s.seat == 0}
    assert faces == {str(c) for c in view.natural_cards[0]}
    text = describe_showdown(view)
    assert "Ann — declared dragon: Ac Ks Qh Jd Tc 9s 8h 7d 6c 5s 4h 3d 2c" in text
    assert render_showdown(view)[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_the_cards_the_natural_stays_face_down() -> None:
    view = _view(False)
    spots = [s for s in showdown_layout(view) if s.seat == 0]
    assert spots and all(s.kind == "back" for s in spots)
