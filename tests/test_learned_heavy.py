"""The heavy family (``random_boards.heavy_boards``: column needs repeated, 3 dice a column or more on
average, two or more columns of 4-5 dice) and the 4 x 5 / 5 x 4 table fitted to it alone
(``train --solitaire-heavy``, ``fit_solved.solve_heavy``, ``fit_solved.heavy_table``,
``LearnedModel.heavy``, ``model_file.needs_heavy``; docs/train.md, docs/strategies.md)."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.learned import train as tr
from shelfie_solver.dice.learned.fit_solved import (
    BOARD_STREAM,
    HEAVY_STREAM,
    SPREAD_STREAM,
    board_float_sums,
    fit_table_sums,
    heavy_table,
    solve_heavy,
)
from shelfie_solver.dice.learned.fitting import TrainError
from shelfie_solver.dice.learned.model_file import (
    DEFAULT_MODEL_PATH,
    HEAVY_KEY,
    N_FEATURES,
    LearnedModel,
    ModelError,
    load_model,
    model_text,
    needs_heavy,
)
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import random_boards as rb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import learned_vs_optimum as bench


def _heavy_by_definition(columns):
    # the definition of docs/train.md, written out again: mean need >= 3, two or more of 4-5
    return Fraction(sum(columns), len(columns)) >= 3 and len([n for n in columns if n >= 4]) >= 2


@pytest.mark.parametrize("columns, heavy", [
    ((4, 4, 1), True),  # mean exactly 3, two 4s
    ((5, 1, 1, 5), True),  # mean exactly 3, two 5s
    ((4, 3, 4, 5, 4), True),  # the 6047 board of mean 4
    ((5, 2, 2, 4, 4), True),  # mean 17/5
    ((5, 5, 1, 1, 1), False),  # mean 13/5 < 3
    ((3, 3, 3, 5), False),  # mean 7/2 but one column of 4-5
    ((3, 3, 3), False),  # no column of 4-5
    ((2, 4, 3, 3, 3), False),  # mean 3, one 4
    ((5, 4, 1, 1), False),  # two of 4-5 but mean 11/4
    ((5,), False),  # one column: never two of 4-5
    ((), False),
])
def test_is_heavy_by_hand(columns, heavy):
    assert rb.is_heavy(columns) is heavy
    if columns:
        assert _heavy_by_definition(columns) is heavy


def test_heavy_boards_satisfy_their_definition():
    boards = rb.heavy_boards(np.random.SeedSequence(3), 15, DEFAULT_RULES)
    assert [(b.n_shelves, b.n_columns) for b in boards] == list(rb.SPREAD_SHAPES) * 5
    for board in boards:
        assert _heavy_by_definition(board.columns) and max(board.columns) <= rb.MAX_NEED
        assert len({shelf[0] for shelf in board.shelf_faces}) == board.n_shelves == len(board.shelf_faces)
        for row in board.values:
            for n, v in zip(board.columns, row):
                assert rb.VALUE_RANGES[n][0] <= v <= rb.VALUE_RANGES[n][1]
    assert len({rb.canonical(b.columns, b.values) for b in boards}) == 15
    held = {rb.canonical(*layout) for layout in rb.HELD_OUT}
    assert not held & {rb.canonical(b.columns, b.values) for b in boards}
    assert rb.heavy_boards(np.random.SeedSequence(3), 15, DEFAULT_RULES) == boards
    assert any(len(set(b.columns)) < b.n_columns for b in boards)  # needs repeat


def test_heavy_boards_refuse_what_cannot_be_heavy():
    from conftest import small_rules

    with pytest.raises(ValueError, match="2 columns"):
        rb.heavy_boards(np.random.SeedSequence(1), 1, DEFAULT_RULES, ((3, 1),))
    with pytest.raises(ValueError, match="item faces"):
        rb.heavy_boards(np.random.SeedSequence(1), 1, small_rules(dice=5, faces=3))
    with pytest.raises(TrainError, match="--solitaire-heavy"):
        solve_heavy(small_rules(dice=5, faces=3), 1, 1)


def test_solve_heavy_sums_are_each_boards_float_sums():
    steps: list[int] = []
    solved = solve_heavy(DEFAULT_RULES, 4, 2, progress=steps.append, shapes=((2, 2),))
    assert steps == [1, 1]
    boards = rb.heavy_boards(np.random.SeedSequence(4, spawn_key=(HEAVY_STREAM,)), 2, DEFAULT_RULES, ((2, 2),))
    assert [b for b, _ in solved] == boards
    for board, sums in solved:  # a 2 x 2 board has fewer states than the sample: all of them
        expected = board_float_sums(board, DEFAULT_RULES)
        assert all(np.array_equal(sums[p].xtx, expected[p].xtx) and sums[p].count == expected[p].count
                   for p in expected)
    many = np.arange(3 * N_FEATURES, dtype=np.int64).reshape(3, N_FEATURES) - 100
    weights = heavy_table(solved, many, DEFAULT_RULES)
    fitted, _ = fit_table_sums([s for _, s in solved], DEFAULT_RULES.scoring_threshold)
    # weight by weight the mean of the two, rounded down (floor, also below zero)
    expected = [[(int(a) + int(b)) // 2 for a, b in zip(ra, rb_)] for ra, rb_ in zip(many, fitted)]
    assert weights.dtype == np.int64 and weights.tolist() == expected
    assert (heavy_table(solved, np.array([[-3] * N_FEATURES] * 3), DEFAULT_RULES)
            <= (fitted - 3) / 2).all()


@pytest.mark.parametrize("kwargs, fragment", [
    ({"solitaire_heavy": 1}, "--solitaire-spread N beside it"),
    ({"solitaire_boards": 2, "solitaire_heavy": 1}, "--solitaire-spread N beside it"),
    ({"solitaire_boards": 2, "solitaire_heavy": -1}, ">= 0"),
])
def test_train_refuses_heavy_settings_that_do_not_go_together(kwargs, fragment, board, rules):
    with pytest.raises(TrainError, match=fragment) as error:
        tr.train(board, rules, 1, 4, 1, 1, (1,), **kwargs)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "1", "--solitaire-heavy", "1"], "--solitaire-"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-heavy", "1"], "--solitaire-spread"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-heavy", "-1"], "--solitaire-heavy"),
    (["--table", "x.json", "--solitaire-heavy", "1"], "--solitaire-heavy"),
    (["--seed", "1", "--win-model", "--solitaire-heavy", "1"], "--solitaire-heavy"),
])
def test_bad_heavy_options(args, fragment, tmp_path):
    assert_one_line_error(CliRunner().invoke(main, ["train", *args, "--output", str(tmp_path / "o.json")]),
                          fragment)


def test_train_solitaire_heavy_writes_the_heavy_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "SPREAD_SHAPES", ((3, 2),))  # columns of 3 items: lines that can score (D19)
    monkeypatch.setattr(rb, "MAX_STATES", 40)  # the 2 x 2 family, as tests/test_learned_shapes.py
    args = ["train", "--seed", "6", "--players", "1", "--iterations", "1", "--jobs", "1", "--solitaire-boards", "2",
            "--solitaire-float", "--solitaire-spread", "1", "--solitaire-heavy", "2", "--output",
            str(tmp_path / "h.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    model = load_model(tmp_path / "h.json")
    assert set(model.heavy) == {(4, 5), (5, 4)} == set(model.many) and not model.shapes
    heavy = [board_float_sums(b, DEFAULT_RULES)
             for b in rb.heavy_boards(np.random.SeedSequence(6, spawn_key=(HEAVY_STREAM,)), 2, DEFAULT_RULES,
                                      ((3, 2),))]
    pooled = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.random_boards(np.random.SeedSequence(6, spawn_key=(BOARD_STREAM,)), 2, DEFAULT_RULES, 40)]
    spread = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.spread_boards(np.random.SeedSequence(6, spawn_key=(SPREAD_STREAM,)), 1, DEFAULT_RULES,
                                        ((3, 2),))]
    fitted, _ = fit_table_sums(heavy, DEFAULT_RULES.scoring_threshold)
    many, _ = fit_table_sums(pooled + spread, DEFAULT_RULES.scoring_threshold)
    assert np.array_equal(model.many[(4, 5)], many)
    expected = (many + fitted) // 2
    assert np.array_equal(model.heavy[(4, 5)], expected) and np.array_equal(model.heavy[(5, 4)], expected)
    expected_pooled, _ = fit_table_sums(pooled, DEFAULT_RULES.scoring_threshold)
    assert np.array_equal(model.weights[1], expected_pooled)  # the pooled table does not see them
    assert not np.array_equal(fitted, many)
    trained = model.info["trained"]
    assert trained["solitaire_heavy"] == 2 and "heavy-family" in trained["method"]
    assert "4 x 5 and 5 x 4 heavy table (2 heavy-family boards' sampled value tables" in result.stdout


def _board(columns, shelves):
    return Board("b", columns, tuple((i,) for i in range(shelves)), ((1,) * len(columns),) * shelves)


def test_heavy_tables_come_first_on_heavy_boards(tmp_path):
    pooled, shaped, many, heavy = (np.full((3, N_FEATURES), k, dtype=np.int64) for k in (1, 2, 3, 4))
    model = LearnedModel({1: pooled, 2: pooled}, {}, {(4, 5): shaped}, {(4, 5): many, (5, 4): many},
                         {(4, 5): heavy, (5, 4): heavy})
    path = tmp_path / "m.json"
    path.write_text(model_text(model))
    assert HEAVY_KEY in json.loads(path.read_text())
    back = load_model(path)
    assert set(back.heavy) == {(4, 5), (5, 4)}
    assert back.for_board(1, _board((4, 3, 4, 5, 4), 4))[0, 0] == 4  # heavy: the heavy table
    assert back.for_board(1, _board((5, 5, 1, 1, 5), 4))[0, 0] == 4  # mean 17/5, three 5s
    assert back.for_board(1, _board((5, 5, 1, 1, 1), 4))[0, 0] == 3  # mean 13/5: many dice, not heavy
    assert back.for_board(1, _board((5, 5, 3, 3, 2), 4))[0, 0] == 3  # mean 18/5 but two of five 4-5: not heavy
    assert back.for_board(1, _board((5, 5, 3, 3, 3), 4))[0, 0] == 4  # two of five, but every column 3 or more
    assert back.for_board(1, _board((3, 4, 3, 3, 5), 4))[0, 0] == 4  # the 8123 board: the same
    assert back.for_board(1, _board((3, 3, 3, 5, 3), 4))[0, 0] == 3  # one of five: many dice
    assert back.for_board(1, _board((3, 3, 3, 5), 5))[0, 0] == 4  # one of four, every column 3 or more
    assert back.for_board(1, _board((2, 3, 3, 5), 5))[0, 0] == 3  # one of four and a 2: many dice
    assert back.for_board(1, _board((1, 2, 3, 3, 1), 4))[0, 0] == 2  # light: the shape's table
    assert back.for_board(1, _board((5, 1, 1, 5), 5))[0, 0] == 4  # 5 x 4, mean 3, two of four 4-5
    assert back.for_board(1, _board((4, 5, 4), 3))[0, 0] == 1  # heavy, but no heavy table of 3 x 3
    assert back.for_board(2, _board((4, 3, 4, 5, 4), 4))[0, 0] == 1  # two players: never the tables
    assert needs_heavy(_board((4, 4, 1), 2)) and not needs_heavy(_board((4, 4, 1, 1), 2))


def _needs_heavy_by_definition(columns):
    # docs/strategies.md "Boards of heavy needs": the family's kind and half the columns or more of 4-5;
    # "Boards of repeated 3s beside 4-5s": or no column under 3 dice and a quarter or more of 4-5
    many = len([n for n in columns if n >= 4])
    return ((_heavy_by_definition(columns) and 2 * many >= len(columns))
            or (min(columns) >= 3 and 4 * many >= len(columns)))


@pytest.mark.parametrize("columns, heavy", [
    ((4, 4, 4, 2, 1), True),  # three of five, mean 3
    ((4, 3, 2, 4, 2), False),  # two of five, mean 3
    ((2, 5, 2, 2, 5), False),  # two of five, mean 16/5
    ((5, 5, 5, 4, 3), True),
    ((3, 4, 4, 1), True),  # two of four, mean 3
    ((5, 1, 1, 5), True),
    ((5, 1, 1, 4), False),  # two of four, mean 11/4
    ((5, 5, 3, 3, 3), True),  # two of five, but no column under 3
    ((5, 5, 3, 3, 2), False),  # two of five and a 2
    ((3, 4, 3, 3, 5), True),  # the 8123 board: the same
    ((3, 3, 3, 5), True),  # one of four, no column under 3
    ((3, 3, 3, 4), True),  # the same, a quarter exactly
    ((3, 3, 3, 5, 3), False),  # one of five: under a quarter
    ((3, 3, 3, 3), False),  # no column of 4-5
    ((2, 3, 3, 5), False),  # one of four and a 2
    ((3, 3, 4), True),  # one of three
    ((4, 4, 1, 1), False),  # half, but mean 5/2
])
def test_needs_heavy_by_hand(columns, heavy):
    board = _board(columns, 4)
    assert needs_heavy(board) is heavy is _needs_heavy_by_definition(columns)


def test_a_bad_heavy_entry_is_refused(tmp_path):
    model = LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})
    data = json.loads(model_text(model))
    data[HEAVY_KEY] = {"4x5": {"1": [1, 2]}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=HEAVY_KEY):
        load_model(path)


def test_the_benchmark_names_the_heavy_table(monkeypatch):
    # the shipped file's pick, not the board's own table (own_cache; its name: test_learned_vs_optimum)
    monkeypatch.setenv("SHELFIE_SOLVE_OWN_TABLE", "off")
    # the shipped file's heavy table, if it has one, is named; otherwise the many-dice one
    board = _board((4, 3, 4, 5, 4), 4)
    expected = "4 × 5, heavy" if (4, 5) in load_model(DEFAULT_MODEL_PATH).heavy else "4 × 5, many dice"
    assert bench.table_used("learned", board) == expected
    assert bench.table_used("learned", _board((5, 5, 1, 1, 1), 4)) == "4 × 5, many dice"
