"""The ``learned`` objective's game terms worked by hand: blocking an opponent by completing a
line (D15) and the win-chance shape with the exact last-turn rule (D18, D20); and the fit of
solitaire weights to an exact value table (``train --table``)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.dice.learned import objective as learned
from shelfie_solver.dice.board import Marks, parse_marks, score
from shelfie_solver.dice.learned.model_file import LearnedModel, N_CONTEXT, N_FEATURES, WEIGHT_SCALE, load_model
from shelfie_solver.dice.learned.objective import feature_vector, game_objective, prior_weights
from shelfie_solver.dice.objectives import StateArrays

from conftest import assert_one_line_error
from test_learned import marking_value


def prior_model(players: int) -> LearnedModel:
    row = np.rint(prior_weights(3) * WEIGHT_SCALE).astype(np.int64)
    return LearnedModel({players: np.stack([row] * 3)})


def test_blocking_value_by_hand(board, rules, monkeypatch):
    # Seat 0 has r1c1-r1c4 marked: marking r1c5 completes shelf 1 (D15), so seat 1 loses its
    # available items r1c3-r1c5. Seat 1's shelf 1 (values 1 2 4 7 11) has r1c1, r1c2 marked: a
    # live line needing 1 more mark, worth (2/3) M + (1/3) A under the prior (the strategic
    # potential's shape) = 66667 * 3 + 33333 * 22 per WEIGHT_SCALE; after the block it is dead
    # (2 marks, nothing available): 0. Its columns 3-5 (no marks) are worth 0 before and after.
    monkeypatch.setattr(learned, "WIN_SIGMA", ())  # the plain score difference
    model = prior_model(2)
    sheets = (parse_marks("oooo./...../...../...../.....", board), parse_marks("oo.../...../...../...../.....", board))
    objective = game_objective(board, rules, sheets, 0, 0, False, model)
    assert objective.block is not None
    drop = -(66667 * 3 + 33333 * 22)
    assert objective.block[0, :, 0].tolist() == [drop, drop, drop]  # seat 1 still plays this round (phase 1)
    assert not objective.block[:, :, 1:].any()
    # The marking of r1c5 is worth the drop of the opponent's value more (1 opponent, sixteenths).
    with_block = marking_value(board, rules, sheets[0], objective, (board.cell(0, 4),))
    without = marking_value(board, rules, sheets[0], replace(objective, block=None), (board.cell(0, 4),))
    assert abs((with_block - without) - Fraction(-drop * 16, WEIGHT_SCALE)) <= 1
    # Nothing to block: the opponent has no available item on shelf 1.
    closed = (sheets[0], parse_marks("oxxxx/...../...../...../.....", board))
    assert game_objective(board, rules, closed, 0, 0, False, model).block is None


def test_win_shape_last_turn_is_exact(board, rules, monkeypatch):
    # The end is triggered (D17) and seat 1 plays the round's last turn (D18): every score is
    # final after its marking, so the value is the win (+1), tie (0) or loss (-1) of D20, times
    # WIN_SCALE sixteenths, whatever the margin. Seat 0 scored shelf 1 (1+2+4 = 7 points).
    monkeypatch.setattr(learned, "WIN_SIGMA", (10, 20, 30))
    model = prior_model(2)
    me = parse_marks("...../oo.../...../...../.....", board)  # shelf 2: values of r2c1, r2c2 marked
    sheets = (parse_marks("ooo../...../...../...../.....", board), me)
    objective = game_objective(board, rules, sheets, 1, 0, True, model)
    assert not objective.end_open
    state = StateArrays(board, rules, me)
    before = objective.before(state)
    full = learned.WIN_SCALE * learned.VALUE_SCALE
    assert abs(before + full) <= 1  # behind by 7 with every score final: a loss
    for cell in range(2, 5):
        marks = me.with_marked((board.cell(1, cell),))
        gap = score(board, marks, rules) - 7
        after = int(objective.positions(state, *[x[None] for x in StateArrays(board, rules, marks).line_totals])[0])
        expected = 0 if gap == 0 else int(np.sign(gap)) * full
        assert abs(after - expected) <= 1, (cell, gap, after)


def test_win_shape_off_is_the_score_difference(board, rules, monkeypatch):
    # With no win shape the same position is worth the score difference: 0 - 7 points.
    monkeypatch.setattr(learned, "WIN_SIGMA", ())
    sheets = (parse_marks("ooo../...../...../...../.....", board), Marks.empty(board))
    objective = game_objective(board, rules, sheets, 1, 0, True, prior_model(2))
    assert objective.before(StateArrays(board, rules, sheets[1])) == -7 * 16


@pytest.fixture(scope="module")
def tiny_table():
    from test_exact import TINY_BOARD, TINY_RULES

    from shelfie_solver.dice.wholegame.solver import solve_game

    return solve_game(TINY_BOARD, TINY_RULES)


def test_fit_table_improves_on_the_prior(tiny_table):
    # Ridge least squares toward the prior can only lower the squared error of the prior itself
    # (the prior is a candidate of the minimised objective); measured here on every state of the
    # tiny board's exact table, independently of the fit's own error report.
    from shelfie_solver.dice.learned.fit_solved import fit_value_tables

    board, rules = tiny_table.board, tiny_table.rules
    model, errors = fit_value_tables([tiny_table])
    fitted = model.weights[1]
    assert fitted.dtype == np.int64 and fitted.shape == (3, N_FEATURES)
    assert not fitted[:, N_FEATURES - N_CONTEXT:].any()  # the table has no clock
    prior = np.rint(prior_weights(rules.scoring_threshold) * WEIGHT_SCALE).astype(np.int64)
    squared = {"fit": Fraction(0), "prior": Fraction(0)}
    for (marked, eliminated), value in tiny_table.values.items():
        marks = Marks(board.n_shelves, board.n_columns, marked, eliminated)
        near = min(rules.end_trigger_shelves, board.n_shelves) - marks.closed_shelves() == 1
        x = feature_vector(board, rules, marks, np.zeros(len(board.lines), dtype=bool), near,
                           np.array([1, 0, 0], dtype=np.int64))
        target = value - score(board, marks, rules)
        row = fitted[1 if near else 2]  # rows: phases 1, 2, 3
        squared["fit"] += (target - Fraction(int(row @ x), WEIGHT_SCALE)) ** 2
        squared["prior"] += (target - Fraction(int(prior @ x), WEIGHT_SCALE)) ** 2
    assert squared["fit"] <= squared["prior"]
    assert set(errors) <= {2, 3}


def test_train_table_cli(tiny_table, tmp_path):
    from shelfie_solver.cli import main
    from shelfie_solver.dice.wholegame.values import save_table

    path = tmp_path / "tiny.json"
    save_table(str(path), tiny_table)
    out = tmp_path / "fit.json"
    result = CliRunner().invoke(main, ["train", "--table", str(path), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "value table fit, 1 player" in result.stdout
    assert set(load_model(out).weights) == {1}
    assert_one_line_error(CliRunner().invoke(main, ["train", "--table", str(tmp_path / "missing.json")]), "value table")
    assert_one_line_error(CliRunner().invoke(main, ["train"]), "--seed")
