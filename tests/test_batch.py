"""Batched solves (docs/engine.md) and the wide-integer path: exactly the single-state engine.

The batched DP (:mod:`shelfie_solver.dice.engine.batched`) must give, for every state, the very integers,
hold values and policy of :func:`dp.solve_turn` (D6, D7, D13; ties broken alike). The limb
path (:mod:`shelfie_solver.dice.engine.wide`) is checked by linearity: scaling every final value by ``c > 0``
scales every value by ``c`` and keeps every optimal hold, so ``solve(c * f)`` computed on limbs
must equal ``c * solve(f)`` computed in int64.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from test_allocate import random_marks

from shelfie_solver.dice.engine.batched import final_values_many as final_tables
from shelfie_solver.dice.engine.batched import solve_finals, solve_many
from shelfie_solver.dice.board import Marks
from shelfie_solver.dice.rolls import DiceSpace, multinomial, space_for
from shelfie_solver.dice.engine.dp import evaluate_policy, plan_turn, solve, solve_turn
from shelfie_solver.dice.engine.dp import final_values as final_table
from shelfie_solver.dice.engine.wide import Limbs
from shelfie_solver.dice.objectives import CellTarget, MarkCount, Points, Safe, Strategic
from shelfie_solver.dice.rules import DEFAULT_RULES

OBJECTIVES = ["strategic", "points", "marks", "safe", "cell"]


def _objective(name: str, rng: random.Random, cells: int):
    return {"strategic": Strategic(), "points": Points(), "marks": MarkCount(), "safe": Safe(),
            "cell": CellTarget(rng.randrange(cells))}[name]


KERNELS = ["numpy", "numba"]


def _check_batch_equals_single(board, rules, name: str, n_states: int, seed: int, kernel: str = "auto") -> None:
    rng = random.Random(seed)
    objective = _objective(name, rng, board.n_cells)
    states = [random_marks(rng, board) for _ in range(n_states)]
    tables = final_tables(board, states, rules, objective, kernel=kernel)
    batch = solve_finals(space_for(rules), tables, rules.rerolls, objective.scale(rules), kernel=kernel)
    for i, marks in enumerate(states):
        alone = solve_turn(board, marks, rules, objective)
        assert (tables[:, i] == final_table(board, marks, rules, objective).columns).all()
        got = batch.state(i)
        for r in range(rules.rerolls + 1):
            assert (got.values[r] == alone.values[r]).all(), (name, i, r)
            if r:
                assert (got.hold_values[r] == alone.hold_values[r]).all(), (name, i, r)
                assert (got.policy[r] == alone.policy[r]).all(), (name, i, r)
        assert got.start_values() == alone.start_values()


def _need(kernel: str) -> None:
    if kernel == "numba":
        pytest.importorskip("numba")


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name", OBJECTIVES)
def test_batch_equals_single_solves(board, rules, name, kernel):
    """30 random states of the default board per objective: batched == one at a time (numpy
    and compiled kernels)."""
    _need(kernel)
    _check_batch_equals_single(board, rules, name, 30, seed=OBJECTIVES.index(name), kernel=kernel)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name", OBJECTIVES)
def test_batch_equals_single_solves_200_states(board, rules, name, kernel):
    """At least 200 random states for every objective, both kernels."""
    _need(kernel)
    _check_batch_equals_single(board, rules, name, 200, seed=100 + OBJECTIVES.index(name), kernel=kernel)


def test_batch_of_one_and_empty_sheet(board, rules):
    """A batch of one state is that state's solve (the empty sheet, D6-D7)."""
    empty = Marks.empty(board)
    batch = solve_many(board, [empty], rules, Strategic())
    assert batch.states == 1
    assert batch.state(0).start_values() == solve_turn(board, empty, rules, Strategic()).start_values()


@pytest.mark.parametrize("kernel", KERNELS)
def test_batch_carries_any_number_of_columns(kernel):
    """Q-column generality: extra carried columns ride along under the policy (a column equal
    to column 0 is carried to exactly column 0's values)."""
    _need(kernel)
    space = DiceSpace(3, 4)
    rng = np.random.default_rng(3)
    finals = rng.integers(-20, 20, size=(len(space.rolls), 5, 1))
    finals = np.concatenate([finals, rng.integers(0, 2, size=finals.shape), finals, finals * 0 + 1], axis=2)
    batch = solve_finals(space, finals, 2, kernel=kernel)
    for i in range(5):
        alone = solve(space, finals[:, i], 2)
        for r in range(3):
            assert (batch.values[r][:, i] == alone.values[r]).all()
        assert (batch.values[2][:, i, 2] == batch.values[2][:, i, 0]).all()
        assert (batch.values[2][:, i, 3] == space.denominator ** 2).all()  # probability 1
    one = solve_finals(space, finals[:, :, :1], 2, kernel=kernel)  # Q = 1: column 0 alone
    for i in range(5):
        assert (one.policy[2][:, i] == solve(space, finals[:, i, 0], 2).policy[2]).all()


# --- the wide-integer (limb) path ------------------------------------------------------------

@pytest.mark.parametrize("dice, sides, rerolls, shift", [(3, 4, 2, 58), (2, 6, 5, 40), (4, 3, 3, 90)])
def test_limbs_path_is_exact_by_linearity(dice, sides, rerolls, shift):
    """solve(2^shift * f) runs on limbs (too wide for int64) and equals 2^shift * solve(f) with
    the same policy, for values of both signs and a tie-breaking second column."""
    space = DiceSpace(dice, sides)
    rng = np.random.default_rng(dice * 100 + shift)
    small = np.stack([rng.integers(-30, 30, len(space.rolls)), rng.integers(0, 2, len(space.rolls))], axis=1)
    small[::3, 0] = 7  # plenty of exact ties, settled by column 1 then by more dice kept
    exact = solve(space, small, rerolls)
    assert exact.values[-1].dtype == np.int64
    big = small.astype(object)
    big[:, 0] *= 2 ** shift
    wide = solve(space, big, rerolls)
    assert wide.values[0].dtype == object and wide.limbs is not None
    for r in range(rerolls + 1):
        assert (wide.values[r][:, 0] == exact.values[r][:, 0].astype(object) * 2 ** shift).all()
        assert (wide.values[r][:, 1] == exact.values[r][:, 1].astype(object)).all()
        if r:
            assert (wide.policy[r] == exact.policy[r]).all()
    start, start_wide = exact.start_values(), wide.start_values()
    assert start_wide[0] == start[0] * 2 ** shift and start_wide[1] == start[1]
    fixed = evaluate_policy(space, big, exact.policy[1], rerolls)
    assert (fixed.values[-1][:, 0] == evaluate_policy(space, small, exact.policy[1], rerolls).values[-1][:, 0]
            .astype(object) * 2 ** shift).all()


def test_three_rerolls_of_six_dice_stay_in_int64(board):
    """No big-integer cliff (docs/engine.md): 3 re-rolls of the default dice run in int64 (level r
    is at most max|final| * 6^(6r) < 2^62), and the start of the turn is still exact (summed in Python ints)."""
    rules = replace(DEFAULT_RULES, rerolls=3)  # D7 with one more re-roll
    solution = solve_turn(board, Marks.empty(board), rules, Points())
    assert all(v.dtype == np.int64 for v in solution.values)
    table = final_table(board, Marks.empty(board), rules, Points()).columns[:, 0]
    space = space_for(rules)
    # the start value from its definition: sum over first rolls of P(roll) * V_3(roll)
    expected = sum(Fraction(multinomial(roll), space.denominator) * solution.roll_value(roll, 3)
                   for roll in space.rolls)
    assert solution.start_values()[0] == expected
    assert solution.roll_value(space.rolls[0], 0) == int(table[0])


def test_limbs_round_trip():
    """Limbs hold any integer exactly: split and join, carries, order by keys."""
    values = np.array([0, 1, -1, 2 ** 70 + 5, -(2 ** 70) - 3, 2 ** 31, -(2 ** 31)], dtype=object)
    limbs = Limbs.from_ints(values, 3, 31)
    assert (limbs.to_objects() == values).all()
    assert (limbs.times(12345).to_objects() == values * 12345).all()
    keys = limbs.keys()
    order = np.lexsort(tuple(reversed(keys)))
    assert list(values[order]) == sorted(values)


# --- the turn plan (simulate's solver: the top level per roll on demand) ---------------------

@pytest.mark.parametrize("name", OBJECTIVES)
def test_turn_plan_holds_equal_the_full_policy(board, rules, name):
    """dp.plan_turn decides exactly as solve_turn's policy, every roll at every level."""
    rng = random.Random(7 + OBJECTIVES.index(name))
    for _ in range(4):
        marks = random_marks(rng, board)
        objective = _objective(name, rng, board.n_cells)
        full = solve_turn(board, marks, rules, objective)
        plan = plan_turn(board, marks, rules, objective)
        for r in range(1, rules.rerolls + 1):
            assert [plan.hold(r, i) for i in range(len(full.space.rolls))] == list(full.policy[r]), (name, r)


def test_turn_plan_on_wide_values_falls_back_to_the_whole_solve():
    """Values too wide for int64 at the top level: the plan is the whole (limb) solve."""
    rules = replace(DEFAULT_RULES, rerolls=5)  # 6^30 > 2^62
    from shelfie_solver.dice.board import load_board

    board = load_board(None, rules)
    marks = Marks.empty(board)
    plan = plan_turn(board, marks, rules, Safe())
    full = solve_turn(board, marks, rules, Safe())
    assert [plan.hold(5, i) for i in range(0, 462, 7)] == list(full.policy[5][::7])


def test_compiled_solver_plan_equals_the_full_policy(board, rules):
    """The solver strategy's compiled path (numba: columns 0-1 of the final table and the DP)
    decides exactly as solve_turn's strategic policy, every roll at every level."""
    pytest.importorskip("numba")
    from shelfie_solver.dice.strategies import _compiled_plan

    rng = random.Random(11)
    for _ in range(6):
        marks = random_marks(rng, board)
        plan = _compiled_plan(board, marks, rules)
        assert plan is not None
        full = solve_turn(board, marks, rules, Strategic())
        for r in range(1, rules.rerolls + 1):
            assert [plan.hold(r, i) for i in range(len(full.space.rolls))] == list(full.policy[r])


@pytest.mark.parametrize("threshold", [1, 3, 5])
def test_compiled_strategic_equals_the_objective(threshold):
    """kernel._strategic (the solver's compiled path) gives Strategic.values of every usable item
    set and Strategic.failed_value (D13), on random sheets of random boards (several-face shelves,
    any column order) and a finished sheet."""
    pytest.importorskip("numba")
    from shelfie_solver.dice.board import item_sets
    from shelfie_solver.dice.engine.kernel import compiled_strategic
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.strategies import _cell_lines

    from test_allocate import random_board

    rng = random.Random(threshold)
    rules = replace(DEFAULT_RULES, scoring_threshold=threshold)
    for _ in range(8):
        board = random_board(rng, rules)
        sets = item_sets(board, rules.combinations_per_turn)
        for marks in [random_marks(rng, board) for _ in range(4)] + [Marks(board.n_shelves, board.n_columns,
                                                                          (1 << board.n_cells) - 1, 0)]:
            state = StateArrays(board, rules, marks)
            m, a, mp, ap = state.line_totals
            worth, usable, failed = compiled_strategic()(sets.cells, state.available, m, a, mp, ap, threshold,
                                                         _cell_lines(board), board.value_array, board.n_shelves)
            index = np.flatnonzero(np.append(state.available, True)[sets.cells].all(axis=1))
            assert list(np.flatnonzero(usable)) == list(index)
            assert (worth[index] == Strategic().values(state, sets.take(index))).all()
            assert failed == Strategic().failed_value(state)
