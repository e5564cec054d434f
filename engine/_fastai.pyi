"""Type stub of the compiled rollouts (engine/_fastai.c)."""

from collections.abc import Callable, Sequence
from typing import Any

CORE_VERSION: int

def load_values(table: dict[int, Any], mask: int) -> None: ...
def set_evaluator(table: dict[int, Any], mask: int, fallback: Callable[[Any], Any]) -> None: ...
def evaluate(cards: Sequence[int]) -> Any: ...
def sample(unseen: Sequence[int], need: int, rounds: int, seed: int) -> list[list[int]]: ...

class Core:
    def __init__(
        self,
        row_id: Callable[[int, int], int],
        row_info: Callable[[int, int], tuple[int, float, Sequence[int], Any]],
        strict: bool,
        loss: float,
        stages: Sequence[tuple[Any, ...]],
        tables: Sequence[Sequence[int]],
    ) -> None: ...
    def q(self, s0: int, s1: int, s2: int) -> float: ...

class Ctx:
    def __init__(
        self,
        core: Core,
        opponents: Sequence[tuple[float, Sequence[int], Sequence[int]]],
        royal: bool,
        has_fl: bool,
        ofc: bool,
        progressive: bool,
        fl_values: Sequence[float],
        moon: bool,
        moon_points: float,
        scoop: float,
        overall: float,
        foul_value: float,
        loss: float,
        strict: bool,
        live_unseen: Sequence[int] | None = None,
        samples: int = 40,
        live_seed: int = 0,
        equity_weight: float = 1.0,
    ) -> None: ...
    def row(
        self, r: int, s: int, base: int = ...
    ) -> tuple[int, float, tuple[int, ...], tuple[float, ...]]: ...
    def q(self, s0: int, s1: int, s2: int) -> float: ...
    def features(self, s0: int, s1: int, s2: int) -> tuple[int, list[float]]: ...
    def set_lookahead(self, draws: int, moves: int, free_slots: int, seed: int = 0) -> None: ...
    def lookahead(
        self, afters: Sequence[Sequence[int]], unseen: Sequence[int], draws: int, seed: int,
        pineapple: bool,
    ) -> list[float]: ...
    def final(self, vt: int, vm: int, vb: int) -> tuple[float, int, int, int]: ...
    def rollout(
        self, after: Sequence[int], future: Sequence[int], pineapple: bool
    ) -> tuple[float, int, int, int]: ...
    def simulate(
        self,
        afters: Sequence[Sequence[int]],
        unseen: Sequence[int],
        need: int,
        rounds: int,
        seed: int,
        pineapple: bool,
        budget: float = 0.0,
        min_rounds: int = 0,
    ) -> tuple[int, list[list[float]], list[int], list[int], list[int]]: ...
