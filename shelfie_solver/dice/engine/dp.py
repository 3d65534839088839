"""The exact probability engine: dynamic programming over (dice multiset, re-rolls left) (D6, D7).

Value function. ``V_0[roll]`` is the worth of a final roll under its best marking (the
objective's integer values, :mod:`objectives`). With ``r`` re-rolls left the player picks a
hold ``h`` (any sub-multiset of the roll, D7; keeping all dice = stopping) and

    E_r[h] = sum over rolls x reachable from h of P(x | h) * V_{r-1}[x]
    V_r[roll] = max over holds h of roll of E_r[h].

Exactness. ``P(x | h) = multinomial / sides^(dice - |h|)``; :class:`~rolls.DiceSpace` stores it
as an integer over the common denominator ``D = sides^dice``, so level ``r`` holds integers
over ``scale * D^r``: exact int64 at numpy speed. When int64 could overflow (3 re-rolls of 6
dice, 2 re-rolls of 8 dice, ...) the same DP runs on int64 *limbs* (:mod:`wide`: each integer
split into 31-bit parts, carried after every weighted sum, compared by packed keys), still
exact and at numpy speed; the result is then handed out as Python-int ``object`` arrays. A
:class:`~fractions.Fraction` is built only when a value is read out. Ties are exact ties.

Secondary columns. Besides the objective, the engine carries the failed-result indicator (D13)
and "at least j items markable" for j = 2..combinations_per_turn, evaluated under the chosen
policy. Among holds tied on the objective the policy takes the lower failure chance, then the
hold keeping more dice (a player who can stop, stops).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from shelfie_solver.dice.allocate import feasibility_arrays
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import Counts, DiceSpace, space_for
from shelfie_solver.dice.engine.transitions import INT64_SAFE, transition_matrix
from shelfie_solver.dice.objectives import Objective, Points, StateArrays
from shelfie_solver.dice.rules import Ruleset

if TYPE_CHECKING:
    from shelfie_solver.dice.engine.wide import Limbs


@dataclass(frozen=True, eq=False)
class FinalValues:
    """The worth of every final roll in one board state (level 0 of the DP).

    Attributes:
        columns: ``(R, Q)`` integers: column 0 the objective times ``scale``; column 1 the failed
            result indicator (D13); columns 2.. "at least j items can be marked", j = 2..k.
        scale: the objective's denominator.
        best_subset: ``(R,)`` index into :func:`board.item_sets` of a best marking (``-1`` for
            a failed result).
    """

    columns: np.ndarray
    scale: int
    best_subset: np.ndarray


def final_values(board: Board, marks: Marks, rules: Ruleset, objective: Objective,
                 points: bool = False) -> FinalValues:
    """Score every final roll (in :class:`DiceSpace` order) in a board state (D8-D14, D19).

    Each roll takes its most valuable feasible set of available items (ties: the first in
    :func:`board.item_sets` order); a roll with none is a failed result (D13) worth
    ``objective.failed_value``. With ``points``, one more carried column (the last): the points
    this turn (D19) of the marking the player makes, the most valuable set and among exact ties
    the one scoring most (as :func:`advice.order_markings`); 0 for a failed result.
    """
    feasible = feasibility_arrays(board, rules)
    state = StateArrays(board, rules, marks)
    sets = feasible.sets
    n_sets = len(sets.sizes)
    open_cells = np.append(state.available, True)  # the -1 padding counts as available
    usable = np.flatnonzero(open_cells[sets.cells].all(axis=1))
    worth = objective.values(state, sets.take(usable))
    order = np.argsort(-worth, kind="stable")
    # rank[s] = position of set s in order of decreasing worth; unusable sets and the
    # sentinel rank last, so each roll's minimum rank over its feasible sets is its best set.
    rank = np.full(n_sets + 1, len(usable), dtype=np.int64)
    rank[usable[order]] = np.arange(len(usable))
    best_rank = np.minimum.reduceat(rank[feasible.members], feasible.starts)
    markable = best_rank < len(usable)
    sorted_worth = np.append(worth[order], objective.failed_value(state))
    columns = [sorted_worth[best_rank], (~markable).astype(np.int64)]
    size_of = np.zeros(n_sets + 1, dtype=np.int64)
    size_of[usable] = sets.sizes[usable]
    most = np.maximum.reduceat(size_of[feasible.members], feasible.starts)
    for j in range(2, rules.combinations_per_turn + 1):
        columns.append((most >= j).astype(np.int64))
    if points:
        gain = Points().values(state, sets.take(usable))
        by_points = np.lexsort((-gain, -worth))  # objective first, then points now
        rank_points = np.full(n_sets + 1, len(usable), dtype=np.int64)
        rank_points[usable[by_points]] = np.arange(len(usable))
        chosen = np.minimum.reduceat(rank_points[feasible.members], feasible.starts)
        columns.append(np.append(gain[by_points], 0)[chosen])
    best = np.append(usable[order], -1)[best_rank]
    return FinalValues(np.stack(columns, axis=1), objective.scale(rules), best)


@dataclass(frozen=True, eq=False)
class TurnSolution:
    """Value functions and the optimal policy for one turn.

    Attributes:
        space: the dice space (rolls, holds, transitions).
        scale: the denominator of column 0 at level 0 (the objective's).
        values: ``values[r]`` is ``(R, Q)``: V_r over ``scale * D^r`` (column 0) or ``D^r``.
        hold_values: ``hold_values[r]`` (r >= 1) is ``(H, Q)``: E_r, same denominators as V_r.
        policy: ``policy[r]`` (r >= 1) is ``(R,)``: the chosen hold index of each roll; the
            roll itself (keeping every die) means stop.
    """

    space: DiceSpace
    scale: int
    values: Sequence[np.ndarray]
    hold_values: Sequence[np.ndarray | None]
    policy: list[np.ndarray | None]
    limbs: list[Limbs] | None = None  # values[r] as limbs when they outgrow int64

    @property
    def rerolls(self) -> int:
        """Re-rolls left at the top level."""
        return len(self.values) - 1

    def denominator(self, level: int, column: int = 0) -> int:
        """Denominator of integers at ``level`` in ``column``."""
        return (self.scale if column == 0 else 1) * int(self.space.denominator ** level)

    def roll_value(self, roll: Counts, rerolls: int, column: int = 0) -> Fraction:
        """Exact value of a roll with ``rerolls`` left under optimal play (column 0: objective)."""
        index = self.space.roll_index[roll]
        return Fraction(int(self.values[rerolls][index, column]), self.denominator(rerolls, column))

    def hold_value(self, hold: Counts, rerolls: int, column: int = 0) -> Fraction:
        """Exact value of keeping ``hold`` with ``rerolls`` >= 1 left, then playing optimally."""
        expected = self.hold_values[rerolls]
        assert expected is not None, "holds exist only with at least one re-roll left"
        index = self.space.hold_index[hold]
        return Fraction(int(expected[index, column]), self.denominator(rerolls, column))

    def start_values(self, rerolls: int | None = None) -> tuple[Fraction, ...]:
        """Every column's exact value at the start of a turn: the initial roll (D6), then
        ``rerolls`` (default :attr:`rerolls`) re-rolls under the policy."""
        level = self.rerolls if rerolls is None else rerolls
        expected = start_sums(self.space, self.values[level])
        return tuple(Fraction(int(v), self.denominator(level + 1, q)) for q, v in enumerate(expected))


@cache
def initial_roll_row(space: DiceSpace) -> tuple[np.ndarray, np.ndarray]:
    """The initial roll's row of :attr:`rolls.DiceSpace.transitions` (D6: keeping no die
    re-rolls everything): the rolls it reaches and their weights, ``int64`` each, the weights
    summing to ``D``."""
    starts, columns, weights = space.transitions
    none = space.hold_index[(0,) * space.n_sides]
    end = starts[none + 1] if none + 1 < len(starts) else len(columns)
    return (np.ascontiguousarray(columns[starts[none]:end], dtype=np.int64),
            np.ascontiguousarray(weights[starts[none]:end], dtype=np.int64))


def start_sums(space: DiceSpace, top: np.ndarray) -> np.ndarray:
    """``(...)``: the initial roll's expectation (D6) over the values ``top`` ``(R, ...)`` of the
    top level: keeping no die re-rolls everything, one row of the transitions, so each entry is
    the weighted sum over every roll (over the level's denominator times ``D``). Exact whatever
    the size: int64 where every partial sum provably fits, else Python ints (the DP's own
    levels stay in int64 or limbs)."""
    columns, row = initial_roll_row(space)
    reached = top[columns]
    if reached.dtype != object and int(np.abs(reached).max(initial=0)) * int(row.sum()) < INT64_SAFE:
        # every partial sum within int64: the same integers in any order (one product, no tensordot set-up)
        out: np.ndarray = (row @ reached.reshape(len(row), -1)).reshape(reached.shape[1:])
        return out
    out = np.tensordot(row.astype(object), reached.astype(object), axes=1)
    return out


def solve(space: DiceSpace, final: np.ndarray, rerolls: int, scale: int = 1) -> TurnSolution:
    """Run the DP of the module docstring: optimal holds at every level.

    Args:
        space: the dice space of the ruleset.
        final: ``(R,)`` or ``(R, Q)`` integers: the worth of each final roll. Column 0 is
            maximised; column 1 (if any) is minimised among exact ties; the rest are carried.
        rerolls: re-rolls left (D7), >= 0.
        scale: denominator of column 0 at level 0.

    Returns:
        The :class:`TurnSolution` with levels 0..rerolls.
    """
    level0 = _exact_level0(space, final, rerolls)
    if level0.dtype == object:
        return _solve_limbs(space, level0, rerolls, scale, None)
    values: list[np.ndarray] = [level0]
    hold_values: list[np.ndarray | None] = [None]
    policy: list[np.ndarray | None] = [None]
    subs = space.sub_holds
    rows = np.arange(len(space.rolls))
    for level in range(1, rerolls + 1):
        expected = _hold_values(space, values[-1], level0, level)
        chosen = subs[rows, _best_holds(expected, subs)]
        hold_values.append(expected)
        policy.append(chosen)
        values.append(expected[chosen])
    return TurnSolution(space, scale, values, hold_values, policy)


def evaluate_policy(space: DiceSpace, final: np.ndarray, holds: np.ndarray, rerolls: int,
                    scale: int = 1) -> TurnSolution:
    """Policy evaluation: the exact values of a *fixed* policy that keeps ``holds[roll]`` (a hold
    index, the same at every level; the roll itself = stop) — e.g. a baseline to compare with
    :func:`solve`. Arguments and result as :func:`solve`."""
    level0 = _exact_level0(space, final, rerolls)
    if level0.dtype == object:
        return _solve_limbs(space, level0, rerolls, scale, holds)
    values: list[np.ndarray] = [level0]
    hold_values: list[np.ndarray | None] = [None]
    policy: list[np.ndarray | None] = [None]
    for level in range(1, rerolls + 1):
        expected = _hold_values(space, values[-1], level0, level)
        hold_values.append(expected)
        policy.append(holds)
        values.append(expected[holds])
    return TurnSolution(space, scale, values, hold_values, policy)


def _exact_level0(space: DiceSpace, final: np.ndarray, rerolls: int) -> np.ndarray:
    """``final`` as ``(R, Q)``: int64 when every level of the DP fits (level ``r`` is at most
    ``max|final| * D^r``, partial sums included: weights are non-negative), else exact Python
    ints (then :func:`solve` runs on limbs)."""
    level0 = final.reshape(len(space.rolls), -1)
    bound = int(np.abs(level0).max()) if level0.size else 0
    if (bound + 1) * space.denominator ** rerolls >= INT64_SAFE:
        return level0.astype(object)  # exact Python ints; slower but never overflows
    return level0.astype(np.int64)


def _solve_limbs(space: DiceSpace, level0: np.ndarray, rerolls: int, scale: int,
                 holds: np.ndarray | None) -> TurnSolution:
    """The DP of :func:`solve` (``holds`` None) or :func:`evaluate_policy` on int64 limbs
    (:mod:`wide`), for values that outgrow int64; the same exact integers and the same
    policy (ties broken alike), handed out as Python-int ``object`` arrays."""
    from shelfie_solver.dice.engine.wide import Limbs, limb_bits, limbs_needed

    d = space.denominator
    largest = int(np.abs(level0).max()) if level0.size else 0
    bound = (largest + 1) * d ** (rerolls + 1)
    bits = limb_bits(d)
    count = limbs_needed(bound, bits)
    # the first levels that fit run on the plain int64 path (same integers, same policy)
    fit = 0
    while fit < rerolls and (largest + 1) * d ** (fit + 1) < INT64_SAFE:
        fit += 1
    levels: list[Limbs]
    if fit:
        small = level0.astype(np.int64)
        prefix = solve(space, small, fit) if holds is None else evaluate_policy(space, small, holds, fit)
        levels = [Limbs.from_ints(v, count, bits) for v in prefix.values]
        hold_limbs: list[Limbs | None] = [None] + [Limbs.from_ints(h, count, bits) for h in prefix.hold_values[1:]
                                                   if h is not None]
        policy: list[np.ndarray | None] = list(prefix.policy)
        stop = Limbs.from_ints(small * d ** fit, count, bits)
    else:
        stop = Limbs.from_ints(level0, count, bits)
        levels, hold_limbs, policy = [stop], [None], [None]
    n_rolls = len(space.rolls)
    subs = space.sub_holds
    rows = np.arange(n_rolls)
    matrix = transition_matrix(space)  # one sparse product per level for all limbs (scipy)
    for _ in range(rerolls - fit):
        stop = stop.times(d)
        expected = levels[-1].map_rows(matrix.__matmul__)
        expected.parts[:, :n_rolls] = stop.parts  # keeping every die is stopping (D7)
        chosen = holds if holds is not None else subs[rows, _best_holds_limbs(expected, subs)]
        hold_limbs.append(expected)
        policy.append(chosen)
        levels.append(expected.take(chosen))
    return TurnSolution(space, scale, _ObjectLevels(levels), _ObjectLevels(hold_limbs), policy, levels)


class _ObjectLevels(Sequence[Any]):
    """Levels kept as limbs, each turned into a Python-int ``object`` array when first read
    (a caller usually reads one or two levels)."""

    def __init__(self, levels: Sequence[Limbs | None]):
        self._levels = list(levels)
        self._done: dict[int, np.ndarray | None] = {}

    def __len__(self) -> int:
        return len(self._levels)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        index = range(len(self))[index]
        if index not in self._done:
            level = self._levels[index]
            self._done[index] = None if level is None else level.to_objects()
        return self._done[index]


def _best_holds_limbs(expected: Limbs, subs: np.ndarray) -> np.ndarray:
    """:func:`_best_holds` on limbs: the same choice, by exact lexicographic key comparison."""
    valid = subs < expected.parts.shape[1]
    tied = valid
    for key in expected.take((slice(None), 0)).keys():
        gathered = np.where(tied, np.append(key, 0)[subs], np.iinfo(np.int64).min)
        tied = tied & (gathered == gathered.max(axis=1)[:, None])
    if expected.parts.shape[2] >= 2:
        for key in expected.take((slice(None), 1)).keys():
            gathered = np.where(tied, np.append(key, 0)[subs], np.iinfo(np.int64).max)
            tied = tied & (gathered == gathered.min(axis=1)[:, None])
    choice: np.ndarray = tied.argmax(axis=1)
    return choice


def _hold_values(space: DiceSpace, values: np.ndarray, level0: np.ndarray, level: int) -> np.ndarray:
    """E_level for every hold, from V_(level-1): the re-roll expectation, except that keeping
    every die is stopping (D7), worth the dice's final value. (The first R holds are the full
    rolls, in roll order. Skipping a re-roll to re-roll later could not do better: the later
    choice can be made now, with more re-rolls left.)"""
    expected = space.expect(values)
    expected[: len(space.rolls)] = level0 * space.denominator ** level
    return expected


def _best_holds(expected: np.ndarray, subs: np.ndarray) -> np.ndarray:
    """Column (into ``subs``, padded with ``H``) of each roll's best hold: max column 0, then
    min column 1, then the first listed (sub-holds are listed keeping more dice first)."""
    first = expected[:, 0]
    primary = np.append(first, min(first.min(), 0) - 1)[subs]  # the padding never wins
    tied = primary == primary.max(axis=1)[:, None]
    if expected.shape[1] < 2:
        choice: np.ndarray = tied.argmax(axis=1)
        return choice
    second = expected[:, 1]
    high = second.max() + 1
    choice = np.where(tied, np.append(second, high)[subs], high).argmin(axis=1)
    return choice


def solve_turn(board: Board, marks: Marks, rules: Ruleset, objective: Objective,
               rerolls: int | None = None, points: bool = False) -> TurnSolution:
    """Solve a whole turn in a board state: every roll and hold, ``rerolls`` (default the
    ruleset's) re-rolls left, for ``objective`` (plus the failed-result and at-least-j columns,
    and with ``points`` the expected points this turn as the last column, :func:`final_values`)."""
    final = final_values(board, marks, rules, objective, points)
    n = rules.rerolls if rerolls is None else rerolls
    return solve(space_for(rules), final.columns, n, final.scale)


@dataclass(frozen=True, eq=False)
class TurnPlan:
    """The optimal holds of one turn, as :func:`solve_turn` would choose them, with the top level
    (the first roll, ``rerolls`` left) decided only for the rolls asked about: levels
    ``0..rerolls-1`` are solved whole, the top level's E_r only for the asked roll's holds (the
    same integers, the same tie rule). What a game needs: one or two look-ups per turn.

    Attributes:
        below: the :class:`TurnSolution` of levels ``0..rerolls-1``.
        rerolls: re-rolls at the top level.
    """

    below: TurnSolution
    rerolls: int
    _top: dict[int, int]

    def hold(self, rerolls_left: int, roll: int) -> int:
        """Index into ``space.holds`` of the optimal hold of roll index ``roll`` with
        ``rerolls_left`` (1..rerolls) re-rolls left (the roll itself = stop)."""
        if rerolls_left < self.rerolls:
            chosen = self.below.policy[rerolls_left]
            assert chosen is not None
            return int(chosen[roll])
        found = self._top.get(roll)
        if found is None:
            found = self._top[roll] = _top_hold(self.below, roll)
        return found


def plan_turn(board: Board, marks: Marks, rules: Ruleset, objective: Objective,
              rerolls: int | None = None) -> TurnPlan:
    """A :class:`TurnPlan` for a board state: :func:`solve_turn`'s holds at about half its cost."""
    n = rules.rerolls if rerolls is None else rerolls
    final = final_values(board, marks, rules, objective)
    space = space_for(rules)
    if n == 0 or _exact_level0(space, final.columns, n).dtype == object:  # wide values: solve whole
        whole = solve(space, final.columns, n, final.scale)
        return TurnPlan(whole, n + 1, {})
    return TurnPlan(solve(space, final.columns, n - 1, final.scale), n, {})


def _top_hold(below: TurnSolution, roll: int) -> int:
    """The hold :func:`solve` would choose for ``roll`` one level above ``below`` (int64 values)."""
    space = below.space
    level = below.rerolls + 1
    subs = space.sub_holds[roll]
    holds = subs[subs < len(space.holds)]
    starts, columns, weights = space.transitions
    ends = np.append(starts[1:], len(columns))[holds]
    lengths = ends - starts[holds]
    offsets = np.cumsum(lengths) - lengths
    flat = np.arange(int(lengths.sum())) - np.repeat(offsets - starts[holds], lengths)
    values = below.values[-1]
    expected = np.add.reduceat(weights[flat, None] * values[columns[flat]], offsets, axis=0)
    stops = holds < len(space.rolls)  # the roll itself: keeping every die is stopping (D7)
    expected[stops] = below.values[0][holds[stops]] * space.denominator ** level
    return int(holds[_best_holds(expected, np.arange(len(holds))[None, :])[0]])
