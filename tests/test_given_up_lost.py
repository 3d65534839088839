"""A failed result (D13) that leaves the player's own ceiling below another seat's score now is
an exact 0 (D15, D17, D19, D20): the shelf given up takes its available items away, and the
sheet's best possible score (``board.highest_score``: every item still available marked) bounds
every final score it can reach, while the other seat's score never falls. Before, the shelves'
values were the model's (4.0% shown for a seat that could no longer win; the breaker's sweep of
30 three-player small-3x4 games of ``win``, seed 18608: game 4 after its 53rd event).

Hand-worked on small-3x4 (shelves: game 2 1 3 5, award 1 3 2 6, cat 3 2 4 5; columns need 1-4
dice). The player Z has ``xx../xxo./xxo.`` (r2c3 = 2 and r3c3 = 4 marked, nothing scoring) and
r1c3 (3), r1c4 (5), r2c4 (6), r3c4 (5) available; a marked line scores from 3 items (D19):

* shelf 1 given up: r2c4 and r3c4 left; shelves 2 and 3 reach 2 items each, column 3 two
  (r2c3, r3c3), column 4 two: ceiling 0;
* shelf 2 given up: r1c3, r1c4, r3c4 left; column 3 reaches r1c3 + r2c3 + r3c3 = 3 + 2 + 4 = 9,
  every other line at most 2 items: ceiling 9;
* shelf 3 given up: r1c3, r1c4, r2c4 left; again only column 3 scores: ceiling 9.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import EXAMPLES

from shelfie_solver.dice.board import highest_score, load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_model import compiled_win_values, win_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.play.chances import seat_chances
from shelfie_solver.dice.rolls import parse_dice
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.win_chance import given_up_lost

RULES = DEFAULT_RULES
SMALL = load_board(EXAMPLES / "boards" / "small-3x4.toml", RULES)
Z = parse_marks("xx../xxo./xxo.", SMALL)
#: 18: shelf 3 whole but for r3c2 (3 + 4 + 5) and column 1 (2 + 1 + 3)
A18 = parse_marks("ox../ox../oxoo", SMALL)
#: 17: shelf 3's r3c2, r3c3, r3c4 (2 + 4 + 5) and column 2 (1 + 3 + 2)
B17 = parse_marks("xo../xoo./xooo", SMALL)
#: 9: shelf 3's first three items (3 + 2 + 4)
A9 = parse_marks("..../..../ooo.", SMALL)
B0 = parse_marks("o.../..../....", SMALL)


def _given_up(marks, shelf: int):
    cells = [c for c in SMALL.lines[shelf] if marks.is_available(c)]
    return type(marks)(marks.n_shelves, marks.n_columns, marks.marked, marks.eliminated | sum(1 << c for c in cells))


def test_the_hand_worked_ceilings() -> None:
    assert [score(SMALL, s, RULES) for s in (A18, B17, A9, B0, Z)] == [18, 17, 9, 0, 0]
    assert [highest_score(SMALL, _given_up(Z, shelf), RULES) for shelf in range(3)] == [0, 9, 9]
    assert given_up_lost(SMALL, RULES, Z, [0, 1, 2], 18).tolist() == [True, True, True]
    assert given_up_lost(SMALL, RULES, Z, [0, 1, 2], 9).tolist() == [True, False, False]  # a tie may share


def _compare_paths(state: GameState, values: list[tuple[int, int]]) -> None:
    arrays = StateArrays(SMALL, RULES, state.marks)
    objective = win_objective(state)
    compared = 0
    for found in (objective.compiled_turn_values(arrays), compiled_win_values(state)):
        if found is None:  # without numba: nothing to compare
            continue
        compared += 1
        assert found[2] == values
    try:
        import numba  # noqa: F401
    except ImportError:
        return
    assert compared == 2


@pytest.mark.parametrize(("first", "turn"), [(0, 8), (2, 9)])
def test_every_shelf_below_a_score_now_is_an_exact_zero(first: int, turn: int) -> None:
    state = GameState(SMALL, RULES, (A18, B17, Z), 2, first, turn, False)
    arrays = StateArrays(SMALL, RULES, Z)
    objective = win_objective(state)
    values = objective.shelf_values(arrays)
    assert sorted(shelf for shelf, _ in values) == [0, 1, 2]
    assert all(value == 0 for _, value in values)  # before: the model's 40,000-odd millionths
    assert objective.exact_shelf_values(arrays) == {0: Fraction(0), 1: Fraction(0), 2: Fraction(0)}
    _compare_paths(state, values)
    # the screens' figure with final dice that mark nothing (PGGBBA: no award, cat, or 2 games
    # on a game item left): exactly 0, and the others share the rest
    chances = seat_chances(state, parse_dice("PGGBBA", RULES), 0)
    assert chances[2] == (Fraction(0), True)
    assert sum(c for c, _ in chances) == 1


def test_only_the_shelves_below_are_exact() -> None:
    state = GameState(SMALL, RULES, (A9, B0, Z), 2, 0, 8, False)
    arrays = StateArrays(SMALL, RULES, Z)
    objective = win_objective(state)
    values = dict(objective.shelf_values(arrays))
    assert values[0] == 0
    assert values[1] > 0 and values[2] > 0  # ceiling 9 against 9: still the model's
    assert objective.exact_shelf_values(arrays) == {0: Fraction(0)}
    _compare_paths(state, objective.shelf_values(arrays))
    assert np.all(given_up_lost(SMALL, RULES, Z, [], 9) == np.zeros(0, dtype=bool))
