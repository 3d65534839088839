"""The threes family (``random_boards.threes_boards``: column needs repeat 3s beside 4-5s, none under
3 dice, a quarter or more but under half of 4-5) and the 4 x 5 / 5 x 4 table fitted to it
(``train --solitaire-threes``, ``fit_solved.solve_threes``, ``fit_solved.threes_table``,
``LearnedModel.threes``, ``model_file.needs_threes``; docs/train.md, docs/strategies.md "A table for
repeated 3s beside 4-5s")."""

from __future__ import annotations

import json
import sys
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
    THREES_STREAM,
    board_float_sums,
    fit_table_sums,
    solve_threes,
    threes_table,
    threes_tables,
)
from shelfie_solver.dice.learned.fitting import TrainError
from shelfie_solver.dice.learned.model_file import (
    DEFAULT_MODEL_PATH,
    MODEL_KEYS,
    N_FEATURES,
    THREES_KEY,
    LearnedModel,
    ModelError,
    load_model,
    model_from_dict,
    model_text,
    needs_heavy,
    needs_threes,
)
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import random_boards as rb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import learned_vs_optimum as bench


def _threes_by_definition(columns):
    # the definition of docs/train.md written out again, by counting: every column 3 or more,
    # and the columns of 4-5 at least a quarter and under a half of all (as fractions)
    hard = [n for n in columns if n in (4, 5)]
    return bool(columns) and all(n >= 3 for n in columns) and 0.25 <= len(hard) / len(columns) < 0.5


@pytest.mark.parametrize("columns, threes", [
    ((5, 3, 3, 3), True),  # the 6311 5 x 4 board
    ((3, 3, 4, 4, 3), True),  # the 6311 4 x 5 board
    ((3, 4, 3, 3, 5), True),  # the 8123 board
    ((3, 3, 3, 4), True),  # a quarter exactly
    ((3, 3, 5), True),  # one of three
    ((3, 3, 4, 4), False),  # half: the heavy rule's first arm
    ((3, 3, 3, 3, 5), False),  # one of five: under a quarter
    ((3, 3, 3, 3), False),  # no column of 4-5
    ((2, 3, 3, 5), False),  # a column under 3
    ((3, 4, 5), False),  # two of three: over half
    ((4, 5), False),
    ((5,), False),
    ((), False),
])
def test_is_threes_by_hand(columns, threes):
    assert rb.is_threes(columns) is threes
    assert _threes_by_definition(columns) is threes
    assert needs_threes(_board(columns, 4)) is threes


def test_threes_boards_satisfy_their_definition():
    boards = rb.threes_boards(np.random.SeedSequence(3), 15, DEFAULT_RULES)
    assert [(b.n_shelves, b.n_columns) for b in boards] == list(rb.SPREAD_SHAPES) * 5
    for board in boards:
        assert _threes_by_definition(board.columns) and max(board.columns) <= rb.MAX_NEED
        assert board.columns.count(3) >= 2  # repeated 3s
        assert len({shelf[0] for shelf in board.shelf_faces}) == board.n_shelves == len(board.shelf_faces)
        for row in board.values:
            for n, v in zip(board.columns, row):
                assert rb.VALUE_RANGES[n][0] <= v <= rb.VALUE_RANGES[n][1]
    assert len({rb.canonical(b.columns, b.values) for b in boards}) == 15
    held = {rb.canonical(*layout) for layout in rb.HELD_OUT}
    assert not held & {rb.canonical(b.columns, b.values) for b in boards}
    assert rb.threes_boards(np.random.SeedSequence(3), 15, DEFAULT_RULES) == boards


def test_threes_boards_refuse_what_cannot_be_of_the_kind():
    from conftest import small_rules

    with pytest.raises(ValueError, match="3 columns"):
        rb.threes_boards(np.random.SeedSequence(1), 1, DEFAULT_RULES, ((3, 2),))
    with pytest.raises(ValueError, match="item faces"):
        rb.threes_boards(np.random.SeedSequence(1), 1, small_rules(dice=5, faces=3))
    with pytest.raises(TrainError, match="--solitaire-threes"):
        solve_threes(small_rules(dice=5, faces=3), 1, 1)


def test_solve_threes_sums_are_each_boards_float_sums():
    steps: list[int] = []
    solved = solve_threes(DEFAULT_RULES, 4, 2, progress=steps.append, shapes=((2, 3),))
    assert steps == [1, 1]
    boards = rb.threes_boards(np.random.SeedSequence(4, spawn_key=(THREES_STREAM,)), 2, DEFAULT_RULES, ((2, 3),))
    assert [b for b, _ in solved] == boards
    for board, sums in solved:  # a 2 x 3 board has fewer states than the sample: all of them
        expected = board_float_sums(board, DEFAULT_RULES)
        assert all(np.array_equal(sums[p].xtx, expected[p].xtx) and sums[p].count == expected[p].count
                   for p in expected)
    weights = threes_table(solved, DEFAULT_RULES)
    fitted, _ = fit_table_sums([s for _, s in solved], DEFAULT_RULES.scoring_threshold)
    assert weights.dtype == np.int64 and np.array_equal(weights, fitted)  # the fit to those boards alone


def test_threes_tables_mix_a_quarter_of_the_many_dice_table_on_4x5_by_hand():
    fitted = np.zeros((3, N_FEATURES), dtype=np.int64)
    many = np.zeros((3, N_FEATURES), dtype=np.int64)
    fitted[0, :4] = (8, 1, -1, 100_000)
    many[0, :4] = (0, 2, 0, -100_000)
    tables = threes_tables(fitted, many)
    assert set(tables) == {(4, 5), (5, 4)} and tables[(5, 4)] is fitted  # 5 x 4: the fit alone
    # (1 * many + 3 * fitted) / 4 rounded down: 24/4 = 6; 5/4 -> 1; -3/4 -> -1; 200,000/4 = 50,000
    assert tables[(4, 5)].dtype == np.int64 and tables[(4, 5)][0, :4].tolist() == [6, 1, -1, 50_000]
    assert not tables[(4, 5)][1:].any() and not tables[(4, 5)][0, 4:].any()
    # no many-dice table (no --solitaire-spread): the fit alone on both shapes
    assert all(t is fitted for t in threes_tables(fitted, None).values())


@pytest.mark.parametrize("kwargs, fragment", [
    ({"solitaire_threes": 1}, "--solitaire-boards N beside it"),
    ({"solitaire_boards": 2, "solitaire_threes": -1}, ">= 0"),
    ({"solitaire_boards": 2, "solitaire_threes_seed": 3}, "--solitaire-threes-seed"),
])
def test_train_refuses_threes_settings_that_do_not_go_together(kwargs, fragment, board, rules):
    with pytest.raises(TrainError, match=fragment) as error:
        tr.train(board, rules, 1, 4, 1, 1, (1,), **kwargs)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "1", "--solitaire-threes", "1"], "--solitaire-"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-threes", "-1"], "--solitaire-threes"),
    (["--table", "x.json", "--solitaire-threes", "1"], "--solitaire-threes"),
    (["--seed", "1", "--win-model", "--solitaire-threes", "1"], "--solitaire-threes"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-spread", "1", "--solitaire-heavy", "1",
      "--solitaire-threes-seed", "3"], "--solitaire-threes-seed"),  # a seed of no boards
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-spread", "1", "--solitaire-heavy", "1",
      "--solitaire-threes", "1", "--solitaire-threes-seed", "-3"], "--solitaire-threes-seed"),
    (["--table", "x.json", "--solitaire-threes-seed", "3"], "--solitaire-threes-seed"),
])
def test_bad_threes_options(args, fragment, tmp_path):
    assert_one_line_error(CliRunner().invoke(main, ["train", *args, "--output", str(tmp_path / "o.json")]),
                          fragment)


def test_train_solitaire_threes_writes_the_threes_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "SPREAD_SHAPES", ((3, 3),))  # columns of 3 items: lines that can score (D19)
    monkeypatch.setattr(rb, "MAX_STATES", 40)  # the 2 x 2 family, as tests/test_learned_shapes.py
    args = ["train", "--seed", "6", "--players", "1", "--iterations", "1", "--jobs", "1", "--solitaire-boards", "2",
            "--solitaire-float", "--solitaire-spread", "1", "--solitaire-heavy", "1", "--solitaire-threes", "2",
            "--solitaire-threes-seed", "9", "--output", str(tmp_path / "t.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    model = load_model(tmp_path / "t.json")
    assert set(model.threes) == {(4, 5), (5, 4)} == set(model.heavy) == set(model.many) and not model.shapes
    shape = ((3, 3),)
    seq = np.random.SeedSequence
    threes = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.threes_boards(seq(9, spawn_key=(THREES_STREAM,)), 2, DEFAULT_RULES, shape)]
    heavy = [board_float_sums(b, DEFAULT_RULES)
             for b in rb.heavy_boards(seq(6, spawn_key=(HEAVY_STREAM,)), 1, DEFAULT_RULES, shape)]
    pooled = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.random_boards(seq(6, spawn_key=(BOARD_STREAM,)), 2, DEFAULT_RULES, 40)]
    spread = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.spread_boards(seq(6, spawn_key=(SPREAD_STREAM,)), 1, DEFAULT_RULES, shape)]
    threshold = DEFAULT_RULES.scoring_threshold
    many, _ = fit_table_sums(pooled + spread, threshold)
    heavy_fit, _ = fit_table_sums(heavy, threshold)
    heavy_table = (many + heavy_fit) // 2
    threes_fit, _ = fit_table_sums(threes, threshold)
    # the other tables as without the option
    assert np.array_equal(model.many[(4, 5)], many) and np.array_equal(model.heavy[(5, 4)], heavy_table)
    # 5 x 4: the fit to the threes boards alone; 4 x 5: a quarter of the many-dice table and three
    # quarters of that fit, rounded down (docs/strategies.md, "Two 5s beside 3s")
    assert np.array_equal(model.threes[(5, 4)], threes_fit)
    assert np.array_equal(model.threes[(4, 5)], (many + 3 * threes_fit) // 4)
    pooled_fit, _ = fit_table_sums(pooled, threshold)
    assert np.array_equal(model.weights[1], pooled_fit)  # the pooled table does not see them
    assert not np.array_equal(threes_fit, heavy_table)
    trained = model.info["trained"]
    assert trained["solitaire_threes"] == 2 and trained["solitaire_threes_seed"] == 9 and trained["seed"] == 6
    assert "threes-family boards of seed 9" in trained["method"]
    assert "on 4x5 a quarter of the many-dice table and three quarters of that fit" in trained["method"]
    assert "4 x 5 and 5 x 4 threes table (2 threes-family boards' sampled value tables" in result.stdout


def _board(columns, shelves):
    return Board("b", columns, tuple((i,) for i in range(shelves)), ((1,) * len(columns),) * shelves)


def test_threes_tables_come_first_on_boards_of_repeated_threes(tmp_path):
    pooled, shaped, many, heavy, threes = (np.full((3, N_FEATURES), k, dtype=np.int64) for k in (1, 2, 3, 4, 5))
    model = LearnedModel({1: pooled, 2: pooled}, {}, {(4, 5): shaped}, {(4, 5): many, (5, 4): many},
                         {(4, 5): heavy, (5, 4): heavy}, {(4, 5): threes, (5, 4): threes})
    path = tmp_path / "m.json"
    path.write_text(model_text(model))
    assert THREES_KEY in json.loads(path.read_text())
    back = load_model(path)
    assert set(back.threes) == {(4, 5), (5, 4)}
    assert all(np.array_equal(back.threes[s], model.threes[s]) for s in model.threes)
    assert back.for_board(1, _board((3, 4, 3, 3, 5), 4))[0, 0] == 5  # the 8123 board: the threes table
    assert back.for_board(1, _board((3, 3, 4, 4, 3), 4))[0, 0] == 5  # the 6311 4 x 5 board
    assert back.for_board(1, _board((5, 3, 3, 3), 5))[0, 0] == 5  # the 6311 5 x 4 board
    assert back.for_board(1, _board((3, 3, 4, 4), 5))[0, 0] == 4  # half of 4-5: heavy, as before
    assert back.for_board(1, _board((3, 4, 4, 5, 3), 4))[0, 0] == 4  # three of five: heavy, as before
    assert back.for_board(1, _board((3, 3, 3, 5, 3), 4))[0, 0] == 3  # one of five: many dice, as before
    assert back.for_board(1, _board((2, 3, 3, 5), 5))[0, 0] == 3  # a 2: many dice, as before
    assert back.for_board(1, _board((1, 2, 3, 3, 1), 4))[0, 0] == 2  # light: the shape's table
    assert back.for_board(1, _board((3, 3, 5), 3))[0, 0] == 1  # threes, but no threes table of 3 x 3
    assert back.for_board(2, _board((3, 4, 3, 3, 5), 4))[0, 0] == 1  # two players: never the tables
    # without a threes table, such a board plays the heavy table (needs_heavy's second arm)
    before = LearnedModel(model.weights, {}, model.shapes, model.many, model.heavy)
    assert before.for_board(1, _board((3, 4, 3, 3, 5), 4))[0, 0] == 4
    assert needs_heavy(_board((3, 4, 3, 3, 5), 4))


def test_a_file_without_threes_reads_and_writes_as_before(tmp_path):
    model = LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})
    data = json.loads(model_text(model))
    assert THREES_KEY not in data and THREES_KEY in MODEL_KEYS
    assert model_from_dict(data).threes == {}


@pytest.mark.parametrize("entry", [
    {"4x5": {"1": [1, 2]}},  # too few weights
    {"4x5": {"1": [0] * N_FEATURES, "2": [0] * N_FEATURES}},  # a phase missing
    {"4*5": {str(p): [0] * N_FEATURES for p in (1, 2, 3)}},  # not a shape
    {"4x5": {str(p): [0.5] * N_FEATURES for p in (1, 2, 3)}},  # not whole numbers
    [],  # not a mapping
])
def test_a_bad_threes_entry_is_refused(tmp_path, entry):
    model = LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})
    data = json.loads(model_text(model))
    data[THREES_KEY] = entry
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=THREES_KEY):
        load_model(path)


def test_a_misspelt_threes_key_is_refused(tmp_path):
    data = json.loads(model_text(LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})))
    data["solitaire_three"] = {}
    with pytest.raises(ModelError, match="unknown key"):
        model_from_dict(data)


def test_the_benchmark_names_the_threes_table(monkeypatch):
    # the shipped file's pick, not the board's own table (own_cache; its name: test_learned_vs_optimum)
    monkeypatch.setenv("SHELFIE_SOLVE_OWN_TABLE", "off")
    board = _board((3, 4, 3, 3, 5), 4)
    expected = "4 × 5, threes" if (4, 5) in load_model(DEFAULT_MODEL_PATH).threes else "4 × 5, heavy"
    assert bench.table_used("learned", board) == expected
    assert bench.table_used("learned", _board((3, 3, 4, 4, 5), 4)) == "4 × 5, heavy"
