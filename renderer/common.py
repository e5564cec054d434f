"""Pieces shared by several images: the header, seat badges, text helpers."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable

from engine import Board, Card, cards_text

from .colours import DIM, GOLD, MUTED, RGB
from .fonts import drawable, emoji_length, fit_text, graphemes, has_ink, text_width
from .model import ROW_NAMES, Theme
from .scene import Box, Metrics, Scene
from .sprites import clock_icon


def clock(seconds: int) -> str:
    """``0:42``, ``2:00``."""
    seconds = max(0, seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def compact(n: int, sign: bool = False, above: int = 100_000) -> str:
    """A number in at most 7 characters for a narrow column: ``12,345``, ``−123K``,
    ``+10.9M``, ``1.2B`` (from ``above``; the text twins keep the exact figure)."""
    body = f"{abs(n):,}"
    if abs(n) >= above:
        for limit, unit in ((10**3, "K"), (10**6, "M"), (10**9, "B"), (10**12, "T")):
            scaled = abs(n) / limit
            body = f"{scaled:.1f}{unit}" if scaled < 99.95 else f"{scaled:,.0f}{unit}"
            if round(scaled) < 1000:  # else the next unit (999,999 is 1.0M, not 1,000K)
                break
    if n < 0:
        return f"−{body}"
    return f"+{body}" if sign and n > 0 else body


def board_text(board: Board, royalties: Iterable[int] = ()) -> str:
    """``top: Qh Qd 2s | middle: … | bottom: …`` (``-`` for an empty row)."""
    parts = [f"{name}: {cards_text(row) or '-'}" for name, row in zip(ROW_NAMES, board.rows,
                                                                      strict=True)]
    text = " | ".join(parts)
    total = sum(royalties)
    if total:
        text += f" (royalties {total})"
    return text


def cards_list(cards: Iterable[Card]) -> str:
    return cards_text(cards) or "-"


def timer_pill(scene: Scene, m: Metrics, x_right: int, y: int, seconds: int,
               theme: Theme) -> Box:
    """A gold pill with a clock icon and ``0:42``, right-aligned at ``x_right``."""
    size = m(18)
    h = m(30)
    text = clock(seconds)
    tw = text_width(text, "bold", size)
    icon = m(18)
    pad = m(10)
    w = pad + icon + m(6) + tw + pad
    x = x_right - w
    urgent = seconds <= 10
    fill = (0xDA, 0x37, 0x3C) if urgent else theme.accent
    ink: RGB = (255, 255, 255) if urgent else (35, 28, 5)
    scene.rect((x, y, x + w, y + h), h // 2, fill)
    scene.sprite(clock_icon(icon, ink), x + pad, y + (h - icon) // 2)
    scene.text((x + pad + icon + m(6), y + h // 2), text, size, ink, "bold", anchor="lm")
    return (x, y, x + w, y + h)


def dealer_button(scene: Scene, m: Metrics, x: int, cy: int) -> int:
    """The dealer button (a white disc with D) with its left edge at x; returns its width."""
    d = m(26)
    scene.disc((x + d // 2, cy), d + m(4), (60, 60, 66))
    scene.disc((x + d // 2, cy), d, (250, 250, 250))
    scene.text((x + d // 2, cy), "D", m(15), (30, 30, 34), "bold", anchor="mm")
    return d


def chip(scene: Scene, m: Metrics, x: int, cy: int) -> int:
    """A small poker chip icon; returns its width."""
    d = m(16)
    scene.disc((x + d // 2, cy), d, GOLD)
    scene.disc((x + d // 2, cy), d - m(6), (0xB8, 0x82, 0x14))
    scene.disc((x + d // 2, cy), d - m(10), GOLD)
    return d


def street_dots(scene: Scene, m: Metrics, x_right: int, cy: int, street: int,
                streets: int, theme: Theme) -> None:
    """One dot per round, filled up to the current one, right-aligned at ``x_right``."""
    d = m(10)
    gap = m(6)
    for k in range(streets):
        cx = x_right - (streets - 1 - k) * (d + gap) - d // 2
        if k + 1 < street:
            colour = MUTED
        elif k + 1 == street:
            colour = theme.accent
        else:
            colour = (0x4E, 0x50, 0x58)
        scene.disc((cx, cy), d if k + 1 != street else d + m(4), colour)


def footer(scene: Scene, m: Metrics, note: str, y: int) -> None:
    scene.text((m(18), y), fit_text(note, "regular", m(17), scene.width - m(36)), m(17), DIM,
               anchor="lm")


def initials(names: tuple[str, ...] | list[str],
             numbers: tuple[int, ...] | list[int] = ()) -> list[str]:
    """A short tag per seat (drawn in a disc): the first letter of each name (with its marks:
    "रा" of "राहुल"), two letters where that is ambiguous, the name's first emoji when it has no
    letter ("🎲"), the seat's number when even that is ambiguous or the name has nothing to
    draw (``numbers``: each seat's number at the table, the N of ``Player N``; places from 1
    if not given).  Digits are not letters here, so a tag never reads as another seat's
    number."""

    def letters(name: str) -> list[str]:
        return [g for g in graphemes(drawable(name, "bold")) if g[0].isalpha() and has_ink(g)]

    def emoji(name: str) -> str:  # (not a keycap, 🔟 or 🔢: they read as seat numbers)
        return next((g for g in graphemes(drawable(name, "bold")) if emoji_length(g, 0)
                     and not any(ch in "\u20e3\U0001f51f\U0001f522" for ch in g)), "")

    if len(numbers) != len(names):
        numbers = list(range(1, len(names) + 1))
    each = [letters(n) for n in names]
    ones = [(_cased(ls[0], True) if ls else emoji(n)) for ls, n in zip(each, names, strict=True)]
    twos = [_cased(ls[0], True) + _cased(ls[1], False) if len(ls) >= 2 else "" for ls in each]
    read_ones, read_twos = [_read(t) for t in ones], [_read(t) for t in twos]
    out = []
    for i in range(len(names)):
        if ones[i] and read_ones.count(read_ones[i]) == 1:
            out.append(ones[i])
        elif twos[i] and read_twos.count(read_twos[i]) == 1:
            out.append(twos[i])
        else:
            out.append(str(numbers[i]))
    return out


def _read(tag: str) -> str:
    """``tag`` as read: "𝐒", "𝓢", "S" and "s" alike (NFKC and case folded)."""
    return unicodedata.normalize("NFKC", tag).casefold()


def _cased(letter: str, upper: bool) -> str:
    """``letter`` (with its marks) in capitals or small; a mathematical letter, which
    ``str.upper`` leaves as it is, in its own style: "𝐬" → "𝐒", "𝒷" → "ℬ", "ℯ" → "ℰ"."""
    done = letter.upper() if upper else letter.lower()
    name = unicodedata.name(letter[0], "")
    if done != letter or not name.startswith(_STYLES):
        return done
    old, new = (" SMALL ", " CAPITAL ") if upper else (" CAPITAL ", " SMALL ")
    wanted = name.replace(old, new).removeprefix("MATHEMATICAL ")
    for candidate in ("MATHEMATICAL " + wanted.replace("BLACK-LETTER", "FRAKTUR"),
                      wanted.replace("FRAKTUR", "BLACK-LETTER")):
        try:
            return unicodedata.lookup(candidate) + letter[1:]
        except KeyError:
            continue
    return letter


_STYLES = ("MATHEMATICAL ", "SCRIPT ", "BLACK-LETTER ", "DOUBLE-STRUCK ")
"""How the names of Unicode's mathematical letters and of the letterlike symbols that stand
in for some of them (ℬ, ℯ, ℭ, ℂ) start."""


def text_labels(names: tuple[str, ...], numbers: tuple[int, ...] = ()) -> tuple[str, ...]:
    """Each seat's name in a text twin, told apart as the picture tells them: a name that
    shows nothing is ``Player N`` (N the seat's number), and names that look alike (the same
    but for invisible characters) get their seat (``Sam (seat 2)``), so that a reader knows
    who won what."""
    nums = numbers if len(numbers) == len(names) else tuple(range(1, len(names) + 1))
    labels = [name if has_ink(name) else f"Player {no}"
              for name, no in zip(names, nums, strict=True)]
    # names that look alike ("Sam" and "Sam" with a zero-width space) count as the same
    seen = [" ".join("".join(ch for ch in label if ch == " " or has_ink(ch)).split())
            for label in labels]
    count = Counter(seen)
    return tuple(f"{label} (seat {no})" if count[key] > 1 else label
                 for label, key, no in zip(labels, seen, nums, strict=True))
