"""The spread family (``random_boards.spread_boards``: column needs drawn with repetition) and the
table of the shapes over the exact budget fitted with it (``train --solitaire-spread``,
``fit_solved.solve_spread``, ``fit_solved.over_budget_table``; docs/train.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error

from shelfie_solver.cli import main
from shelfie_solver.dice.learned import train as tr
from shelfie_solver.dice.learned.fit_solved import (
    BOARD_STREAM,
    SPREAD_LARGE_STREAM,
    SPREAD_STREAM,
    board_float_sums,
    fit_table_sums,
    over_budget_table,
    solve_spread,
)
from shelfie_solver.dice.learned.fitting import TrainError
from shelfie_solver.dice.learned.model_file import load_model
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import random_boards as rb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import learned_vs_optimum as bench


def test_the_held_out_families_are_drawn_as_documented():
    # the columns of the families of docs/strategies.md, read off its tables (the draw moved to
    # random_boards.spread_board and must not have changed)
    assert [b.columns for b in bench.held_out_family(2027, 4)] == [
        (1, 5, 4, 4, 1, 2), (2, 2, 2, 1, 3), (2, 3, 5, 1), (1, 2, 3, 3, 3, 2)]
    assert [b.columns for b in bench.held_out_family(4242, 4, ((4, 5), (5, 4)))] == [
        (4, 2, 1, 3, 3), (3, 1, 3, 3), (4, 4, 4, 2, 1), (2, 3, 2, 2)]
    assert [b.columns for b in bench.held_out_family(9001, 4, ((4, 5), (5, 4)))] == [
        (2, 5, 1, 4, 4), (1, 3, 2, 1), (1, 5, 1, 4, 5), (2, 2, 3, 2)]
    assert [b.columns for b in bench.held_out_family(6047, 4, ((4, 5), (5, 4)))] == [
        (4, 3, 4, 5, 4), (1, 1, 1, 3), (5, 2, 2, 4, 4), (3, 2, 1, 3)]
    text = (ROOT / "docs" / "strategies.md").read_text()
    assert "| `family-1.toml` | 4 × 5 | 2, 5, 1, 4, 4 |" in text


def test_spread_boards_take_shapes_and_halves_in_turn():
    boards = rb.spread_boards(np.random.SeedSequence(3), 12, DEFAULT_RULES)
    assert [(b.n_shelves, b.n_columns) for b in boards] == list(rb.SPREAD_SHAPES) * 4
    for i, board in enumerate(boards):
        many = (i // 3) % 2 == 0
        assert (max(board.columns) >= 4) == many and max(board.columns) <= rb.MAX_NEED
        assert all(len(shelf) == 1 for shelf in board.shelf_faces)
        assert len({shelf[0] for shelf in board.shelf_faces}) == board.n_shelves  # one face per shelf, all different
        for row in board.values:
            for n, v in zip(board.columns, row):
                assert rb.VALUE_RANGES[n][0] <= v <= rb.VALUE_RANGES[n][1]
    keys = {rb.canonical(b.columns, b.values) for b in boards}
    assert len(keys) == 12
    assert rb.spread_boards(np.random.SeedSequence(3), 12, DEFAULT_RULES) == boards
    # needs repeat: with 12 boards of 3-5 columns, some board has a need twice (what the
    # other families never draw)
    assert any(len(set(b.columns)) < b.n_columns for b in boards)


def test_spread_boards_need_item_faces():
    from conftest import small_rules

    with pytest.raises(ValueError, match="item faces"):
        rb.spread_boards(np.random.SeedSequence(1), 1, small_rules(dice=5, faces=3))
    with pytest.raises(TrainError, match="--solitaire-spread"):
        solve_spread(small_rules(dice=5, faces=3), 1, 1)


def test_solve_spread_sums_are_each_boards_float_sums():
    steps: list[int] = []
    solved = solve_spread(DEFAULT_RULES, 4, 2, 1, progress=steps.append, shapes=((2, 2),), large_shapes=((2, 3),))
    assert steps == [1, 1, 1]
    near = rb.spread_boards(np.random.SeedSequence(4, spawn_key=(SPREAD_STREAM,)), 2, DEFAULT_RULES, ((2, 2),))
    big = rb.spread_boards(np.random.SeedSequence(4, spawn_key=(SPREAD_LARGE_STREAM,)), 1, DEFAULT_RULES,
                           ((2, 3),), "spread large")
    assert [b for b, _ in solved] == near + big
    for board, sums in solved[:2]:  # whole tables
        expected = board_float_sums(board, DEFAULT_RULES)
        assert all(np.array_equal(sums[p].xtx, expected[p].xtx) and sums[p].count == expected[p].count
                   for p in expected)
    # the large one: SPREAD_SAMPLE states drawn from its own child (a 2 x 3 board has fewer: all)
    board, sums = solved[2]
    whole = board_float_sums(board, DEFAULT_RULES)
    assert sum(s.count for s in sums.values()) == sum(s.count for s in whole.values())


def test_over_budget_table_pools_both_lists():
    solved = solve_spread(DEFAULT_RULES, 5, 2, shapes=((2, 2),))
    pooled = solve_spread(DEFAULT_RULES, 6, 1, shapes=((2, 3),))
    weights = over_budget_table(pooled, solved, DEFAULT_RULES)
    expected, _ = fit_table_sums([s for _, s in pooled + solved], DEFAULT_RULES.scoring_threshold)
    assert np.array_equal(weights, expected)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"solitaire_spread": 1}, "--solitaire-boards N beside it"),
    ({"solitaire_spread_large": 1}, "--solitaire-boards N beside it"),
    ({"solitaire_boards": 2, "solitaire_spread": -1}, ">= 0"),
    ({"solitaire_boards": 2, "solitaire_spread": 1, "solitaire_large": 2, "solitaire_shapes": 1}, "one of them"),
])
def test_train_refuses_spread_settings_that_do_not_go_together(kwargs, fragment, board, rules):
    with pytest.raises(TrainError, match=fragment) as error:
        tr.train(board, rules, 1, 4, 1, 1, (1,), **kwargs)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "1", "--solitaire-spread", "1"], "--solitaire-"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-spread", "-1"], "--solitaire-spread"),
    (["--table", "x.json", "--solitaire-spread", "1"], "--solitaire-spread"),
    (["--seed", "1", "--win-model", "--solitaire-spread-large", "1"], "--solitaire-spread-large"),
])
def test_bad_spread_options(args, fragment, tmp_path):
    assert_one_line_error(CliRunner().invoke(main, ["train", *args, "--output", str(tmp_path / "o.json")]),
                          fragment)


def test_train_solitaire_spread_writes_the_over_budget_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(rb, "SPREAD_SHAPES", ((2, 2),))
    monkeypatch.setattr(rb, "MAX_STATES", 40)  # the 2 x 2 family, as tests/test_learned_shapes.py
    args = ["train", "--seed", "6", "--players", "1", "--iterations", "1", "--jobs", "1", "--solitaire-boards", "2",
            "--solitaire-float", "--solitaire-spread", "2", "--output", str(tmp_path / "s.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    model = load_model(tmp_path / "s.json")
    assert set(model.many) == {(4, 5), (5, 4)} and not model.shapes
    assert np.array_equal(model.many[(4, 5)], model.many[(5, 4)])
    pooled = [(b, board_float_sums(b, DEFAULT_RULES))
              for b in rb.random_boards(np.random.SeedSequence(6, spawn_key=(BOARD_STREAM,)), 2, DEFAULT_RULES, 40)]
    spread = [(b, board_float_sums(b, DEFAULT_RULES))
              for b in rb.spread_boards(np.random.SeedSequence(6, spawn_key=(SPREAD_STREAM,)), 2, DEFAULT_RULES,
                                        ((2, 2),))]
    expected, _ = fit_table_sums([s for _, s in pooled + spread], DEFAULT_RULES.scoring_threshold)
    assert np.array_equal(model.many[(4, 5)], expected)
    expected_pooled, _ = fit_table_sums([s for _, s in pooled], DEFAULT_RULES.scoring_threshold)
    assert np.array_equal(model.weights[1], expected_pooled)  # the pooled table does not see them
    trained = model.info["trained"]
    assert trained["solitaire_spread"] == 2 and "spread-family" in trained["method"]
    assert "4 x 5 and 5 x 4 table (2 pooled and 2 spread-family boards' value tables)" in result.stdout


def test_many_dice_tables_are_used_on_boards_with_a_column_of_four_or_five_dice(tmp_path):
    from shelfie_solver.dice.board import Board
    from shelfie_solver.dice.learned.model_file import (
        MANY_KEY,
        N_FEATURES,
        LearnedModel,
        model_text,
    )

    pooled, shaped, many = (np.full((3, N_FEATURES), k, dtype=np.int64) for k in (1, 2, 3))
    model = LearnedModel({1: pooled}, {}, {(4, 5): shaped}, {(4, 5): many, (5, 4): many})
    path = tmp_path / "m.json"
    path.write_text(model_text(model))
    back = load_model(path)
    assert MANY_KEY in path.read_text() and set(back.many) == {(4, 5), (5, 4)}

    def board(columns, shelves):
        return Board("b", columns, tuple((i,) for i in range(shelves)), ((1,) * len(columns),) * shelves)

    assert back.for_board(1, board((1, 2, 3, 4, 1), 4))[0, 0] == 3  # a 4-dice column: the many-dice table
    assert back.for_board(1, board((1, 2, 3, 3, 1), 4))[0, 0] == 2  # none, mean need 2: the shape's table
    assert back.for_board(1, board((3, 2, 1, 3, 3), 4))[0, 0] == 3  # mean need 12/5: the many-dice table
    assert back.for_board(1, board((5, 2, 3, 3), 5))[0, 0] == 3
    assert back.for_board(1, board((1, 2, 3, 3), 5))[0, 0] == 1  # no table of its shape: pooled
    assert back.for_board(1, board((1, 4, 5), 3))[0, 0] == 1  # another shape: pooled


@pytest.mark.parametrize("columns, many", [
    ((3, 2, 3, 3), True),  # 11/4 = 2.75 dice a column on average
    ((3, 2, 1, 3, 3), True),  # 12/5: exactly the bound
    ((2, 3, 2, 2), False),  # 9/4 = 2.25
    ((3, 1, 3, 2, 2), False),  # 11/5 = 2.2
    ((2, 2, 2, 2, 2), False),  # 2
    ((1, 1, 4), True),  # a column of 4 dice, mean 2
    ((5, 1, 1, 1, 1), True),  # a column of 5 dice, mean 9/5
    ((3, 3, 3), True),
])
def test_needs_many_dice_by_hand(columns, many):
    from shelfie_solver.dice.board import Board
    from shelfie_solver.dice.learned.model_file import needs_many_dice

    board = Board("b", columns, ((0,), (1,)), ((1,) * len(columns),) * 2)
    assert needs_many_dice(board) is many


def test_the_benchmark_names_the_table_the_shipped_file_plays(monkeypatch):
    # the shipped file's pick, not the board's own table (own_cache; its name: test_learned_vs_optimum)
    monkeypatch.setenv("SHELFIE_SOLVE_OWN_TABLE", "off")
    from shelfie_solver.dice.board import Board

    def board(columns):
        return Board("b", columns, tuple((i,) for i in range(5)), ((1,) * len(columns),) * 5)

    assert bench.table_used("learned", board((3, 2, 3, 3))) == "5 × 4, many dice"  # mean 11/4
    assert bench.table_used("learned", board((2, 3, 2, 2))) == "pooled"  # mean 9/4, no 4-5 dice column
    assert bench.table_used("learned", board((1, 1, 1, 4))) == "5 × 4, many dice"
    assert bench.table_used("greedy", board((3, 2, 3, 3))) == "—"
