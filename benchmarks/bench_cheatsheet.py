"""Benchmark of the cheat sheet (issue 4): the time to compute and render the default board's
sheet, section by section in-process, and `shelfie-solve cheatsheet` wall-clock including
interpreter start-up and the matplotlib import (target: under 30 s on a 2-core machine)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from shelfie_solver import cheatsheet as cs
from shelfie_solver.board import Marks, load_board, parse_marks
from shelfie_solver.rules import DEFAULT_RULES

MID_GAME = "oo.o./o.o../xoxxx/.oo../o...."


def _timed(func: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def _median(func: Callable[[], Any], repeat: int) -> float:
    return statistics.median(_timed(func)[0] for _ in range(repeat))


def run() -> list[tuple[str, str, str]]:
    """Rows (measurement, result, target) for docs/performance.md."""
    rules, board = DEFAULT_RULES, load_board()
    empty = Marks.empty(board)
    first, _ = _timed(lambda: cs.build_sheet(board, empty, rules))  # builds the dice space and tables
    sections = [
        ("item odds (25 `cell` solves)", lambda: cs.item_odds(board, empty, rules)),
        ("set odds (5 faces x 6 set sizes)", lambda: cs.set_odds(rules)),
        ("hold rules (1 `strategic` solve, 462 first rolls)", lambda: cs.hold_rules(board, empty, rules)),
        ("failed-result risk (4 `safe` solves)", lambda: cs.risk_samples(board, rules)),
    ]
    rows = [("default board sheet, all numbers, in-process, first call (incl. dice space, tables)",
             f"{first:.2f} s", "")]
    for label, func in sections:
        rows.append((f"  {label}, median of 5", f"{_median(func, 5) * 1e3:.0f} ms", ""))
    sheet = cs.build_sheet(board, empty, rules)
    heatmap_first, _ = _timed(lambda: cs.render_heatmap(sheet))
    rows.append(("PNG heatmap, first call (incl. matplotlib import)", f"{heatmap_first:.2f} s", ""))
    rows.append(("PNG heatmap, median of 5", f"{_median(lambda: cs.render_heatmap(sheet), 5):.2f} s", ""))
    text = _median(lambda: [cs.render_markdown(sheet), cs.render_html(sheet), cs.render_csv(sheet)], 5)
    rows.append(("Markdown + HTML + CSV rendering, median of 5", f"{text * 1e3:.0f} ms", ""))
    mid = parse_marks(MID_GAME, board)
    rows.append(("mid-game board sheet, all numbers + every format, median of 3",
                 f"{_median(lambda: cs.generate(board, mid, rules, cs.SHEET_FORMATS), 3):.2f} s", ""))
    exe = shutil.which("shelfie-solve")
    if exe:
        with tempfile.TemporaryDirectory() as out:
            for fmt in cs.SHEET_FORMATS:
                command = [exe, "cheatsheet", "--format", fmt, "--output", out]
                subprocess.run(command, check=True, capture_output=True)  # warm the file cache
                wall = _median(lambda command=command: subprocess.run(command, check=True, capture_output=True), 3)
                rows.append((f"`shelfie-solve cheatsheet --format {fmt}` (default board) wall-clock incl. start-up, "
                             "median of 3", f"{wall:.2f} s", "< 30 s"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
