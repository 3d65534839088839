"""Full games: games per CPU second per core for each strategy (2 players, the strategy against
itself, one process), with *fresh* seeds for every sample (so no cached state from an earlier
replay of the same games inflates a figure), and a whole ``simulate`` run on every core.

The solver is measured three ways in the same run: as shipped (compiled kernel when numba is
installed), with the numpy kernel, and the baseline "one full :func:`dp.solve_turn` per
state" (the solver before the compiled turn plan), so the ratio holds whatever the load on a shared machine.

Run: ``python benchmarks/bench.py simulate``.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

import numpy as np
from bench import spread

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.engine.kernel import compiled
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.simulate import simulate
from shelfie_solver.dice.strategies import SolverStrategy, strategy_named

#: games per sample, samples per strategy
GAMES = {"random": 60, "greedy": 100, "threshold": 60}
SOLVER_GAMES, SAMPLES = 30, 5


class FullSolveSolver(SolverStrategy):
    """The baseline: the whole turn solved with :func:`dp.solve_turn` per state."""

    def choose_hold(self, state: Any, dice: Any, rerolls_left: int, rng: Any) -> Any:
        space = space_for(state.rules)
        table = self.policy(state.board, state.marks, state.rules)[rerolls_left]
        assert table is not None
        return space.holds[int(table[space.roll_index[dice]])]


def games_per_cpu_second(strategies: list[Any], games: int, board: Any, rules: Any) -> float:
    """``games`` games with fresh seeds (OS entropy), per CPU second of this process."""
    seeds = np.random.SeedSequence().spawn(games)
    start = time.process_time()
    for seed in seeds:
        play_seeded(board, rules, strategies, seed)
    return games / (time.process_time() - start)


def run() -> list[tuple[str, str, str]]:
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    rows = []
    jobs = os.cpu_count() or 1
    games = 400
    start = time.perf_counter()
    simulate(board, rules, ["solver", "greedy", "threshold"], games, seed=None, jobs=jobs)
    elapsed = time.perf_counter() - start
    rows.append((f"simulate --players solver,greedy,threshold --games {games} --jobs {jobs} (fresh seed)",
                 f"{elapsed:.1f} s ({games / elapsed:.1f} games/s; 2000 games ~ {2000 * elapsed / games:.0f} s)",
                 "2000 games in a few minutes on 2 cores"))
    for name, n in GAMES.items():
        seat = strategy_named(name)
        games_per_cpu_second([seat, seat], 3, board, rules)  # warm-up
        rates = [games_per_cpu_second([seat, seat], n, board, rules) for _ in range(SAMPLES)]
        rows.append((f"{name} vs {name}, 2 players, 1 core, games per CPU second ({SAMPLES} x {n} fresh games)",
                     spread(rates, 1, 1), "-"))
    kinds = {"shipped": SolverStrategy(), "numpy": SolverStrategy(kernel="numpy"), "baseline": FullSolveSolver()}
    rates: dict[str, list[float]] = {key: [] for key in kinds}
    for seat in kinds.values():
        games_per_cpu_second([seat, seat], 3, board, rules)  # warm-up (and the kernel's compile)
    for _ in range(SAMPLES):  # interleaved: load changes hit every variant alike
        for key, seat in kinds.items():
            fresh = type(seat)(kernel=seat.kernel) if key != "baseline" else FullSolveSolver()
            rates[key].append(games_per_cpu_second([fresh, fresh], SOLVER_GAMES, board, rules))
    base = statistics.median(rates["baseline"])
    label = "compiled kernel" if compiled() is not None else "numpy (numba not installed)"
    rows.append((f"solver vs solver, as shipped ({label}), 1 core, games per CPU second "
                 f"({SAMPLES} x {SOLVER_GAMES} fresh games)", spread(rates["shipped"], 1, 1),
                 f">= 100; {statistics.median(rates['shipped']) / base:.2f}x the baseline"))
    rows.append(("solver vs solver, numpy kernel (turn plan: top level per roll)", spread(rates["numpy"], 1, 1),
                 f"{statistics.median(rates['numpy']) / base:.2f}x the baseline"))
    rows.append(("solver vs solver, baseline: one full solve_turn per state (same run)",
                 spread(rates["baseline"], 1, 1), "1x"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
