"""Batched exact solves: many board states of one board and ruleset in one pass (docs/engine.md).

:func:`solve_many` runs the DP of :mod:`dp` for ``N`` states at once: values as
``(R, N, Q)`` integer arrays, every level's re-roll expectation one sparse product
``T @ V`` (``T`` the ``(H, R)`` transition weights of :class:`~rolls.DiceSpace`, scipy CSR in
int64), and each roll's best hold by segment reductions over the flat list of (roll, sub-hold)
pairs (both from :mod:`transitions`). The integers, the policy and the tie rule (max column 0,
then min column 1, then the hold keeping more dice) are exactly those of :func:`dp.solve`;
``tests/test_batch.py`` compares the two on hundreds of random states for every objective.

Exactness: int64 throughout when every level fits (the bound of :func:`dp.solve`,
:data:`transitions.INT64_SAFE`); otherwise each state falls back to :func:`dp.solve` (limbs,
:mod:`wide`), still exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from shelfie_solver.dice.allocate import feasibility_arrays
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import DiceSpace, space_for
from shelfie_solver.dice.engine.dp import TurnSolution, solve, start_sums
from shelfie_solver.dice.engine.transitions import INT64_SAFE, Pairs, hold_steps, pairs, transition_matrix
from shelfie_solver.dice.objectives import Objective, StateArrays, Strategic
from shelfie_solver.dice.rules import Ruleset


@dataclass(frozen=True, eq=False)
class BatchSolution:
    """The DP of ``N`` board states (same board, ruleset, objective and re-rolls).

    Attributes:
        space: the dice space. scale: column 0's denominator at level 0.
        values: ``values[r]`` ``(R, N, Q)`` integers, V_r over ``scale * D^r`` (column 0) or ``D^r``
            (int64, or Python-int ``object`` arrays for states solved on limbs).
        hold_values: ``hold_values[r]`` (r >= 1) ``(H, N, Q)``, E_r, same denominators.
        policy: ``policy[r]`` (r >= 1) ``int64 (R, N)``: the chosen hold of each roll and state.
    """

    space: DiceSpace
    scale: int
    values: list[np.ndarray]
    hold_values: list[np.ndarray | None]
    policy: list[np.ndarray | None]

    @property
    def states(self) -> int:
        """Number of board states ``N``."""
        return int(self.values[0].shape[1])

    def start_values(self, column: int = 0) -> list[Fraction]:
        """Every state's exact value of ``column`` at the start of a turn (the initial roll, D6,
        then every re-roll under the policy): :meth:`dp.TurnSolution.start_values` of each state,
        in one weighted sum (:func:`dp.start_sums`)."""
        level = len(self.values) - 1
        denominator = (self.scale if column == 0 else 1) * int(self.space.denominator) ** (level + 1)
        return [Fraction(int(v), denominator) for v in self.start_numerators(column)]

    def start_numerators(self, column: int = 0) -> np.ndarray:
        """``(N,)`` integers (int64, or Python ints where a sum could leave int64): the
        numerators of :meth:`start_values`, over ``scale * D^(rerolls + 1)`` for column 0 (``D``
        the dice space's denominator; ``D^(rerolls + 1)`` for the other columns)."""
        return start_sums(self.space, self.values[len(self.values) - 1][:, :, column])

    def state(self, i: int) -> TurnSolution:
        """State ``i`` as a :class:`~dp.TurnSolution` (equal to solving it alone)."""
        return TurnSolution(self.space, self.scale, [v[:, i] for v in self.values],
                            [None if h is None else h[:, i] for h in self.hold_values],
                            [None if p is None else p[:, i] for p in self.policy])


def final_values_many(board: Board, states: Sequence[Marks], rules: Ruleset, objective: Objective,
                      kernel: str = "auto") -> np.ndarray:
    """``int64 (R, N, Q)``: :func:`dp.final_values`' columns for every state at once (column 0
    the objective times scale, 1 the failed-result indicator (D13), 2.. "at least j items", j =
    2..k), with the same best marking per roll (most valuable feasible set, ties: the first in
    :func:`board.item_sets` order). ``kernel`` as :func:`solve_finals`."""
    feasible = feasibility_arrays(board, rules)
    sets = feasible.sets
    n_sets, n = len(sets.sizes), len(states)
    from shelfie_solver.dice.engine.kernel import compiled_best_marking

    best_marking = compiled_best_marking() if kernel != "numpy" else None
    if best_marking is not None:  # one compiled scan per state over its usable sets
        if isinstance(objective, Strategic) and n and board.n_cells <= 62:  # the objective compiled too
            return _compiled_finals(board, states, rules)[0]
        from shelfie_solver.dice.engine.kernel import turn_arrays

        shared = turn_arrays(board, rules)
        out = np.empty((len(feasible.starts), n, max(2, rules.combinations_per_turn + 1)), dtype=np.int64)
        for i, marks in enumerate(states):
            state = StateArrays(board, rules, marks)
            index = np.flatnonzero(np.append(state.available, True)[sets.cells].all(axis=1))
            worth = np.zeros(n_sets + 1, dtype=np.int64)
            worth[index] = objective.values(state, sets.take(index))
            usable_one = np.zeros(n_sets + 1, dtype=np.bool_)
            usable_one[index] = True
            out[:, i] = best_marking(worth, usable_one, shared.sizes, shared.set_starts, shared.set_rolls,
                                     shared.n_rolls, int(objective.failed_value(state)), rules.combinations_per_turn)
        return out
    arrays = [StateArrays(board, rules, marks) for marks in states]
    available = np.stack([a.available for a in arrays])  # (N, cells)
    open_cells = np.concatenate([available, np.ones((n, 1), dtype=bool)], axis=1)  # -1 padding is open
    usable = np.asarray(open_cells[:, sets.cells].all(axis=2))  # (N, K)
    worth = np.stack([objective.values(a, sets) for a in arrays])  # (N, K)
    failed = np.array([objective.failed_value(a) for a in arrays], dtype=np.int64)
    # rank of each set by decreasing worth among the usable ones (ties: item-set order); unusable
    # sets and the sentinel rank at or after the number usable, i.e. "no marking"
    order = np.argsort(np.where(usable, -worth, np.iinfo(np.int64).max), axis=1, kind="stable")
    rank = np.empty((n, n_sets + 1), dtype=np.int64)
    np.put_along_axis(rank, order, np.arange(n_sets)[None, :], axis=1)
    count = usable.sum(axis=1)
    rank[:, n_sets] = n_sets
    best_rank = np.minimum.reduceat(rank[:, feasible.members], feasible.starts, axis=1)  # (N, R)
    markable = best_rank < count[:, None]
    sorted_worth = np.take_along_axis(worth, order, axis=1)
    best_worth = np.take_along_axis(sorted_worth, np.minimum(best_rank, n_sets - 1), axis=1)
    columns = [np.where(markable, best_worth, failed[:, None]), (~markable).astype(np.int64)]
    size_of = np.concatenate([np.where(usable, sets.sizes[None, :], 0), np.zeros((n, 1), np.int64)], axis=1)
    most = np.maximum.reduceat(size_of[:, feasible.members], feasible.starts, axis=1)
    for j in range(2, rules.combinations_per_turn + 1):
        columns.append((most >= j).astype(np.int64))
    return np.ascontiguousarray(np.stack(columns, axis=2).transpose(1, 0, 2))


def _compiled_finals(board: Board, states: Sequence[Marks], rules: Ruleset) -> tuple[np.ndarray, int]:
    """The ``strategic`` final values of every state by the compiled kernel (:func:`kernel._finals_many`),
    ``int64 (R, N, Q)``, and their largest magnitude."""
    from shelfie_solver.dice.engine.kernel import kernel_function, turn_arrays

    shared = turn_arrays(board, rules)
    rest = (shared.cells, shared.set_lines, shared.set_counts, shared.set_points, shared.set_masks,
            rules.scoring_threshold, shared.lines, shared.values, board.n_shelves, shared.n_lines, shared.sizes,
            shared.set_starts, shared.set_rolls, shared.n_rolls, rules.combinations_per_turn)
    marked = np.array([marks.marked for marks in states], dtype=np.int64)
    eliminated = np.array([marks.eliminated for marks in states], dtype=np.int64)
    out, bound = kernel_function("_finals_many")(marked, eliminated, *rest)
    return out, int(bound)


def solve_many(board: Board, states: Sequence[Marks], rules: Ruleset, objective: Objective,
               rerolls: int | None = None, kernel: str = "auto") -> BatchSolution:
    """Solve a whole turn in every state of ``states`` (:func:`dp.solve_turn` for each, in one
    pass). ``rerolls`` defaults to the ruleset's; ``kernel`` as :func:`solve_finals`."""
    n = rules.rerolls if rerolls is None else rerolls
    space = space_for(rules)
    if kernel != "numpy" and isinstance(objective, Strategic) and states and _kernel() is not None \
            and board.n_cells <= 62:  # (sheets as int64 bit masks; boards hold at most 49 items)
        # final values and DP both compiled, in the layout of BatchSolution (no copies); the
        # bound comes from the final values' scan
        finals, bound = _compiled_finals(board, states, rules)
        if (bound + 1) * space.denominator ** n < INT64_SAFE:
            return _compiled_solution(space, finals, n, objective.scale(rules))
        return solve_finals(space, finals, n, objective.scale(rules), kernel)
    finals = final_values_many(board, states, rules, objective, kernel)
    return solve_finals(space, finals, n, objective.scale(rules), kernel)


def solve_finals(space: DiceSpace, finals: np.ndarray, rerolls: int, scale: int = 1,
                 kernel: str = "auto") -> BatchSolution:
    """The DP of :func:`dp.solve` for ``N`` states' final values ``finals`` ``(R, N, Q)`` at once
    (column 0 maximised, column 1 minimised among exact ties, the rest carried; any Q >= 1).

    ``kernel``: ``"numba"`` (the compiled :mod:`kernel`), ``"numpy"`` (sparse product and
    segment reductions) or ``"auto"`` (numba when installed); the results are equal.
    """
    n_rolls, n, q = finals.shape
    bound = int(np.abs(finals).max()) if finals.size else 0
    if (bound + 1) * space.denominator ** rerolls >= INT64_SAFE:  # too wide for int64: each on limbs
        alone = [solve(space, finals[:, i], rerolls, scale) for i in range(n)]
        wide_holds: list[np.ndarray | None] = [None]
        wide_policy: list[np.ndarray | None] = [None]
        for r in range(1, rerolls + 1):
            wide_holds.append(np.stack([s.hold_values[r] for s in alone], axis=1))  # type: ignore[misc]
            wide_policy.append(np.stack([s.policy[r] for s in alone], axis=1))  # type: ignore[misc]
        return BatchSolution(space, scale, [np.stack([s.values[r] for s in alone], axis=1) for r in range(rerolls + 1)],
                             wide_holds, wide_policy)
    level0 = finals.astype(np.int64)
    compiled = _kernel() if kernel in ("auto", "numba") else None
    if compiled is None and kernel == "numba":
        raise ImportError("the numba kernel needs numba: pip install '.[fast]' in the clone")
    if compiled is not None:
        return _compiled_solution(space, np.ascontiguousarray(level0), rerolls, scale)
    matrix = transition_matrix(space)
    segments = pairs(space)
    values = [level0]
    hold_values: list[np.ndarray | None] = [None]
    policy: list[np.ndarray | None] = [None]
    stop = level0
    columns = np.arange(n)[None, :]
    for _ in range(rerolls):
        stop = stop * space.denominator
        expected = np.asarray(matrix @ values[-1].reshape(n_rolls, n * q)).reshape(-1, n, q)
        expected[:n_rolls] = stop  # keeping every die is stopping (D7)
        chosen = _best_holds(expected, segments)
        hold_values.append(expected)
        policy.append(chosen)
        values.append(expected[chosen, columns])
    return BatchSolution(space, scale, values, hold_values, policy)


#: From this many states on, the compiled DP runs state-minor (:func:`kernel._dp_minor`); below,
#: one state at a time (:func:`kernel._dp`), whose per-step cost does not grow with the block.
_MINOR_FROM = 8


def _compiled_solution(space: DiceSpace, level0: np.ndarray, rerolls: int, scale: int) -> BatchSolution:
    """The compiled DP of final values ``level0`` ``int64 (R, N, Q)`` (contiguous, within the int64
    bound), as a :class:`BatchSolution` (the kernel's arrays or views of them, no copies when
    ``N >= _MINOR_FROM``)."""
    from shelfie_solver.dice.engine.kernel import kernel_function

    if level0.shape[1] >= _MINOR_FROM:
        n_rolls, n, q = level0.shape
        n_holds = len(space.holds)
        # one numpy buffer for all levels' values and hold values: numpy asks for huge pages
        # for it (4 MiB and up), so fresh memory costs few page faults (kernel._dp_minor)
        block = np.zeros(rerolls * (n_rolls + n_holds) * n * q, dtype=np.int64)
        done = block[:rerolls * n_rolls * n * q].reshape(rerolls, n_rolls, n, q)
        held = block[rerolls * n_rolls * n * q:].reshape(rerolls, n_holds, n, q)
        chosen = np.zeros((rerolls, n_rolls, n), dtype=np.int64)
        kernel_function("_dp_minor")(*hold_steps(space), level0, space.denominator, rerolls, done, held, chosen)
        hold_values: list[np.ndarray | None] = [None, *held]
        policy: list[np.ndarray | None] = [None, *chosen]
        return BatchSolution(space, scale, [level0, *done], hold_values, policy)
    values_k, holds_k, policy_k = _kernel()(*hold_steps(space), np.ascontiguousarray(level0.transpose(1, 0, 2)),
                                            space.denominator, rerolls)
    return BatchSolution(space, scale, [v.transpose(1, 0, 2) for v in values_k],
                         [None] + [h.transpose(1, 0, 2) for h in holds_k[1:]],
                         [None] + [p.T for p in policy_k[1:]])


def _kernel() -> Any:
    from shelfie_solver.dice.engine.kernel import compiled

    return compiled()


def _best_holds(expected: np.ndarray, segments: Pairs) -> np.ndarray:
    """``int64 (R, N)``: each roll's best hold in each state: max column 0, then min column 1,
    then the first listed (keeping more dice), by segment reductions over the (roll, sub-hold) pairs
    (:func:`transitions.pairs`)."""
    first = expected[segments.hold, :, 0]  # (P, N)
    best = np.maximum.reduceat(first, segments.starts, axis=0)  # (R, N)
    tied = first == best[segments.segment]
    if expected.shape[2] >= 2:
        high = np.iinfo(np.int64).max
        second = np.where(tied, expected[segments.hold, :, 1], high)
        least = np.minimum.reduceat(second, segments.starts, axis=0)
        tied &= second == least[segments.segment]
    position = np.where(tied, -np.arange(len(segments.hold))[:, None], np.iinfo(np.int64).min)
    first_position = -np.maximum.reduceat(position, segments.starts, axis=0)
    chosen: np.ndarray = segments.hold[first_position]
    return chosen
