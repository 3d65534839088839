"""Benchmark of ``shelfie-solve odds`` (docs/odds.md): the chances of every ``nF`` target (n = 1..6,
every face) from the start of a turn, for 0, 1 and 2 re-rolls, all together in-process.

Run alone: ``python benchmarks/bench.py odds``.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from fractions import Fraction
from pathlib import Path

from shelfie_solver.dice.rolls import dice_space
from shelfie_solver.dice.odds import solve_target
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset
from shelfie_solver.dice.targets import compile_target, parse_target

ROOT = Path(__file__).resolve().parent.parent


def every_nf_chance(rules: Ruleset = DEFAULT_RULES) -> dict[tuple[str, int], list[Fraction]]:
    """``{(target, rerolls): [optimal, baseline]}`` for every nF target and 0..rules.rerolls re-rolls.

    One solve per target covers every re-roll count: the DP's level r is the r-re-roll answer.
    """
    out: dict[tuple[str, int], list[Fraction]] = {}
    for face in rules.faces:
        for n in range(1, rules.dice + 1):
            text = f"{n}{face.code}"
            solution = solve_target(compile_target(parse_target(text, rules), rules), rules.rerolls)
            for r in range(rules.rerolls + 1):
                out[(text, r)] = [solution.start_chance(r), solution.start_chance(r, baseline=True)]
    return out


def _timed(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def run() -> list[tuple[str, str, str]]:
    """Rows (measurement, result, target) for benchmarks/bench.py."""
    from bench import spread

    dice_space.cache_clear()  # the first run builds (or reads from the table cache) the dice space
    cold = _timed(every_nf_chance)
    warm = [_timed(every_nf_chance) for _ in range(5)]
    n_targets = DEFAULT_RULES.n_faces * DEFAULT_RULES.dice
    command = ["shelfie-solve", "odds", "--target", "3C+2B", "--dice", "CCBJPP"]
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
        walls.append(time.perf_counter() - start)
    return [
        (f"odds: every nF target ({n_targets}), start of a turn, 0/1/2 re-rolls, optimal + baseline, "
         "first run (dice space from the table cache)", f"{cold * 1000:.0f} ms", "<= 1 s in-process"),
        (f"odds: the same {n_targets} x 3 chances, warm, min/median/max of 5", spread(warm, 1000, 0, "ms"),
         f"<= 1 s in-process; cold/warm {cold / statistics.median(warm):.1f}x"),
        ("`shelfie-solve odds --target 3C+2B --dice CCBJPP` wall-clock with start-up, min/median/max of 5",
         spread(walls, 1000, 0, "ms"), "-"),
    ]


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
