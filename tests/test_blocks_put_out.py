"""A marking whose blocks (D15) leave every opponent's ceiling below the mover's score after it
is an exact 1 (D13, D19, D20), whether its game is over or not: ``win_model.blocks_put_out``, in
the numpy and the compiled paths alike. Before, only the ceilings of the turn's start counted
(``win_chance.lost_bounds``), so a marking that put the one opponent out through its own block
showed the model's figure: 67.7% (model) at the marking, and at the opponent's turn start 67.7% /
32.3% (model) in ``play status``, until the opponent rolled (then 100% / 0%, exact). The breaker
h-break5's sweep: small-3x4 ``simulate --players win,win --games 30 --seed 18609``, game 5 after
its 44th event.

Hand-worked on small-3x4 (shelves: game 2 1 3 5, award 1 3 2 6, cat 3 2 4 5; columns need 1-4
dice; a line scores from 3 marked items, D19), two players, the end not triggered:

* A ``ooo./oo../ooo.``: shelf 1 2 + 1 + 3 = 6, shelf 3 3 + 2 + 4 = 9, column 1 2 + 1 + 3 = 6,
  column 2 1 + 3 + 2 = 6: 27. With PCCCJJ and no re-roll left its only marking is r3c4 (CCCJ,
  4 dice): shelf 3 then 3 + 2 + 4 + 5 = 14, column 4 one item: 32, and shelf 3 complete.
* B ``xx../oo.o/oxo.``: shelf 2 1 + 3 + 6 = 10. Its ceiling now: shelf 2 1 + 3 + 2 + 6 = 12,
  shelf 3 3 + 4 + 5 = 12, column 3 3 + 2 + 4 = 9, column 4 5 + 6 + 5 = 16 (shelf 1 and columns
  1, 2 two items at most): 49, above 32. A's shelf 3 blocks B's r3c4 (D15): shelf 3 and column
  4 keep 2 items, so 12 + 9 = 21 at most, below 32.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from conftest import EXAMPLES

from shelfie_solver.dice.advise.advice import rank_markings
from shelfie_solver.dice.board import highest_score, item_sets, load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_model import blocks_put_out, compiled_win_values, win_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.play.chances import seat_chances
from shelfie_solver.dice.rolls import parse_dice
from shelfie_solver.dice.rules import DEFAULT_RULES

RULES = DEFAULT_RULES
SMALL = load_board(EXAMPLES / "boards" / "small-3x4.toml", RULES)
A = parse_marks("ooo./oo../ooo.", SMALL)
B = parse_marks("xx../oo.o/oxo.", SMALL)
B_BLOCKED = parse_marks("xx../oo.o/oxox", SMALL)


def test_the_hand_worked_scores_and_ceilings() -> None:
    assert score(SMALL, A, RULES) == 27 and score(SMALL, B, RULES) == 10
    assert score(SMALL, A.with_marked([2 * 4 + 3]), RULES) == 32
    assert highest_score(SMALL, B, RULES) == 49
    assert highest_score(SMALL, B_BLOCKED, RULES) == 21


def test_the_marking_that_blocks_the_opponent_out_is_an_exact_one() -> None:
    state = GameState(SMALL, RULES, (A, B), 0, 0, 8, False)
    objective = win_objective(state)
    options = rank_markings(parse_dice("PCCCJJ", RULES), SMALL, A, RULES, objective)
    assert [o.marking.cells for o in options] == [(11,)]  # r3c4 (0-based cell 2 * 4 + 3)
    assert (options[0].value, options[0].exact) == (Fraction(1), True)  # before: 338697/500000, model
    # the screens' figure with those final dice: A exactly 1, B exactly 0
    assert seat_chances(state, parse_dice("PCCCJJ", RULES), 0) == [(Fraction(1), True), (Fraction(0), True)]
    # numpy == compiled, every usable item set
    sets = item_sets(SMALL, RULES.combinations_per_turn)
    arrays = StateArrays(SMALL, RULES, A)
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    values = objective.values(arrays, sets.take(usable))
    found = blocks_put_out(arrays, (A, B), 0, sets.take(usable))
    assert found is not None
    sure = np.flatnonzero(found == 1)
    assert 11 in [c for row in sets.take(usable).take(sure).cells.tolist() for c in row]
    assert np.all(values[sure] == 1_000_000)
    for compiled in (objective.compiled_turn_values(arrays), compiled_win_values(state)):
        if compiled is not None:
            assert np.array_equal(compiled[0][usable], values)


def test_a_marking_that_completes_nothing_is_not_put_out() -> None:
    # r2c4 (AAAA) completes no line of A's (shelf 2 keeps r2c3, column 4 has r1c4 and r3c4); r2c3
    # would complete column 3 (3 shelves): B's r1c3 and r2c3 blocked, 10 + 12 + 16 = 38 at most,
    # below A's 27 + 6 + 9 = 42: put out too
    assert highest_score(SMALL, parse_marks("xxx./oox./oxo.", SMALL), RULES) == 38
    state = GameState(SMALL, RULES, (A, B), 0, 0, 8, False)
    sets = item_sets(SMALL, RULES.combinations_per_turn)
    one = sets.take(np.flatnonzero((sets.cells[:, 0] == 7) & (sets.cells[:, 1:] < 0).all(axis=1)))
    assert blocks_put_out(StateArrays(SMALL, RULES, A), state.sheets, 0, one) is None
    column_3 = sets.take(np.flatnonzero((sets.cells[:, 0] == 6) & (sets.cells[:, 1:] < 0).all(axis=1)))
    assert blocks_put_out(StateArrays(SMALL, RULES, A), state.sheets, 0, column_3).tolist() == [1]
