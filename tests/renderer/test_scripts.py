"""Names in the scripts of South and South-East Asia and Ethiopia are drawn (Noto Sans Bold,
``renderer/data``), shaped as they are written: a conjunct is one glyph, a mark sits on its
letter, and a run of the script is never cut by a joiner or a danda."""

from __future__ import annotations

import pytest

from engine import Board
from renderer import LeaderboardView, LeaderRow, SeatView, TableView
from renderer.fonts import (
    SCRIPT_FILES,
    can_draw,
    fit_text,
    runs,
    shown_name,
    text_layers,
    text_mask,
    text_width,
)
from renderer.leaderboard import leaderboard_scene
from renderer.table import table_scene

NAMES = {
    "thai": "สมชาย ใจดี",
    "khmer": "ខ្មែរ",
    "myanmar": "မြန်မာ",
    "devanagari": "राहुल शर्मा",
    "bengali": "ক্ষিতিজ দাস",
    "gurmukhi": "ਪੰਜਾਬੀ",
    "gujarati": "ગુજરાતી",
    "tamil": "தமிழ்செல்வன்",
    "telugu": "ప్రశాంత్",
    "kannada": "ಕನ್ನಡಿಗ",
    "malayalam": "മലയാളം",
    "sinhala": "සිංහල",
    "ethiopic": "አማርኛ ሰላም",
    "javanese": "ꦗꦮ",
    "cherokee": "ᏣᎳᎩ",
    "canadianaboriginal": "ᗩᗷᗪ",
    "thaana": "ދިވެހި",
    "tibetan": "བོད་",
    "math": "𝓙𝓸𝓱𝓷",
    "yi": "ꆈꌠ",
    "syriac": "ܣܘܪܝܝܐ",
    "mongolian": "ᠮᠣᠩᠭᠣᠯ",
    "runic": "ᚱᚢᚾ",
}

FANCY = ["𝐁𝐨𝐥𝐝 𝐒𝐚𝐦", "𝐼𝑡𝑎𝑙𝑖𝑐", "𝑩𝒐𝒍𝒅 𝒊𝒕𝒂𝒍𝒊𝒄", "𝒮𝒸𝓇𝒾𝓅𝓉", "𝓑𝓸𝓵𝓭 𝓼𝓬𝓻𝓲𝓹𝓽", "𝔉𝔯𝔞𝔨𝔱𝔲𝔯",
         "𝕭𝖔𝖑𝖉 𝖋𝖗𝖆𝖐𝖙𝖚𝖗", "𝔻𝕠𝕦𝕓𝕝𝕖", "𝖲𝖺𝗇𝗌", "𝗦𝗮𝗻𝘀 𝗯𝗼𝗹𝗱", "𝘚𝘢𝘯𝘴 𝘪𝘵𝘢𝘭𝘪𝘤", "𝙎𝙖𝙣𝙨 𝙗𝙤𝙡𝙙 𝙞𝙩",
         "𝙼𝚘𝚗𝚘_𝟷𝟸𝟹", "𝐒𝐚𝐦 𝟏𝟐𝟑", "ꍏꌃꉓꀸꍟ", "ᏗᏰፈᎴᏋ", "ᗩᗷᑕᗪ", "꧁༺ 𝓙𝓸𝓱𝓷 ༻꧂", "༄ Sam ࿐"]
"""Names as Discord's fancy-text generators write them (Unicode's mathematical letters,
look-alike letters of other scripts, ornaments): each popular among players' names."""


def test_every_script_font_is_named_and_used() -> None:
    assert set(NAMES) == set(SCRIPT_FILES)


@pytest.mark.parametrize("script", sorted(NAMES))
def test_a_name_in_the_script_is_drawn_in_its_font(script: str) -> None:
    name = NAMES[script]
    assert can_draw(name) and shown_name(name, 2) == name
    assert runs(name, "bold") == ((name, script),)
    mask, colour, _, _ = text_layers(name, "bold", 24, "lm")
    assert colour is None and mask.getbbox() is not None
    assert text_width(name, "bold", 24) > 12 * len(name.split()[0]) // 3


@pytest.mark.parametrize("script", sorted(NAMES))
def test_nothing_of_the_name_is_cut_at_the_line(script: str) -> None:
    """The line's clip (the text face's ascent and descent and a margin) leaves every mark
    above and below the letters whole: the mask placed by the line (``lm``) is as tall as the
    one placed by its ink (``lt``, never clipped)."""
    clipped, _, _ = text_mask(NAMES[script], "bold", 24, "lm")
    whole, _, _ = text_mask(NAMES[script], "bold", 24, "lt")
    assert clipped.height == whole.height, (script, clipped.size, whole.size)


@pytest.mark.parametrize("name", FANCY)
def test_a_fancy_name_is_drawn_whole(name: str) -> None:
    """Every character of it is drawn (before, the mathematical letters had no font, so such a
    name was "Player N", and the ornaments around a name were left out)."""
    assert can_draw(name) and shown_name(name, 2) == name
    assert "".join(text for text, _ in runs(name, "bold")) == name
    mask, _, _, _ = text_layers(name, "bold", 24, "lm")
    assert mask.getbbox() is not None
    clipped, _, _ = text_mask(name, "bold", 24, "lm")
    whole, _, _ = text_mask(name, "bold", 24, "lt")
    assert clipped.height == whole.height, (name, clipped.size, whole.size)


def test_the_fancy_letters_are_drawn_by_the_math_font() -> None:
    """Each run of mathematical letters is the ``math`` font; a space between two such words
    stays in their run, and Latin letters beside them stay DejaVu."""
    assert runs("𝐒𝐚𝐦 𝟏𝟐𝟑", "bold") == (("𝐒𝐚𝐦 𝟏𝟐𝟑", "math"),)
    assert runs("Sam 𝓙𝓸", "bold") == (("Sam ", "bold"), ("𝓙𝓸", "math"))
    keys = [key for _, key in runs("꧁༺ 𝓙𝓸𝓱𝓷 ༻꧂", "bold")]
    assert set(keys) == {"javanese", "tibetan", "math"}, keys


def test_a_conjunct_is_shaped_as_one() -> None:
    """क्ष (ka, virama, ssa) is drawn as its conjunct: narrower than its parts drawn apart, which
    it would be if the run were cut or not shaped; ZWJ and ZWNJ stay in the run."""
    whole = text_width("क्ष", "bold", 32)
    apart = text_width("क्", "bold", 32) + text_width("ष", "bold", 32)
    assert whole < apart
    for joiner in ("\u200d", "\u200c"):
        assert runs(f"क्{joiner}ष", "bold") == ((f"क्{joiner}ष", "devanagari"),)


def test_a_shared_sign_stays_in_the_run_it_follows() -> None:
    """The danda (U+0964, in several of the fonts) after Bengali letters is drawn by the
    Bengali font, in the same run."""
    assert runs("দাস।", "bold") == (("দাস।", "bengali"),)


def test_scripts_mix_with_latin_cjk_and_emoji_on_one_line() -> None:
    text = "Sam ไทย 日本 हिन्दी \U0001f525"
    keys = [key for _, key in runs(text, "bold")]
    assert keys == ["bold", "thai", "cjk", "devanagari", "emoji"]
    mask, colour, _, _ = text_layers(text, "bold", 24, "lm")
    assert colour is not None and mask.getbbox() is not None


def test_the_images_draw_them() -> None:
    """A table and a leaderboard of such names are drawn with ink where each name is (not the
    ``Player N`` of a name no font has)."""
    names = list(NAMES.values())
    drawn: list[str] = []
    from renderer.scene import Scene

    real = Scene.text

    def record(self: Scene, xy: tuple[int, int], text: str, *args: object,
               **kw: object) -> int:
        drawn.append(text)
        return real(self, xy, text, *args, **kw)  # type: ignore[arg-type]

    Scene.text = record  # type: ignore[method-assign]
    try:
        table_scene(TableView("t", "ofc", tuple(SeatView(n, Board(), number=k + 1)
                                                for k, n in enumerate(names[:4])))).paint()
        leaderboard_scene(LeaderboardView("t", "units", "all time", tuple(
            LeaderRow(k + 1, n, 20 - k, 0, 1, 0) for k, n in enumerate(names)))).paint()
    finally:
        Scene.text = real  # type: ignore[method-assign]
    assert not any(t.startswith("Player ") for t in drawn)
    assert set(names) <= set(drawn)


def test_runs_are_drawn_in_the_bidi_order() -> None:
    """Right-to-left stretches are put in order run by run (Raqm orders the letters inside
    each): a name that starts right to left has its first run rightmost, a right-to-left
    stretch of a left-to-right name is turned around as a whole, and a run with no direction
    of its own (an emoji, digits) goes with its neighbours."""
    from renderer.fonts import _visual_order

    def order(text: str) -> list[str]:
        parts = runs(text, "bold")
        return [parts[k][0].strip() for k in _visual_order(parts)[0] if parts[k][0].strip()]

    fire = "\U0001f525"
    assert order(f"Sam {fire} Bob") == ["Sam", fire, "Bob"]
    assert order(f"عبدالرحمن {fire} علي") == ["علي", fire, "عبدالرحمن"]
    # the Arabic and the fire between its words are one right-to-left stretch after "Sam"
    assert order(f"Sam عبد {fire} علي") == ["Sam", "علي", fire, "عبد"]
    # a left-to-right word in a right-to-left name keeps its place in the stretch
    assert order(f"علي {fire} Sam") == ["Sam", fire, "علي"]


def test_a_cut_never_leaves_a_half_conjunct_or_a_bare_mark() -> None:
    """A Devanagari or Thai name too long for its place is cut between whole letters: never
    after a virama (a half form) nor before a vowel sign or tone mark (drawn on a dotted
    circle)."""
    import unicodedata

    for name in ("लक्ष्मीनारायण शर्मा क्षत्रिय", "สมชายใจดีมากมายหลายอย่างปั้น"):
        for width in range(text_width("…", "bold", 24), text_width(name, "bold", 24), 4):
            cut = fit_text(name, "bold", 24, width)
            body = cut.removesuffix("…").rstrip()
            assert text_width(cut, "bold", 24) <= width
            if body:
                assert unicodedata.combining(body[-1]) != 9, cut  # no virama last
                rest = name[len(body):].lstrip()
                assert not rest or unicodedata.category(rest[0])[0] != "M", cut


def test_brackets_of_a_right_to_left_stretch_among_several_fonts() -> None:
    """With an emoji (another font) the runs are put in order one by one: a bracket between a
    right-to-left word and the name's left-to-right start or end is drawn left to right, as
    typed; in a right-to-left name, brackets around a Latin word are drawn mirrored, so they
    still hold it: "علي (Ali) 🔥" reads 🔥 (Ali) علي, as in Discord."""
    from renderer.fonts import _visual_order

    fire = "\U0001f525"
    parts = runs(f"Sam «محمد» {fire}", "bold")
    assert [run for run, _ in parts] == ["Sam", " «", "محمد", "» ", fire]
    assert _visual_order(parts) == ([0, 1, 2, 3, 4], ["ltr", "ltr", "rtl", "ltr", "ltr"])
    parts = runs(f"علي (Ali) {fire}", "bold")
    assert [run for run, _ in parts] == ["علي", " (", "Ali", ") ", fire]
    assert _visual_order(parts) == ([4, 3, 2, 1, 0], ["rtl", "rtl", "ltr", "rtl", "rtl"])
    # text of one font is one run: Raqm orders it whole, brackets and all
    assert runs("Bob (علي)", "bold") == (("Bob (علي)", "bold"),)
