"""Colours: the suits of the four- and two-colour decks, the UI palette, and a colour-vision check.

The four-colour suits were chosen so that every pair stays at least ΔE 25 (CIELAB) apart under
simulated protanopia, deuteranopia and tritanopia (Machado et al. 2009, full severity) and each has
a contrast of at least 4.5:1 on the white card face (``tests/renderer/test_colours.py``).
"""

from __future__ import annotations

import math

RGB = tuple[int, int, int]

SUIT_COLOURS_FOUR: dict[str, RGB] = {
    "s": (0x1B, 0x1B, 0x1F),  # black
    "h": (0xBF, 0x0A, 0x01),  # red
    "d": (0x04, 0x31, 0xCA),  # blue
    "c": (0x03, 0x85, 0x61),  # green
}
SUIT_COLOURS_TWO: dict[str, RGB] = {
    "s": (0x1B, 0x1B, 0x1F),
    "h": (0xBF, 0x0A, 0x01),
    "d": (0xBF, 0x0A, 0x01),
    "c": (0x1B, 0x1B, 0x1F),
}

CARD_FACE: RGB = (0xFD, 0xFD, 0xFB)
CARD_EDGE: RGB = (0xB8, 0xBC, 0xC4)

TEXT: RGB = (0xF2, 0xF3, 0xF5)
MUTED: RGB = (0xB5, 0xBA, 0xC1)
DIM: RGB = (0x80, 0x84, 0x8E)
PANEL: RGB = (0x2B, 0x2D, 0x31)
PANEL_LIGHT: RGB = (0x38, 0x3A, 0x40)
GOLD: RGB = (0xF0, 0xB2, 0x32)
WIN: RGB = (0x23, 0xA5, 0x59)
LOSE: RGB = (0xDA, 0x37, 0x3C)
TIE: RGB = (0x80, 0x84, 0x8E)
FOUL: RGB = (0xE0, 0x2B, 0x2B)
ROYALTY: RGB = (0xF0, 0xB2, 0x32)
FANTASY: RGB = (0xB8, 0x5C, 0xF6)
BLUE: RGB = (0x58, 0x65, 0xF2)

# per-seat accents (initial discs in the showdown): distinct hues, readable with white text
SEAT_COLOURS: tuple[RGB, ...] = (
    (0x58, 0x65, 0xF2), (0xE6, 0x7E, 0x22), (0x1A, 0xBC, 0x9C), (0xE9, 0x1E, 0x63),
)

# selection targets in the private panel
TARGET_COLOURS: dict[str, RGB] = {
    "top": (0x58, 0x65, 0xF2),
    "middle": (0x1A, 0xBC, 0x9C),
    "bottom": (0xE6, 0x7E, 0x22),
    "discard": (0x80, 0x84, 0x8E),
}


def suit_colours(four_colour: bool) -> dict[str, RGB]:
    return SUIT_COLOURS_FOUR if four_colour else SUIT_COLOURS_TWO


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` towards ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


# -- colour vision ----------------------------------------------------------------------------
_CVD: dict[str, tuple[tuple[float, float, float], ...]] = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protan": (
        (0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deutan": (
        (0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritan": (
        (1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
CVD_KINDS: tuple[str, ...] = tuple(_CVD)


def _linear(c: int) -> float:
    x = c / 255
    return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4


def simulate(rgb: RGB, kind: str) -> tuple[float, float, float]:
    """Linear RGB of ``rgb`` as seen with colour-vision deficiency ``kind``."""
    lin = [_linear(c) for c in rgb]
    m = _CVD[kind]
    out = [min(1.0, max(0.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3)]
    return (out[0], out[1], out[2])


def luminance(linear: tuple[float, float, float]) -> float:
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: RGB, b: RGB, kind: str = "normal") -> float:
    """WCAG contrast ratio of two colours as seen by ``kind``."""
    la, lb = luminance(simulate(a, kind)), luminance(simulate(b, kind))
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def _lab(lin: tuple[float, float, float]) -> tuple[float, float, float]:
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.9505
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.089

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def delta_e(a: RGB, b: RGB, kind: str = "normal") -> float:
    """CIE76 colour difference of two colours as seen by ``kind``."""
    return math.dist(_lab(simulate(a, kind)), _lab(simulate(b, kind)))
