"""Benchmark of the cheat sheet (docs/cheatsheet.md): the time to compute and render the default board's
sheet, section by section in-process, and `shelfie-solve cheatsheet` wall-clock including
interpreter start-up and the matplotlib import (target: under 30 s on a 2-core machine)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from shelfie_solver.dice.cheatsheet.compute import build_sheet, item_odds, risk_samples, set_odds
from shelfie_solver.dice.cheatsheet.formats import render_csv, render_html, render_markdown
from shelfie_solver.dice.cheatsheet.heatmap import render_heatmap
from shelfie_solver.dice.cheatsheet.output import SHEET_FORMATS, generate
from shelfie_solver.dice.cheatsheet.rules_of_thumb import hold_rules
from shelfie_solver.dice.board import Marks, load_board, parse_marks
from shelfie_solver.dice.rules import DEFAULT_RULES

MID_GAME = "oo.o./o.o../xoxxx/.oo../o...."


def _timed(func: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def _spread(func: Callable[[], Any], repeat: int, scale: float = 1e3, digits: int = 0, unit: str = "ms") -> str:
    from bench import spread

    return spread([_timed(func)[0] for _ in range(repeat)], scale, digits, unit)


def run() -> list[tuple[str, str, str]]:
    """Rows (measurement, result, target) for docs/performance.md."""
    rules, board = DEFAULT_RULES, load_board()
    empty = Marks.empty(board)
    first, _ = _timed(lambda: build_sheet(board, empty, rules))  # builds the dice space and tables
    sections = [
        ("item odds (25 `cell` solves)", lambda: item_odds(board, empty, rules)),
        ("set odds (5 faces x 6 set sizes)", lambda: set_odds(rules)),
        ("hold rules (1 `strategic` solve, 462 first rolls)", lambda: hold_rules(board, empty, rules)),
        ("failed-result risk (4 `safe` solves)", lambda: risk_samples(board, rules)),
    ]
    rows = [("default board sheet, all numbers, in-process, first call (incl. dice space, tables)",
             f"{first:.2f} s", "")]
    for label, func in sections:
        rows.append((f"  {label}, min/median/max of 5", _spread(func, 5), ""))
    sheet = build_sheet(board, empty, rules)
    heatmap_first, _ = _timed(lambda: render_heatmap(sheet))
    rows.append(("PNG heatmap, first call (incl. matplotlib import)", f"{heatmap_first:.2f} s", ""))
    rows.append(("PNG heatmap, min/median/max of 5", _spread(lambda: render_heatmap(sheet), 5, 1, 2, "s"), ""))
    rows.append(("Markdown + HTML + CSV rendering, min/median/max of 5",
                 _spread(lambda: [render_markdown(sheet), render_html(sheet), render_csv(sheet)], 5), ""))
    mid = parse_marks(MID_GAME, board)
    rows.append(("mid-game board sheet, all numbers + every format, min/median/max of 3",
                 _spread(lambda: generate(board, mid, rules, SHEET_FORMATS), 3, 1, 2, "s"), ""))
    exe = shutil.which("shelfie-solve")
    if exe:
        with tempfile.TemporaryDirectory() as out:
            for fmt in SHEET_FORMATS:
                command = [exe, "cheatsheet", "--format", fmt, "--output", out]
                subprocess.run(command, check=True, capture_output=True)  # warm the file cache
                wall = _spread(lambda command=command: subprocess.run(command, check=True, capture_output=True),
                               3, 1, 2, "s")
                rows.append((f"`shelfie-solve cheatsheet --format {fmt}` (default board) wall-clock incl. start-up, "
                             "min/median/max of 3", wall, "< 30 s"))
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
