"""``shelfie-solve cheatsheet``: a printable strategy sheet for a board, computed by the solver.

The numbers and the rendering live in the click-free :mod:`shelfie_solver.dice.cheatsheet`; this
layer parses the options, shows progress on stderr when the sheet takes more than a second,
and writes the files whole or not at all.
"""

from __future__ import annotations

import os

import click

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.cheatsheet.compute import sheet_steps
from shelfie_solver.dice.cheatsheet.heatmap import HEATMAP_NAME
from shelfie_solver.dice.cheatsheet.output import (
    SHEET_FORMATS,
    SHEET_NAMES,
    OutputError,
    check_output_dir,
    check_sheet_file,
    generate,
    write_files,
)
from shelfie_solver.core.files import FileWriteError, resolve_target
from shelfie_solver.core.progress import progress_bar
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.workload import check_work
from shelfie_solver.cli.options import board_option, force_option, load_setup, marks_option, rules_option, sigterm_stops

#: Seconds a sheet may take before a progress bar appears on stderr (when it is a terminal).
PROGRESS_AFTER_SECONDS = 1.0


def sheet_solves(board: Board, marks: Marks, rules: Ruleset) -> int:
    """Turn solves a sheet needs: one per available item, one per face and group size, the
    hold rules and the risk samples (:func:`cheatsheet.compute.sheet_steps`, with each face step's
    ``rules.dice`` solves counted)."""
    return sheet_steps(board, marks, rules) + rules.n_faces * (rules.dice - 1)


@click.command("cheatsheet", short_help="Write a printable strategy sheet for a board.")
@board_option
@rules_option
@marks_option
@click.option("--output", "output", default=".", show_default=True, metavar="DIR",
              help="Directory for the sheet and its heatmap (created if missing; a sheet and heatmap written "
                   "there before are replaced, any other file of the same name is refused without --force).")
@click.option("--format", "fmt", type=click.Choice(SHEET_FORMATS), default="markdown", show_default=True,
              help="markdown (cheatsheet.md, for docs/), html (cheatsheet.html, one printable A4 page) or "
                   "csv (cheatsheet.csv, every number exact); item-odds.png comes with each.")
@force_option
@sigterm_stops
def cheatsheet_command(board_path: str | None, rules_path: str | None, marks_text: str | None,
                       output: str, fmt: str, force: bool) -> None:
    """Write a printable strategy sheet for a board: item odds heatmap, set odds, hold rules of
    thumb and failed-result risk, every number computed exactly by the solver (docs/cheatsheet.md).

    \b
    Examples:
      shelfie-solve cheatsheet --output sheets
      shelfie-solve cheatsheet --format html --output mid-game --marks examples/marks/mid-game.txt
      shelfie-solve cheatsheet --rules examples/rules/five-dice.toml --board examples/boards/five-dice.toml
    """
    rules, board, marks = load_setup(rules_path, board_path, marks_text)
    check_work(board, rules, sheet_solves(board, marks, rules), "the cheat sheet", sheet=True)
    check_output_dir(output)  # fail before the work, not after it
    for name in (SHEET_NAMES[fmt], HEATMAP_NAME):  # e.g. a planted link to a file elsewhere
        try:
            resolve_target(os.path.join(output, name))
        except FileWriteError as error:
            raise OutputError(f"--output {output}: {error}") from None
        check_sheet_file(os.path.join(output, name), force)  # e.g. notes of one's own named cheatsheet.md
    with progress_bar("Computing the cheat sheet", delay=PROGRESS_AFTER_SECONDS) as bar:  # quick sheets: nothing
        files = generate(board, marks, rules, (fmt,), bar.reach if bar else None)
    written = write_files(files, output, force)
    click.echo("Wrote " + ", ".join(str(path) for path in written))
