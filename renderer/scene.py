"""A scene: the list of things an image is made of, with their boxes, then painted in one pass.

Layout and painting are separate so that tests (and the bot, if it wants) can ask where every card
is drawn without decoding an image: ``Scene.cards`` lists each card spot with its box.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine import Card

from . import sprites
from .colours import RGB, TARGET_COLOURS
from .fonts import text_layers, text_width
from .model import Theme

Box = tuple[int, int, int, int]
"""x0, y0, x1, y1 (x1, y1 exclusive)."""

PNG_LEVEL = 3
"""zlib level: 1-3 are equally fast here (deflate_fast), 3 is ~5% smaller; 4+ is 50% slower."""


@dataclass(frozen=True)
class CardSpot:
    """Where one card (or back, or empty slot) is drawn."""

    box: Box
    kind: str
    """``face``, ``back`` (face down), ``slot`` (empty place) or ``ghost`` (chosen, not placed)."""
    card: Card | None = None
    """The card for ``face`` and ``ghost``; None for ``back`` and ``slot``."""
    seat: int = -1
    """Seat index (table, showdown); -1 in the private hand."""
    row: str = ""
    """``top``/``middle``/``bottom`` for a board; ``natural`` for the 13 cards of a declared
    natural (not set in rows); ``hand`` or ``discard`` in the private hand."""
    highlight: bool = False
    """Drawn with a glow (the cards placed by the last action)."""
    tag: str = ""
    """Private hand: the row (or ``discard``) the card is selected for."""


class Metrics:
    """Sizes scaled by ``Theme.scale``: ``m(10)`` is 10 px at scale 1."""

    def __init__(self, theme: Theme) -> None:
        self.scale = theme.scale

    def __call__(self, x: float) -> int:
        return max(1, round(x * self.scale)) if x > 0 else round(x * self.scale)


Op = Callable[[Image.Image, ImageDraw.ImageDraw], None]


@dataclass
class Scene:
    width: int
    height: int
    background: RGB
    theme: Theme
    ops: list[Op] = field(default_factory=list)
    cards: list[CardSpot] = field(default_factory=list)

    # -- building -------------------------------------------------------------------------------
    def panel(self, box: Box, r: int, top: RGB, bottom: RGB | None = None,
              edge: RGB | None = None, shadow: bool = True, edge_w: int = 2) -> None:
        x0, y0, x1, y1 = box
        sprite = sprites.panel(x1 - x0, y1 - y0, r, top, bottom or top, edge, shadow, edge_w)
        self.ops.append(lambda im, d: sprite.paste(im, x0, y0))

    def rect(self, box: Box, r: int, fill: RGB) -> None:
        """A filled anti-aliased rounded rectangle (r=0: square)."""
        x0, y0, x1, y1 = box
        if r <= 0:
            self.ops.append(lambda im, d: d.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill))
            return
        mask = sprites.rounded_mask(x1 - x0, y1 - y0, r)
        self.ops.append(lambda im, d: im.paste(fill, (x0, y0), mask))

    def veil(self, box: Box, r: int, colour: RGB, alpha: int) -> None:
        """Cover ``box`` with ``colour`` at opacity ``alpha`` (0-255), e.g. to dim a seat."""
        x0, y0, x1, y1 = box
        mask = sprites.rounded_mask(x1 - x0, y1 - y0, r).point(lambda v: v * alpha // 255)
        self.ops.append(lambda im, d: im.paste(colour, (x0, y0), mask))

    def line(self, xy: tuple[int, int, int, int], fill: RGB, width: int = 1) -> None:
        self.ops.append(lambda im, d: d.line(xy, fill=fill, width=width))

    def text(self, xy: tuple[int, int], text: str, size: int, fill: RGB, face: str = "regular",
             anchor: str = "la") -> int:
        """Draw ``text`` (Pillow anchors: ``la``, ``lm``, ``mm``, ``rm``…); returns its width."""
        if text:
            mask, colour, dx, dy = text_layers(text, face, size, anchor)
            at = (xy[0] + dx, xy[1] + dy)
            if colour is None:
                self.ops.append(lambda im, d: im.paste(fill, at, mask))
            else:  # the letters in ``fill``, the emoji in their own colours
                def paint(im: Image.Image, d: ImageDraw.ImageDraw) -> None:
                    im.paste(fill, at, mask)
                    im.paste(colour, at, colour)

                self.ops.append(paint)
        return text_width(text, face, size)

    def sprite(self, sprite: sprites.Sprite, x: int, y: int) -> None:
        self.ops.append(lambda im, d: sprite.paste(im, x, y))

    def image(self, image: Image.Image, x: int, y: int) -> None:
        self.ops.append(lambda im, d: im.paste(image, (x, y)))

    def disc(self, centre: tuple[int, int], diameter: int, fill: RGB) -> None:
        mask = sprites.disc(diameter)
        x, y = centre[0] - diameter // 2, centre[1] - diameter // 2
        self.ops.append(lambda im, d: im.paste(fill, (x, y), mask))

    def card(self, spot: CardSpot) -> None:
        """Draw a card spot (face, back, slot or ghost), with its glow when highlighted."""
        self.cards.append(spot)
        x0, y0, x1, y1 = spot.box
        w, h = x1 - x0, y1 - y0
        theme = self.theme
        layers: list[sprites.Sprite] = []
        if spot.highlight:
            layers.append(sprites.card_glow(w, h, theme.accent))
        if spot.kind == "face":
            assert spot.card is not None
            layers.append(sprites.card_face(spot.card.index, w, h, theme.four_colour))
        elif spot.kind == "ghost":
            assert spot.card is not None
            colour = TARGET_COLOURS.get(spot.tag, theme.accent)
            layers.append(sprites.ghost(spot.card.index, w, h, theme.four_colour, colour))
        elif spot.kind == "back":
            layers.append(sprites.card_back(w, h, theme.back_colour))
        else:
            layers.append(sprites.card_slot(w, h))

        def paint(im: Image.Image, d: ImageDraw.ImageDraw) -> None:
            for layer in layers:
                layer.paste(im, x0, y0)

        self.ops.append(paint)

    def pill(self, x: int, y: int, text: str, size: int, fill: RGB, colour: RGB,
             face: str = "bold", pad: int | None = None, align: str = "left",
             height: int | None = None) -> Box:
        """A rounded label; ``align`` left/right/centre about ``x``.  Returns its box."""
        tw = text_width(text, face, size)
        pad = pad if pad is not None else max(4, size // 2)
        h = height if height is not None else round(size * 1.55)
        w = tw + 2 * pad
        if align == "right":
            x -= w
        elif align == "centre":
            x -= w // 2
        self.rect((x, y, x + w, y + h), h // 2, fill)
        self.text((x + w // 2, y + h // 2), text, size, colour, face, anchor="mm")
        return (x, y, x + w, y + h)

    # -- painting -------------------------------------------------------------------------------
    def paint(self) -> Image.Image:
        im = Image.new("RGB", (self.width, self.height), self.background)
        d = ImageDraw.Draw(im)
        for op in self.ops:
            op(im, d)
        return im

    def png(self) -> bytes:
        return encode(self.paint())


def encode(im: Image.Image, level: int = PNG_LEVEL) -> bytes:
    """PNG bytes of an RGB image, deterministic (no timestamps or other metadata).

    Written here rather than by ``Image.save``: Pillow tries every PNG row filter on every row,
    which costs more than the compression itself; these images are mostly flat colour, for which
    filter type 0 (none) compresses as well, so this is about twice as fast at the same size
    (``python -m bench.render`` prints both).  ``encode_pillow`` is the reference.
    """
    if im.mode != "RGB":
        im = im.convert("RGB")
    w, h = im.size
    raw = im.tobytes()
    stride = 3 * w
    rows = b"".join([b"\x00" + raw[i : i + stride] for i in range(0, stride * h, stride)])
    return b"".join((
        _PNG_SIGNATURE,
        _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)),
        _chunk(b"IDAT", zlib.compress(rows, level)),
        _chunk(b"IEND", b""),
    ))


def encode_pillow(im: Image.Image, level: int = PNG_LEVEL) -> bytes:
    """PNG bytes by Pillow's own encoder (adaptive row filters)."""
    buf = io.BytesIO()
    im.save(buf, format="PNG", compress_level=level)
    return buf.getvalue()


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
