"""Seeded random small boards (``random_boards``) and the solitaire fit to their exact tables
(``fit_solved.fit_boards``, ``train --solitaire-boards``): seeded output, legality (D3), the held-out
boards never drawn, and the fit the same whatever the workers."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.dice.wholegame import random_boards as rb
from shelfie_solver.dice.board import load_board
from shelfie_solver.cli import main
from shelfie_solver.dice.wholegame.solver import solve_game, state_count
from shelfie_solver.dice.board import board_to_dict
from shelfie_solver.dice.learned.model_file import load_model
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.learned.fit_solved import BOARD_STREAM, HARD_STREAM, fit_boards, fit_value_tables

from conftest import assert_one_line_error

BOARDS = Path(__file__).resolve().parents[1] / "examples" / "boards"
MEASURED = ("small.toml", "small-3x4.toml", "small-4x3.toml", "small-5x3.toml",
            # docs/strategies.md, "`learned` against the optimum on boards of every shape"
            "held-out-2x5.toml", "held-out-3x4-4153.toml", "held-out-4x3-245.toml", "held-out-5x3-345.toml",
            "held-out-4x5.toml", "held-out-5x4-2345.toml",
            # the confirmation boards (docs/strategies.md)
            "held-out-5x3-124.toml", "held-out-3x5.toml", "held-out-4x4-1245.toml", "held-out-2x4-1245.toml")
#: A family of tiny boards (2 x 2 only, 33 states each) for fast fits.
TINY = 40


def test_held_out_layouts_are_the_example_boards():
    # HELD_OUT is typed in by hand; it must be the boards docs/train.md and docs/strategies.md measure on.
    layouts = []
    for name in MEASURED:
        board = load_board(BOARDS / name, DEFAULT_RULES)
        layouts.append((board.columns, board.values))
    assert tuple(layouts) == rb.HELD_OUT


def test_same_seed_same_boards_and_they_are_legal():
    one = rb.random_boards(np.random.SeedSequence(4), 40, DEFAULT_RULES)
    two = rb.random_boards(np.random.SeedSequence(4), 40, DEFAULT_RULES)
    other = rb.random_boards(np.random.SeedSequence(5), 40, DEFAULT_RULES)
    assert one == two and one != other
    items = {i for i in range(len(DEFAULT_RULES.faces)) if i != DEFAULT_RULES.joker_index}
    layouts = set()
    for board in one:
        assert board.n_shelves in rb.SHELVES and board.n_columns in rb.COLUMNS
        assert state_count(board, DEFAULT_RULES) <= rb.MAX_STATES
        # D3: each column needs a different number of dice, 1..5, increasing
        assert list(board.columns) == sorted(set(board.columns)) and set(board.columns) <= {1, 2, 3, 4, 5}
        faces = [f for fs in board.shelf_faces for f in fs]
        assert all(len(fs) == 1 for fs in board.shelf_faces) and len(set(faces)) == len(faces)
        assert set(faces) <= items
        for row in board.values:
            for n, value in zip(board.columns, row):
                assert rb.VALUE_RANGES[n][0] <= value <= rb.VALUE_RANGES[n][1]
        # the board file form reads back as the same board (docs/formats.md)
        from shelfie_solver.dice.board import board_from_dict
        data = board_to_dict(board, DEFAULT_RULES)
        again = board_from_dict(data, DEFAULT_RULES)
        assert (again.columns, again.shelf_faces, again.values) == (board.columns, board.shelf_faces, board.values)
        # no two boards alike up to relabelling (brute force over shelf and column orders)
        variants = {(tuple(board.columns[c] for c in cols),
                     tuple(tuple(board.values[s][c] for c in cols) for s in shelves))
                    for cols in permutations(range(board.n_columns))
                    for shelves in permutations(range(board.n_shelves))}
        assert not variants & layouts
        layouts |= variants
    # every shape of the family is drawn in 40 boards
    assert {(b.n_shelves, b.n_columns) for b in one} == set(rb.shapes(DEFAULT_RULES))


def test_a_held_out_board_relabelled_is_drawn_again(monkeypatch):
    # small.toml with its shelves and columns reordered (and other faces) is the same game: it
    # is refused and the next board of the same generator is taken.
    small = load_board(BOARDS / "small.toml", DEFAULT_RULES)
    order = (2, 0, 1)
    disguised = type(small)("disguised", tuple(small.columns[c] for c in order), ((0,), (2,), (4,)),
                            tuple(tuple(small.values[s][c] for c in order) for s in (1, 2, 0)))
    drawn = iter([disguised, disguised, small, small])
    real = rb.random_board

    def fake(rng, rules, name, max_states=None):
        return next(drawn, None) or real(rng, rules, name, max_states)

    monkeypatch.setattr(rb, "random_board", fake)
    boards = rb.random_boards(np.random.SeedSequence(1), 2, DEFAULT_RULES)
    assert all(rb.canonical(b.columns, b.values) not in {rb.canonical(*h) for h in rb.HELD_OUT} for b in boards)


def test_fit_boards_is_the_table_fit_of_the_seeded_boards_whatever_the_jobs():
    one = fit_boards(DEFAULT_RULES, 3, 3, jobs=1, max_states=TINY)
    two = fit_boards(DEFAULT_RULES, 3, 3, jobs=2, max_states=TINY)
    assert one.dtype == np.int64 and np.array_equal(one, two)
    # the same boards drawn and solved directly, then fitted by fit_solved.fit_value_tables (the --table path)
    boards = rb.random_boards(np.random.SeedSequence(3, spawn_key=(BOARD_STREAM,)), 3, DEFAULT_RULES, TINY)
    model, _ = fit_value_tables([solve_game(board, DEFAULT_RULES) for board in boards])
    assert np.array_equal(model.weights[1], one)


def test_train_solitaire_boards_keeps_the_other_players_weights(tmp_path, monkeypatch):
    # The 2-player weights are the same with or without --solitaire-boards (same seeds), and the
    # 1-player weights are fit_boards' (no solitaire game played).
    monkeypatch.setattr(rb, "MAX_STATES", TINY)
    common = ["train", "--seed", "2", "--games", "4", "--iterations", "1", "--players", "1,2", "--jobs", "1"]
    plain = CliRunner().invoke(main, [*common, "--output", str(tmp_path / "a.json")])
    boards = CliRunner().invoke(main, [*common, "--solitaire-boards", "2", "--output", str(tmp_path / "b.json")])
    assert plain.exit_code == boards.exit_code == 0, plain.output + boards.output
    a, b = load_model(tmp_path / "a.json"), load_model(tmp_path / "b.json")
    assert np.array_equal(a.weights[2], b.weights[2])
    assert np.array_equal(b.weights[1], fit_boards(DEFAULT_RULES, 2, 2, max_states=TINY))
    assert "2 random boards' value tables, 1 player, phase 3" in boards.stdout
    assert "iteration 1, 1 player" not in boards.stdout
    assert b.info["trained"]["solitaire_boards"] == 2 and "solitaire_boards" not in a.info["trained"]
    # a rerun resumes from the checkpoint (no board solved again) and writes the same file
    first = (tmp_path / "b.json").read_text()
    monkeypatch.setattr("shelfie_solver.dice.learned.fit_solved.board_table_sums", None)  # would fail if called
    again = CliRunner().invoke(main, [*common, "--solitaire-boards", "2", "--output", str(tmp_path / "b.json")])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "b.json").read_text() == first


def test_hard_boards_have_many_dice_columns_and_are_never_held_out_or_excluded():
    plain = rb.random_boards(np.random.SeedSequence(11, spawn_key=(BOARD_STREAM,)), 24, DEFAULT_RULES)
    hard = rb.hard_boards(np.random.SeedSequence(6), 40, DEFAULT_RULES, plain)
    assert hard == rb.hard_boards(np.random.SeedSequence(6), 40, DEFAULT_RULES, plain)
    refused = {rb.canonical(*h) for h in rb.HELD_OUT} | {rb.canonical(b.columns, b.values) for b in plain}
    keys = [rb.canonical(b.columns, b.values) for b in hard]
    assert len(set(keys)) == len(keys) and not set(keys) & refused
    for board in hard:
        # D3: different numbers of dice 1..5, increasing, one of them 4 or 5
        assert list(board.columns) == sorted(set(board.columns)) and set(board.columns) <= {1, 2, 3, 4, 5}
        assert 4 in board.columns or 5 in board.columns
        assert board.n_shelves in rb.SHELVES and 2 <= board.n_columns <= 5
        assert state_count(board, DEFAULT_RULES) <= rb.HARD_MAX_STATES
        for row in board.values:
            for n, value in zip(board.columns, row):
                assert rb.VALUE_RANGES[n][0] <= value <= rb.VALUE_RANGES[n][1]
    # five columns are drawn (2 x 5 has 2,945 states, 3 x 5 122,047; 4 x 4 has 266,625: never)
    shapes = {(b.n_shelves, b.n_columns) for b in hard}
    assert (2, 5) in shapes and (4, 4) not in shapes
    # the measurement boards themselves are refused even when the generator draws them
    small = load_board(BOARDS / "held-out-2x5.toml", DEFAULT_RULES)
    assert rb.canonical(small.columns, small.values) in refused


def test_fit_boards_with_hard_boards_pools_their_float_tables(monkeypatch):
    # The hard boards' float tables pooled with the family's exact ones: the same fit as the
    # exact tables of all the boards (fit_solved.fit_value_tables), up to the float targets' rounding to
    # 1/65536 point (a weight off by at most one unit of 1/100000 point).
    monkeypatch.setattr(rb, "HARD_MAX_STATES", 200)  # 2 x 2, 2 x 3, 3 x 2: seconds
    weights = fit_boards(DEFAULT_RULES, 3, 2, max_states=TINY, hard=2)
    plain = rb.random_boards(np.random.SeedSequence(3, spawn_key=(BOARD_STREAM,)), 2, DEFAULT_RULES, TINY)
    hard = rb.hard_boards(np.random.SeedSequence(3, spawn_key=(HARD_STREAM,)), 2, DEFAULT_RULES, plain)
    assert all(4 in b.columns or 5 in b.columns for b in hard)
    model, _ = fit_value_tables([solve_game(board, DEFAULT_RULES) for board in plain + hard])
    assert np.abs(model.weights[1] - weights).max() <= 1
    assert not np.array_equal(weights, fit_boards(DEFAULT_RULES, 3, 2, max_states=TINY))
    # --solitaire-float: the family's boards solved in float too, the same fit up to that rounding
    both = fit_boards(DEFAULT_RULES, 3, 2, max_states=TINY, hard=2, float_solve=True)
    assert np.abs(model.weights[1] - both).max() <= 1


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "1", "--solitaire-hard", "2"], "--solitaire-hard"),
    (["--seed", "1", "--solitaire-float"], "--solitaire-float"),
    (["--seed", "1", "--solitaire-boards", "-1"], "--solitaire-boards"),
    (["--seed", "1", "--solitaire-boards", "2", "--players", "2"], "--solitaire-boards"),
    (["--table", "x.json", "--solitaire-boards", "2"], "--solitaire-boards"),
])
def test_bad_solitaire_boards(args, fragment, tmp_path):
    assert_one_line_error(CliRunner().invoke(main, ["train", *args, "--output", str(tmp_path / "o.json")]),
                          fragment)


def test_pooled_fit_solves_the_ridge_problem_of_all_states():
    # Independent of the exact sums: with the features and the exact values V* - score of every
    # state of two random boards, the fitted weights (phase 3) make the ridge gradient
    # X^T (X w - y) + (w - w0) vanish on every fitted feature, up to the weights' rounding.
    from fractions import Fraction

    from shelfie_solver.dice.board import Marks, score
    from shelfie_solver.dice.learned.model_file import N_CONTEXT, N_FEATURES, WEIGHT_SCALE
    from shelfie_solver.dice.learned.objective import feature_vector, prior_weights

    boards = rb.random_boards(np.random.SeedSequence(9), 2, DEFAULT_RULES, 200)  # 2 x 3, 3 x 2: lines can score
    assert all(max(b.n_shelves, b.n_columns) >= 3 for b in boards)
    solutions = [solve_game(board, DEFAULT_RULES) for board in boards]
    model, _ = fit_value_tables(solutions)
    rows, targets = [], []
    for solution in solutions:
        board = solution.board
        for (marked, eliminated), value in solution.values.items():
            marks = Marks(board.n_shelves, board.n_columns, marked, eliminated)
            if marks.closed_shelves() == 0:  # trigger 2: two or more shelves short, phase 3
                rows.append(feature_vector(board, DEFAULT_RULES, marks, np.zeros(len(board.lines), dtype=bool),
                                           False, np.array([1, 0, 0])))
                targets.append(float(value - Fraction(score(board, marks, DEFAULT_RULES))))
    x, y = np.array(rows, dtype=float), np.array(targets)
    w = model.weights[1][2] / WEIGHT_SCALE
    gradient = x.T @ (x @ w - y) + (w - prior_weights(3))
    free = np.arange(N_FEATURES) < N_FEATURES - N_CONTEXT
    rounding = 0.5 / WEIGHT_SCALE * (np.abs(x.T @ x).sum(axis=1) + 1)  # each weight is off by at most half a unit
    assert np.abs(x.T @ y).max() > 1  # the targets are not all 0
    assert (np.abs(gradient[free]) <= rounding[free] + 1e-9).all()
