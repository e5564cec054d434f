"""Fonts: DejaVu Sans from matplotlib's data (it has ♠♥♦♣; Pillow's own default font has not).

The font files are read once at import.  ``FreeTypeFont`` objects are kept per thread
(``threading.local``), so renders running in several worker threads never share a FreeType face.
"""

from __future__ import annotations

import io
import threading
import unicodedata
from functools import lru_cache
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
_DATA: dict[str, bytes] = {key: (FONT_DIR / name).read_bytes() for key, name in FACES.items()}
_LOCAL = threading.local()
_COVERED: dict[str, frozenset[int]] = {
    key: frozenset(FT2Font(str(FONT_DIR / name)).get_charmap()) for key, name in FACES.items()
}


def font(face: str, size: int) -> ImageFont.FreeTypeFont:
    """The font ``face`` (``regular``, ``bold``, ``mono``) at ``size`` pixels, cached per thread."""
    cache: dict[tuple[str, int], ImageFont.FreeTypeFont] | None = getattr(_LOCAL, "fonts", None)
    if cache is None:
        cache = {}
        _LOCAL.fonts = cache
    key = (face, size)
    f = cache.get(key)
    if f is None:
        f = ImageFont.truetype(io.BytesIO(_DATA[face]), size)
        cache[key] = f
    return f


@lru_cache(maxsize=4096)
def drawable(text: str, face: str = "regular") -> str:
    """``text`` without the characters the font has no glyph for (emoji, CJK…), which would
    otherwise be drawn as empty boxes; the text equivalents keep the full text."""
    covered = _COVERED[face]
    if all(ord(ch) in covered for ch in text):
        return text
    kept = "".join(ch for ch in text if ord(ch) in covered)
    kept = " ".join(kept.split())
    # joiners, variation selectors and lone marks left from an emoji draw nothing
    visible = any(unicodedata.category(ch)[0] in "LNPS" for ch in kept)
    return kept if visible else "?"


def shown_name(name: str, number: int) -> str:
    """``name`` as an image shows it: ``Player <number>`` when the font can draw none of it
    (a name all in CJK or emoji), so that two such players are still told apart."""
    return name if drawable(name, "bold") != "?" else f"Player {number}"


@lru_cache(maxsize=8192)
def text_width(text: str, face: str, size: int) -> int:
    """The advance width of ``text`` in pixels (as drawn: see ``drawable``)."""
    return round(font(face, size).getlength(drawable(text, face)))


@lru_cache(maxsize=4096)
def text_mask(text: str, face: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an anti-aliased mask, and where its top left goes relative to the
    anchor point.  Labels, names and numbers recur from one image to the next, so drawing text
    is mostly a paste; masks are never modified, so threads may share them."""
    f = font(face, size)
    text = drawable(text, face)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


def fit_text(text: str, face: str, size: int, width: int) -> str:
    """``text`` cut with an ellipsis so that it fits ``width`` pixels."""
    if text_width(text, face, size) <= width:
        return text
    cut = text
    while cut and text_width(cut + "…", face, size) > width:
        cut = cut[:-1]
    return cut.rstrip() + "…" if cut else "…"
