"""Where a game's first player and dice come from (D2, D5-D7): the :class:`DiceSource`
protocol, fair dice from a generator (:class:`GeneratorDice`) and dice given in advance
(:class:`ScriptedDice`, for replays and hand-worked tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from shelfie_solver.dice.game.events import GameError
from shelfie_solver.dice.rolls import Counts, dice_codes
from shelfie_solver.dice.rules import Ruleset


class DiceSource(Protocol):
    """Where the first player and the dice come from."""

    def first_player(self, players: int) -> int:
        """The seat that plays first (D5)."""
        ...

    def roll(self, keep: Counts, rules: Ruleset) -> Counts:
        """All dice after keeping ``keep`` and rolling the rest (D6: ``keep`` all zero)."""
        ...


@dataclass
class GeneratorDice:
    """Fair dice from a :class:`numpy.random.Generator` (D2: every side equally likely)."""

    rng: np.random.Generator

    def first_player(self, players: int) -> int:
        return int(self.rng.integers(players))

    def roll(self, keep: Counts, rules: Ruleset) -> Counts:
        counts = list(keep)
        # int32 draws: the same numbers and generator state as the default int64 (both take
        # numpy's buffered 32-bit bounded path for so few sides), about 30% cheaper per call
        for side in self.rng.integers(0, rules.n_sides, size=rules.dice - sum(keep), dtype=np.int32).tolist():
            counts[side] += 1
        return tuple(counts)


@dataclass
class ScriptedDice:
    """Dice given in advance: ``first`` plays first, ``rolls`` are the full dice of each roll
    and re-roll in order (for replays and hand-worked tests).

    Raises:
        GameError: the script runs out, or a roll does not contain the dice kept.
    """

    first: int
    rolls: list[Counts]
    _next: int = 0

    def first_player(self, players: int) -> int:
        return self.first

    def roll(self, keep: Counts, rules: Ruleset) -> Counts:
        if self._next >= len(self.rolls):
            raise GameError(f"the dice script ran out after {len(self.rolls)} rolls")
        dice = tuple(self.rolls[self._next])
        self._next += 1
        if len(dice) != rules.n_sides or sum(dice) != rules.dice or any(k > d for k, d in zip(keep, dice)):
            raise GameError(f"scripted roll {dice_codes(dice, rules)!r} is not {rules.dice} dice "
                            f"containing the dice kept {dice_codes(keep, rules)!r} (D7)")
        return dice
