"""Benchmark of the float64 whole-game solver (``solve-game --float``, docs/solve-game.md): states
per CPU second on the 3 x 3, 3 x 4, 4 x 3 and 5 x 3 example boards and the 4 x 5 / 5 x 4 boards of
benchmarks/boards/, with the optimum and its proven error bound, against the exact rational
solver measured in the same run (the 3 x 3 board); peak memory of the big boards; the default
5 x 5 board's time projected from the measured rate.

    python benchmarks/bench.py wholegame            # everything (the big boards take minutes)
    SHELFIE_BENCH_BIG=0 python benchmarks/bench.py wholegame   # the small boards only

Each big board runs in a fresh process (``--jobs`` from ``SHELFIE_BENCH_JOBS``, default 2), so its
peak resident memory (the process and its workers) is its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame.binary_table import round_up
from shelfie_solver.dice.wholegame.float_solver import solve_float
from shelfie_solver.dice.wholegame.solver import solve_game, state_count

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["small.toml", "small-3x4.toml", "small-4x3.toml", "small-5x3.toml"]
BIG = ["medium-4x5.toml", "medium-5x4.toml"]

_CHILD = """
import json, resource, sys, time
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame.binary_table import round_up
from shelfie_solver.dice.wholegame.float_solver import solve_float
board = load_board(sys.argv[1], DEFAULT_RULES)
solution = solve_float(board, DEFAULT_RULES, jobs=int(sys.argv[2]))
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps({"states": len(solution.values), "cpu": solution.cpu_seconds, "wall": solution.seconds,
                  "optimum": solution.optimum, "bound": round_up(solution.bound), "peak_kib": peak}))
"""


def _big(path: Path, jobs: int) -> dict[str, float]:
    """One big board solved in a fresh process: its figures and peak memory (KiB, the largest of
    the process and its workers)."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(jobs)], check=True, capture_output=True,
                          text=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def run() -> list[tuple[str, str, str]]:
    """Rows (measurement, result, target) for docs/performance.md."""
    rules = DEFAULT_RULES
    rows: list[tuple[str, str, str]] = []
    small = load_board(ROOT / "examples" / "boards" / "small.toml", rules)
    solve_float(small, rules)  # compile (numba's cache) outside the timings
    start = time.process_time()
    exact = solve_game(small, rules)
    exact_cpu = time.process_time() - start
    exact_rate = len(exact.values) / exact_cpu
    rows.append((f"exact `solve-game` 3 x 3 example board ({len(exact.values):,} states), in-process, CPU time",
                 f"{exact_cpu:.1f} s ({exact_rate:,.0f} states/s)", "baseline"))
    for name in SMALL:
        board = load_board(ROOT / "examples" / "boards" / name, rules)
        solution = solve_float(board, rules)
        rate = len(solution.values) / solution.cpu_seconds
        ratio = f"{rate / exact_rate:,.0f}x the exact 3 x 3 rate"
        if name == "small.toml":
            gap = abs(solution.optimum - float(exact.optimum))
            ratio = f"{exact_cpu / solution.cpu_seconds:,.0f}x faster than exact, same run; |float - exact| {gap:.1e}"
        rows.append((f"`solve-game --float` {board.n_shelves} x {board.n_columns} `{name}` ({len(solution.values):,} "
                     f"states), `--jobs 1`, CPU time",
                     f"{solution.cpu_seconds:.2f} s ({rate:,.0f} states/s), optimum {solution.optimum:.4f} "
                     f"± {round_up(solution.bound):.1e}", ratio))
    if os.environ.get("SHELFIE_BENCH_BIG", "1") != "0":
        jobs = int(os.environ.get("SHELFIE_BENCH_JOBS", "2"))
        rate_big = 0.0
        for name in BIG:
            path = ROOT / "benchmarks" / "boards" / name
            board = load_board(path, rules)
            got = _big(path, jobs)
            rate = got["states"] / got["cpu"]
            rate_big = max(rate_big, rate)
            rows.append((f"`solve-game --float` {board.n_shelves} x {board.n_columns} `benchmarks/boards/{name}` "
                         f"({int(got['states']):,} states), `--jobs {jobs}`",
                         f"{got['cpu'] / 60:.1f} CPU-min ({rate:,.0f} states per CPU s), {got['wall'] / 60:.1f} min "
                         f"wall, peak {got['peak_kib'] / 1024:,.0f} MiB per process; optimum {got['optimum']:.4f} "
                         f"± {got['bound']:.1e}", f"<= 10 CPU-min, <= 2 GB; {rate / exact_rate:,.0f}x the exact rate"))
        default = load_board(None, rules)
        states = state_count(default, rules)
        rows.append((f"default 5 x 5 board ({states:,} states) at the 4 x 5 / 5 x 4 rate (projection, not run)",
                     f"{states / rate_big / 3600:.1f} CPU-hours; {states / rate_big / 3600 / jobs:.1f} h wall on "
                     f"{jobs} idle cores; values {states * 8 / 1e9:.1f} GB float64", "<= 2.5 h to run it here"))
    return rows
