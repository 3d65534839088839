"""Full games: games per second per core for each strategy (2 players, the strategy against
itself, one process, caches warm as in a long run), and a whole ``simulate`` run on every core.

Run: ``python benchmarks/bench.py simulate``.
"""

from __future__ import annotations

import os
import time

import numpy as np

from shelfie_solver.board import load_board
from shelfie_solver.game import play_seeded
from shelfie_solver.rules import DEFAULT_RULES
from shelfie_solver.simulate import simulate
from shelfie_solver.strategies import strategy_named

#: games timed per strategy (the solver is the slow one)
GAMES = {"random": 300, "greedy": 600, "threshold": 300, "solver": 200}
TARGET = {"solver": ">= 20 games/s per core"}


def games_per_second(name: str, games: int, board, rules) -> float:
    """Two seats playing ``name``, ``games`` seeded games in this process, after 5 warm-up games
    with other seeds; per CPU second of this process (``time.process_time``), so other work on a
    shared machine does not count against it."""
    strategies = [strategy_named(name)] * 2
    for seed in np.random.SeedSequence(1).spawn(5):
        play_seeded(board, rules, strategies, seed)
    start = time.process_time()
    for seed in np.random.SeedSequence(2).spawn(games):
        play_seeded(board, rules, strategies, seed)
    return games / (time.process_time() - start)


def run() -> list[tuple[str, str, str]]:
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    rows = []
    jobs = os.cpu_count() or 1
    games = 400
    start = time.perf_counter()
    simulate(board, rules, ["solver", "greedy", "threshold"], games, seed=1, jobs=jobs)
    elapsed = time.perf_counter() - start
    rows.append((f"simulate --players solver,greedy,threshold --games {games} --jobs {jobs}",
                 f"{elapsed:.1f} s ({games / elapsed:.1f} games/s; 2000 games ~ {2000 * elapsed / games:.0f} s)",
                 "2000 games in a few minutes on 2 cores"))
    # after the whole run: its workers are forked from this process and must start with cold caches
    for name, games in GAMES.items():
        rate = games_per_second(name, games, board, rules)
        rows.append((f"simulate: {name} vs {name}, 2 players, 1 core ({games} games)",
                     f"{rate:.1f} games per CPU second", TARGET.get(name, "-")))
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
