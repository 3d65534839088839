"""The compiled ``learned`` path (numba: learned.kernel._learned_turn, _learned_blocks) against the
numpy one: the same games, move for move, for the same seeds (docs/performance.md)."""

from __future__ import annotations

import numpy as np
import pytest

from shelfie_solver.dice.board import Board, Marks, load_board
from shelfie_solver.dice.engine.kernel import compiled
from shelfie_solver.dice.game.record import game_to_json
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.objective import game_objective
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import LearnedStrategy

pytest.importorskip("numba")


@pytest.mark.parametrize("players", [1, 2, 3])
def test_compiled_learned_plays_the_numpy_games(players: int) -> None:
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    for seed in np.random.SeedSequence(2024 + players).spawn(2):
        fast, slow = LearnedStrategy(), LearnedStrategy(kernel="numpy")
        a = play_seeded(board, rules, [fast] * players, seed)
        b = play_seeded(board, rules, [slow] * players, seed)
        assert game_to_json(a, game=0, seed=0) == game_to_json(b, game=0, seed=0)


def test_compiled_opponents_equal_numpy() -> None:
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    seat = LearnedStrategy(kernel="numpy")
    game = play_seeded(board, rules, [seat, seat, seat], np.random.SeedSequence(7))
    sheets = game.sheets  # late-game sheets: blocking, threats and the trigger all in play
    for active in range(3):
        fast = game_objective(board, rules, sheets, active, 0, False, turn=12)
        slow = game_objective(board, rules, sheets, active, 0, False, turn=12, compiled=False)
        assert np.array_equal(fast.opponent_values, slow.opponent_values)
        assert (fast.block is None) == (slow.block is None)
        if fast.block is not None:
            assert np.array_equal(fast.block, slow.block)
        assert fast.opponent_sums == slow.opponent_sums


def random_sheet(rng: np.random.Generator, board: Board) -> Marks:
    """A sheet with each item marked, eliminated or available at random (shares drawn per sheet,
    so some are nearly full: threats, completed lines, closed shelves)."""
    state = rng.choice(3, size=board.n_cells, p=rng.dirichlet((1.0, 0.4, 1.0)))
    bits = 1 << np.arange(board.n_cells, dtype=object)
    return Marks(board.n_shelves, board.n_columns, int((bits * (state == 1)).sum()), int((bits * (state == 2)).sum()))


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_compiled_objective_equals_numpy_on_random_tables(players: int) -> None:
    """game_objective by the one compiled call for the opponents (learned.kernel._learned_opponents:
    their P, the blocks, the threatened lines, D15) against the numpy path (player_values,
    block_values, threats) on random tables, seats, first players and turns."""
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    rng = np.random.default_rng(6100 + players)
    for _ in range(40):
        sheets = tuple(random_sheet(rng, board) for _ in range(players))
        active, first, turn = int(rng.integers(players)), int(rng.integers(players)), int(rng.integers(0, 40))
        fast = game_objective(board, rules, sheets, active, first, False, turn=turn)
        slow = game_objective(board, rules, sheets, active, first, False, turn=turn, compiled=False)
        assert np.array_equal(fast.threat, slow.threat)
        assert fast.opponent_sums == slow.opponent_sums and fast.end_open == slow.end_open
        assert (fast.opponent_values is None) == (slow.opponent_values is None)
        if fast.opponent_values is not None:
            assert np.array_equal(fast.opponent_values, slow.opponent_values)
        assert (fast.block is None) == (slow.block is None)
        if fast.block is not None:
            assert np.array_equal(fast.block, slow.block)


def test_compiled_line_totals_equal_the_state_arrays() -> None:
    """engine.kernel._bit_line_totals (from the bit masks) equals StateArrays.line_totals (the
    0/1 arrays times the line matrix) on random sheets."""
    from shelfie_solver.dice.engine.kernel import cell_lines, kernel_function
    from shelfie_solver.dice.objectives import StateArrays

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    totals = kernel_function("_bit_line_totals")
    rng = np.random.default_rng(6110)
    for _ in range(60):
        marks = random_sheet(rng, board)
        found = totals(marks.marked, marks.eliminated, cell_lines(board), board.value_array, len(board.lines))
        for got, expected in zip(found, StateArrays(board, rules, marks).line_totals):
            assert np.array_equal(got, expected)


def test_kernels_are_compiled() -> None:
    assert compiled() is not None  # numba installed: the games above ran on the kernels
