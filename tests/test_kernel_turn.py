"""The compiled kernel's fast paths (docs/engine.md): the sub-hold lattice's best holds, the
set-by-set final-table scan, the branch-free strategic worths and the whole solver turn in one
call must give exactly what the numpy engine gives (D7 stopping, D13 failed results, D4 usable
items), ties included."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from shelfie_solver.dice.board import Marks
from shelfie_solver.dice.rules import DEFAULT_RULES

pytest.importorskip("numba")


@pytest.mark.parametrize("states", [5, 20])
@pytest.mark.parametrize("q", [1, 2, 4, 5])
@pytest.mark.parametrize("dice, sides, rerolls", [(6, 6, 2), (3, 4, 3), (4, 5, 1)])
def test_compiled_dp_equals_the_sparse_product_for_any_column_count(dice, sides, rerolls, q, states):
    """Every column count (the unrolled 2- and 4-column paths and the general one), one state at
    a time (5 states) and state-minor in blocks (20 states: a full block and a part), on tables
    with few distinct values, so exact ties on column 0 and on column 1 are common and the
    lower hold index must decide as dp._best_holds does."""
    from shelfie_solver.dice.engine.batched import solve_finals
    from shelfie_solver.dice.rolls import dice_space

    space = dice_space(dice, sides)
    rng = np.random.default_rng(dice * 1000 + sides * 10 + q)
    finals = rng.integers(-3, 4, size=(len(space.rolls), states, q))
    if q >= 2:
        finals[:, :, 1] = finals[:, :, 1] % 2
    fast = solve_finals(space, finals, rerolls, 3, kernel="numba")
    slow = solve_finals(space, finals, rerolls, 3, kernel="numpy")
    arrays = [(fast.values, slow.values), (fast.hold_values[1:], slow.hold_values[1:]), (fast.policy[1:], slow.policy[1:])]
    assert all(np.array_equal(a, b) for got, want in arrays for a, b in zip(got, want, strict=True))


def test_set_rolls_is_the_feasibility_table_transposed(board, rules):
    """Roll r lists item set s (allocate.feasibility_arrays) exactly when set s lists roll r."""
    from shelfie_solver.dice.allocate import feasibility_arrays as feasibility_table
    from shelfie_solver.dice.engine.kernel import set_rolls

    table = feasibility_table(board, rules)
    starts, rolls = set_rolls(table)
    n_sets = len(table.sets.sizes)
    ends = np.append(table.starts[1:], len(table.members))
    by_roll = {(r, int(s)) for r in range(len(table.starts)) for s in table.members[table.starts[r]:ends[r]]
               if s < n_sets}
    by_set = {(int(r), s) for s in range(n_sets) for r in rolls[starts[s]:starts[s + 1]]}
    assert by_roll == by_set


@pytest.mark.parametrize("threshold", [1, 3, 5])
def test_strategic_from_set_lines_equals_the_objective(threshold):
    """kernel._strategic_sets (the solver turn's worths: each set's lines precomputed, Phi's
    change branch-free) gives objectives.Strategic's values and failed value (D13) on random
    sheets of random boards and a finished sheet."""
    from shelfie_solver.dice.board import item_sets
    from shelfie_solver.dice.engine.kernel import cell_lines, compiled_kernels, set_lines
    from shelfie_solver.dice.objectives import StateArrays, Strategic

    from test_allocate import random_board, random_marks

    compiled = compiled_kernels()
    assert compiled is not None
    rng = random.Random(100 + threshold)
    rules = replace(DEFAULT_RULES, scoring_threshold=threshold)
    for _ in range(6):
        board = random_board(rng, rules)
        sets = item_sets(board, rules.combinations_per_turn)
        lines, counts, points = set_lines(board, sets.cells)
        for marks in [random_marks(rng, board) for _ in range(4)] + [Marks(board.n_shelves, board.n_columns,
                                                                          (1 << board.n_cells) - 1, 0)]:
            state = StateArrays(board, rules, marks)
            m, a, mp, ap = state.line_totals
            bits = (np.where(sets.cells >= 0, 1, 0) << np.maximum(sets.cells, 0)).sum(axis=1)
            for masks in (bits, np.zeros(0, np.int64)):  # usable by bit masks, and by the items (no masks)
                worth, usable, failed = compiled["_strategic_sets"](sets.cells, lines, counts, points, masks,
                                                                    state.available, m, a, mp, ap, threshold,
                                                                    cell_lines(board), board.value_array,
                                                                    board.n_shelves)
                index = np.flatnonzero(np.append(state.available, True)[sets.cells].all(axis=1))
                assert list(np.flatnonzero(usable)) == list(index)
                assert (worth[index] == Strategic().values(state, sets.take(index))).all()
                assert failed == Strategic().failed_value(state)


def test_solver_turn_equals_solve_turn_on_many_states(board, rules):
    """The solver's one compiled call per turn (from the sheet's bit masks) chooses every hold
    of every roll at every level as dp.solve_turn's strategic policy, on 40 random sheets,
    the top hold of the first roll (decided in that call) included."""
    from shelfie_solver.dice.rolls import space_for
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.objectives import Strategic
    from shelfie_solver.dice.strategies import _compiled_plan

    from test_allocate import random_marks

    rng = random.Random(2026)
    rolls = np.arange(len(space_for(rules).rolls))
    for _ in range(40):
        marks = random_marks(rng, board)
        want = solve_turn(board, marks, rules, Strategic()).policy
        roll = rng.randrange(len(rolls))  # its top hold is decided in the same call
        plan = _compiled_plan(board, marks, rules, roll)
        assert plan is not None and plan._top == {roll: int(want[rules.rerolls][roll])}
        got = np.vectorize(plan.hold)(np.arange(1, rules.rerolls + 1)[:, None], rolls[None, :])
        assert np.array_equal(got, np.stack(want[1:]))
