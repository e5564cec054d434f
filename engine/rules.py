"""Table options (RULES.md): a frozen, validated ``Rules``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

Variant = Literal["ofc", "pineapple", "chinese"]
Scoring = Literal["1-6", "2-4", "1-4", "1-3"]

VARIANTS: tuple[str, ...] = ("ofc", "pineapple", "chinese")
SCORINGS: tuple[str, ...] = ("1-6", "2-4", "1-4", "1-3")
NATURAL_NAMES: tuple[str, ...] = ("six pairs", "three straights", "three flushes", "dragon")
DEFAULT_NATURALS: tuple[tuple[str, int], ...] = (
    ("six pairs", 3), ("three straights", 3), ("three flushes", 3), ("dragon", 13),
)
MAX_PLAYERS = {"ofc": 4, "pineapple": 3, "chinese": 4}
# bonus added for a scoop (all three rows) and for winning more rows ("overall" unit)
SCOOP_BONUS = {"1-6": 3, "2-4": 0, "1-4": 1, "1-3": 0}
OVERALL_BONUS = {"1-6": 0, "2-4": 1, "1-4": 0, "1-3": 0}


OPTION_LABELS: dict[str, str] = {
    "strict_top": "strict top",
    "stay_middle_full_house": "stay with a middle full house",
    "progressive_stay": "progressive stay",
    "button_stays_for_fantasyland": "button stays for fantasyland",
    "shoot_the_moon": "shooting the moon",
    "shoot_the_moon_points": "moon points",
    "chinese_bonuses": "row bonuses",
    "chinese_surrender": "surrender pays",
    "stay_value": "value of staying in fantasyland",
    "timer": "clock",
    "set_timer": "clock for a full set",
    "away_timer": "clock after a timeout",
}
"""Words for the options whose field name does not read well."""

OPTION_ALIASES: dict[str, str] = {
    "stay_full_house": "stay_middle_full_house",
    "button_stays": "button_stays_for_fantasyland",
    "moon": "shoot_the_moon",
    "moon_points": "shoot_the_moon_points",
    "bonuses": "chinese_bonuses",
    "surrender": "chinese_surrender",
    "six_pairs": "six pairs",
    "three_straights": "three straights",
    "three_flushes": "three flushes",
}
"""Short names of options (those of ``/ofc options``) -> ``Rules`` fields or natural names."""

OPTION_NAMES: tuple[str, ...] = (
    "scoring", "fantasyland", "strict_top", "progressive", "progressive_stay", "stay_full_house",
    "button_stays", "stay_value", "moon", "moon_points", "bonuses", "surrender", "six_pairs",
    "three_straights", "three_flushes", "dragon", "timer", "set_timer", "away_timer",
)
"""Every option a table can change, by its short name."""

_CHINESE_OPTIONS = ("chinese_bonuses", "chinese_surrender", *NATURAL_NAMES)
_FANTASYLAND_OPTIONS = ("fantasyland", "progressive", "progressive_stay", "stay_middle_full_house",
                        "button_stays_for_fantasyland", "stay_value")
_DEFAULT_WORDS = ("default", "auto")
MAX_STAY_VALUE = 200
_WHOLE_OPTIONS = ("shoot_the_moon_points", "chinese_surrender", "timer", "set_timer",
                  "away_timer")
_ON = ("on", "true", "yes", "1")
_OFF = ("off", "false", "no", "0")


class RulesError(ValueError):
    """An invalid combination of table options."""


def _whole_number(text: str) -> int | None:
    """``text`` as a whole number (ASCII digits, at most 18: more is no option's value, and
    Python refuses to convert over 4,300), or None."""
    if text.isascii() and text.isdecimal() and len(text) <= 18:
        return int(text)
    return None


def _shown(text: str) -> str:
    """``text`` for an error message (cut when long)."""
    return text if len(text) <= 40 else text[:40] + "…"


def parse_stay_value(text: str) -> int | None:
    """``stay_value`` as written (``/ofc options``, ``--option``): a whole number of points, or
    ``default`` (``auto``) for the expected value of a fantasyland hand (None)."""
    value = text.strip().lower()
    if value in _DEFAULT_WORDS:
        return None
    number = _whole_number(value)
    if number is None or number > MAX_STAY_VALUE:
        raise RulesError(f"stay_value is a whole number of points from 0 to {MAX_STAY_VALUE}, "
                         f"or default (the expected value of a fantasyland hand), not "
                         f"'{_shown(text)}'")
    return number


_SWITCHES = ("strict_top", "fantasyland", "progressive", "stay_middle_full_house",
             "progressive_stay", "button_stays_for_fantasyland", "shoot_the_moon",
             "chinese_bonuses")
"""The options that are on or off."""


def _default_scoring(variant: str) -> str:
    return "2-4" if variant == "chinese" else "1-6"


@dataclass(frozen=True)
class Rules:
    """Every option of RULES.md with its default.  ``Rules(variant="pineapple")``."""

    variant: Variant = "ofc"
    scoring: Scoring | None = None
    """``1-6`` (default for ofc/pineapple) or ``2-4`` (default for chinese), ``1-4``, ``1-3``."""
    strict_top: bool = False
    """Foul unless the top row is strictly below the middle (default: equal is legal)."""
    fantasyland: bool = True
    progressive: bool = True
    """Pineapple: QQ -> 14 cards, KK -> 15, AA -> 16, trips -> 17 (off: always 14)."""
    stay_middle_full_house: bool = True
    """Stay in fantasyland with a full house or better in the middle (some rooms drop it)."""
    progressive_stay: bool = False
    """Pokermagnet's stay table: trips top -> 15, middle FH+ -> 14, bottom quads+ -> 14,
    royal in middle or bottom -> 15."""
    button_stays_for_fantasyland: bool = True
    """The button does not move when the coming hand has a player in fantasyland."""
    stay_value: int | None = None
    """Points the fantasyland solver (bots, suggestions, timeouts) counts for staying in
    fantasyland; None: the expected value of a fantasyland hand of the next hand's size
    (``engine.solver.DEFAULT_STAY_VALUE``: 10 at 13 cards, 14.5 at 14, 21.2 at 15)."""
    shoot_the_moon: bool = False
    shoot_the_moon_points: int = 20
    chinese_bonuses: bool = True
    chinese_surrender: int = 3
    naturals: tuple[tuple[str, int], ...] = DEFAULT_NATURALS
    timer: int = 60
    """Seconds for an ordinary decision."""
    set_timer: int = 120
    """Seconds for a fantasyland or chinese set."""
    away_timer: int = 10
    """Seconds for each later decision, in the same hand, of a player whose clock ran out, until
    they act again or sit in (the others do not wait the whole clock at every street of a
    player who walked away); never more than the clock itself; 0: the whole clock."""
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=True)

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise RulesError(
                f"Unknown variant '{self.variant}': choose one of {', '.join(VARIANTS)}"
            )
        if self.scoring is None:
            object.__setattr__(self, "scoring", _default_scoring(self.variant))
        if self.scoring not in SCORINGS:
            raise RulesError(
                f"Unknown scoring method '{self.scoring}': choose one of {', '.join(SCORINGS)}"
            )
        for name in _SWITCHES:  # ("off" read as true would turn an option on)
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be on or off (true or false), got "
                                 f"{getattr(self, name)!r}")
        for name in ("shoot_the_moon_points", "chinese_surrender"):
            value = getattr(self, name)
            if type(value) is not int:
                raise RulesError(f"{name} must be a whole number of points, got {value!r}")
        names = [n for n, _ in self.naturals]
        for name, value in self.naturals:
            if name not in NATURAL_NAMES:
                raise RulesError(
                    f"Unknown natural '{name}': choose from {', '.join(NATURAL_NAMES)}"
                )
            if type(value) is not int or value < 0:
                raise RulesError(f"The natural '{name}' needs a whole value of 0 or more")
        if len(set(names)) != len(names):
            raise RulesError("A natural is listed twice")
        for name in ("timer", "set_timer"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 5 <= value <= 3600:
                raise RulesError(f"{name} must be between 5 and 3600 seconds, got {value}")
        if not isinstance(self.away_timer, int) or not (
            self.away_timer == 0 or 5 <= self.away_timer <= 3600
        ):
            raise RulesError(f"away_timer must be 0 (off) or between 5 and 3600 seconds, got "
                             f"{self.away_timer}")
        if self.progressive_stay and (self.variant == "ofc" or not self.progressive):
            raise RulesError(
                "The progressive stay table is an option of progressive pineapple: classic ofc "
                "stays with 13 cards, plain pineapple with 14"
            )
        if self.shoot_the_moon_points < 0 or self.chinese_surrender < 0:
            raise RulesError("Bonus and surrender values cannot be negative")
        if self.stay_value is not None and (
            type(self.stay_value) is not int or not 0 <= self.stay_value <= MAX_STAY_VALUE
        ):
            raise RulesError(f"stay_value must be between 0 and {MAX_STAY_VALUE} points, got "
                             f"{self.stay_value}")

    # -- derived ---------------------------------------------------------------------------
    @property
    def scoring_method(self) -> str:
        assert self.scoring is not None
        return self.scoring

    @property
    def max_players(self) -> int:
        return MAX_PLAYERS[self.variant]

    @property
    def min_players(self) -> int:
        return 2

    @property
    def has_fantasyland(self) -> bool:
        return self.fantasyland and self.variant != "chinese"

    @property
    def has_royalties(self) -> bool:
        return self.variant != "chinese"

    @property
    def scoop_bonus(self) -> int:
        return SCOOP_BONUS[self.scoring_method]

    @property
    def overall_bonus(self) -> int:
        return OVERALL_BONUS[self.scoring_method]

    @property
    def foul_loss(self) -> int:
        """Points a fouled board loses to each opponent that did not foul: every row and the
        scoop (or the overall unit)."""
        return 3 + self.scoop_bonus + self.overall_bonus

    @property
    def natural_values(self) -> dict[str, int]:
        return dict(self.naturals)

    def check_players(self, n: int) -> None:
        if not self.min_players <= n <= self.max_players:
            raise RulesError(
                f"{self.variant} is played by {self.min_players} to {self.max_players} players, "
                f"not {n}"
            )

    def fantasyland_cards_now(self, earned: int) -> int:
        """The size of a fantasyland hand earned as ``earned`` cards, dealt under these rules
        (a table whose options changed since it was earned): none when fantasyland is off, 13
        in ofc, 14 in pineapple that is not progressive."""
        if earned <= 0 or not self.has_fantasyland:
            return 0
        if self.variant == "ofc":
            return 13
        return min(max(earned, 14), 17) if self.progressive else 14

    def changes_from(self, old: Rules) -> list[str]:
        """The options that differ from ``old``, in words (``"strict top: off → on"``)."""

        def word(value: Any) -> str:
            if isinstance(value, bool):
                return "on" if value else "off"
            return "default" if value is None else str(value)

        out = []
        for f in fields(self):
            before, after = getattr(old, f.name), getattr(self, f.name)
            if before == after or f.name in ("naturals", "extra"):
                continue
            label = OPTION_LABELS.get(f.name, f.name.replace("_", " "))
            unit = " s" if f.name in ("timer", "set_timer", "away_timer") else ""
            out.append(f"{label}: {word(before)}{unit} → {word(after)}{unit}")
        was, now = old.natural_values, self.natural_values
        for name in NATURAL_NAMES:
            if was.get(name) != now.get(name):
                out.append(f"natural {name}: {was.get(name, 'off')} → {now.get(name, 'off')}")
        return out

    def with_text_options(self, texts: Sequence[str]) -> Rules:
        """These rules with options given as ``name=value`` texts (``strict_top=on``,
        ``scoring=1-4``, ``dragon=20``; the names of ``OPTION_ALIASES`` too), or a
        ``RulesError`` naming the text that is wrong."""
        changes: dict[str, Any] = {}
        for text in texts:
            name, sep, value = (part.strip() for part in text.partition("="))
            name = name.lower()  # STRICT_TOP=on as strict_top=on
            key = OPTION_ALIASES.get(name, name)
            if not sep or key in ("variant", "extra", "naturals") or key not in (
                {f.name for f in fields(self)} | set(NATURAL_NAMES)
            ):
                raise RulesError(
                    f"'{_shown(text)}' is not an option: write name=value with a name from "
                    f"{', '.join(sorted(OPTION_NAMES))}"
                )
            if key in NATURAL_NAMES or key in _WHOLE_OPTIONS:
                number = _whole_number(value)
                if number is None:
                    raise RulesError(f"'{_shown(text)}': {name} needs a whole number (at most "
                                     "18 digits)")
                changes[key] = number
            elif key in ("scoring", "stay_value"):  # as written (``changed`` reads them)
                changes[key] = value
            elif value.lower() in _ON or value.lower() in _OFF:
                changes[key] = value.lower() in _ON
            else:
                raise RulesError(f"'{_shown(text)}': {name} is on or off")
        return self.changed(changes)

    def changed(self, changes: Mapping[str, Any]) -> Rules:
        """A table's options changed (``/ofc options``): ``changes`` maps ``Rules`` fields and
        natural names (their values; 0 takes a natural off) to new values.  A ``RulesError``
        names an option that does not apply to this variant, or a combination not allowed.
        A longer clock raises the set clock with it unless that is given too."""
        for name in changes:
            label = OPTION_LABELS.get(name, name.replace("_", " "))
            if name in _CHINESE_OPTIONS and self.variant != "chinese":
                raise RulesError(f"“{label}” is an option of chinese poker; this table plays "
                                 f"{self.variant}")
            if name in _FANTASYLAND_OPTIONS and self.variant == "chinese":
                raise RulesError(f"“{label}” is a fantasyland option; chinese poker has no "
                                 "fantasyland")
            if name in ("progressive", "progressive_stay") and self.variant != "pineapple":
                raise RulesError(f"“{label}” is an option of pineapple; this table plays "
                                 f"{self.variant}")
        fields_ = {k: v for k, v in changes.items() if k not in NATURAL_NAMES}
        if isinstance(fields_.get("stay_value"), str):  # as written: a number or default
            fields_["stay_value"] = parse_stay_value(fields_["stay_value"])
        naturals = {k: int(v) for k, v in changes.items() if k in NATURAL_NAMES}
        if "timer" in fields_ and "set_timer" not in fields_:
            fields_["set_timer"] = max(self.set_timer, int(fields_["timer"]))
        try:
            return self.with_options(naturals=self.naturals_with(naturals), **fields_)
        except TypeError as e:  # a name that is not an option
            raise RulesError(str(e)) from None

    def naturals_with(self, values: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
        """The table of naturals with some values changed (0 takes a natural off)."""
        table = {**self.natural_values, **values}
        return tuple((n, table[n]) for n in NATURAL_NAMES if table.get(n))

    def with_options(self, **changes: Any) -> Rules:
        """These rules with some options changed; a new variant brings its own default
        scoring unless a scoring is given or this one was not the old variant's default."""
        variant = changes.get("variant", self.variant)
        if variant != self.variant and "scoring" not in changes and (
            self.scoring == _default_scoring(self.variant)
        ):
            changes["scoring"] = None
        return replace(self, **changes)

    # -- persistence -----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["naturals"] = [list(p) for p in self.naturals]
        data["extra"] = [list(p) for p in self.extra]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        if "naturals" in kwargs:
            kwargs["naturals"] = tuple((str(n), int(v)) for n, v in kwargs["naturals"])
        if "extra" in kwargs:
            kwargs["extra"] = tuple((str(n), v) for n, v in kwargs["extra"])
        return cls(**kwargs)

    def describe(self) -> list[str]:
        """The options in words, one line each (for ``/ofc rules``)."""
        v = self.variant
        lines = [
            {
                "ofc": "Classic Open Face: 5 cards, then 8 rounds of 1 card, one player at a time.",
                "pineapple": "Pineapple: 5 cards, then 4 rounds of 3 cards: place 2, discard 1 "
                "face down.",
                "chinese": "Classic Chinese poker: 13 cards at once, everyone sets at the same "
                "time, hidden until all have set.",
            }[v],
            f"Scoring {self.scoring}: 1 point per row"
            + (f", +{self.scoop_bonus} for a scoop" if self.scoop_bonus else "")
            + (", +1 overall for winning more rows" if self.overall_bonus else "")
            + ".",
            "Each row must be at least as strong as the row above it (bottom ≥ middle ≥ top), "
            "and the top strictly weaker than the middle, or the board fouls."
            if self.strict_top
            else "Each row must be at least as strong as the row above it (bottom ≥ middle ≥ "
            "top; a tie is fine), or the board fouls: it loses every row.",
        ]
        if v != "chinese":
            lines.append(
                "Royalties: top 66 1 … AA 9, trips 222 10 … AAA 22; middle trips 2, straight 4, "
                "flush 8, full house 12, quads 20, straight flush 30, royal 50; bottom straight "
                "2, flush 4, full house 6, quads 10, straight flush 15, royal 25."
            )
            if self.has_fantasyland:
                if v == "pineapple" and self.progressive:
                    fl = "Fantasyland with QQ+ on top, progressive: QQ 14 cards, KK 15, AA 16, trips 17."
                elif v == "pineapple":
                    fl = "Fantasyland with QQ+ on top: 14 cards."
                else:
                    fl = "Fantasyland with QQ+ on top: 13 cards."
                lines.append(fl)
                stay = "Stay in fantasyland with trips on top"
                stay += ", a full house or better in the middle" if self.stay_middle_full_house else ""
                stay += " or quads or better on the bottom"
                if self.progressive_stay:
                    stay += " (progressive stay: trips top or a royal 15 cards, otherwise 14)"
                lines.append(stay + ".")
                if self.stay_value is not None:
                    lines.append(f"The bots, suggestions and the solver count "
                                 f"{self.stay_value} points for staying in fantasyland.")
                if self.button_stays_for_fantasyland:
                    lines.append("The button stays put when the next hand has a fantasyland.")
            else:
                lines.append("Fantasyland is off.")
            lines.append("Surrender scores as a foul.")
        else:
            lines.append(
                "Row bonuses (points): top trips 3; middle full house 2, quads 8, straight flush "
                "10; bottom quads 4, straight flush 5." if self.chinese_bonuses
                else "No row bonuses."
            )
            lines.append(
                "Naturals (points): " + ", ".join(f"{n} {val}" for n, val in self.naturals)
                + "."
                if self.naturals else "No naturals."
            )
            surrender = self.chinese_surrender
            lines.append(f"Surrender pays {surrender} point{'' if surrender == 1 else 's'} to "
                         "each opponent.")
        if self.shoot_the_moon:
            lines.append(
                f"Shooting the moon: a clean board with a jack-high bottom wins "
                f"{self.shoot_the_moon_points} more "
                f"{'point' if self.shoot_the_moon_points == 1 else 'points'} from each opponent."
            )
        clock = f"Clock: {self.timer} s per decision, {self.set_timer} s for a full set"
        if self.away_timer and v != "chinese":  # (a chinese hand is one decision)
            clock += (f"; after a player's clock ran out, {self.away_timer} s for each of their "
                      "later decisions in that hand until they act or sit in")
        lines.append(clock + ".")
        return lines
