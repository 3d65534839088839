"""The light-five family (``random_boards.light_five_boards``: a 5 beside 1s, exactly one column
needing 5 dice, no other 4-5, two or more needing 1) and the 4 x 5 table made from it
(``train --solitaire-light-five``, ``fit_solved.solve_light_five``, ``fit_solved.light_five_tables``,
``LearnedModel.light_five``, ``model_file.needs_light_five``; docs/train.md, docs/formats.md,
docs/strategies.md "A table for a 5 beside 1s")."""

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
from shelfie_solver.dice.learned.fit_solved import (
    BOARD_STREAM,
    SPREAD_STREAM,
    board_float_sums,
    fit_table_sums,
)
from shelfie_solver.dice.learned.model_file import (
    DEFAULT_MODEL_PATH,
    LIGHT_FIVE_KEY,
    MODEL_KEYS,
    N_FEATURES,
    LearnedModel,
    ModelError,
    load_model,
    model_from_dict,
    model_text,
    needs_heavy,
    needs_light_five,
    needs_many_dice,
    needs_threes,
)
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import random_boards as rb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import learned_vs_optimum as bench


def _board(columns, shelves):
    return Board("b", columns, tuple((i,) for i in range(shelves)), ((1,) * len(columns),) * shelves)


@pytest.mark.parametrize("columns, light", [
    ((5, 1, 1, 1, 2), True),  # the 9650 board that settled at 96.3%
    ((1, 3, 3, 1, 5), True),  # diagnosis board 9603 27
    ((2, 1, 5, 2, 1), True),  # diagnosis board 9603 75
    ((1, 1, 5), True),
    ((5, 1, 4, 1, 3), False),  # diagnosis board 9601 13: a 4 beside the 5
    ((5, 5, 1, 1, 2), False),  # two 5s
    ((5, 1, 2, 2, 3), False),  # one 1
    ((4, 1, 1, 2, 3), False),  # a 4, no 5
    ((1, 1, 2, 3, 3), False),  # no column of 4-5
    ((5, 3, 3, 3), False),
    ((), False),
])
def test_a_five_beside_ones_by_hand(columns, light):
    # by counting: one column of 5, none of 4, at least two of 1
    assert (columns.count(5) == 1 and 4 not in columns and columns.count(1) >= 2) is light
    assert rb.is_light_five(columns) is light
    assert needs_light_five(_board(columns, 4)) is light
    if light:  # a column of 5: a many-dice board, and never a heavy or threes one (columns of 1)
        assert needs_many_dice(_board(columns, 4))
        assert not needs_heavy(_board(columns, 4)) and not needs_threes(_board(columns, 4))


def test_light_five_boards_are_of_the_kind_and_differ():
    boards = rb.light_five_boards(np.random.SeedSequence(3, spawn_key=(1,)), 6, DEFAULT_RULES)
    assert [(b.n_shelves, b.n_columns) for b in boards] == [(4, 4), (3, 5), (5, 3)] * 2
    for b in boards:
        assert b.columns.count(5) == 1 and 4 not in b.columns and b.columns.count(1) >= 2
        lo_hi = {1: (1, 3), 2: (1, 3), 3: (2, 5), 5: (8, 12)}  # D3 values of the spread family
        assert all(lo_hi[n][0] <= v <= lo_hi[n][1] for row in b.values for v, n in zip(row, b.columns))
        assert len({f for face in b.shelf_faces for f in face}) == b.n_shelves
    assert len({rb.canonical(b.columns, b.values) for b in boards}) == 6
    again = rb.light_five_boards(np.random.SeedSequence(3, spawn_key=(1,)), 6, DEFAULT_RULES)
    assert [(b.columns, b.values) for b in again] == [(b.columns, b.values) for b in boards]


def test_the_light_five_table_comes_after_threes_and_heavy_and_before_many_dice(tmp_path):
    pooled, shaped, many, heavy, threes, light = (np.full((3, N_FEATURES), k, dtype=np.int64)
                                                  for k in (1, 2, 3, 4, 5, 6))
    model = LearnedModel({1: pooled, 2: pooled}, {}, {(4, 5): shaped}, {(4, 5): many, (5, 4): many},
                         {(4, 5): heavy, (5, 4): heavy}, {(4, 5): threes, (5, 4): threes}, {(4, 5): light})
    path = tmp_path / "m.json"
    path.write_text(model_text(model))
    assert LIGHT_FIVE_KEY in json.loads(path.read_text())
    back = load_model(path)
    assert set(back.light_five) == {(4, 5)} and np.array_equal(back.light_five[(4, 5)], light)
    assert back.for_board(1, _board((5, 1, 1, 1, 2), 4))[0, 0] == 6  # a 5 beside 1s: its table
    assert back.for_board(1, _board((1, 3, 3, 1, 5), 4))[0, 0] == 6
    assert back.for_board(1, _board((5, 1, 4, 1, 3), 4))[0, 0] == 3  # a 4 beside: many dice, as before
    assert back.for_board(1, _board((5, 1, 2, 2, 3), 4))[0, 0] == 3  # one 1: many dice, as before
    assert back.for_board(1, _board((3, 4, 3, 3, 5), 4))[0, 0] == 5  # threes, as before
    assert back.for_board(1, _board((3, 4, 4, 5, 3), 4))[0, 0] == 4  # heavy, as before
    assert back.for_board(1, _board((1, 2, 3, 3, 1), 4))[0, 0] == 2  # light, no 5: the shape's table
    assert back.for_board(1, _board((5, 1, 1, 2), 5))[0, 0] == 3  # 5 x 4: no light-five table, many dice
    assert back.for_board(2, _board((5, 1, 1, 1, 2), 4))[0, 0] == 1  # two players: never the tables
    before = LearnedModel(model.weights, {}, model.shapes, model.many, model.heavy, model.threes)
    assert before.for_board(1, _board((5, 1, 1, 1, 2), 4))[0, 0] == 3  # without it: many dice


def test_a_file_without_the_light_five_table_reads_and_writes_as_before():
    model = LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})
    data = json.loads(model_text(model))
    assert LIGHT_FIVE_KEY not in data and LIGHT_FIVE_KEY in MODEL_KEYS
    assert model_from_dict(data).light_five == {}


@pytest.mark.parametrize("entry", [
    {"4x5": {"1": [1, 2]}},  # too few weights
    {"4x5": {"1": [0] * N_FEATURES, "2": [0] * N_FEATURES}},  # a phase missing
    {"4x5": {str(p): [0] * N_FEATURES for p in (1, 2, 3, 4)}},  # a phase of junk
    {"4-5": {str(p): [0] * N_FEATURES for p in (1, 2, 3)}},  # not a shape
    {"9x5": {str(p): [0] * N_FEATURES for p in (1, 2, 3)}},  # 9 shelves (D3: at most 7)
    {"4x5": {str(p): [0.5] * N_FEATURES for p in (1, 2, 3)}},  # not whole numbers
    "4x5",  # not a mapping
])
def test_a_malformed_light_five_entry_is_refused(tmp_path, entry):
    data = json.loads(model_text(LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})))
    data[LIGHT_FIVE_KEY] = entry
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelError, match=LIGHT_FIVE_KEY):
        load_model(path)
    result = CliRunner().invoke(main, ["simulate", "--players", f"learned:{path}", "--games", "1", "--seed", "1"])
    assert_one_line_error(result, LIGHT_FIVE_KEY)


def test_a_misspelt_light_five_key_is_refused():
    data = json.loads(model_text(LearnedModel({1: np.zeros((3, N_FEATURES), dtype=np.int64)})))
    data["solitaire_light_fives"] = {}
    with pytest.raises(ModelError, match="unknown key"):
        model_from_dict(data)


def test_the_shipped_file_keeps_every_other_table_and_plays_the_light_five_table_on_its_boards(monkeypatch):
    # the shipped file's pick, not the board's own table (own_cache; its name: test_learned_vs_optimum)
    monkeypatch.setenv("SHELFIE_SOLVE_OWN_TABLE", "off")
    model = load_model(DEFAULT_MODEL_PATH)
    assert set(model.light_five) == {(4, 5)}
    # its weights are the mean of the many-dice table and a fit, so between them is no check; but
    # the table differs from the many-dice one, and only on boards of the kind is it played
    assert not np.array_equal(model.light_five[(4, 5)], model.many[(4, 5)])
    assert model.for_board(1, _board((5, 1, 1, 1, 2), 4)) is model.light_five[(4, 5)]
    assert model.for_board(1, _board((5, 1, 4, 1, 3), 4)) is model.many[(4, 5)]
    trained = model.info["trained"]
    assert trained["solitaire_light_five"] == 12 and trained["solitaire_light_five_seed"] == 9604
    assert "--solitaire-light-five 12 --solitaire-light-five-seed 9604" in trained["method"]
    assert bench.table_used("learned", _board((5, 1, 1, 1, 2), 4)) == "4 × 5, light five"
    assert bench.table_used("learned", _board((5, 1, 4, 1, 3), 4)) == "4 × 5, many dice"


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-light-five", "1"], "--solitaire-spread"),
    (["--seed", "1", "--solitaire-light-five", "1"], "--solitaire-"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-spread", "1", "--solitaire-light-five", "-1"],
     "--solitaire-light-five"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-spread", "1", "--solitaire-light-five-seed", "3"],
     "--solitaire-light-five-seed"),  # a seed of no boards
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-spread", "1", "--solitaire-light-five", "1",
      "--solitaire-light-five-seed", "-3"], "--solitaire-light-five-seed"),
    (["--table", "x.json", "--solitaire-light-five", "1"], "--solitaire-light-five"),
    (["--seed", "1", "--win-model", "--solitaire-light-five", "1"], "--solitaire-light-five"),
])
def test_bad_light_five_options(args, fragment, tmp_path):
    assert_one_line_error(CliRunner().invoke(main, ["train", *args, "--output", str(tmp_path / "o.json")]),
                          fragment)


def test_train_solitaire_light_five_writes_the_key(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "SPREAD_SHAPES", ((3, 3),))  # 3 x 3: needs such as 1, 1, 5 (D3)
    monkeypatch.setattr(rb, "MAX_STATES", 40)  # the 2 x 2 family, as tests/test_learned_shapes.py
    args = ["train", "--seed", "6", "--players", "1", "--iterations", "1", "--jobs", "1", "--solitaire-boards", "2",
            "--solitaire-float", "--solitaire-spread", "1", "--solitaire-light-five", "2",
            "--solitaire-light-five-seed", "9", "--output", str(tmp_path / "t.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert LIGHT_FIVE_KEY in json.loads((tmp_path / "t.json").read_text())
    model = load_model(tmp_path / "t.json")
    assert set(model.light_five) == {(4, 5)} and set(model.many) == {(4, 5), (5, 4)}
    seq = np.random.SeedSequence
    light_boards = rb.light_five_boards(seq(9, spawn_key=(1,)), 2, DEFAULT_RULES, ((3, 3),))
    assert all(b.columns.count(5) == 1 and b.columns.count(1) == 2 for b in light_boards)
    light = [board_float_sums(b, DEFAULT_RULES) for b in light_boards]
    pooled = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.random_boards(seq(6, spawn_key=(BOARD_STREAM,)), 2, DEFAULT_RULES, 40)]
    spread = [board_float_sums(b, DEFAULT_RULES)
              for b in rb.spread_boards(seq(6, spawn_key=(SPREAD_STREAM,)), 1, DEFAULT_RULES, ((3, 3),))]
    threshold = DEFAULT_RULES.scoring_threshold
    many, _ = fit_table_sums(pooled + spread, threshold)
    light_fit, _ = fit_table_sums(light, threshold)
    assert np.array_equal(model.many[(4, 5)], many)  # the many-dice table as without the option
    # the mean of the many-dice table and the fit, weight by weight, rounded down
    assert np.array_equal(model.light_five[(4, 5)], (many + light_fit) // 2)
    pooled_fit, _ = fit_table_sums(pooled, threshold)
    assert np.array_equal(model.weights[1], pooled_fit)  # the pooled table does not see them
    assert not model.threes and not model.heavy
    trained = model.info["trained"]
    assert trained["solitaire_light_five"] == 2 and trained["solitaire_light_five_seed"] == 9
    assert "2 light-five-family boards of seed 9" in trained["method"]
    assert "4 x 5 light-five table (2 light-five-family boards' sampled value tables" in result.stdout
