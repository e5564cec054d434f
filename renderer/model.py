"""What the renderer draws: frozen input models (built by the bot from engine state) and the theme.

Every model is a frozen dataclass of engine values and plain Python values, so a render is a pure
function of its inputs.  Nothing here knows about Discord.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Board, Card, Rules, Settlement

ROW_NAMES: tuple[str, ...] = ("top", "middle", "bottom")
SELECT_TARGETS: tuple[str, ...] = ("top", "middle", "bottom", "discard")


@dataclass(frozen=True)
class SeatView:
    """One seat of the table as every player may see it."""

    name: str
    board: Board
    """What everyone may see (partial during play; an empty ``Board()`` when hidden)."""
    stack: int | None = None
    """Units at the table."""
    hidden: int = 0
    """Face-down cards to draw as backs (fantasyland / chinese set not revealed yet)."""
    is_button: bool = False
    is_turn: bool = False
    time_left: int | None = None
    """Seconds, shown when ``is_turn``."""
    last_placed: tuple[Card, ...] = ()
    """Cards of the last action: highlighted."""
    fantasyland: bool = False
    """Playing a fantasyland hand now (badge)."""
    sitting_out: bool = False
    status: str = ""
    """Short line, e.g. ``set``, ``surrendered``, ``declared dragon``, ``bot (strong)``."""
    number: int = 0
    """The seat's number at the table (from 1): a name the fonts cannot draw shows as ``Player
    <number>`` (0: its place in the view, from 1)."""


@dataclass(frozen=True)
class TableView:
    title: str
    """E.g. ``Pineapple · 2 units/pt``."""
    variant: str
    """``ofc`` | ``pineapple`` | ``chinese``."""
    seats: tuple[SeatView, ...]
    street: int = 0
    """1-based round, 0 = between hands."""
    streets: int = 0
    """Total rounds (ofc 9, pineapple 5, chinese 1)."""
    hand_no: int = 0
    note: str = ""
    """Footer line, e.g. ``Practice table: no units move``."""
    rules: Rules | None = None
    """The table's rules: a finished board fouls by them (``strict_top``), and then shows no
    royalties.  None: the defaults."""


@dataclass(frozen=True)
class HandView:
    """The private panel: the cards a player must place now, above their own board."""

    name: str
    cards: tuple[Card, ...]
    """The cards to place now (1, 3, 5 or 13-17 in fantasyland)."""
    board: Board
    """The player's own board."""
    selected: tuple[tuple[Card, str], ...] = ()
    """Cards already assigned in the panel -> ``top``/``middle``/``bottom``/``discard``."""
    instruction: str = ""
    """E.g. ``Place 2, discard 1``."""
    fantasyland: bool = False
    discards: tuple[Card, ...] = ()
    """The player's own earlier discards (shown to them only)."""
    time_left: int | None = None
    """Seconds left to act (optional; shown in the header)."""
    variant: str = "ofc"
    """``ofc`` | ``pineapple`` | ``chinese`` (no royalty badges in chinese)."""
    rules: Rules | None = None
    """The table's rules, as ``TableView.rules``."""
    number: int = 0
    """The player's seat number at the table (from 1): a name the fonts cannot draw shows as
    ``Player <number>`` (0: as ``You``)."""


@dataclass(frozen=True)
class ShowdownView:
    names: tuple[str, ...]
    settlement: Settlement
    """Its ``.boards`` has the boards (None for a seat that declared a natural or surrendered)."""
    rules: Rules
    units: tuple[int, ...] | None = None
    """Units moved per seat (None in practice)."""
    fantasyland_next: tuple[int, ...] = ()
    """Cards of the next fantasyland hand per seat (0 = none)."""
    hand_no: int = 0
    title: str = ""
    natural_cards: tuple[tuple[Card, ...], ...] = ()
    """Per seat, the 13 cards of a declared natural (shown face up); () when none."""
    numbers: tuple[int, ...] = ()
    """Per seat, its number at the table (as ``SeatView.number``); () for places from 1."""


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    name: str
    units: int
    points: int
    hands: int
    fantasylands: int


@dataclass(frozen=True)
class LeaderboardView:
    title: str
    by: str
    """The column the board is sorted by: ``units``, ``points``, ``hands`` or ``fantasylands``."""
    period: str
    """E.g. ``this week``, ``all time``."""
    rows: tuple[LeaderRow, ...]
    min_hands: int = 0
    """By ``points_per_hand``: the hands a player needs to be ranked."""
    more_tied: int = 0
    """Players tied with the last row drawn, beyond the rows (counted under them)."""


@dataclass(frozen=True)
class StatsView:
    name: str
    hands: int
    points: int
    units: int
    foul_rate: float
    """0..1."""
    fantasyland_rate: float
    """0..1."""
    balances: tuple[int, ...]
    """Balance (units) before the first of the last hands, then after each of them, oldest
    first (one more than the hands; empty: no hands)."""


@dataclass(frozen=True)
class Theme:
    """Colours and size.  Hashable: it is part of the sprite cache keys."""

    four_colour: bool = True
    """♠ black, ♥ red, ♦ blue, ♣ green (default); False: the classic two-colour deck."""
    scale: float = 1.0
    """Multiplies every size (1.0 is made for Discord: about 2.3x the phone preview width)."""
    background: tuple[int, int, int] = (0x31, 0x33, 0x38)
    felt: tuple[int, int, int] = (0x1B, 0x5E, 0x40)
    felt_edge: tuple[int, int, int] = (0x2E, 0x7D, 0x57)
    back_colour: tuple[int, int, int] = (0x8E, 0x1F, 0x2F)
    """Card backs."""
    accent: tuple[int, int, int] = (0xF0, 0xB2, 0x32)
    """Whose turn it is, the last cards placed."""


DEFAULT_THEME = Theme()
