"""Benchmark of the advise engine (docs/engine.md): one full-turn solve in-process and its
ratio to a plain-Python Fraction DP of the same turn; batched solves per state; wide integers
(3 re-rolls, 8 dice, 5 re-rolls) against the int64 path; peak memory of advise/odds on the
largest rulesets; `shelfie-solve advise` wall-clock against a bare `python -c pass`.
Every ratio is measured in the same run."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
from bench import spread

from shelfie_solver.dice.engine.batched import final_values_many, solve_finals, solve_many
from shelfie_solver.dice.board import Marks, load_board, parse_marks
from shelfie_solver.dice.rolls import multinomial, multisets, space_for
from shelfie_solver.dice.engine.dp import final_values, solve_turn
from shelfie_solver.dice.engine.kernel import compiled
from shelfie_solver.dice.objectives import Points, Strategic
from shelfie_solver.dice.rules import DEFAULT_RULES

MID_GAME = "oo.o./o.o../xoxxx/.oo../o...."
ROOT = Path(__file__).resolve().parent.parent


def fraction_dp(final: dict[tuple[int, ...], Fraction], n_dice: int, n_sides: int, rerolls: int) -> Fraction:
    """The same DP in plain Python with Fractions: value of the turn from the start (first roll,
    then ``rerolls`` re-rolls with optimal holds). ``final`` maps each roll (counts) to its value."""
    outcomes = {k: [(o, Fraction(multinomial(o), n_sides ** k)) for o in multisets(n_sides, k)]
                for k in range(n_dice + 1)}
    values = dict(final)
    for _ in range(rerolls):
        expected: dict[tuple[int, ...], Fraction] = {}
        new_values = {}
        for roll in values:
            best = None
            for hold in product(*(range(c + 1) for c in roll)):
                if hold == roll:  # keeping every die is stopping (D7)
                    expected[hold] = final[roll]
                elif hold not in expected:
                    rest = n_dice - sum(hold)
                    expected[hold] = sum((p * values[tuple(a + b for a, b in zip(hold, o))]
                                          for o, p in outcomes[rest]), Fraction(0))
                if best is None or expected[hold] > best:
                    best = expected[hold]
            assert best is not None
            new_values[roll] = best
        values = new_values
    return sum((p * values[o] for o, p in outcomes[n_dice]), Fraction(0))


def samples(func: Callable[[], Any], batches: int, per_batch: int) -> list[float]:
    """Seconds per call: the median of ``per_batch`` calls, ``batches`` times (process CPU time,
    so other load on a shared machine counts less)."""
    out = []
    for _ in range(batches):
        times = []
        for _ in range(per_batch):
            start = time.process_time()
            func()
            times.append(time.process_time() - start)
        out.append(statistics.median(times))
    return out


def _random_states(board: Any, n: int, seed: int) -> list[Marks]:
    """``n`` random sheets: each item marked with probability 0.3, else eliminated with 0.15."""
    draws = np.random.default_rng(seed).random((n, board.n_cells))
    weights = 1 << np.arange(board.n_cells, dtype=np.int64)
    return [Marks(board.n_shelves, board.n_columns, int(((row < 0.3) * weights).sum()),
                  int((((row >= 0.3) & (row < 0.45)) * weights).sum())) for row in draws]


def peak_rss_mb(command: list[str]) -> float:
    """Peak resident memory of a command in MB (resource.getrusage of a fresh child)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *command], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def run() -> list[tuple[str, str, str]]:
    """Rows (measurement, result, target) for docs/performance.md."""
    rules, board = DEFAULT_RULES, load_board()
    marks = parse_marks(MID_GAME, board)
    objective = Points()
    solve_turn(board, marks, rules, objective)  # warm-up: dice space and feasibility table
    fast = samples(lambda: solve_turn(board, marks, rules, objective), 7, 40)

    table = final_values(board, marks, rules, objective)
    space = space_for(rules)
    final = {roll: Fraction(int(table.columns[i, 0]), table.scale) for i, roll in enumerate(space.rolls)}
    start = time.process_time()
    slow_value = fraction_dp(final, rules.dice, rules.n_sides, rules.rerolls)
    slow = time.process_time() - start
    assert slow_value == solve_turn(board, marks, rules, objective).start_values()[0], "Fraction DP differs"
    single = statistics.median(fast)
    rows = [
        ("full-turn solve, numpy (462 rolls, 924 holds, 2 re-rolls, `points`, mid-game board), CPU ms, "
         "min/median/max of 7 medians of 40", spread(fast, 1e3, unit="ms"), "single state <= 1 ms"),
        ("same DP in plain Python with `Fraction` (same run, same value asserted)", f"{slow * 1e3:.0f} ms",
         f"ratio {slow / single:.0f}x (goal 1000x)"),
    ]
    states = _random_states(board, 256, 1)
    strategic = Strategic()
    solve_many(board, states[:4], rules, strategic)  # compile / warm
    alone = statistics.median(samples(lambda: solve_turn(board, states[0], rules, strategic), 5, 20))
    kernel = "numba" if compiled() is not None else "numpy"
    if compiled() is not None:
        one = samples(lambda: solve_many(board, states[:1], rules, strategic, kernel="numba"), 5, 20)
        rows.append(("one state, `strategic`, compiled kernel (final table + DP), CPU ms",
                     spread(one, 1e3, unit="ms"), f"<= 1 ms; ratio to numpy solve_turn {alone / statistics.median(one):.1f}x"))
    for n in (64, 256):
        batch = samples(lambda n=n: solve_many(board, states[:n], rules, strategic), 3, 1)
        per = [b / n for b in batch]
        rows.append((f"batched solve of {n} random states, `strategic`, {kernel} kernel, CPU ms per state",
                     spread(per, 1e3, 3, "ms"),
                     f"<= 0.2 ms; {alone / statistics.median(per):.1f}x faster than solve_turn one by one"))
    tables = final_values_many(board, states[:64], rules, strategic)
    numpy_dp = samples(lambda: solve_finals(space, tables, 2, 6, kernel="numpy"), 3, 1)
    rows.append(("  of which the DP alone, numpy kernel (sparse product, segment reductions), 64 states, ms per state",
                 spread([t / 64 for t in numpy_dp], 1e3, 3, "ms"), ""))
    if compiled() is not None:
        numba_dp = samples(lambda: solve_finals(space, tables, 2, 6, kernel="numba"), 3, 1)
        rows.append(("  of which the DP alone, compiled kernel, 64 states, ms per state",
                     spread([t / 64 for t in numba_dp], 1e3, 3, "ms"), ""))
    rows += wide_rows(board)
    rows += memory_rows()
    rows += startup_rows()
    return rows


def wide_rows(board: Any) -> list[tuple[str, str, str]]:
    """Values beyond int64 (docs/engine.md, no big-integer cliff): more re-rolls and more dice,
    against the int64 path."""
    rows = []
    objective = Strategic()

    def timed(rules: Any, brd: Any) -> list[float]:
        solve_turn(brd, Marks.empty(brd), rules, objective)
        return samples(lambda: solve_turn(brd, Marks.empty(brd), rules, objective), 5, 5)

    base = timed(DEFAULT_RULES, board)
    for rerolls in (3, 5):
        rules = replace(DEFAULT_RULES, rerolls=rerolls)
        got = timed(rules, board)
        per_level = (statistics.median(got) / rerolls) / (statistics.median(base) / 2)
        path = "int64" if rerolls == 3 else "int64 limbs"
        rows.append((f"6 dice, {rerolls} re-rolls, `strategic`, empty sheet ({path}), CPU ms",
                     spread(got, 1e3, unit="ms"), f"per level {per_level:.1f}x the 2-re-roll int64 path (same run)"))
    rules8 = replace(DEFAULT_RULES, dice=8)  # D2 with 8 dice: D = 6^8, 2 re-rolls (no big-integer cliff)
    board8 = load_board(None, rules8)
    got = timed(rules8, board8)
    one = timed(replace(rules8, rerolls=1), board8)
    rows.append(("8 dice, 2 re-rolls, `strategic`, default board, empty sheet (int64), CPU ms",
                 spread(got, 1e3, unit="ms"),
                 f"{statistics.median(got) / statistics.median(one):.1f}x its 1-re-roll solve (2 levels vs 1)"))
    return rows


#: (label, ruleset TOML, board: None = the default board, else a 7 x 7 board, dice typed)
MEMORY_CASES = (
    ("9 dice (the most the work limit accepts on the default board)", "dice = 9\n", None, "P" * 9),
    ("6 dice, 5 re-rolls (int64 limbs), 7 x 7 board", "rerolls = 5\n", "7x7", "P" * 6),
    ("combinations_per_turn = 4, default board", "combinations_per_turn = 4\n", None, "P" * 6),
    ("RULES.md dice, 7 x 7 board, one face per shelf", "", "7x7", "P" * 6),
)


def memory_rows() -> list[tuple[str, str, str]]:
    """Peak RSS of advise and odds on the largest inputs the work limit (workload.py) accepts."""
    exe = shutil.which("shelfie-solve")
    if not exe:
        return []
    rows = []
    faces = ["plant", "game", "book", "award", "cat"]
    big_board = 'columns = [1, 2, 3, 4, 5, 6, 1]\n' + "".join(
        f'[[shelves]]\nfaces = ["{faces[i % 5]}"]\nvalues = {[(i + j) % 9 + 1 for j in range(7)]}\n' for i in range(7))
    with tempfile.TemporaryDirectory() as folder:
        for number, (label, rules_text, board, dice) in enumerate(MEMORY_CASES):
            rules_path = Path(folder) / f"rules{number}.toml"
            rules_path.write_text(f'name = "case {number}"\n' + rules_text)
            common = ["--rules", str(rules_path)]
            board_args: list[str] = []
            if board:
                board_path = Path(folder) / f"board{number}.toml"
                board_path.write_text(big_board)
                board_args = ["--board", str(board_path)]
            advise = peak_rss_mb([exe, "advise", "--dice", dice, *common, *board_args])
            odds = peak_rss_mb([exe, "odds", "--target", "3P", "--dice", dice, *common])
            rows.append((f"peak RSS, {label}: advise / odds", f"{advise:.0f} / {odds:.0f} MB", "< 150 MB"))
    return rows


def startup_rows(runs_each: int = 25) -> list[tuple[str, str, str]]:
    """`advise` wall-clock against a bare interpreter and a bare numpy import (same run,
    interleaved), with the load average before and after (the host is shared)."""
    exe = shutil.which("shelfie-solve")
    if not exe:
        return []
    command = [exe, "advise", "--dice", "CCBJPP", "--marks", MID_GAME]
    # bytecode as `pip install .` leaves it (this venv may set PYTHONDONTWRITEBYTECODE)
    import shelfie_solver

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(shelfie_solver.__file__).parent)], check=True)
    subprocess.run(command, check=True, capture_output=True)  # warm the file and table caches
    one_thread = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}  # what the CLI sets before numpy loads
    runs = {"advise": (command, None), "bare": ([sys.executable, "-c", "pass"], None),
            "numpy": ([sys.executable, "-c", "import numpy"], None),
            "numpy1": ([sys.executable, "-c", "import numpy"], one_thread)}
    walls: dict[str, list[float]] = {key: [] for key in runs}
    load_before = os.getloadavg()[0]
    for _ in range(runs_each):  # interleaved, so load changes hit all of them alike
        for key, (cmd, env) in runs.items():
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            walls[key].append(time.perf_counter() - start)
    load_after = os.getloadavg()[0]
    bare = statistics.median(walls["bare"])
    ratios = [a / b for a, b in zip(walls["advise"], walls["bare"])]
    return [
        ("`shelfie-solve advise --dice CCBJPP --marks <mid-game>` wall-clock incl. start-up (bytecode compiled, "
         f"tables cached), s, {runs_each} runs, load average {load_before:.1f} -> {load_after:.1f}",
         spread(walls["advise"], 1, 3, "s"),
         f"median {statistics.median(walls['advise']) / bare:.1f}x bare python (<= 6x); per-run ratios "
         f"{spread(ratios, 1, 1)}"),
        ("bare `python -c pass` / `python -c 'import numpy'` / the same with OPENBLAS_NUM_THREADS=1, same runs, s",
         f"{spread(walls['bare'], 1, 3)} / {spread(walls['numpy'], 1, 3)} / {spread(walls['numpy1'], 1, 3)}",
         f"numpy alone {statistics.median(walls['numpy']) / bare:.1f}x bare, "
         f"{statistics.median(walls['numpy1']) / bare:.1f}x with one OpenBLAS thread"),
    ]


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
