"""The solver strategy's fast paths (docs/engine.md): with the compiled plan cached, the marking is
read from the plan's item-set worths instead of re-running the objective; it must be the first
choice of advice.rank_markings (D8-D14) whatever the state and the dice, ties included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.advise.advice import rank_markings
from shelfie_solver.dice.board import Marks
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.game.events import GameState, legal_sets
from shelfie_solver.dice.engine.kernel import compiled
from shelfie_solver.dice.objectives import Strategic
from shelfie_solver.dice.strategies import SolverStrategy

pytestmark = pytest.mark.skipif(compiled() is None, reason="the compiled plan needs numba ([fast] extra)")

sheets = st.tuples(st.integers(0, 2**25 - 1), st.integers(0, 2**25 - 1)).map(
    lambda me: Marks(5, 5, me[0], me[1] & ~me[0]))


@settings(max_examples=60, deadline=None)
@given(marks=sheets, roll=st.integers(0, 461))
def test_marking_from_the_cached_plan_is_advise_first_choice(board, rules, marks, roll):
    dice = space_for(rules).rolls[roll]
    ranked = rank_markings(dice, board, marks, rules, Strategic())
    if not ranked or not marks.available:
        return
    solver = SolverStrategy()
    state = GameState(board, rules, (marks,), 0, 0, 0, False)
    solver.choose_hold(state, dice, rules.rerolls, np.random.default_rng(0))  # caches the compiled plan
    plan = solver._plans[(board, rules, marks.marked, marks.eliminated)]
    assert getattr(plan, "worth", None) is not None  # the fast path is the one under test
    chosen = solver.choose_marking(state, dice, legal_sets(dice, board, marks, rules), np.random.default_rng(0))
    assert chosen == ranked[0].marking.cells


def test_tied_worths_fall_back_to_points_then_items(board, rules):
    """Empty sheet, every 7th roll: where several markings are worth the same, the tie rule of
    advice.order_markings (points now, then more items, then item order) must decide as there."""
    marks = Marks(5, 5, 0, 0)
    for dice in [space_for(rules).rolls[i] for i in range(0, 462, 7)]:
        ranked = rank_markings(dice, board, marks, rules, Strategic())
        if not ranked:
            continue
        solver = SolverStrategy()
        state = GameState(board, rules, (marks,), 0, 0, 0, False)
        solver.choose_hold(state, dice, rules.rerolls, np.random.default_rng(0))
        chosen = solver.choose_marking(state, dice, legal_sets(dice, board, marks, rules), np.random.default_rng(0))
        assert chosen == ranked[0].marking.cells


@pytest.mark.parametrize("dice, sides, rerolls", [(6, 6, 2), (3, 4, 3), (5, 7, 1), (1, 6, 2)])
def test_one_die_at_a_time_dp_equals_the_sparse_product(dice, sides, rerolls):
    """The compiled DP (re-roll expectation summed one die at a time) gives the integers, holds
    and values of batch's numpy DP (one sparse product per level, D7 stopping) on random tables."""
    from shelfie_solver.dice.engine.batched import solve_finals
    from shelfie_solver.dice.rolls import dice_space

    space = dice_space(dice, sides)
    finals = np.random.default_rng(dice * 100 + sides).integers(-50, 50, size=(len(space.rolls), 3, 3))
    finals[:, :, 1] = finals[:, :, 1] % 2  # a failed-result style 0/1 column (ties on column 0 happen)
    fast = solve_finals(space, finals, rerolls, 7, kernel="numba")
    slow = solve_finals(space, finals, rerolls, 7, kernel="numpy")
    for r in range(rerolls + 1):
        assert np.array_equal(fast.values[r], slow.values[r])
        if r:
            assert np.array_equal(fast.hold_values[r], slow.hold_values[r])
            assert np.array_equal(fast.policy[r], slow.policy[r])
