"""Full games of ``learned`` against ``learned``: games per CPU second (2 players, default board,
one process), with *fresh* seeds for every sample (OS entropy: no turn cached from an earlier
replay of the same games inflates a figure).

Two variants in the same run, interleaved so load changes hit both alike: as shipped (the
compiled kernels when numba is installed: :func:`learned.kernel._learned_turn` and
:func:`learned.kernel._learned_blocks`) and ``LearnedStrategy(kernel="numpy")`` (the numpy objective
and :func:`dp.solve_turn`, what the strategy did before the kernels). Both play the same games
for the same seed. The numpy variant keeps the per-process caches (turns, threats, line
totals), so it is somewhat faster than the strategy before them; docs/performance.md gives the
ratio to that older code too.

Run: ``python benchmarks/bench.py learned``.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np
from bench import spread

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.engine.kernel import compiled
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import LearnedStrategy

#: games per sample of the shipped variant and of the numpy one; samples
GAMES, NUMPY_GAMES, SAMPLES = 200, 30, 5


def games_per_cpu_second(strategies: list[Any], games: int, board: Any, rules: Any) -> float:
    """``games`` games with fresh seeds (OS entropy), per CPU second of this process."""
    seeds = np.random.SeedSequence().spawn(games)
    start = time.process_time()
    for seed in seeds:
        play_seeded(board, rules, strategies, seed)
    return games / (time.process_time() - start)


def run() -> list[tuple[str, str, str]]:
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    kinds = {"shipped": ("auto", GAMES), "numpy": ("numpy", NUMPY_GAMES)}
    rates: dict[str, list[float]] = {key: [] for key in kinds}
    for kernel, _ in kinds.values():
        seat = LearnedStrategy(kernel=kernel)
        games_per_cpu_second([seat, seat], 3, board, rules)  # warm-up (and the kernels' compile)
    for _ in range(SAMPLES):  # interleaved: load changes hit every variant alike
        for key, (kernel, games) in kinds.items():
            seat = LearnedStrategy(kernel=kernel)  # a fresh instance: an empty turn cache
            rates[key].append(games_per_cpu_second([seat, seat], games, board, rules))
    base = statistics.median(rates["numpy"])
    label = "compiled kernels" if compiled() is not None else "numpy (numba not installed)"
    return [
        (f"learned vs learned, as shipped ({label}), 1 core, games per CPU second "
         f"({SAMPLES} x {GAMES} fresh games)", spread(rates["shipped"], 1, 1),
         f">= 100; {statistics.median(rates['shipped']) / base:.1f}x the numpy variant"),
        (f"learned vs learned, numpy (kernel=\"numpy\", same run; {SAMPLES} x {NUMPY_GAMES} fresh games)",
         spread(rates["numpy"], 1, 1), "1x"),
    ]


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
