"""Emoji in names and titles are drawn in colour (Noto Color Emoji, its bitmaps made small by
``renderer.emoji_build``), whole: a ZWJ sequence, a flag, a keycap, a skin tone is one picture,
as Discord shows it; the letters around them keep the text's colour."""

from __future__ import annotations

from fontTools.ttLib import TTFont  # type: ignore[import-untyped]
from PIL import Image

from engine import Board
from renderer import LeaderboardView, LeaderRow, SeatView, TableView
from renderer.fonts import (
    EMOJI,
    EMOJI_PATH,
    EMOJI_PPEM,
    drawable,
    emoji_length,
    fit_name,
    fit_text,
    runs,
    text_layers,
    text_mask,
    text_width,
)
from renderer.leaderboard import leaderboard_scene
from renderer.table import table_scene

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 👨‍👩‍👧‍👦
RAINBOW = "\U0001f3f3\ufe0f\u200d\U0001f308"  # 🏳️‍🌈
FRANCE = "\U0001f1eb\U0001f1f7"  # 🇫🇷
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽
KEYCAP = "#\ufe0f\u20e3"  # #️⃣
ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
FIRE = "\U0001f525"  # 🔥


def _pixels(image: Image.Image) -> list[tuple[int, ...]]:
    data, n = image.tobytes(), len(image.getbands())
    return [tuple(data[i:i + n]) for i in range(0, len(data), n)]


def _colourful(picture: Image.Image) -> int:
    """How many opaque pixels of an RGBA picture are clearly coloured (not grey)."""
    return sum(1 for r, g, b, a in _pixels(picture.convert("RGBA"))
               if a > 200 and max(r, g, b) - min(r, g, b) > 80)


def test_the_font_is_the_small_colour_emoji_font() -> None:
    """The packaged font: one bitmap strike of 32 pixels an em, every emoji of Noto 2.042 (its
    character map and the ligatures that join sequences)."""
    font = TTFont(str(EMOJI_PATH))
    assert [s.bitmapSizeTable.ppemX for s in font["CBLC"].strikes] == [EMOJI_PPEM]
    assert len(font.getBestCmap()) >= 1400 and "GSUB" in font
    assert EMOJI_PATH.stat().st_size < 4_000_000


def test_an_emoji_is_cut_whole_from_the_text_around_it() -> None:
    for emoji in (FAMILY, RAINBOW, FRANCE, THUMB, KEYCAP, ENGLAND, FIRE, "\u2764\ufe0f",
                  "\u2b50"):
        text = f"a{emoji}b"
        assert emoji_length(text, 1) == len(emoji), emoji
        assert runs(text, "bold") == (("a", "bold"), (emoji, EMOJI), ("b", "bold"))
    # two flags side by side are two pairs; a lone regional indicator is one
    assert emoji_length(FRANCE + FRANCE, 0) == 2 and emoji_length("\U0001f1eb", 0) == 1


def test_text_that_only_looks_like_emoji_stays_text() -> None:
    """Digits, # and * are letters unless a keycap follows; ♠, ❤, ☀ (text by default) stay in
    the text's font and colour unless U+FE0F asks for the emoji."""
    for text in ("Player 7", "#1", "*star*", "\u2660 \u2764 \u2600", "10\u20ac"):
        assert all(key != EMOJI for _, key in runs(text, "bold")), text
        assert all(emoji_length(text, i) == 0 for i in range(len(text))), text
    assert runs("\u2764\ufe0f", "bold") == (("\u2764\ufe0f", EMOJI),)


def test_a_name_of_emoji_only_is_drawn_as_itself() -> None:
    for name in (FIRE + FIRE, FAMILY, "\U0001f3b2"):
        assert drawable(name, "bold") == name
        mask, colour, _, _ = text_layers(name, "bold", 24, "lm")
        assert colour is not None and mask.getbbox() is None  # no letters, the picture only
        assert sum(1 for *_, a in _pixels(colour) if a > 200) > 200, name
    assert _colourful(text_layers(FIRE, "bold", 24, "lm")[1]) > 50  # type: ignore[arg-type]


def test_letters_keep_the_text_colour_and_emoji_their_own() -> None:
    """``Bob🔥``: the mask holds the letters (as ``Bob`` alone draws them), the colour layer
    the fire, right of them, in its own colours; the two layers are the same size."""
    mask, colour, left, top = text_layers("Bob" + FIRE, "bold", 24, "lm")
    assert colour is not None and colour.size == mask.size
    letters = mask.getbbox()
    picture = colour.getbbox()
    assert letters is not None and picture is not None
    assert picture[0] >= letters[2] - 1  # the fire after the letters
    assert _colourful(colour) > 50
    alone, _, _ = text_mask("Bob", "bold", 24, "lm")
    assert abs(alone.getbbox()[2] - letters[2]) <= 1  # type: ignore[index]
    # the text without emoji has no colour layer at all
    assert text_layers("Bob", "bold", 24, "lm")[1] is None


def test_an_emoji_is_about_as_tall_as_the_letters_and_on_their_line() -> None:
    mask, colour, _, _ = text_layers("Hy" + FIRE, "bold", 24, "ls")
    assert colour is not None
    letters, picture = mask.getbbox(), colour.getbbox()
    assert letters is not None and picture is not None
    height = picture[3] - picture[1]
    assert 0.8 * 24 <= height <= 1.2 * 24
    # it spans the capitals and reaches below the baseline about as far as the y does
    assert abs(picture[1] - letters[1]) <= 24 * 0.25
    assert abs(picture[3] - letters[3]) <= 24 * 0.25
    width = text_width(FIRE, "bold", 24)
    assert 0.8 * 24 <= width <= 1.4 * 24


def test_a_cut_name_never_cuts_an_emoji_in_half() -> None:
    """A name too long for its place loses whole emoji at its end (a ZWJ family never becomes
    a man and a woman), and names told apart keep their emoji whole too."""
    name = "Sam" + FAMILY * 6
    for width in range(40, text_width(name, "bold", 24), 7):
        cut = fit_text(name, "bold", 24, width)
        assert cut.endswith("…") and text_width(cut, "bold", 24) <= width
        body = cut[:-1]
        assert body == "Sam"[:len(body)] or (body.startswith("Sam")
                                             and (len(body) - 3) % len(FAMILY) == 0), cut
    a, b = "Sam" + FAMILY * 5 + " Great", "Sam" + FAMILY * 5 + " Small"
    shown = fit_name(a, [b], "bold", 24, 150)
    assert shown != fit_name(b, [a], "bold", 24, 150)
    head = shown.split("…")[0]
    assert (len(head) - 3) % len(FAMILY) == 0 or len(head) <= 3, shown


def test_the_painted_table_shows_the_emoji_in_colour_where_the_name_is() -> None:
    """Through the whole scene: the seat's name ``🔥 Sam`` is painted with the fire in its own
    orange beside the white letters; the same table with ``Sam`` has none of that orange."""
    def name_strip(name: str) -> Image.Image:
        view = TableView("t", "ofc", (SeatView(name, Board()), SeatView("Bo", Board())))
        scene = table_scene(view)
        image = scene.paint()
        return image.crop((0, 0, image.width // 2, 140))

    def orange(image: Image.Image) -> int:
        return sum(1 for r, g, b in _pixels(image) if r > 200 and 60 < g < 190 and b < 90)

    assert orange(name_strip(FIRE + " Sam")) > 40
    assert orange(name_strip("Sam")) == 0


def test_the_leaderboard_draws_emoji_names_in_colour() -> None:
    rows = tuple(LeaderRow(k + 1, n, 9 - k, 0, 1, 0)
                 for k, n in enumerate((FIRE + " Sam", FRANCE + " Amélie", FAMILY, "Bo")))
    image = leaderboard_scene(LeaderboardView("Club " + "\u2b50", "units", "all time",
                                              rows)).paint()
    assert _colourful(image.crop((0, 0, image.width // 2, image.height))) > 400


def test_a_joiner_joins_emoji_only() -> None:
    """The emoji font has a space and the digits too (for keycaps): a ZWJ before one of them
    joins nothing to the emoji (the space or digit stays the text's), while a ZWJ before ♀
    does (🏃‍♀️, a woman running, is one picture)."""
    assert runs(FIRE + "\u200d Sam", "bold")[0] == (FIRE, EMOJI)
    assert runs(FIRE + "\u200d1", "bold")[0] == (FIRE, EMOJI)
    woman_running = "\U0001f3c3\u200d\u2640\ufe0f"
    assert runs(woman_running, "bold") == ((woman_running, EMOJI),)
