"""benchmarks/light_five_fit.py (docs/strategies.md, "Two 5s beside 3s"): the light-five family's
rule by hand and its boards (since the table shipped, the script draws them with
``random_boards.light_five_boards``, ``fit_solved.solve_light_five``)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_benchmark

from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import random_boards as rb


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("light_five_fit")


@pytest.mark.parametrize("needs, light", [
    ((5, 1, 1, 1, 2), True),   # the fresh 9650 board under 97%
    ((1, 1, 5), True),
    ((5, 3, 1, 1, 2), True),
    ((5, 3, 1, 2, 2), False),  # one column of 1
    ((5, 4, 1, 1, 3), False),  # a 4 beside the 5
    ((5, 5, 1, 1), False),     # two 5s
    ((4, 1, 1, 2), False),     # a 4, no 5
    ((), False),
])
def test_is_light_five_by_hand(bench, needs, light):
    assert rb.is_light_five(needs) is light
    assert callable(bench.main)


def _draw(seed, count):
    # the script's boards: fit_solved.solve_light_five's, child i of SeedSequence(seed, spawn_key=(1,))
    return rb.light_five_boards(np.random.SeedSequence(seed, spawn_key=(1,)), count, DEFAULT_RULES)


def test_light_five_boards_are_of_the_kind_shapes_in_turn_and_distinct():
    boards = _draw(3, 6)
    assert [(b.n_shelves, b.n_columns) for b in boards] == list(rb.SPREAD_SHAPES) * 2
    assert [b.name for b in boards] == [f"light {i}" for i in range(1, 7)]
    for board in boards:
        assert board.columns.count(5) == 1 and board.columns.count(4) == 0 and board.columns.count(1) >= 2
        for row in board.values:
            assert all(rb.VALUE_RANGES[n][0] <= v <= rb.VALUE_RANGES[n][1] for n, v in zip(board.columns, row))
    keys = {rb.canonical(b.columns, b.values) for b in boards}
    assert len(keys) == 6 and not keys & {rb.canonical(*layout) for layout in rb.HELD_OUT}
    assert _draw(3, 6) == boards and _draw(4, 6) != boards
