"""Paired two-player tournaments on the default board: ``win`` against ``learned`` and the
experimental ``win-ply`` (:class:`strategies.WinPlyStrategy`: the top K markings by the ``win``
model re-ranked by 1 - the opponent's start value after them) against ``learned``, on the same
seed, so game ``i`` of every run starts from the same dice stream (docs/win-chance.md, "One ply
deeper"). A measurement, not a test.

Prints, per run, the challenger's win rate (a tie counts 1/k, D20) with its 95% Wilson interval
and the CPU seconds per game; per K, the paired difference ``win-ply - win`` of the per-game
results with its 95% interval (normal, per-game differences). Run: ``python
benchmarks/tournament_win_ply.py [--games N] [--seed S] [--tops 2,3,5] [--baseline win]``
(always one process: ``--jobs 1``).
"""

from __future__ import annotations

import argparse
import json
import math
import time

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.simulate import simulate
from shelfie_solver.dice.strategies import WinPlyStrategy, strategy_named


def results(lines: list[str]) -> list[float]:
    """Seat 0's result of every game (1, 1/k on a k-way tie, 0; D20), in game order."""
    out = []
    for line in lines:
        over = json.loads(line)["events"][-1]
        winners = over["winners"]
        out.append(1 / len(winners) if 0 in winners else 0.0)
    return out


def wilson(p: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson interval of a rate ``p`` over ``n`` games."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(name: str, games: int, seed: int) -> tuple[list[float], float]:
    """Seat 0's results of ``games`` games ``name,learned`` from ``seed`` and the CPU seconds used."""
    board = load_board(None, DEFAULT_RULES)
    start = time.process_time()
    _, lines = simulate(board, DEFAULT_RULES, [name, "learned"], games, seed, 1, save=True)
    return results(lines), time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--tops", default="2,3,5")
    parser.add_argument("--baseline", default="win")
    args = parser.parse_args()
    board = load_board(None, DEFAULT_RULES)
    simulate(board, DEFAULT_RULES, ["win-ply", "learned"], 2, 1, 1)  # compile the kernels first
    base, seconds = run(args.baseline, args.games, args.seed)
    n = args.games
    rate = sum(base) / n
    low, high = wilson(rate, n)
    print(f"seed {args.seed}, {n} games, --jobs 1")
    print("| seat 0 | K | win rate [95%] | CPU ms/game | paired win-ply - win [95%] |")
    print("|---|---|---|---|---|")
    print(f"| {args.baseline} | - | {rate * 100:.2f}% [{low * 100:.1f}, {high * 100:.1f}] | "
          f"{seconds / n * 1000:.1f} | - |", flush=True)
    ply = strategy_named("win-ply")
    assert isinstance(ply, WinPlyStrategy)
    for top in (int(t) for t in args.tops.split(",")):
        ply.top = top
        ply._turns.clear()  # the holds do not depend on K, but start every run alike
        mine, seconds = run("win-ply", n, args.seed)
        rate = sum(mine) / n
        low, high = wilson(rate, n)
        d = [a - b for a, b in zip(mine, base)]
        mean = sum(d) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
        half = 1.959964 * sd / math.sqrt(n)
        changed = sum(1 for x in d if x)
        print(f"| win-ply | {top} | {rate * 100:.2f}% [{low * 100:.1f}, {high * 100:.1f}] | "
              f"{seconds / n * 1000:.1f} | {mean * 100:+.2f} [{(mean - half) * 100:+.2f}, {(mean + half) * 100:+.2f}] "
              f"({changed} games differ) |", flush=True)


if __name__ == "__main__":
    main()
