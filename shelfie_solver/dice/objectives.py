"""Objectives: what a final roll is worth, given the marking the player picks (D13, D19).

Every objective scores a marking (a set of items marked this turn) as an exact integer over its
own denominator :attr:`Objective.scale`, and scores a failed result (D13) the same way. The
engine takes the best marking of each final roll, then optimises holds over re-rolls. The base
objectives below (and the :class:`Objective` protocol every objective follows) are named on the
command line through :mod:`objective_names`, beside ``learned`` and ``table:FILE``.

* ``points``  — score after marking minus score before (D19), as if the game ended now.
* ``marks``   — number of items marked.
* ``cell:rXcY`` — 1 if that item is marked, else 0 (the value is a probability).
* ``safe``    — 1 if at least one item is marked (the chance of avoiding a failed result, D13).
* ``strategic`` (default) — change of the *line potential* Phi, docs/objectives.md:

  For each line (shelf or column) with ``m`` marked items worth ``M`` points, ``a`` available
  items worth ``A`` points and threshold ``T`` (D19)::

      Phi_line = M + A/2                 if m >= T        (scoring line: points now, half credit
                                                           for items still to come)
               = (m / T) * (M + A/2)     if m < T <= m + a (live line: progress toward T
                                                           times what it would score)
               = 0                       otherwise        (dead line: can never score)

  ``Phi = sum of Phi_line``; a marking is worth ``Phi(after) - Phi(before)``; a failed result is
  worth ``max over shelves s with an available item of Phi(s eliminated) - Phi(before)``, i.e.
  the cheapest shelf to give up. Scale ``2T``, so values stay integers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Protocol

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks
from shelfie_solver.dice.rules import Ruleset


@dataclass(frozen=True, eq=False)
class StateArrays:
    """One board state's per-line totals as numpy arrays, for vectorised objectives."""

    board: Board
    rules: Ruleset
    marks: Marks

    @cached_property
    def available(self) -> np.ndarray:
        """``bool (cells,)``: which items can still be marked (D4)."""
        return self.marks.bit_arrays()[1].astype(bool)

    @cached_property
    def line_totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(marked count, available count, marked points, available points), each ``int64 (L,)``
        over :attr:`Board.lines`."""
        marked, available = self.marks.bit_arrays()
        member, values = self.board.line_matrix, self.board.value_array
        return marked @ member, available @ member, (marked * values) @ member, (available * values) @ member


class Objective(Protocol):
    """What a final roll is worth: integers over :meth:`scale` (so ``value / scale`` points or
    probability)."""

    @property
    def name(self) -> str:
        """The objective's name as typed on the command line."""
        ...

    def scale(self, rules: Ruleset) -> int:
        """The common denominator of this objective's integer values."""
        ...

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``int64 (K,)``: worth of marking each of the ``K`` item sets, times scale."""
        ...

    def failed_value(self, state: StateArrays) -> int:
        """Worth of a failed result (D13) with the best shelf given up, times scale."""
        ...


@dataclass(frozen=True)
class Points:
    """Score after marking minus score before (D19), as if the game ended after this turn."""

    name: str = "points"

    def scale(self, rules: Ruleset) -> int:
        return 1

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        t = state.rules.scoring_threshold
        m, _, mp, _ = state.line_totals
        count, points = sets.line_count, sets.line_points
        before = int(np.where(m >= t, mp, 0).sum())
        after: np.ndarray = np.where(m + count >= t, mp + points, 0).sum(axis=1)
        return after - before

    def failed_value(self, state: StateArrays) -> int:
        return 0


@dataclass(frozen=True)
class Tie:
    """Every seat's chance to win on a board whose item values are all 0: every total is 0, so
    every game is a tie shared by all ``players`` seats (D19, D20), each chance exactly
    ``1 / players`` (values ``1`` over :meth:`scale` ``players``), whatever is marked;
    :func:`objective_names.advice_objective` gives it for the chance objectives."""

    name: str
    players: int
    win_chance_exact: ClassVar[bool] = True

    def scale(self, rules: Ruleset) -> int:
        return self.players

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        return np.ones(len(sets.cells), dtype=np.int64)

    def failed_value(self, state: StateArrays) -> int:
        return 1

    def exact_markings(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        """``bool (K,)``: every figure is exact."""
        return np.ones(len(sets.cells), dtype=bool)


@dataclass(frozen=True)
class MarkCount:
    """Number of items marked this turn."""

    name: str = "marks"

    def scale(self, rules: Ruleset) -> int:
        return 1

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        return sets.sizes

    def failed_value(self, state: StateArrays) -> int:
        return 0


@dataclass(frozen=True)
class CellTarget:
    """1 if the given item (cell index) is marked this turn, else 0."""

    cell: int
    name: str = "cell"

    def scale(self, rules: Ruleset) -> int:
        return 1

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        hits: np.ndarray = (sets.cells == self.cell).any(axis=1)
        return hits.astype(np.int64)

    def failed_value(self, state: StateArrays) -> int:
        return 0


@dataclass(frozen=True)
class Safe:
    """1 if at least one item is marked (no failed result, D13), else 0."""

    name: str = "safe"

    def scale(self, rules: Ruleset) -> int:
        return 1

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        return np.ones(len(sets.sizes), dtype=np.int64)

    def failed_value(self, state: StateArrays) -> int:
        return 0


@dataclass(frozen=True)
class Strategic:
    """Change of the line potential Phi (module docstring, docs/objectives.md), times 2T."""

    name: str = "strategic"

    def scale(self, rules: Ruleset) -> int:
        return 2 * rules.scoring_threshold

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        m, a, mp, ap = state.line_totals
        count, points = sets.line_count, sets.line_points
        after: np.ndarray = line_potential(m + count, a - count, mp + points, ap - points,
                                           state.rules.scoring_threshold).sum(axis=1)
        return after - int(line_potential(m, a, mp, ap, state.rules.scoring_threshold).sum())

    def failed_value(self, state: StateArrays) -> int:
        return max((loss for _, loss in shelf_losses(state)), default=0)


def line_potential(m: np.ndarray, a: np.ndarray, mp: np.ndarray, ap: np.ndarray, t: int) -> np.ndarray:
    """Phi of lines times ``2T`` (module docstring); arguments broadcast together."""
    scoring = 2 * t * mp + t * ap
    live = m * (2 * mp + ap)
    return np.where(m >= t, scoring, np.where(m + a >= t, live, 0))


def potential(state: StateArrays) -> int:
    """Phi of the whole sheet times ``2T``."""
    m, a, mp, ap = state.line_totals
    return int(line_potential(m, a, mp, ap, state.rules.scoring_threshold).sum())


def shelf_losses(state: StateArrays) -> list[tuple[int, int]]:
    """For a failed result (D13): ``(shelf, Phi change times 2T)`` for each shelf that still has
    an available item, best (least negative) first; ties keep shelf order."""
    board = state.board
    m, a, mp, ap = state.line_totals
    _, available = state.marks.bit_arrays()
    shelves = np.arange(board.n_cells) // board.n_columns
    # lost[s, c] = 1 when giving up shelf s eliminates available cell c
    lost = (shelves[None, :] == np.arange(board.n_shelves)[:, None]) * available[None, :]
    lost_count = lost @ board.line_matrix
    lost_points = (lost * board.value_array) @ board.line_matrix
    t = state.rules.scoring_threshold
    after = line_potential(m, a - lost_count, mp, ap - lost_points, t).sum(axis=1)
    change = after - int(line_potential(m, a, mp, ap, t).sum())
    options = [(s, int(change[s])) for s in range(board.n_shelves) if lost[s].any()]
    return sorted(options, key=lambda item: -item[1])
