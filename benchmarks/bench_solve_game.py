"""Benchmark of the exact solitaire solver (docs/solve-game.md): states per second on the 3 x 3
example board (exact Fractions, Python-int engine), from which `solve-game` estimates the cost of
bigger boards (`solver.SECONDS_PER_STATE`), and the hold rules of the cheat sheet
(docs/cheatsheet.md, "Which dice": every face order tried)."""

from __future__ import annotations

import time
from pathlib import Path

from shelfie_solver.dice.cheatsheet.rules_of_thumb import hold_rules
from shelfie_solver.dice.board import Marks, load_board
from shelfie_solver.dice.wholegame.solver import solve_game, state_count
from shelfie_solver.dice.rules import DEFAULT_RULES

SMALL = Path(__file__).resolve().parents[1] / "examples" / "boards" / "small.toml"


def run() -> list[tuple[str, str, str]]:
    """Rows (measurement, result, target) for docs/performance.md."""
    rules = DEFAULT_RULES
    board = load_board(SMALL, rules)
    start = time.process_time()  # CPU time: the shared host's load moves wall time by 2-5x
    solution = solve_game(board, rules)
    seconds = time.process_time() - start
    states = len(solution.values)
    default = load_board()
    start = time.perf_counter()
    hold_rules(default, Marks.empty(default), rules)
    rules_seconds = time.perf_counter() - start
    big = state_count(default, rules)
    return [
        (f"`solve-game` 3 x 3 example board: {states:,} states, optimum {float(solution.optimum):.4f}, "
         "in-process, one run, CPU time", f"{seconds:.1f} s ({seconds / states * 1000:.1f} ms per state)", ""),
        (f"default 5 x 5 board, {big:,} states, at that rate (estimate, lower bound)",
         f"{big * seconds / states / 3600:,.0f} CPU-hours", ""),
        ("cheat-sheet hold rules, empty default board (every face order tried), one run",
         f"{rules_seconds:.2f} s", ""),
    ]
