"""The values shown for the positions of one turn where its final rolls have exact values apart
from the engine's integers (D7, D20; docs/engine.md, "Shown values").

An objective may keep some final rolls' values in its integers rounded (the win model's exact
terminals: a three-way tie's ``1/3`` kept as ``333333/1000000``, D20), while the screens show the
exact value. :func:`shown_levels` carries those exact values up the turn, through the policy the
engine's integers define:

* a final roll (level 0) is worth what its best marking shows (given: ``level0``);
* a hold that keeps every die is stopping (D7): the roll's level-0 value;
* any other hold with ``r`` re-rolls left is exact when every roll it can reach has an exact
  value at level ``r - 1``: then it is worth their probability-weighted sum (exact integers over
  ``unit * D^r``, ``D = sides ** dice``); else the engine's integer (the model's figure);
* a roll with ``r >= 1`` re-rolls left is worth its best hold's value: among the holds with the
  highest integer (the engine's choice, D7), the highest value shown, exact where one of the
  holds of that value is exact.

So every value shown is exact or the engine's own integer, and a position's value is always its
best hold's, the mean over the rolls of a hold the mean of what those rolls show: the review's
parts add up exactly (docs/review.md). The policy is the engine's: only ties between equal
integers are told apart by the value shown, as the markings are (:func:`advice.by_shown_value`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shelfie_solver.dice.engine.dp import TurnSolution, initial_roll_row
from shelfie_solver.dice.rolls import Counts


@dataclass(frozen=True, eq=False)
class ShownTurn:
    """The shown values of one turn (module docstring).

    Attributes:
        solution: the engine's solution the values follow (its integers, its denominators).
        unit: the denominator of level 0's numerators (a multiple of ``solution.scale``); level
            ``r``'s are over ``unit * D^r``.
        rolls: per level ``r`` (0..rerolls): ``(numerators object (R,), exact bool (R,))`` of every
            roll with ``r`` re-rolls left.
        holds: per level ``r`` (``None`` at 0): ``(numerators object (H,), exact bool (H,))`` of
            every hold with ``r`` re-rolls left.
    """

    solution: TurnSolution
    unit: int
    rolls: list[tuple[np.ndarray, np.ndarray]]
    holds: list[tuple[np.ndarray, np.ndarray] | None]

    def _denominator(self, level: int) -> int:
        return self.unit * int(self.solution.space.denominator ** level)

    def roll(self, roll: Counts, rerolls: int) -> tuple[Fraction, bool]:
        """The value shown of ``roll`` with ``rerolls`` left and whether it is exact."""
        numerators, exact = self.rolls[rerolls]
        index = self.solution.space.roll_index[roll]
        return Fraction(int(numerators[index]), self._denominator(rerolls)), bool(exact[index])

    def hold(self, hold: Counts, rerolls: int) -> tuple[Fraction, bool]:
        """The value shown of keeping ``hold`` with ``rerolls`` >= 1 left and whether it is exact."""
        level = self.holds[rerolls]
        assert level is not None, "holds exist only with at least one re-roll left"
        numerators, exact = level
        index = self.solution.space.hold_index[hold]
        return Fraction(int(numerators[index]), self._denominator(rerolls)), bool(exact[index])

    def start(self) -> tuple[Fraction, bool]:
        """The value shown at the turn's start (the initial roll, D6, then the re-rolls): exact
        when every first roll's value is, else the engine's start value."""
        top = self.solution.rerolls
        numerators, exact = self.rolls[top]
        reached, weights = initial_roll_row(self.solution.space)
        if not exact[reached].all():
            return self.solution.start_values()[0], False
        total = sum(int(w) * int(numerators[x]) for w, x in zip(weights.tolist(), reached.tolist()))
        return Fraction(total, self._denominator(top + 1)), True


def shown_levels(solution: TurnSolution, level0: np.ndarray, exact0: np.ndarray, unit: int) -> ShownTurn:
    """The :class:`ShownTurn` of ``solution`` from its final rolls' values shown: ``level0``
    (numerators over ``unit``, a multiple of ``solution.scale``, object or int64 ``(R,)``) and
    ``exact0`` (``bool (R,)``); where a roll is not exact its numerator must be the engine's
    integer in that unit (module docstring).

    Raises:
        ValueError: ``unit`` is not a multiple of the solution's scale.
    """
    if unit % solution.scale:
        raise ValueError(f"unit {unit} is not a multiple of the engine's scale {solution.scale}")
    space = solution.space
    n_rolls, n_holds = len(space.rolls), len(space.holds)
    d = space.denominator
    starts, columns, weights = space.transitions
    lengths = np.diff(np.append(starts, len(columns)))
    hold_of = np.repeat(np.arange(n_holds), lengths)
    subs = space.sub_holds
    valid = subs < n_holds
    factor = unit // solution.scale
    rolls = [(np.asarray(level0).astype(object), np.asarray(exact0, dtype=bool))]
    holds: list[tuple[np.ndarray, np.ndarray] | None] = [None]
    for level in range(1, solution.rerolls + 1):
        below, below_exact = rolls[-1]
        table = solution.hold_values[level]
        assert table is not None
        integer = np.asarray(table[:, 0])
        numerators = integer.astype(object) * factor  # the engine's figure where not exact
        exact = np.logical_and.reduceat(below_exact[columns], starts) if len(starts) else np.zeros(0, dtype=bool)
        exact[:n_rolls] = rolls[0][1]  # keeping every die is stopping (D7): the final roll's value
        numerators[:n_rolls] = rolls[0][0] * d ** level
        chosen = exact[hold_of] & (hold_of >= n_rolls)
        if chosen.any():
            products = weights[chosen].astype(object) * below[columns[chosen]]
            held = np.flatnonzero(exact[n_rolls:]) + n_rolls
            firsts = np.cumsum(lengths[held]) - lengths[held]
            numerators[held] = np.add.reduceat(products, firsts)
        holds.append((numerators, exact))
        rolls.append(_best_of_rolls(integer, numerators, exact, subs, valid))
    return ShownTurn(solution, unit, rolls, holds)


def _best_of_rolls(integer: np.ndarray, numerators: np.ndarray, exact: np.ndarray, subs: np.ndarray,
                   valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per roll, the value shown of its best hold and whether it is exact (module docstring):
    among the sub-holds ``subs`` (``valid`` where not padding) of the highest ``integer``, the
    highest of ``numerators``, exact where a hold of that value is."""
    padded = _with_sentinel(integer)[subs]
    top = np.array([max(row[ok]) for row, ok in zip(padded, valid)], dtype=object)
    tied = valid & (padded == top[:, None])
    shown = _with_sentinel(numerators)[subs]
    best = np.array([max(row[ok]) for row, ok in zip(shown, tied)], dtype=object)
    is_exact = (tied & (shown == best[:, None]) & np.append(exact, False)[subs]).any(axis=1)
    return best, is_exact


def _with_sentinel(values: np.ndarray) -> np.ndarray:
    """``values`` as an object array with one more entry, ``None``, for the padding of
    :attr:`rolls.DiceSpace.sub_holds` (never chosen: only valid entries are read)."""
    out = np.empty(len(values) + 1, dtype=object)
    out[:-1] = values
    out[-1] = None
    return out
