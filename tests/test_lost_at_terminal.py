"""An opponent that the mover's own marking puts out of the game is left out of the joint model at
that terminal (D17, D18, D20; docs/win-chance.md, "A seat that can no longer win stays at an
exact 0"): at a terminal after which the mover's game is over, an opponent whose best final score
(its score if final, else the best score of its one turn left, D18) is below the mover's new
score can no longer win, and the mover's model figure there is its share among the seats that
still can (``win_chance.lost_bounds``, ``lost_at``; ``win_model.lost_rows``), in the numpy and
the compiled paths alike. Hand-built sheets on the default board; the reaches by brute force over
every final roll's legal markings, the scores by ``board.score``."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import Marks, load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Start, UncheckedMark
from shelfie_solver.dice.learned.win_model import (
    CHANCE_SCALE,
    compiled_win_values,
    lost_columns,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from conftest import joint_chances, mover_terminals

BOARD = load_board(None, DEFAULT_RULES)
RULES = DEFAULT_RULES


def one_turn_reach(marks: Marks) -> int:
    """The best score one turn can leave ``marks`` (D8-D14, D19): every final roll's every legal
    marking, or the score as it is (a failed result, D13)."""
    return max([score(BOARD, marks, RULES)] + [score(BOARD, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, BOARD, marks, RULES)])


def terminals(state: GameState):
    """:func:`conftest.mover_terminals` on the default board, without the mover's arrays."""
    sets, usable, chosen, _, final, over = mover_terminals(BOARD, RULES, state)
    return sets, usable, chosen, final, over


def model_figures(state: GameState):
    """The mover's values of every usable set under ``win`` (numpy path), which are exact, the
    same with no opponent left out (``lost`` empty: every seat counted, the rule before
    2026-12-07 at a turn with no seat lost at its start) and every seat's all-seat chance
    (`win_model.all_chances`) at each set."""
    objective = win_objective(state)
    arrays = StateArrays(BOARD, RULES, state.marks)
    sets, usable, chosen, final, over = terminals(state)
    values = objective.values(arrays, chosen)
    exact = objective.exact_markings(arrays, chosen)
    counted = replace(objective, lost=np.zeros((0, 2), dtype=np.int64)).values(arrays, chosen)
    every = joint_chances(objective, arrays, chosen, BOARD)
    return objective, values, exact, counted, every, final, over, sets, usable


def assert_compiled_equal(state: GameState, objective, values: np.ndarray, sets, usable: np.ndarray) -> None:
    """The compiled paths (the objective's and the whole turn from the table) give the numpy
    path's integers for every set and every shelf given up (D13)."""
    arrays = StateArrays(BOARD, RULES, state.marks)
    worth = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
    worth[usable] = values
    for found in (objective.compiled_turn_values(arrays), compiled_win_values(state)):
        if found is None:  # without numba: nothing to compare
            continue
        assert np.array_equal(found[0][usable], worth[usable])
        assert found[2] == objective.shelf_values(arrays)


def _three_players():
    """Ann, Ben, Cy on the default board, Ann first (D5), the end not triggered. Ann (played this
    round before Ben) has 32 (column 5's 11 + 12 + 9) and items left; Ben has shelf 1 closed
    (D13: his 11 marked, the rest eliminated), shelf 2 with only its 10 available, column 5's
    11 and 12 marked (0 points: 2 items, D19); Cy 0 points with a long reach. Ann's first turn
    marks one more item (her score stays 32), so Ben is to play."""
    from shelfie_solver.dice.play.gamefile import KeptGame, act

    texts = ("....o/...../....o/...../....o",  # Ann: column 5's 11, 12, 9
             "xxxxo/xxxx./....o/...../.....",  # Ben: shelf 1 closed; shelf 2's 10 his last item there
             "...oo/...../...oo/...../.....")  # Cy: columns 4 and 5, two items each
    sheets = tuple(parse_marks(t, BOARD) for t in texts)
    kept = KeptGame(BOARD, RULES, ("Ann", "Ben", "Cy"), (Start(3, 0, texts),),
                    GameState(BOARD, RULES, sheets, 0, 0, 0, False))
    kept = act(kept, (UncheckedMark(0, (BOARD.cell(3, 0),)),))
    assert kept.active == 1 and not kept.state.end_triggered
    return kept


def test_a_marking_that_ends_the_mover_s_game_above_a_final_score_leaves_that_seat_out():
    # D17, D18, D20: Ben marking shelf 2's 10 closes his second shelf (the end, D17) and makes
    # column 5 11 + 10 + 12 = 33 > Ann's 32; Ann has played her turn of this round, so her 32 is
    # final and she can no longer win: Ben's figure is his share among Ben and Cy alone. Ben
    # marking shelf 4's 11 instead makes 11 + 12 + 11 = 34 > 32 but does not end his game: Ann
    # plays again and may pass him, so every seat is counted, as before
    kept = _three_players()
    state = kept.state
    ann = score(BOARD, state.sheets[0], RULES)
    assert ann == 32 and state.sheets[0].has_available
    assert lost_columns(state) == ()  # nobody is out at the turn's start
    objective, values, exact, counted, every, final, over, sets, usable = model_figures(state)
    cells = [tuple(c for c in row if c >= 0) for row in sets.cells[usable].tolist()]
    ending = cells.index((BOARD.cell(1, 4),))
    going_on = cells.index((BOARD.cell(3, 4),))
    assert (final[ending], over[ending]) == (33, True)
    assert (final[going_on], over[going_on]) == (34, False)
    # Cy's one turn (D18) can pass 33 and 34: neither is settled by the bounds
    # (win_chance.settled_bounds); but with Ann out, Ben and Cy are two contenders and Cy plays
    # the last turn next: the ending marking's figure is exact (win_chance.two_contender_chances),
    # so the model, with or without Ann, is not used there, nor at any terminal that ends Ben's
    # game above Ann's 32 (with four players, below, the lost seat's rule is the model's)
    assert one_turn_reach(state.sheets[2]) > 34
    assert exact[ending] and not exact[going_on]
    assert exact[over & (final > ann)].all()
    # where the game goes on every seat is counted, as before
    assert values[going_on] == counted[going_on] == every[going_on, 0]
    free = ~exact
    assert (free & ~over).sum() > 100
    assert np.array_equal(values[free], counted[free])
    assert_compiled_equal(state, objective, values, sets, usable)


def test_play_status_right_after_shows_the_seat_out_at_an_exact_zero_and_the_mover_s_figure():
    # one chance (docs/win-chance.md): right after Ben marks shelf 2's 10 (the end, D17) the
    # status shows Ann at an exact 0 (her final 32 below his 33, win_chance.lost_seats), Ben the
    # value his advice gave the marking (exact: two contenders, above) and Cy the rest, exact too
    from shelfie_solver.dice.play.gamefile import act
    from shelfie_solver.dice.play.report import table_chances

    kept = _three_players()
    before = kept.state
    objective, values, _, _, _, _, _, sets, usable = model_figures(before)
    cells = [tuple(c for c in row if c >= 0) for row in sets.cells[usable].tolist()]
    worth = int(values[cells.index((BOARD.cell(1, 4),))])
    kept = act(kept, (UncheckedMark(1, (BOARD.cell(1, 4),)),))
    assert kept.active == 2 and kept.state.end_triggered
    # the exact fraction, not its millionths (tests/test_exact_fractions.py): 1 minus Cy's
    # last-turn chance against Ben's 33 (the engine reads it rounded half up)
    from shelfie_solver.dice.win_chance import opponent_chance

    value = 1 - opponent_chance(BOARD, RULES, kept.state.sheets[2], (33,))
    assert worth == (value * 2 * CHANCE_SCALE + 1) // 2
    chances = table_chances(kept)
    assert chances[0] == (Fraction(0), True)
    assert chances[1] == (value, True)  # exact: two contenders left, Cy to play the last turn
    assert chances[2] == (1 - value, True)


def test_a_seat_whose_one_last_turn_cannot_reach_the_mover_s_final_score_is_left_out_there():
    # D18, D20, four players, the end triggered (Ann's two closed shelves), Ben's last turn: Ann
    # (0, final) is out at every terminal (Cy's 20 now, win_chance.lost_seats); Cy (20) has one
    # turn left whose best is 26 (her one available item, the 6 of column 4: brute force); Di (0)
    # one turn left that can reach far more. Where Ben ends above 26 Cy is out too (his share
    # among Ben and Di); where he ends on 20 to 26 she is counted (his share among Ben, Cy and Di)
    sheets = tuple(parse_marks(t, BOARD) for t in (
        "xxxxx/xxxxx/...../...../.....",  # Ann: two shelves given up (D13, D17): 0
        "...../...../...../...oo/.....",  # Ben: shelf 4's 6 and 11 (0 points: 2 items)
        "xxxox/xxxox/xxxox/xxx.x/xxxxx",  # Cy: column 4's 7 + 6 + 7 = 20, its 6 left
        "...oo/...oo/...../...../.....",  # Di: columns 4 and 5, two items each
    ))
    state = GameState(BOARD, RULES, sheets, 1, 0, 5, True)
    scores = [score(BOARD, marks, RULES) for marks in sheets]
    assert scores == [0, 0, 20, 0]
    cy_reach, di_reach = one_turn_reach(sheets[2]), one_turn_reach(sheets[3])
    assert cy_reach == 26 and di_reach > 40
    assert lost_columns(state) == (1,)  # Ann, at the turn's start
    objective, values, exact, counted, every, final, over, sets, usable = model_figures(state)
    assert over.all()  # Ben's last turn (D18)
    free = ~exact
    assert not (free & (final < 20)).any() and not (free & (final > di_reach)).any()  # settled: exact
    above = free & (final > cy_reach)
    within = free & (final <= cy_reach)
    assert above.sum() > 10 and within.sum() > 10
    # columns: Ben 0, Ann 1, Cy 2, Di 3
    without_cy = every[:, 0] * CHANCE_SCALE / (every[:, 0] + every[:, 3])
    with_cy = every[:, 0] * CHANCE_SCALE / (every[:, 0] + every[:, 2] + every[:, 3])
    assert np.abs(values[above] - without_cy[above]).max() <= 3
    assert np.abs(values[within] - with_cy[within]).max() <= 3
    assert (values[above] > with_cy[above] + 3).any()  # leaving Cy out moves them
    # the bound is the one-turn reach itself: a final score of 26 ties it and is counted
    assert (within & (final == cy_reach)).any()
    assert_compiled_equal(state, objective, values, sets, usable)
