"""Pre-rendered pieces: card faces, backs, empty slots, glows, felt panels, badges' masks.

Each sprite is drawn once per (what, size, colours), supersampled for smooth edges, and cached
(``functools.lru_cache`` is thread-safe; a sprite is never modified after it is made, so worker
threads may paste from the same sprite at once).  A ``Sprite`` is an RGB image plus an alpha mask
and an offset from the box it decorates (shadows and glows reach outside the card's box).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from engine import DECK

from .colours import CARD_EDGE, CARD_FACE, RGB, mix, suit_colours
from .fonts import font

SS = 4  # supersampling factor for sprites
SUIT_GLYPHS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


@dataclass(frozen=True)
class Sprite:
    rgb: Image.Image
    mask: Image.Image
    dx: int = 0
    dy: int = 0

    def paste(self, dest: Image.Image, x: int, y: int) -> None:
        dest.paste(self.rgb, (x + self.dx, y + self.dy), self.mask)


def _split(im: Image.Image, dx: int = 0, dy: int = 0) -> Sprite:
    """RGBA -> Sprite (RGB + mask), so that pasting onto an RGB canvas converts nothing."""
    rgb = im.convert("RGB")
    return Sprite(rgb, im.getchannel("A"), dx, dy)


@lru_cache(maxsize=512)
def rounded_mask(w: int, h: int, r: int) -> Image.Image:
    """An anti-aliased rounded-rectangle mask (mode L)."""
    big = Image.new("L", (w * SS, h * SS), 0)
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1), radius=r * SS, fill=255
    )
    return big.resize((w, h), Image.Resampling.LANCZOS)


def _shadow(w: int, h: int, r: int, pad: int, blur: float, alpha: int, dy: int) -> Image.Image:
    """An RGBA canvas of (w + 2 pad, h + 2 pad) holding a soft shadow of the rounded box."""
    canvas = Image.new("RGBA", (w + 2 * pad, h + 2 * pad), (0, 0, 0, 0))
    a = Image.new("L", canvas.size, 0)
    ImageDraw.Draw(a).rounded_rectangle((pad, pad + dy, pad + w - 1, pad + h - 1 + dy), r, alpha)
    a = a.filter(ImageFilter.GaussianBlur(blur))
    canvas.putalpha(a)
    return canvas


def _card_pad(w: int) -> int:
    return max(2, round(w * 0.09))


def _body(w: int, h: int, fill: RGB, edge: RGB | None) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    r = card_radius(w) * SS
    d.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1), radius=r, fill=fill + (255,),
        outline=None if edge is None else edge + (255,), width=SS,
    )
    return big, d


def card_radius(w: int) -> int:
    return max(3, round(w * 0.1))


def _with_shadow(face: Image.Image, w: int, h: int) -> Sprite:
    pad = _card_pad(w)
    canvas = _shadow(w, h, card_radius(w), pad, blur=max(1.0, w / 28), alpha=120,
                     dy=max(1, round(w / 30)))
    canvas.alpha_composite(face, (pad, pad))
    return _split(canvas, -pad, -pad)


def _glyph_mask(text: str, face: str, size: int) -> Image.Image:
    """The tight mask of ``text`` drawn at ``size``."""
    f = font(face, size)
    left, top, right, bottom = (int(v) for v in f.getbbox(text))
    m = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(m).text((-left, -top), text, font=f, fill=255)
    return m


def _rank_mask(rank_char: str, cap: int) -> Image.Image:
    """The rank in bold with cap height ``cap``, baseline aligned (Q's tail hangs below)."""
    text = "10" if rank_char == "T" else rank_char
    size = round(cap / 0.729)  # DejaVu Sans Bold: cap height is 0.729 em
    f = font("bold", size)
    asc = -int(f.getbbox("H", anchor="ls")[1])
    left, _, right, bottom = (int(v) for v in f.getbbox(text, anchor="ls"))
    m = Image.new("L", (right - left, asc + bottom), 0)
    ImageDraw.Draw(m).text((-left, asc), text, font=f, fill=255, anchor="ls")
    return m


@lru_cache(maxsize=1024)
def card_face(index: int, w: int, h: int, four_colour: bool) -> Sprite:
    """Card ``DECK[index]``'s face (w x h) with its shadow: a big rank top left, a big suit
    bottom right, in the suit's colour."""
    card = DECK[index]
    colour = suit_colours(four_colour)[card.suit]
    big, _ = _body(w, h, CARD_FACE, CARD_EDGE)
    W, H = w * SS, h * SS
    # rank
    cap = round(H * 0.34)
    rank = _rank_mask(card.rank_char, cap)
    max_w = round(W * (0.70 if card.rank_char == "T" else 0.62))
    if rank.width > max_w:
        rank = rank.resize((max_w, rank.height), Image.Resampling.LANCZOS)
    rx, ry = round(W * 0.09), round(H * 0.065)
    big.paste(colour + (255,), (rx, ry), rank)
    # suit pip
    pip_h = round(H * 0.40)
    pip = _glyph_mask(SUIT_GLYPHS[card.suit], "regular", round(pip_h * 1.25))
    scale = pip_h / pip.height
    pip = pip.resize((max(1, round(pip.width * scale)), pip_h), Image.Resampling.LANCZOS)
    px = W - round(W * 0.09) - pip.width
    py = H - round(H * 0.07) - pip.height
    big.paste(colour + (255,), (px, py), pip)
    face = big.resize((w, h), Image.Resampling.LANCZOS)
    return _with_shadow(face, w, h)


@lru_cache(maxsize=64)
def card_back(w: int, h: int, colour: RGB) -> Sprite:
    """A face-down card: white border, a lattice on ``colour``, a small diamond in the middle."""
    big, d = _body(w, h, (250, 250, 250), CARD_EDGE)
    W, H = w * SS, h * SS
    b = round(W * 0.08)
    r = max(1, card_radius(w) * SS - b)
    inner = Image.new("RGBA", (W - 2 * b, H - 2 * b), colour + (255,))
    di = ImageDraw.Draw(inner)
    light = mix(colour, (255, 255, 255), 0.22) + (255,)
    dark = mix(colour, (0, 0, 0), 0.25) + (255,)
    step = max(4 * SS, round(W * 0.16))
    iw, ih = inner.size
    lw = max(1, SS)
    for k in range(-ih, iw + ih, step):
        di.line((k, 0, k + ih, ih), fill=light, width=lw)
        di.line((k, ih, k + ih, 0), fill=light, width=lw)
    # a medallion: nested rhombi
    cx, cy = iw // 2, ih // 2
    for frac, fill in ((0.36, dark), (0.31, (250, 250, 250, 255)), (0.25, colour + (255,)),
                       (0.14, (250, 250, 250, 255))):
        rw, rh = round(iw * frac), round(iw * frac * 1.45)
        di.polygon([(cx, cy - rh), (cx + rw, cy), (cx, cy + rh), (cx - rw, cy)], fill=fill)
    m = Image.new("L", inner.size, 0)
    ImageDraw.Draw(m).rounded_rectangle((0, 0, iw - 1, ih - 1), radius=r, fill=255)
    big.paste(inner, (b, b), m)
    d.rounded_rectangle(
        (b, b, W - b - 1, H - b - 1), radius=r, outline=dark, width=SS
    )
    face = big.resize((w, h), Image.Resampling.LANCZOS)
    return _with_shadow(face, w, h)


@lru_cache(maxsize=64)
def card_slot(w: int, h: int) -> Sprite:
    """An empty place on the board: a faint rounded outline."""
    big = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    d.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1), radius=card_radius(w) * SS,
        fill=(0, 0, 0, 40), outline=(255, 255, 255, 70), width=round(1.5 * SS),
    )
    return _split(big.resize((w, h), Image.Resampling.LANCZOS))


@lru_cache(maxsize=64)
def card_glow(w: int, h: int, colour: RGB) -> Sprite:
    """A ring and soft glow around a card (the last cards placed)."""
    pad = max(4, round(w * 0.16))
    ring = max(2, round(w * 0.06))
    r = card_radius(w) + ring
    canvas = Image.new("RGBA", (w + 2 * pad, h + 2 * pad), colour + (0,))
    a = Image.new("L", canvas.size, 0)
    ImageDraw.Draw(a).rounded_rectangle(
        (pad - ring - 2, pad - ring - 2, pad + w + ring + 1, pad + h + ring + 1), r + 2, 220
    )
    a = a.filter(ImageFilter.GaussianBlur(max(2.0, w / 14)))
    ringm = rounded_mask(w + 2 * ring, h + 2 * ring, r)
    a.paste(255, (pad - ring, pad - ring), ringm)
    canvas.putalpha(a)
    return _split(canvas, -pad, -pad)


@lru_cache(maxsize=256)
def ghost(index: int, w: int, h: int, four_colour: bool, colour: RGB) -> Sprite:
    """A card face drawn faint, with a coloured edge: a card chosen but not yet placed."""
    face = card_face(index, w, h, four_colour)
    pad = -face.dx
    rgb = face.rgb.copy()
    mask = face.mask.point(lambda v: v * 170 // 255)
    edge = Image.new("L", face.mask.size, 0)
    t = max(2, round(w * 0.05))
    outer = rounded_mask(w, h, card_radius(w))
    inner = rounded_mask(w - 2 * t, h - 2 * t, max(1, card_radius(w) - t))
    ring = Image.new("L", (w, h), 0)
    ring.paste(outer, (0, 0))
    ring.paste(0, (t, t), inner)
    edge.paste(ring, (pad, pad))
    rgb.paste(colour, (0, 0), edge)
    mask = ImageChops.lighter(mask, edge)
    return Sprite(rgb, mask, face.dx, face.dy)


@lru_cache(maxsize=128)
def panel(w: int, h: int, r: int, top: RGB, bottom: RGB, edge: RGB | None,
          shadow: bool = True, edge_w: int = 2) -> Sprite:
    """A rounded panel with a vertical gradient, an optional edge line and a drop shadow."""
    pad = max(2, r // 2) if shadow else 0
    if shadow:
        canvas = _shadow(w, h, r, pad, blur=max(2.0, r / 3), alpha=110, dy=max(1, r // 5))
    else:
        canvas = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    grad = Image.linear_gradient("L").resize((1, h)).resize((w, h))
    body = Image.composite(
        Image.new("RGB", (w, h), bottom), Image.new("RGB", (w, h), top), grad
    ).convert("RGBA")
    body.putalpha(rounded_mask(w, h, r))
    if edge is not None:
        e = Image.new("L", (w, h), 0)
        e.paste(rounded_mask(w, h, r), (0, 0))
        e.paste(0, (edge_w, edge_w),
                rounded_mask(w - 2 * edge_w, h - 2 * edge_w, max(1, r - edge_w)))
        body.paste(edge + (255,), (0, 0), e)
    canvas.alpha_composite(body, (pad, pad))
    return _split(canvas, -pad, -pad)


@lru_cache(maxsize=32)
def stamp(text: str, size: int, colour: RGB, angle: float, opacity: int = 235) -> Sprite:
    """Rubber-stamp text (FOUL) in a rounded frame, rotated; centred on the paste point.
    ``opacity`` (0-255) of the ink: lower lets the cards under it be read."""
    f = font("bold", size * SS)
    left, top, right, bottom = (int(v) for v in f.getbbox(text))
    tw, th = right - left, bottom - top
    px, py = round(size * 0.45) * SS, round(size * 0.3) * SS
    bw, bh = tw + 2 * px, th + 2 * py
    big = Image.new("L", (bw, bh), 0)
    d = ImageDraw.Draw(big)
    lw = max(1, round(size * 0.09)) * SS
    d.rounded_rectangle((0, 0, bw - 1, bh - 1), radius=round(size * 0.25) * SS,
                        fill=60, outline=255, width=lw)
    d.text((px - left, py - top), text, font=f, fill=255)
    m = big.resize((max(1, bw // SS), max(1, bh // SS)), Image.Resampling.LANCZOS)
    m = m.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    alpha = m.point(lambda v: min(255, v * opacity // 255))
    rgb = Image.new("RGB", m.size, colour)
    # the translucent fill darkens rather than tints the board under it
    return Sprite(rgb, alpha, -m.width // 2, -m.height // 2)


@lru_cache(maxsize=32)
def disc(d: int) -> Image.Image:
    """An anti-aliased filled circle mask of diameter ``d``."""
    big = Image.new("L", (d * SS, d * SS), 0)
    ImageDraw.Draw(big).ellipse((0, 0, d * SS - 1, d * SS - 1), fill=255)
    return big.resize((d, d), Image.Resampling.LANCZOS)


def clock_icon(size: int, colour: RGB) -> Sprite:
    return _clock(size, colour)


@lru_cache(maxsize=16)
def _clock(size: int, colour: RGB) -> Sprite:
    big = Image.new("RGBA", (size * SS, size * SS), colour + (0,))
    d = ImageDraw.Draw(big)
    w = max(1, round(size * 0.12)) * SS
    s = size * SS
    d.ellipse((w // 2, w // 2, s - w // 2 - 1, s - w // 2 - 1), outline=colour + (255,), width=w)
    c = s // 2
    d.line((c, c, c, round(s * 0.24)), fill=colour + (255,), width=w)
    ang = math.radians(-30)
    d.line((c, c, c + round(math.cos(ang) * s * 0.22), c - round(math.sin(ang) * s * 0.22)),
           fill=colour + (255,), width=w)
    return _split(big.resize((size, size), Image.Resampling.LANCZOS))
