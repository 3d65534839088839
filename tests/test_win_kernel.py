"""The win model's exact logit (learned/win_kernel.py): the int64 path equals the Python-integer
sums it replaces, on random coefficient and feature arrays, near and beyond the int64 bound."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.learned.win_kernel import INT64_LIMIT, int64_exact, logit_floats


def reference(c: np.ndarray, x: np.ndarray) -> list[float]:
    """Each row's exact integer sum in Python integers, rounded once to a float (correctly rounded)."""
    return [float(sum(int(a) * int(b) for a, b in zip(cr, xr))) for cr, xr in zip(c, x)]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from([10**3, 10**6, 10**9, 2**40, 2**61]))
def test_logit_floats_equals_python_integers(seed: int, rows: int, size: int) -> None:
    rng = np.random.default_rng(seed)
    c = rng.integers(-size, size, (rows, 6), dtype=np.int64)
    x = rng.integers(-size, size, (rows, 6), dtype=np.int64)
    assert logit_floats(c, x).tolist() == reference(c, x)


def test_bound_is_the_exact_limit() -> None:
    # 6 * C * X just below and at 2**63: the first may use int64, the second must not
    c = np.full((1, 6), 1 << 30, dtype=np.int64)
    below = np.full((1, 6), (INT64_LIMIT - 1) // (6 << 30), dtype=np.int64)
    assert int64_exact(c, below)
    assert not int64_exact(c, below + 1)
    big = np.full((1, 6), 1 << 31, dtype=np.int64)
    assert logit_floats(c, big).tolist() == [float(6 * (1 << 61))]  # overflows int64, still exact


def test_shipped_model_takes_the_int64_path() -> None:
    """The shipped coefficients against gaps of 250 points at round 40 stay within the bound."""
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
    from shelfie_solver.dice.learned.win_model import default_win_model, design

    model = default_win_model()
    own = np.array([250 * WEIGHT_SCALE, -250 * WEIGHT_SCALE], dtype=np.int64)
    zero = np.zeros(2, dtype=np.int64)
    x = design(zero, own, -own, -own, 1, 40)
    for c in model.coefficients.values():
        assert int64_exact(c[[0, 2]], x)


def test_grouped_blocks_equal_each_markings_block() -> None:
    """BeforeLastWin groups the markings by the lines they complete (D15): on random pairs of
    default-board sheets (seeded), every marking's opponent sheet from the groups equals the one
    :meth:`BeforeLastWin._opponent_after` builds for that marking alone."""
    from shelfie_solver.dice.board import Marks, item_sets, load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.sheet_rules import block
    from shelfie_solver.dice.win_chance import BeforeLastWin

    board = load_board(None, DEFAULT_RULES)
    rng = np.random.default_rng(26)
    for _ in range(20):
        sheets = []
        for _ in range(2):
            state = rng.integers(0, 3, board.n_cells)  # 0 free, 1 marked, 2 eliminated
            marked = sum(1 << c for c in range(board.n_cells) if state[c] == 1)
            gone = sum(1 << c for c in range(board.n_cells) if state[c] == 2)
            sheets.append(Marks(board.n_shelves, board.n_columns, marked, gone))
        mine, theirs = sheets
        free = [c for c in range(board.n_cells) if mine.is_available(c)]
        sets = item_sets(board, 4)
        rows = [i for i, cells in enumerate(sets.cells) if all(c in free for c in cells if c >= 0)]
        sets = sets.take(np.array(rows[:400], dtype=np.int64))
        objective = BeforeLastWin(theirs, (mine, theirs))
        for lines, group in objective._new_lines(board, sets).items():
            grouped = block(board, (mine, theirs), 0, lines)[0][1] if lines else theirs
            for i in group:
                alone = objective._opponent_after(board, tuple(int(c) for c in sets.cells[i] if c >= 0))
                assert (alone.marked, alone.eliminated) == (grouped.marked, grouped.eliminated)
