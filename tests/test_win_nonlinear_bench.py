"""benchmarks/win_nonlinear.py's parts that need no scikit-learn (docs/win-chance.md, "A nonlinear
learner on the sheets"): the rich inputs of a hand-made position, the soft targets of ties (D20)
and the split of the fit games by game."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark

from shelfie_solver.dice.board import load_board, parse_marks
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES

#: Columns of (a); then (b) adds 2 x 4 seat columns, 2 x 2 x 25 item bits, 2 x 40 line totals,
#: 2 + 1 times the engineered quantities (each seat's, then their difference), 2 differences of
#: ``P`` and score and 3 flags.
A_COLUMNS, ENGINEERED = 28, 18


def _data(first: bool) -> dict[str, np.ndarray]:
    # seat 0 (just played): shelf 0 closed, shelf 1 one item short of complete (its column-5
    # item open), shelf 2 two items crossed out (D4); seat 1: a blank sheet
    board = load_board(None, DEFAULT_RULES)
    sheets = [parse_marks("ooooo/oooo./xx.../...../.....", board), parse_marks("...../...../...../...../.....", board)]
    lines = np.array([[np.stack(StateArrays(board, DEFAULT_RULES, s).line_totals) for s in sheets]])
    cells = np.array([[np.stack(s.bit_arrays()) for s in sheets]])
    seats = np.array([[[60 * WEIGHT_SCALE, 45, 1, 0], [50 * WEIGHT_SCALE, 0, 2, 1]]], dtype=np.int64)
    return {"game": np.array([0]), "phase": np.array([3]), "round": np.array([4]), "seats": seats,
            "x": np.zeros((1, 2, 13), dtype=np.int64), "y": np.array([[1.0, 0.0]]), "lines": lines,
            "cells": cells, "first": np.array([first]), "ended": np.array([False])}


def test_the_engineered_inputs_of_a_hand_made_position():
    bench = load_benchmark("win_nonlinear")
    board = load_board(None, DEFAULT_RULES)
    a, b = bench.inputs(_data(True), "a"), bench.inputs(_data(True), "b")
    assert a.shape == (1, A_COLUMNS) and b.shape == (1, A_COLUMNS + 8 + 100 + 80 + 3 * ENGINEERED + 5)
    start = A_COLUMNS + 8 + 100 + 80
    mine, theirs = b[0, start:start + 2 * ENGINEERED].reshape(2, ENGINEERED)
    shelf_1 = sum(board.values[1])
    # closed shelves, short of the trigger (D17), items and dice to it (its nearest open shelf:
    # shelf 1, the column of 5 dice), open shelf items and points, lines with one item open
    assert list(mine[:7]) == [1, 1, 1, 5, 1 + 3 + 5 + 5, board.values[1][4] + sum(board.values[2][2:]) + sum(
        sum(row) for row in board.values[3:]), 1]
    # lines one item from complete (D15): shelf 1, where the other seat has 5 items to lose
    assert list(mine[10:13]) == [1, 5, shelf_1 / 1]
    # the blank sheet: 2 shelves short, its two nearest shelves 10 items; every line completable
    assert list(theirs[[0, 1, 2, 9, 10]]) == [0, 2, 10, 10, 0]
    assert list(b[0, start + 2 * ENGINEERED:start + 3 * ENGINEERED]) == list(mine - theirs)
    assert list(b[0, -3:]) == [1, 0, 0]  # played first, end triggered before, after
    assert bench.inputs(_data(False), "b")[0, -3] == 0
    without = bench.inputs(_data(True), "b-first")
    assert np.array_equal(without, np.delete(b, b.shape[1] - 3, axis=1))
    assert np.array_equal(bench.inputs(_data(True), "a+first"), np.concatenate([a, [[1.0]]], axis=1))
    with pytest.raises(ValueError, match="unknown inputs"):
        bench.inputs(_data(True), "c")


def test_ties_are_two_weighted_rows():
    bench = load_benchmark("win_nonlinear")
    x = np.arange(6, dtype=float).reshape(3, 2)
    xx, yy, ww = bench.weighted(x, np.array([1.0, 0.5, 0.0]))
    # a win of weight 1, a half win and a half loss (D20: a tie is a shared victory), a loss of weight 1
    assert xx.tolist() == [[0, 1], [2, 3], [2, 3], [4, 5]]
    assert yy.tolist() == [1, 1, 0, 0] and ww.tolist() == [1, 0.5, 0.5, 1]


def test_the_validation_split_keeps_games_whole():
    bench = load_benchmark("win_nonlinear")
    games = np.repeat(np.arange(50), 7)
    hold = bench.split(games, 0.2, 0)
    held = set(games[hold].tolist())
    assert len(held) == 10 and not held & set(games[~hold].tolist())
    assert np.array_equal(hold, bench.split(games, 0.2, 0))
