"""Fonts: DejaVu Sans from matplotlib's data (it has ♠♥♦♣; Pillow's own default font has not),
and for the characters DejaVu lacks: Noto Sans CJK (from the ``mplfonts`` package): Chinese,
Japanese and Korean names are drawn as typed; Noto Sans Bold of thirteen scripts of South and
South-East Asia and Ethiopia (``data/``, ``SCRIPT_FILES``): Thai, Hindi, Tamil… names shaped
by Raqm as they are written; and Noto Color Emoji (``data/``, its bitmaps made small by
``emoji_build``) for emoji, in colour: "🔥 Sam", "🏳️‍🌈", "👍🏽" are drawn as Discord shows them
(a ZWJ sequence, a flag, a keycap or a skin tone joined into one picture).

The DejaVu files are read once at import; the other fonts' character maps the first time a
text needs them (the CJK font is a 16 MB file), and their glyphs from the files (never a copy
per font object).
``FreeTypeFont`` objects are kept per thread (``threading.local``), so renders running in several
worker threads never share a FreeType face.  A text mixing both fonts is drawn run by run on one
baseline, placed by the DejaVu face's metrics, so it lines up with the names around it; a
mark stays in its letter's run (alone, Raqm would draw it on a dotted circle), and a line
mark (strike-through, underline) the letter's font lacks is drawn from DejaVu over the
letter.
"""

from __future__ import annotations

import importlib.util
import io
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate
from os.path import commonprefix
from pathlib import Path

import matplotlib
from matplotlib.ft2font import FT2Font
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
FACES: dict[str, str] = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "mono": "DejaVuSansMono-Bold.ttf",
}
CJK = "cjk"
"""The face key of the CJK font (one weight: it serves every face)."""
SCRIPT_FILES: dict[str, str] = {
    script.lower(): f"NotoSans{script}-Bold.ttf" for script in (
        "Thai", "Khmer", "Myanmar", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Tamil",
        "Telugu", "Kannada", "Malayalam", "Sinhala", "Ethiopic", "Javanese", "Cherokee",
        "CanadianAboriginal", "Thaana")} | {
    "tibetan": "NotoSerifTibetan-Bold.ttf",  # (Noto's Tibetan is a serif font only)
    **{script.lower(): f"NotoSans{script}-Regular.ttf" for script in (
        "Math", "Yi", "Syriac", "Mongolian", "Runic")},  # (a regular weight only)
}
"""The face keys and files (in ``data/``) of the script fonts, tried in this order before the
CJK font for a character DejaVu lacks (but for CJK punctuation and symbols, which the CJK
font draws first: ``_fallback``).  Only one weight is kept (names are drawn bold: the
bold one where there is one): it serves every face.  ``math`` draws the "fancy" letters of
Discord names (𝐁𝐨𝐥𝐝, 𝓢𝓬𝓻𝓲𝓹𝓽, 𝔉𝔯𝔞𝔨𝔱𝔲𝔯, 𝙼𝚘𝚗𝚘: Unicode's mathematical letters), ``javanese`` and
``tibetan`` also their ornaments (꧁༺ ... ༻꧂), ``yi``, ``cherokee`` and ``canadianaboriginal``
the look-alike letters of fancy-text generators (ꍏ, Ꮧ, ᗩ) as well as their scripts; ``math``
also the letterlike symbols (ℯ, ℛ, ℭ) among mathematical letters (``_LETTERLIKE``).
Unchanged from Debian's ``fonts-noto-core`` 20201225 (SIL Open Font License)."""
DATA_DIR = Path(__file__).parent / "data"
CJK_FILE = "NotoSansCJKsc-Regular.otf"
EMOJI = "emoji"
"""The face key of the colour emoji font (drawn in its own colours, not in the text's)."""
EMOJI_PATH = DATA_DIR / "NotoColorEmoji-32.ttf"
EMOJI_PPEM = 32
"""The one size the emoji font has (a bitmap font): every emoji is drawn at it, then scaled."""
EMOJI_SCALE = 0.95
"""An emoji's size against the text's: Noto's pictures are 1.17 em tall; at 0.95 one stands
from the capitals' height to below the baseline, about as Discord draws it beside text."""
_DATA: dict[str, bytes] = {key: (FONT_DIR / name).read_bytes() for key, name in FACES.items()}
_LOCAL = threading.local()
_COVERED: dict[str, frozenset[int]] = {
    key: frozenset(FT2Font(str(FONT_DIR / name)).get_charmap()) for key, name in FACES.items()
}


@lru_cache(maxsize=1)
def cjk_path() -> Path | None:
    """Where the fallback font is (``mplfonts``, a dependency), or None when it is missing:
    the images then leave out what DejaVu cannot draw."""
    spec = importlib.util.find_spec("mplfonts")  # finds the package without importing it
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "fonts" / CJK_FILE
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def _emoji_covered() -> frozenset[int]:
    """The emoji font's characters (read on first use; empty if the file is missing)."""
    if not EMOJI_PATH.is_file():
        return frozenset()
    return frozenset(FT2Font(str(EMOJI_PATH)).get_charmap())


_EMOJI_PRESENTATION_BMP = frozenset().union(*(range(a, b + 1) for a, b in (
    (0x231A, 0x231B), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3), (0x25FD, 0x25FE),
    (0x2614, 0x2615), (0x2648, 0x2653), (0x267F, 0x267F), (0x2693, 0x2693), (0x26A1, 0x26A1),
    (0x26AA, 0x26AB), (0x26BD, 0x26BE), (0x26C4, 0x26C5), (0x26CE, 0x26CE), (0x26D4, 0x26D4),
    (0x26EA, 0x26EA), (0x26F2, 0x26F3), (0x26F5, 0x26F5), (0x26FA, 0x26FA), (0x26FD, 0x26FD),
    (0x2705, 0x2705), (0x270A, 0x270B), (0x2728, 0x2728), (0x274C, 0x274C), (0x274E, 0x274E),
    (0x2753, 0x2755), (0x2757, 0x2757), (0x2795, 0x2797), (0x27B0, 0x27B0), (0x27BF, 0x27BF),
    (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55))))
"""The characters below U+1F000 that Unicode shows as emoji even without U+FE0F after them
(``Emoji_Presentation=Yes``): ⭐, ⚡, ✅… (the rest, ♠, ❤, ☀…, are text unless U+FE0F follows)."""
_KEYCAP_BASES = frozenset(map(ord, "#*0123456789"))
_EMOJI_TAIL = frozenset((0xFE0E, 0xFE0F, 0x20E3, *range(0x1F3FB, 0x1F400),
                        *range(0xE0020, 0xE0080)))
"""What an emoji takes after it: the variation selectors (U+FE0E, "as text", is drawn as the
emoji all the same: the fonts have no text form of most of them), the keycap, the five skin
tones and the tag characters of the subdivision flags (🏴 of England, Scotland, Wales)."""
_ZWJ = 0x200D
_REGIONAL = range(0x1F1E6, 0x1F200)


def emoji_length(text: str, i: int) -> int:
    """How many characters of ``text`` from ``i`` make one emoji (0: ``text[i]`` is no emoji's
    start): a character the emoji font has that is an emoji by default (U+1F000 on, or
    ``_EMOJI_PRESENTATION_BMP``) or asks to be one (U+FE0F after it), a keycap (``#️⃣``), or two
    regional indicators (a flag), with its skin tone, selector and tags, and what ZWJs join to it."""
    covered = _emoji_covered()
    c = ord(text[i])
    if c not in covered:
        return 0
    after = [ord(ch) for ch in text[i + 1:i + 3]]
    if c in _REGIONAL:
        return 2 if after[:1] and after[0] in _REGIONAL else 1
    if c in _KEYCAP_BASES:  # (digits are letters of names unless a keycap follows)
        if after[:1] != [0x20E3] and after[:2] != [0xFE0F, 0x20E3]:
            return 0
    elif not (c >= 0x1F000 or c in _EMOJI_PRESENTATION_BMP or after[:1] == [0xFE0F]):
        return 0
    j = i + 1
    while j < len(text):
        d = ord(text[j])
        if d in _EMOJI_TAIL:
            j += 1
        elif d == _ZWJ and j + 1 < len(text) and 0xFF < ord(text[j + 1]) and ord(
                text[j + 1]) in covered:  # (never a space or digit, which the font has too)
            j += 2
        else:
            break
    return j - i


@lru_cache(maxsize=8192)
def _clusters(text: str) -> tuple[tuple[str, bool], ...]:
    """``text`` cut into its emoji (each whole, ``True``) and its single other characters."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(text):
        n = emoji_length(text, i)
        if n:
            out.append((text[i:i + n], True))
            i += n
        else:
            out.append((text[i], False))
            i += 1
    return tuple(out)


def graphemes(text: str) -> list[str]:
    """``text`` cut where a cut leaves every piece whole: an emoji with what it takes, a letter
    with its marks and joiners, an Indic consonant with its virama and the consonant it joins
    (क्ष).  Names are cut and told apart only there."""
    out: list[str] = []
    for piece, emoji in _clusters(text):
        if out and not emoji and (_joins(piece) or (
                unicodedata.category(piece)[0] == "L"
                and unicodedata.combining(out[-1].rstrip("\u200c\u200d")[-1:] or "a") == 9)):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def _bounds(text: str) -> list[int]:
    """Where ``text`` may be cut (``graphemes``): 0, ..., ``len(text)``."""
    return [0, *accumulate(len(g) for g in graphemes(text))]


@lru_cache(maxsize=1)
def _fallback_fonts() -> dict[str, frozenset[int]]:
    """The fonts tried, in order, for a character DejaVu lacks, with their characters (read on
    first use; a missing file is left out: its characters are then not drawn).  Never
    modified."""
    out = {}
    for key, name in SCRIPT_FILES.items():
        path = DATA_DIR / name
        if path.is_file():
            out[key] = frozenset(FT2Font(str(path)).get_charmap())
    cjk = cjk_path()
    if cjk is not None:
        out[CJK] = frozenset(FT2Font(str(cjk)).get_charmap())
    return out


@lru_cache(maxsize=1)
def _fallback_covered() -> frozenset[int]:
    """Every character some fallback font has."""
    return frozenset().union(*_fallback_fonts().values())


def _fallback(c: int, after: str | None) -> str:
    """The fallback font that draws the character ``c``: the one of the run before it
    (``after``) when it has it (a danda after Bengali letters stays Bengali), else the CJK
    font for CJK punctuation and symbols (``_CJK_SYMBOLS``), else the first that has it."""
    fonts = _fallback_fonts()
    if after in fonts and c in fonts[after]:
        return after
    if c in _CJK_SYMBOLS and c in fonts.get(CJK, ()):
        return CJK
    return next((key for key, covered in fonts.items() if c in covered), CJK)


def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    """The font ``face`` (``regular``, ``bold``, ``mono``, ``cjk``, ``emoji`` or a key of
    ``SCRIPT_FILES``) at ``size`` pixels (``emoji``: always ``EMOJI_PPEM``), cached per thread."""
    cache: dict[tuple[str, int], ImageFont.FreeTypeFont] | None = getattr(_LOCAL, "fonts", None)
    if cache is None:
        cache = {}
        _LOCAL.fonts = cache
    key = (face, size)
    f = cache.get(key)
    if f is None:
        if face == CJK:  # opened by path: FreeType reads the 16 MB file as it needs it
            f = ImageFont.truetype(str(cjk_path()), size)
        elif face in SCRIPT_FILES:
            f = ImageFont.truetype(str(DATA_DIR / SCRIPT_FILES[face]), size)
        elif face == EMOJI:  # a bitmap font: only its own size (the pictures are scaled after)
            f = ImageFont.truetype(str(EMOJI_PATH), EMOJI_PPEM)
        else:
            f = ImageFont.truetype(io.BytesIO(_DATA[face]), size)
        cache[key] = f
    return f


def _code_points(*parts: int | range) -> frozenset[int]:
    out: set[int] = set()
    for part in parts:
        out.update(part if isinstance(part, range) else (part,))
    return frozenset(out)


_CJK_SYMBOLS = _code_points(range(0x2460, 0x2500), range(0x3000, 0x3100), range(0x3200, 0x3400),
                            range(0xFE10, 0xFE20), range(0xFE30, 0xFE50), range(0xFF00, 0xFFF0))
"""The punctuation and symbols of Chinese, Japanese and Korean text (「」『』【】《》、。・, ⑪,
the full-width ｛｝, the vertical forms ︽﹁…): drawn by the CJK font unless they follow a run
of a script font that has them.  (The Yi, Mongolian and math fonts, tried first, carry many
of them, narrower and lower than the CJK font's: a bracket opening a CJK name would not
match its closing one.)"""
_BLANK_GLYPHS = frozenset((0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800))
"""Letters and symbols whose glyph is blank, as wide as a letter (the Hangul fillers, the
braille blank): drawn as a space."""
_NO_INK = _BLANK_GLYPHS | _code_points(
    # Unicode's default-ignorable code points: zero-width spaces and joiners, bidi controls,
    # word joiners, variation selectors, the byte order mark, tags…
    0x00AD, 0x034F, 0x061C, range(0x17B4, 0x17B6), range(0x180B, 0x1810),
    range(0x200B, 0x2010), range(0x202A, 0x202F), range(0x2060, 0x2070),
    range(0xFE00, 0xFE10), 0xFEFF, range(0xFFF0, 0xFFF9), range(0x1BCA0, 0x1BCA4),
    range(0x1D173, 0x1D17B), range(0xE0000, 0xE1000),
)
"""Characters that put no ink on the page although fonts may have a glyph for them (the
"invisible" names people pick: U+3164 HANGUL FILLER, U+2800 BRAILLE PATTERN BLANK, U+200B…)."""
MAX_MARKS = 3
"""Combining marks kept on one base character (Vietnamese needs two, pointed Hebrew three;
"Zalgo" text stacks dozens above and below the line, over whatever is drawn there)."""
LINE_MARGIN = 0.2
"""How far (in ems) ink may reach beyond the face's ascent and descent before it is clipped."""


def has_ink(text: str) -> bool:
    """Whether ``text`` shows anything: a letter, digit, punctuation or symbol that is not blank
    (spaces, joiners, lone marks and the characters of ``_NO_INK`` draw nothing)."""
    return any(unicodedata.category(ch)[0] in "LNPS" and ord(ch) not in _NO_INK for ch in text)


def _limit_marks(text: str) -> str:
    """``text`` with at most ``MAX_MARKS`` combining marks on each base character."""
    out = []
    marks = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    return "".join(out)


@lru_cache(maxsize=4096)
def _kept(text: str, face: str) -> str:
    """``text`` as drawn, before the ``?`` of ``drawable``: without the characters no font has,
    blank glyphs as spaces, at most ``MAX_MARKS`` marks a character; emoji kept whole."""
    covered = _COVERED[face]
    if (all(ord(ch) in covered and ord(ch) not in _BLANK_GLYPHS for ch in text)
            and not any(emoji for _, emoji in _clusters(text))):
        kept = text
    else:
        extra = _fallback_covered()
        pieces = []
        for piece, emoji in _clusters(text):
            o = ord(piece[0])
            if not emoji and o in _BLANK_GLYPHS:
                pieces.append(" ")
            elif emoji or o in covered or o in extra:
                pieces.append(piece)
        kept = " ".join("".join(pieces).split())
    if any(unicodedata.combining(ch) for ch in kept):
        kept = _limit_marks(kept)
    return kept


@lru_cache(maxsize=4096)
def drawable(text: str, face: str = "regular") -> str:
    """``text`` without the characters no font has a glyph for, which would otherwise be drawn
    as empty boxes, without the marks stacked beyond ``MAX_MARKS`` and those with no letter
    of their font before them (an accent on an emoji, a mark first: a dotted circle; but a
    line mark the letter's font lacks is kept, drawn from ``face``: see ``_keyed``), and
    U+FE0E in an emoji; ``?`` when nothing visible is left (see ``has_ink``).  The text
    equivalents keep the full text."""
    kept = _kept(text, face)
    if kept == text and not text.strip():
        return text  # nothing or spaces, as asked
    kept = "".join(piece for piece, _ in _keyed(kept, face))
    # joiners, variation selectors and lone marks left from what no font has draw nothing
    return kept if has_ink(kept) else "?"


@lru_cache(maxsize=4096)
def runs(text: str, face: str) -> tuple[tuple[str, str], ...]:
    """``text`` as drawn (see ``drawable``), cut into runs of one font each: ``(run, face)``
    (``EMOJI`` runs hold whole emoji only; a run that starts with a mark is an overlay, marks
    only, drawn over the letter before it with no advance: see ``_keyed``)."""
    out: list[tuple[str, str]] = []
    pieces = _keyed(drawable(text, face), face)
    # right-to-left letters among runs of several fonts: each run also holds one direction
    # only (left to right, right to left, or neither: spaces, brackets, digits), so that the
    # runs can be put in the bidi algorithm's order (``_visual_order``); text of one font is
    # one run, which Raqm orders whole, as a paragraph.  A mark or joiner stays in its
    # letter's run whatever its direction (alone, Raqm would draw it on a dotted circle); a
    # run that starts with a mark is an overlay (``_keyed``), which takes only marks
    bidi = (len({key for _, key in pieces}) > 1
            and any(_direction(piece) == "R" for piece, _ in pieces))
    kind: str | None = None  # the direction of the run being built
    overlay = False  # whether the run being built is an overlay
    for piece, key in pieces:
        turn = (_direction(piece) or "N") if bidi else None
        if out and out[-1][1] == key and (
                (turn == kind and not overlay) or (key != EMOJI and _joins(piece))):
            out[-1] = (out[-1][0] + piece, key)
        else:
            out.append((piece, key))
            kind, overlay = turn, _is_overlay(piece)
    return tuple(out)


MATH = "math"
"""The face key of the math font (``SCRIPT_FILES``)."""
_LETTERLIKE = frozenset(map(ord, "ℎℬℰℱℋℐℒℳℛℯℊℴℭℌℑℜℨℂℍℕℙℚℝℤ"))
"""The Letterlike Symbols that stand for the letters missing from Unicode's mathematical
alphabets (there is no mathematical script e nor fraktur C: fancy-text generators write ℯ,
ℭ).  DejaVu has most of them, in its own style: beside mathematical letters they are drawn
by the math font, as one alphabet."""
_OVERLAYS = frozenset((0x0305, 0x0332, 0x0333, 0x033F, *range(0x0334, 0x0339)))
"""The combining marks that draw a line through, under or over a letter whatever its shape:
strike-through (U+0336, U+0334, U+0335), slashes (U+0337, U+0338), underlines (U+0332,
U+0333), overlines (U+0305, U+033F), as fancy-text generators put after every letter.  When
the letter's font lacks one, it is drawn from the text's face over the letter (an overlay)."""
_MATH_LETTERS = range(0x1D400, 0x1D800)
"""Unicode's Mathematical Alphanumeric Symbols (𝐁𝐨𝐥𝐝, 𝓢𝓬𝓻𝓲𝓹𝓽, 𝟏𝟐𝟑...), drawn by the math font."""
_JOINERS = "\u200c\u200d"


def _keyed(text: str, face: str) -> list[tuple[str, str]]:
    """``text``'s emoji and characters with the font of each (``EMOJI``, ``face`` or a
    fallback); a mark or joiner goes with the letter before it when that letter's font has it,
    a space with the text before it; a line mark (``_OVERLAYS``) the letter's font lacks is an
    overlay drawn from ``face`` (keyed ``face``: ``text_layers`` draws it over the letter); any
    other mark that cannot (first, after a space or an emoji, or its letter's font lacks it)
    is left out.  A letterlike symbol standing for a mathematical letter (``_LETTERLIKE``)
    goes to the math font after a run of it or before a mathematical letter."""
    covered = _COVERED[face]
    fonts = _fallback_fonts()
    out: list[tuple[str, str]] = []
    letter: str | None = None  # the font of the last piece that is not an overlay
    at = 0  # where ``piece`` is in ``text``
    for piece, emoji in _clusters(text):
        at += len(piece)
        before = out[-1][1] if out else None
        if emoji:
            out.append((piece.replace("\ufe0e", ""), EMOJI))
            letter = EMOJI
            continue
        o = ord(piece)
        if _joins(piece) and before not in (None, EMOJI) and not out[-1][0][-1:].isspace():
            has = covered if before == face else fonts.get(before or "", frozenset())
            if o in has:  # (a mark or joiner stays with its letter)
                out.append((piece, before))
                continue
            if o in _OVERLAYS and o in covered:
                out.append((piece, face))
                continue
            if before == face != letter and o in fonts.get(letter or "", ()):
                i = len(out)  # a mark of the letter after its overlay: put with the letter
                while out[i - 1][1] == face:
                    i -= 1
                out.insert(i, (piece, letter or ""))
                continue
        if unicodedata.category(piece)[0] == "M":
            continue  # a mark with no letter of its font before it: a dotted circle
        if piece == " " and letter not in (None, EMOJI):  # a space stays in its text's run
            key = letter
        elif o in _LETTERLIKE and o in fonts.get(MATH, ()) and (
                letter == MATH or _math_next(text, at)):
            key = MATH
        elif o in covered:
            key = face
        else:
            key = _fallback(o, letter)
        out.append((piece, key))
        letter = key
    return out


def _math_next(text: str, at: int) -> bool:
    """Whether the first character from ``at`` on that is neither a letterlike symbol
    (``_LETTERLIKE``) nor a mark is a mathematical letter: "ℛℴ𝒷ℯ𝓇𝓉" starts with the math
    font."""
    for ch in text[at:]:
        if ord(ch) not in _LETTERLIKE and not _joins(ch):
            return ord(ch) in _MATH_LETTERS
    return False


def _is_overlay(run: str) -> bool:
    """Whether a run of ``runs`` is an overlay: marks drawn over the letter before them."""
    return unicodedata.category(run[0])[0] == "M"


def _joins(ch: str) -> bool:
    """Whether ``ch`` belongs to the letter before it: a combining mark or a zero-width
    (non-)joiner, shaped with it in one run."""
    return ch in _JOINERS or unicodedata.category(ch)[0] == "M"


def shown_name(name: str, number: int) -> str:
    """``name`` as an image shows it: ``Player <number>`` when the fonts can draw nothing visible
    of it (a name made of blanks such as U+3164 or zero-width spaces, or of characters no font
    has), so that two such players are still told apart."""
    return name if can_draw(name) else f"Player {number}"


def can_draw(name: str) -> bool:
    """Whether the fonts draw anything visible of ``name`` (see ``shown_name``)."""
    return has_ink(_kept(name, "bold"))


def _advance(run: str, key: str, size: int) -> float:
    """The pen's advance over ``run`` in ``key``'s font at ``size`` pixels (none over an
    overlay: see ``_keyed``)."""
    if _is_overlay(run):
        return 0.0
    if key == EMOJI:
        return font(EMOJI, EMOJI_PPEM).getlength(run) * size * EMOJI_SCALE / EMOJI_PPEM
    return font(key, size).getlength(run)


@lru_cache(maxsize=8192)
def text_width(text: str, face: str, size: int) -> int:
    """The advance width of ``text`` in pixels (as drawn: see ``drawable``)."""
    return round(sum(_advance(run, key, size) for run, key in runs(text, face)))


@lru_cache(maxsize=1024)
def emoji_picture(run: str, size: int) -> tuple[Image.Image, int, int]:
    """``run`` (whole emoji) drawn in colour for text of ``size`` pixels: the RGBA picture and
    its top left from the pen's place on the baseline."""
    f = font(EMOJI, EMOJI_PPEM)
    left, top, right, bottom = (int(v) for v in f.getbbox(run, anchor="ls"))
    picture = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    ImageDraw.Draw(picture).text((-left, -top), run, font=f, anchor="ls", embedded_color=True)
    k = size * EMOJI_SCALE / EMOJI_PPEM
    wanted = (max(1, round(picture.width * k)), max(1, round(picture.height * k)))
    # scaled with its colours weighted by their opacity (no dark fringe at the edges)
    picture = picture.convert("RGBa").resize(wanted, Image.Resampling.LANCZOS).convert("RGBA")
    return picture, round(left * k), round(top * k)


def text_mask(text: str, face: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask (painted in the text's colour), and where
    its top left goes relative to the anchor point (its emoji are not in it: see
    ``text_layers``)."""
    mask, _, left, top = text_layers(text, face, size, anchor)
    return mask, left, top


@lru_cache(maxsize=4096)
def text_layers(text: str, face: str, size: int,
                anchor: str) -> tuple[Image.Image, Image.Image | None, int, int]:
    """``text`` rendered once: the anti-aliased mask of its letters (painted in the text's
    colour), the RGBA picture of its emoji in their own colours (None when it has none), both
    the same size, and where their top left goes relative to the anchor point.  Labels, names
    and numbers recur from one image to the next, so drawing text is mostly a paste; the
    layers are never modified, so threads may share them."""
    parts = runs(text, face)
    if len(parts) <= 1 and (not parts or parts[0][1] == face):
        f = font(face, size)
        text = drawable(text, face)
        left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
        return _clip_to_line(mask, None, left, top, face, size, anchor)
    # runs of several fonts on one baseline; the anchor from the face's metrics and the advance
    ascent, descent = font(face, size).getmetrics()
    advances = [_advance(run, key, size) for run, key in parts]
    width = sum(advances)
    pad = size
    canvas = Image.new("L", (int(width) + 2 * pad, 3 * size + 2 * pad), 0)
    colour: Image.Image | None = None
    draw = ImageDraw.Draw(canvas)
    baseline = pad + 2 * size
    x = float(pad)
    # the CJK font has one weight: a thin stroke stands in for bold next to bold text (the
    # script fonts are bold already)
    stroke = size // 30 if face != "regular" else 0
    order, directions = _visual_order(parts)
    starts = [0.0] * len(parts)  # where the pen starts each run
    for k in order:
        starts[k] = x
        x += advances[k]
    for k in order:
        (run, key), x = parts[k], starts[k]
        if key == EMOJI:
            if colour is None:
                colour = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
            picture, left, top = emoji_picture(run, size)
            colour.alpha_composite(picture, (max(0, round(x) + left), max(0, baseline + top)))
        elif _is_overlay(run):  # (on a zero-width space: alone, Raqm adds a dotted circle)
            letters, letters_key = parts[k - 1]
            x = _overlay_pen(run, key, size, graphemes(letters)[-1], letters_key,
                             (starts[k - 1], advances[k - 1]), directions[k - 1] == "rtl")
            draw.text((x, baseline), "\u200b" + run, font=font(key, size), fill=255,
                      anchor="ls", direction="ltr")
        else:  # (a bracket of a right-to-left stretch is drawn mirrored, as Discord does)
            draw.text((x, baseline), run, font=font(key, size), fill=255, anchor="ls",
                      stroke_width=stroke if key == CJK else 0, stroke_fill=255,
                      direction=directions[k])
    ink = _union(canvas.getbbox(), colour.getbbox() if colour is not None else None)
    ink = ink or (pad, baseline - 1, pad + 1, baseline)
    # from the pen's start to its end (as Pillow's own boxes), taller where the ink is
    box = (min(ink[0], pad), ink[1], max(ink[2], pad + round(width)), ink[3])
    horizontal = {"l": 0.0, "m": width / 2, "r": width}[anchor[0]]
    vertical = {"a": -ascent, "t": -ascent, "m": (descent - ascent) / 2, "s": 0,
                "b": descent, "d": descent}[anchor[1]]
    ax, ay = pad + horizontal, baseline + vertical
    return _clip_to_line(canvas.crop(box), colour.crop(box) if colour is not None else None,
                         round(box[0] - ax), round(box[1] - ay), face, size, anchor,
                         frozenset(key for _, key in parts))


def _overlay_pen(run: str, key: str, size: int, letter: str, letter_key: str,
                 span: tuple[float, float], rtl: bool) -> float:
    """Where to put the pen to draw the overlay ``run`` (marks of ``key``'s font, after a
    zero-width space) centred over ``letter``, the last letter of the run before it, drawn in
    ``letter_key``'s font from ``span`` (its start and advance): at its right end, or its left
    end when drawn right to left."""
    start, advance = span
    width = _advance(letter, letter_key, size)
    centre = start + (width / 2 if rtl else advance - width / 2)
    left, _, right, _ = font(key, size).getbbox("\u200b" + run, anchor="ls")
    return centre - (left + right) / 2


def _union(a: tuple[int, int, int, int] | None,
           b: tuple[int, int, int, int] | None) -> tuple[int, int, int, int] | None:
    if a is None or b is None:
        return a or b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _visual_order(parts: tuple[tuple[str, str], ...],
                  ) -> tuple[list[int], list[str | None]]:
    """The order, left to right, to draw the runs in (Raqm orders the letters inside each),
    and the direction to draw each in (None: as Raqm finds it): the Unicode bidi algorithm's,
    by runs.  A name that starts right to left ("عبدالرحمن 🔥 علي") has its first run
    rightmost; a right-to-left stretch of a left-to-right name is turned around as a whole; a
    run with no strong direction (an emoji, a space, brackets, digits) goes with its
    neighbours when they agree, else with the name's direction (rules N1, N2)."""
    dirs = [_direction(run) for run, _ in parts]
    strong = [d for d in dirs if d is not None]
    if "R" not in strong:
        return list(range(len(parts))), [None] * len(parts)
    para = strong[0]
    levels = []
    for i, d in enumerate(dirs):
        if d is None:
            before = next((x for x in reversed(dirs[:i]) if x is not None), para)
            after = next((x for x in dirs[i + 1:] if x is not None), para)
            d = before if before == after else para
        levels.append((1 if d == "R" else 0) if para == "L" else (1 if d == "R" else 2))
    order = list(range(len(parts)))
    for level in range(max(levels), 0, -1):  # (rule L2: reverse each stretch at or above)
        i = 0
        while i < len(order):
            if levels[order[i]] < level:
                i += 1
                continue
            j = i
            while j < len(order) and levels[order[j]] >= level:
                j += 1
            order[i:j] = order[i:j][::-1]
            i = j
    return order, ["rtl" if level % 2 else "ltr" for level in levels]


def _direction(run: str) -> str | None:
    """``R`` (right to left), ``L`` or None: the direction of the run's first strong
    character."""
    for ch in run:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return "R"
        if kind == "L":
            return "L"
    return None


def _clip_to_line(mask: Image.Image, colour: Image.Image | None, left: int, top: int, face: str,
                  size: int, anchor: str, keys: frozenset[str] = frozenset(),
                  ) -> tuple[Image.Image, Image.Image | None, int, int]:
    """The layers cut to the line's height (the face's ascent and descent, ``LINE_MARGIN``
    more; as far as those of the other fonts among ``keys`` reach when farther: Kannada's
    stacked consonants go deeper): marks stacked on a name never run over the lines above
    and below it.  Anchors by the ink (``t``, ``b``) are left as they are."""
    if anchor[1] not in "asdm":
        return mask, colour, left, top
    ascent, descent = font(face, size).getmetrics()
    baseline = {"a": ascent, "s": 0, "d": -descent, "m": (ascent - descent) / 2}[anchor[1]]
    reach_up, reach_down = ascent, descent
    for key in keys - {face, EMOJI}:
        up, down = font(key, size).getmetrics()
        reach_up, reach_down = max(reach_up, up), max(reach_down, down)
    margin = size * LINE_MARGIN
    y0 = max(0, round(baseline - reach_up - margin) - top)
    y1 = min(mask.height, round(baseline + reach_down + margin) - top)
    if (y0, y1) == (0, mask.height) or y1 <= y0:
        return mask, colour, left, top
    box = (0, y0, mask.width, y1)
    return mask.crop(box), colour.crop(box) if colour is not None else None, left, top + y0


@lru_cache(maxsize=4096)
def fit_text(text: str, face: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis so that it fits ``width`` pixels (cached: ``fit_name``
    cuts every other name of an image for each name it draws)."""
    if text_width(text, face, size) <= width:
        return text
    pieces = graphemes(text)  # (an emoji, a letter and its marks: kept whole or cut whole)
    n = len(pieces)
    while n and text_width("".join(pieces[:n]) + "…", face, size) > width:
        n -= 1
    cut = "".join(pieces[:n])
    return cut.rstrip() + "…" if cut else "…"


def fit_name(name: str, others: Iterable[str], face: str, size: int, width: int) -> str:
    """``name`` cut to ``width`` pixels like ``fit_text``, but told apart from ``others`` (the
    other names in the same image): when other, different names would be cut to the same
    text ("Alexander the Great" and "Alexander the Small" both "Alexander t…"), each keeps
    its start and the word where it differs, with the ellipsis between ("Alex…Great"); if
    nothing that fits tells it apart, the plain cut."""
    cut = fit_text(name, face, size, width)
    if cut == name:
        return name
    alike = sorted({o for o in others if fit_text(o, face, size, width) == cut} | {name})
    if len(alike) == 1:
        return cut
    return _apart(tuple(alike), face, size, width)[alike.index(name)]


@lru_cache(maxsize=512)
def _apart(names: tuple[str, ...], face: str, size: int, width: int) -> tuple[str, ...]:
    """What each of ``names`` (which ``fit_text`` cuts alike) shows: its first choice
    (``_choices``), or when another name shows that too, its next choice that none shows."""
    choices = [_choices(n, names, face, size, width) for n in names]
    shown = [c[0] for c in choices]
    for _ in range(2 * len(names)):  # (each pass settles at least one name, or nothing can)
        moved = False
        for i, mine in enumerate(choices):
            taken = shown[:i] + shown[i + 1:]
            if shown[i] in taken:
                free = next((c for c in mine if c not in taken), None)
                if free is not None:
                    shown[i], moved = free, True
        if not moved:
            break
    return tuple(shown)


def _choices(name: str, names: tuple[str, ...], face: str, size: int, width: int) -> list[str]:
    """The texts that tell ``name`` apart from the others, best first: from where it differs
    from the one most like it, then from the others; the plain cut last."""
    out: list[str] = []
    bounds = _bounds(name)

    def whole(i: int) -> int:  # (the end shown starts with a whole emoji or letter)
        return max(b for b in bounds if b <= i)

    for at in sorted({whole(len(commonprefix((name, o)))) for o in names if o != name},
                     reverse=True):
        word = at  # the start of the word that differs (not far back: "Player12345…")
        while word > 1 and name[word - 1].isalnum() and at - word < 6:
            word -= 1
        for start in dict.fromkeys((whole(word), whole(max(at - 3, 1)), at)):
            if 1 <= start <= at:
                shown = _cut_middle(name, start, at, face, size, width)
                if shown and shown not in out:
                    out.append(shown)
    cut = fit_text(name, face, size, width)
    return [*out, cut] if cut not in out else out


def _cut_middle(name: str, start: int, at: int, face: str, size: int, width: int) -> str:
    """``name[:k]…name[start:]`` within ``width``: the longest head that leaves the whole end,
    else the end cut too, as long as it still shows the word that differs at ``at`` (else its
    first character; all of the end when ``at`` is the name's end); "" when none does."""
    tail = name[start:]
    if at >= len(name):
        needs = [len(tail)]
    else:
        end = at
        while end < len(name) and name[end].isalnum():
            end += 1
        needs = list(dict.fromkeys((max(end, at + 1) - start, at + 1 - start)))
    bounds = set(_bounds(name))
    for need in needs:
        for keep in range(start - 1, 0, -1):
            if keep not in bounds:  # (never half an emoji or a letter without its marks)
                continue
            head = name[:keep].rstrip() + "…"
            room = width - text_width(head, face, size)
            if room <= 0:
                continue
            rest = fit_text(tail, face, size, room)
            shown = head + rest
            over = text_width(shown, face, size) - width
            if over > 0:  # (the two parts side by side can be wider than each measured alone)
                rest = fit_text(tail, face, size, room - over)
                shown = head + rest
                if text_width(shown, face, size) > width:
                    continue
            if rest == tail or (len(rest) - 1 >= need and rest != "…"):
                return shown
    return ""
