"""Fonts: DejaVu Sans from matplotlib's data (it has ♠♥♦♣; Pillow's own default font has not),
and Noto Sans CJK (from the ``mplfonts`` package) for the characters DejaVu lacks: Chinese,
Japanese and Korean names are drawn as typed.

The DejaVu files are read once at import; the CJK font's character map (16 MB file) the first
time a text needs it, and its glyphs from the file (never a copy per font object).
``FreeTypeFont`` objects are kept per thread (``threading.local``), so renders running in several
worker threads never share a FreeType face.  A text mixing both fonts is drawn run by run on one
baseline, placed by the DejaVu face's metrics, so it lines up with the names around it.
"""

from __future__ import annotations

import importlib.util
import io
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
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
"""The face key of the fallback font (one weight: it serves every face)."""
CJK_FILE = "NotoSansCJKsc-Regular.otf"
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
def _cjk_covered() -> frozenset[int]:
    """The fallback font's characters (read on first use)."""
    path = cjk_path()
    return frozenset(FT2Font(str(path)).get_charmap()) if path is not None else frozenset()


def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    """The font ``face`` (``regular``, ``bold``, ``mono``, ``cjk``) at ``size`` pixels, cached
    per thread."""
    cache: dict[tuple[str, int], ImageFont.FreeTypeFont] | None = getattr(_LOCAL, "fonts", None)
    if cache is None:
        cache = {}
        _LOCAL.fonts = cache
    key = (face, size)
    f = cache.get(key)
    if f is None:
        if face == CJK:  # opened by path: FreeType reads the 16 MB file as it needs it
            f = ImageFont.truetype(str(cjk_path()), size)
        else:
            f = ImageFont.truetype(io.BytesIO(_DATA[face]), size)
        cache[key] = f
    return f


def _code_points(*parts: int | range) -> frozenset[int]:
    out: set[int] = set()
    for part in parts:
        out.update(part if isinstance(part, range) else (part,))
    return frozenset(out)


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
    """``text`` as drawn, before the ``?`` of ``drawable``: without the characters neither font
    has, blank glyphs as spaces, at most ``MAX_MARKS`` marks a character."""
    covered = _COVERED[face]
    if all(ord(ch) in covered and ord(ch) not in _BLANK_GLYPHS for ch in text):
        kept = text
    else:
        extra = _cjk_covered()
        kept = "".join(" " if ord(ch) in _BLANK_GLYPHS else ch for ch in text
                       if ord(ch) in covered or ord(ch) in extra or ord(ch) in _BLANK_GLYPHS)
        kept = " ".join(kept.split())
    if any(unicodedata.combining(ch) for ch in kept):
        kept = _limit_marks(kept)
    return kept


@lru_cache(maxsize=4096)
def drawable(text: str, face: str = "regular") -> str:
    """``text`` without the characters no font has a glyph for (emoji…), which would otherwise
    be drawn as empty boxes, and without the marks stacked beyond ``MAX_MARKS``; ``?`` when
    nothing visible is left (see ``has_ink``).  The text equivalents keep the full text."""
    kept = _kept(text, face)
    if kept == text and not text.strip():
        return text  # nothing or spaces, as asked
    # joiners, variation selectors and lone marks left from an emoji draw nothing
    return kept if has_ink(kept) else "?"


@lru_cache(maxsize=4096)
def runs(text: str, face: str) -> tuple[tuple[str, str], ...]:
    """``text`` as drawn (see ``drawable``), cut into runs of one font each: ``(run, face)``."""
    text = drawable(text, face)
    covered = _COVERED[face]
    out: list[tuple[str, str]] = []
    for ch in text:
        key = face if ord(ch) in covered else CJK
        if ch == " " and out:  # a space stays in the run it follows
            key = out[-1][1]
        if out and out[-1][1] == key:
            out[-1] = (out[-1][0] + ch, key)
        else:
            out.append((ch, key))
    return tuple(out)


def shown_name(name: str, number: int) -> str:
    """``name`` as an image shows it: ``Player <number>`` when the fonts can draw nothing visible
    of it (a name all in emoji, or made of blanks such as U+3164 or zero-width spaces), so that
    two such players are still told apart."""
    return name if can_draw(name) else f"Player {number}"


def can_draw(name: str) -> bool:
    """Whether the fonts draw anything visible of ``name`` (see ``shown_name``)."""
    return has_ink(_kept(name, "bold"))


@lru_cache(maxsize=8192)
def text_width(text: str, face: str, size: int) -> int:
    """The advance width of ``text`` in pixels (as drawn: see ``drawable``)."""
    return round(sum(font(key, size).getlength(run) for run, key in runs(text, face)))


@lru_cache(maxsize=4096)
def text_mask(text: str, face: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask, and where its top left goes relative to the
    anchor point.  Labels, names and numbers recur from one image to the next, so drawing text
    is mostly a paste; masks are never modified, so threads may share them."""
    parts = runs(text, face)
    if len(parts) <= 1 and (not parts or parts[0][1] == face):
        f = font(face, size)
        text = drawable(text, face)
        left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
        return _clip_to_line(mask, left, top, face, size, anchor)
    # runs of two fonts on one baseline; the anchor from the face's metrics and the whole advance
    ascent, descent = font(face, size).getmetrics()
    advances = [font(key, size).getlength(run) for run, key in parts]
    width = sum(advances)
    pad = size
    canvas = Image.new("L", (int(width) + 2 * pad, 3 * size + 2 * pad), 0)
    draw = ImageDraw.Draw(canvas)
    baseline = pad + 2 * size
    x = float(pad)
    # the CJK font has one weight: a thin stroke stands in for bold next to bold text
    stroke = size // 30 if face != "regular" else 0
    for (run, key), advance in zip(parts, advances, strict=True):
        draw.text((x, baseline), run, font=font(key, size), fill=255, anchor="ls",
                  stroke_width=stroke if key == CJK else 0, stroke_fill=255)
        x += advance
    ink = canvas.getbbox() or (pad, baseline - 1, pad + 1, baseline)
    # from the pen's start to its end (as Pillow's own boxes), taller where the ink is
    box = (min(ink[0], pad), ink[1], max(ink[2], pad + round(width)), ink[3])
    horizontal = {"l": 0.0, "m": width / 2, "r": width}[anchor[0]]
    vertical = {"a": -ascent, "t": -ascent, "m": (descent - ascent) / 2, "s": 0,
                "b": descent, "d": descent}[anchor[1]]
    ax, ay = pad + horizontal, baseline + vertical
    return _clip_to_line(canvas.crop(box), round(box[0] - ax), round(box[1] - ay), face, size,
                         anchor)


def _clip_to_line(mask: Image.Image, left: int, top: int, face: str, size: int,
                  anchor: str) -> tuple[Image.Image, int, int]:
    """The mask cut to the line's height (the face's ascent and descent, ``LINE_MARGIN`` more):
    marks stacked on a name never run over the lines above and below it.  Anchors by the ink
    (``t``, ``b``) are left as they are."""
    if anchor[1] not in "asdm":
        return mask, left, top
    ascent, descent = font(face, size).getmetrics()
    baseline = {"a": ascent, "s": 0, "d": -descent, "m": (ascent - descent) / 2}[anchor[1]]
    margin = size * LINE_MARGIN
    y0 = max(0, round(baseline - ascent - margin) - top)
    y1 = min(mask.height, round(baseline + descent + margin) - top)
    if (y0, y1) == (0, mask.height) or y1 <= y0:
        return mask, left, top
    return mask.crop((0, y0, mask.width, y1)), left, top + y0


@lru_cache(maxsize=4096)
def fit_text(text: str, face: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis so that it fits ``width`` pixels (cached: ``fit_name``
    cuts every other name of an image for each name it draws)."""
    if text_width(text, face, size) <= width:
        return text
    cut = text
    while cut and text_width(cut + "…", face, size) > width:
        cut = cut[:-1]
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
    for at in sorted({len(commonprefix((name, o))) for o in names if o != name}, reverse=True):
        word = at  # the start of the word that differs (not far back: "Player12345…")
        while word > 1 and name[word - 1].isalnum() and at - word < 6:
            word -= 1
        for start in dict.fromkeys((word, max(at - 3, 1), at)):
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
    for need in needs:
        for keep in range(start - 1, 0, -1):
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
