"""A review of the "fancy" Discord names the images draw since 994a83d (renderer/fonts.py,
renderer/common.py): Unicode's mathematical letters (Noto Sans Math), the gamer ornaments
꧁༺ ... ༻꧂ (Javanese, Tibetan), the look-alike letters of fancy-text generators (Yi, Cherokee,
Canadian syllabics) and Thaana, Syriac, Mongolian, Tibetan and runes.

What worked is kept as passing tests; each defect found was a strict xfail, now fixed: its
docstring says what is guaranteed, and what was wrong.  The dotted circle (U+25CC, which Raqm
draws under a mark that has no letter in its run) is found by the pixels: the ink and the
width it adds to the name."""

from __future__ import annotations

import unicodedata

import pytest

from renderer.common import initials
from renderer.fonts import (
    _visual_order,
    can_draw,
    drawable,
    fit_name,
    fit_text,
    font,
    runs,
    shown_name,
    text_layers,
    text_mask,
    text_width,
)

SIZE = 24
FIRE = "\U0001f525"  # 🔥


def _width(text: str) -> int:
    return text_width(text, "bold", SIZE)


def _ink(text: str) -> float:
    """How much letter ink ``text`` puts on the page (in fully covered pixels)."""
    mask = text_layers(text, "bold", SIZE, "lm")[0]
    return sum(level * count for level, count in enumerate(mask.histogram())) / 255


def _marks_first(text: str) -> list[str]:
    """The runs of ``text`` that start with a combining mark (Raqm draws it on U+25CC)."""
    return [run for run, _ in runs(text, "bold") if unicodedata.category(run[0])[0] == "M"]


# -- defects, fixed --------------------------------------------------------------------------
@pytest.mark.parametrize(("rtl", "other"), [
    ("ދިވެހި", " Ali"), ("ދިވެހި", " 123"), ("ދިވެހި", " " + FIRE), ("ދިވެ", "…"),
    ("ܡܰܪܝܰܡ", " Sam"), ("مُحَمَّد", " " + FIRE),
], ids=["thaana latin", "thaana digits", "thaana emoji", "thaana cut", "syriac latin",
        "arabic emoji"])
def test_a_pointed_right_to_left_name_beside_latin_or_emoji_has_no_dotted_circles(
        rtl: str, other: str) -> None:
    """"ދިވެހި Ali" (Thaana, whose every consonant carries a vowel sign), "ދިވެހި 🔥",
    "ދިވެހި 123", a Thaana name cut with "…", a vowelled Syriac name beside a Latin word and
    "مُحَمَّد 🔥" (Arabic harakat) keep each vowel sign in its letter's run (fonts.runs: a mark
    or joiner stays with its letter whatever its direction, though a line of several fonts
    with right-to-left letters is otherwise cut where the direction turns): no run starts
    with a mark (no dotted circle, Syriac and Arabic letters joined), and the name is as wide
    and as inked as its parts drawn apart. (Was a defect: each vowel sign was a run alone,
    drawn on a dotted circle, 30-70 px wider at 24 px.)"""
    assert _width(rtl + other) <= _width(rtl) + _width(other.strip()) + 10  # (a space: 6-8 px)
    if FIRE not in other:
        assert _ink(rtl + other) <= _ink(rtl) + _ink(other.strip()) + 5
    assert not _marks_first(rtl + other), runs(rtl + other, "bold")


def test_a_thaana_name_too_long_is_cut_near_its_width() -> None:
    """"ދިވެހިރާއްޖެ" (Dhivehi Raajje, six letters with their vowel signs, 85 px at 24 px) cut
    to 80 px keeps as much as fits, at least "ދިވެހި…" (three letters with their vowel signs):
    with the ellipsis (DejaVu) the name is a line of two fonts, and its vowel signs stay on
    their letters (see the test above). (Was a defect: each vowel sign, drawn on a dotted
    circle, made every longer cut too wide, and the cut kept one letter, "ދި…".)"""
    name = "ދިވެހިރާއްޖެ"
    cut = fit_text(name, "bold", SIZE, _width(name) - 5)
    assert len(cut.removesuffix("…")) >= 6, cut


@pytest.mark.parametrize("name", ["𝒮𝒶𝓂𝓊ℯ𝓁", "ℛℴ𝒷ℯ𝓇𝓉", "ℭ𝔥𝔞𝔯𝔩𝔦𝔢", "ℌ𝔢𝔩𝔩𝔬"])
def test_the_letters_of_a_fancy_alphabet_are_drawn_by_one_font(name: str) -> None:
    """"𝒮𝒶𝓂𝓊ℯ𝓁", "ℛℴ𝒷ℯ𝓇𝓉" (script) and "ℭ𝔥𝔞𝔯𝔩𝔦𝔢", "ℌ𝔢𝔩𝔩𝔬" (fraktur) are one run of Noto Sans
    Math, as wide as that font draws them. Unicode has no mathematical script e, g, o, B, E,
    F, H, I, L, M, R nor fraktur C, H, I, R, Z: fancy-text generators take them from the
    Letterlike Symbols (ℯ ℊ ℴ ℬ ℰ ℱ ℋ ℐ ℒ ℳ ℛ, ℭ ℌ ℑ ℜ ℨ), which DejaVu has too; fonts._keyed
    gives such a symbol to the math font after a run of it or before a mathematical letter
    (alone or among Latin letters it stays DejaVu's). (Was a defect: DejaVu drew them, an
    upright "ℯ" in a slanted script name, a heavier blackletter capital before Noto's
    fraktur.)"""
    assert [key for _, key in runs(name, "bold")] == ["math"]
    assert _width(name) == round(font("math", SIZE).getlength(name))


@pytest.mark.parametrize(("name", "plain"), [
    ("𝐒\u0336𝐚\u0336𝐦\u0336", "𝐒𝐚𝐦"), ("𝐒\u0332𝐚\u0332𝐦\u0332", "𝐒𝐚𝐦"),
    ("𝓙\u0336𝓸\u0336", "𝓙𝓸"), ("ꍏ\u0336ꌃ\u0336", "ꍏꌃ"), ("Ꮧ\u0332Ᏸ\u0332", "ᏗᏰ"),
    ("ᗩ\u0336ᗷ\u0336", "ᗩᗷ"),
], ids=["bold strike", "bold underline", "script strike", "yi strike", "cherokee underline",
        "syllabics strike"])
def test_a_fancy_name_keeps_its_strike_through_and_underline(name: str, plain: str) -> None:
    """"𝐒̶𝐚̶𝐦̶" (fancy-text generators' bold with strike-through) and "𝐒̲𝐚̲𝐦̲" (underlined), and
    the Yi, Cherokee and Canadian look-alike letters struck or underlined, keep their lines:
    the fonts of those letters have no U+0336 nor U+0332, so fonts._keyed makes such a line
    mark (``_OVERLAYS``) an overlay of DejaVu's, which fonts.text_layers draws centred over
    the letter before it (on a zero-width space: no dotted circle), with no advance. The name
    is drawn as typed, with more ink than the plain name. (Was a defect: the mark was left
    out, and "𝐒̶𝐚̶𝐦̶" looked like "𝐒𝐚𝐦" pixel for pixel.)"""
    assert drawable(name, "bold") == name
    assert _ink(name) > _ink(plain) + 10


@pytest.mark.parametrize("names", [
    ("𝐒𝐚𝐦", "Sue"), ("𝓢𝓪𝓶", "𝐒𝐮𝐞"), ("𝐬𝐚𝐦", "𝐒𝐮𝐞"), ("𝔇𝔞𝔫", "Dave"), ("𝙅𝙤𝙚", "𝐉𝐚𝐧𝐞"),
], ids=["bold and latin", "script and bold", "lower and upper bold", "fraktur and latin",
        "sans and bold"])
def test_the_seat_tags_of_fancy_names_are_told_apart(names: tuple[str, str]) -> None:
    """At a table with "𝐒𝐚𝐦" and "Sue", "𝓢𝓪𝓶" and "𝐒𝐮𝐞", or "𝐬𝐚𝐦" and "𝐒𝐮𝐞", the seat tags
    read differently ("𝐒𝐚" and "Su", as plain "Sam" and "Sue" get "Sa" and "Su"; "𝔇𝔞𝔫" and
    "Dave" their seat numbers, as "Dan" and "Dave"): common.initials compares the tags as
    read (NFKC, case folded: 𝐒, 𝓢 and S alike), and makes a mathematical letter capital in
    its own style ("𝐬" → "𝐒", which str.upper leaves). (Was a defect: the tags were compared
    by code point, so both discs showed an S.)"""
    tags = initials(list(names))
    read = {unicodedata.normalize("NFKC", tag).casefold() for tag in tags}
    assert len(read) == len(names), tags


@pytest.mark.parametrize("name", ["「ゆき」", "【王】", "『花子』", "《三国》", "Sam「ゆき」",
                                  "⑪ゆき", "｛ゆき｝"])
def test_a_cjk_name_keeps_its_brackets_in_the_cjk_font(name: str) -> None:
    """"「ゆき」", "【王】", "『花子』", "《三国》", "Sam「ゆき」", "⑪ゆき", "｛ゆき｝" are drawn by the
    CJK font alone (after "Sam" in DejaVu), as wide as it draws them: fonts._fallback gives
    CJK punctuation and symbols (``_CJK_SYMBOLS``: 、。「」『』【】《》〈〉・, ⑪, ｛｝…) to the CJK
    font unless they follow a run of a script font that has them, although the Yi, Mongolian
    and math fonts, tried first, carry many of them. (Was a defect, new with 994a83d: "「ゆき」"
    opened with Noto Sans Yi's narrow, lower bracket and closed with the CJK font's
    full-width one; "⑪" was drawn thin by the Mongolian font, "｛" by the math font.)"""
    latin = ["bold"] if name.startswith("Sam") else []
    assert [key for _, key in runs(name, "bold")] == [*latin, "cjk"]
    cjk = name.removeprefix("Sam")
    assert _width(cjk) == round(font("cjk", SIZE).getlength(cjk))


# -- checked and fine --------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), [
    ("𝐒𝐚𝐦𝐮𝐞𝐥 𝐓𝐡𝐞 𝐆𝐫𝐞𝐚𝐭", "𝐒𝐚𝐦𝐮𝐞𝐥 𝐓𝐡𝐞 𝐒𝐦𝐚𝐥𝐥"),
    ("𝓢𝓪𝓶𝓾𝓮𝓵 𝓣𝓱𝓮 𝓖𝓻𝓮𝓪𝓽", "𝓢𝓪𝓶𝓾𝓮𝓵 𝓣𝓱𝓮 𝓢𝓶𝓪𝓵𝓵"),
], ids=["bold", "script"])
def test_two_fancy_names_cut_alike_are_told_apart(a: str, b: str) -> None:
    """Two names alike but for their last word, too long for their place, show different
    texts ("𝐒𝐚𝐦𝐮…𝐆𝐫𝐞𝐚𝐭" and "𝐒𝐚𝐦𝐮…𝐒𝐦𝐚𝐥𝐥"), each within the width, made of whole letters
    of the name (a mathematical letter is one code point: never half of one)."""
    for size, width in ((24, 150), (18, 130), (15, 100), (24, 100), (24, 80)):
        shown = [fit_name(n, [o], "bold", size, width) for n, o in ((a, b), (b, a))]
        assert shown[0] != shown[1], (size, width, shown)
        for name, text in zip((a, b), shown, strict=True):
            assert text_width(text, "bold", size) <= width
            head, _, tail = text.partition("…")
            assert name.startswith(head) and tail.removesuffix("…") in name, text


def test_a_fancy_name_is_cut_between_whole_letters_with_their_marks() -> None:
    """An overlined bold name ("𝐒̅𝐚̅𝐦̅...": Noto Sans Math has U+0305) is cut with its marks:
    the cut never ends on a bare letter whose overline is left behind nor starts the rest
    with a mark; each cut fits and adds no dotted circle (no wider than the letters kept)."""
    name = "".join(ch + "\u0305" for ch in "𝐒𝐚𝐦𝐮𝐞𝐥𝐆𝐫𝐞𝐚𝐭")
    for width in range(_width("…"), _width(name), 6):
        cut = fit_text(name, "bold", SIZE, width)
        body = cut.removesuffix("…")
        assert _width(cut) <= width
        assert not body or body.endswith("\u0305"), cut
        assert not _marks_first(cut)


@pytest.mark.parametrize("text", [
    "Sam ᠮᠣ᠋ᠩᠭᠣᠯ", "བསྒྲུབས་ Sam", "ꦱ꧀ꦠ꧀ꦫꦶ Sam", "𝐒̅𝐚̅𝐦̅ Bob", "ܡܪܝܡ Sam", "ދވހ Ali",
    "꧁༺ 𝓙𝓸𝓱𝓷 ༻꧂",
], ids=["mongolian fvs", "tibetan stack", "javanese stack", "math overline", "syriac",
        "thaana unpointed", "ornaments"])
def test_marks_and_selectors_of_the_new_scripts_stay_on_their_letters(text: str) -> None:
    """A Mongolian free variation selector, Tibetan subjoined letters and vowel signs, the
    Javanese pangkon, a math overline stay in their letter's run beside a Latin word: as
    wide and as inked as the parts drawn apart (no dotted circle); unpointed Syriac and
    Thaana beside Latin likewise."""
    first, _, last = text.rpartition(" ")
    assert not _marks_first(text)
    assert _width(text) <= _width(first) + _width(last) + 10  # (a space: 6-8 px)
    assert _ink(text) <= _ink(first) + _ink(last) + 5


def test_a_right_to_left_name_and_a_latin_word_keep_the_bidi_order() -> None:
    """"ܡܪܝܡ Sam" (a Syriac name first) is drawn as the bidi algorithm (and Discord) orders it:
    Sam on the left, the Syriac word rightmost; "Sam ދވހ" keeps Sam first on the left; the
    ornaments ꧁ ꧂ are left-to-right letters, so "꧁ ܡܪܝܡ ꧂" keeps ꧁ on the left."""
    for text, left in (("ܡܪܝܡ Sam", "Sam"), ("Sam ދވހ", "Sam"), ("꧁ ܡܪܝܡ ꧂", "꧁")):
        parts = runs(text, "bold")
        order, _ = _visual_order(parts)
        shown = [parts[k][0].strip() for k in order if parts[k][0].strip()]
        assert shown[0] == left, (text, shown)


def test_names_of_ornaments_or_selectors_only() -> None:
    """A name of ornaments only ("꧁꧂", "༺༻", "꧁ㅤ꧂") is drawn as typed, with ink; a name of
    Mongolian variation selectors or the vowel separator only draws nothing, so it is shown
    as "Player N"; its seat disc shows the seat's number (no letter to take)."""
    for name in ("꧁꧂", "༺༻", "꧁ㅤ꧂"):
        assert can_draw(name) and shown_name(name, 2) == name
        assert text_layers(name, "bold", SIZE, "lm")[0].getbbox() is not None
    for name in ("\u180b\u180c\u180d", "\u180e", "\u180b\u180e"):
        assert not can_draw(name) and shown_name(name, 3) == "Player 3"
    assert initials(["꧁꧂", "Sam"], [4, 5]) == ["4", "S"]


def test_the_seat_tags_of_fancy_names_of_one_style() -> None:
    """"𝐒𝐚𝐦" and "𝐒𝐮𝐞" get "𝐒𝐚" and "𝐒𝐮"; "𝐒𝐚𝐦" and "𝐒𝐚𝐫𝐚𝐡" (the same two letters) their
    seat numbers, as "Sam" and "Sarah" do; an ornamented name takes its first letter, not the
    ornament; Cherokee small letters are made capital."""
    assert initials(["𝐒𝐚𝐦", "𝐒𝐮𝐞"]) == ["𝐒𝐚", "𝐒𝐮"]
    assert initials(["𝐒𝐚𝐦", "𝐒𝐚𝐫𝐚𝐡"], [3, 7]) == ["3", "7"]
    assert initials(["꧁༺ 𝓙𝓸𝓱𝓷 ༻꧂", "ꮪꭺꮇ"]) == ["𝓙", "Ꮪ"]


@pytest.mark.parametrize("name", ["བསྒྲུབས་", "ཧཱུྃ", "ཀྵྨྱ", "ꦱ꧀ꦠ꧀ꦫꦶ", "ꦥꦿꦧꦮꦺꦴ", "𝕬𝖑𝖊𝖝",
                                  "𝐒̅𝐚̅𝐦̅", "ᏗᏰ Ꮳ", "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ", "ܡܰܪܝܰܡ"])
def test_deep_stacks_and_tall_letters_are_not_clipped_at_the_line(name: str) -> None:
    """Tibetan stacked consonants, Javanese clusters, fraktur capitals, overlined math
    letters, Cherokee's descenders, Mongolian and vowelled Syriac keep all their rows at the
    sizes the images draw names."""
    for size in (21, 24, 28):
        clipped, _, _ = text_mask(name, "bold", size, "lm")
        whole, _, _ = text_mask(name, "bold", size, "lt")
        assert clipped.height == whole.height, (name, size, clipped.size, whole.size)


def test_digits_and_spaces_between_math_words() -> None:
    """A space between math words stays in their run; math digits (𝟏𝟐𝟑) are the math font's;
    a plain digit or punctuation typed between math words is DejaVu's, on the same baseline
    (the ink of "1" sits on the line of "𝐒𝐚𝐦")."""
    assert runs("𝐒𝐚𝐦 𝐁𝐨𝐛", "bold") == (("𝐒𝐚𝐦 𝐁𝐨𝐛", "math"),)
    assert [key for _, key in runs("𝐒𝐚𝐦 1 𝐁𝐨𝐛", "bold")] == ["math", "bold", "math"]
    mask, _, _, top = text_layers("𝐒𝐚𝐦 1", "bold", SIZE, "ls")
    alone, _, _, top_alone = text_layers("𝐒𝐚𝐦", "bold", SIZE, "ls")
    box, box_alone = mask.getbbox(), alone.getbbox()
    assert box is not None and box_alone is not None
    assert abs((box[3] + top) - (box_alone[3] + top_alone)) <= 1


def test_a_long_fancy_name_is_drawn_cut_and_told_apart() -> None:
    """A 32-letter script name (each letter four bytes, from the math font) is drawn, cut and
    told apart from five others alike but for the last letter (its speed is measured by
    ``python -m bench.render``, not here)."""
    name = "𝓢𝓪𝓶𝓾𝓮𝓵 𝓣𝓱𝓮 𝓖𝓻𝓮𝓪𝓽 𝓐𝓷𝓭 𝓜𝓲𝓰𝓱𝓽𝔂 𝓠"[:31]
    others = [name + ch for ch in "𝓪𝓫𝓬𝓭𝓮𝓯"]
    text_layers(others[0], "bold", 23, "lm")
    fit_text(others[0], "bold", 23, 150)
    shown = [fit_name(o, others, "bold", 23, 151) for o in others]
    assert len(set(shown)) == len(others), shown
