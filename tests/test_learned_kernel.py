"""The compiled ``learned`` path (numba: learned.kernel._learned_turn, _learned_blocks) against the
numpy one: the same games, move for move, for the same seeds (docs/performance.md)."""

from __future__ import annotations

import numpy as np
import pytest

from shelfie_solver.dice.board import load_board
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


def test_kernels_are_compiled() -> None:
    assert compiled() is not None  # numba installed: the games above ran on the kernels
