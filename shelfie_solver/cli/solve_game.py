"""``shelfie-solve solve-game``: the exact optimum of the solitaire game on a small board
(docs/solve-game.md)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from shelfie_solver.dice.board import Marks, score
from shelfie_solver.dice.wholegame.solver import MAX_STATES, GameSolution, check_size, solve_game, state_count
from shelfie_solver.dice.wholegame.values import save_table
from shelfie_solver.core.report import Report, decimal, exact, render
from shelfie_solver.cli.options import (board_option, format_option, jobs_option, load_setup, check_output,
                      resolve_workers, rules_option, scheduler_option)


@click.command("solve-game", short_help="Exact optimal solitaire score and policy of a small board.")
@board_option
@rules_option
@click.option("--save", "save_path", default=None, metavar="FILE",
              help="Write the value table (every state's exact value) to FILE as JSON; use it with "
                   "--objective table:FILE or the strategy exact:FILE.")
@click.option("--checkpoints", "checkpoint_dir", default=None, metavar="DIR",
              help="Write each solved layer to DIR and resume from the layers already there.")
@click.option("--max-states", type=click.IntRange(1, None), default=MAX_STATES, show_default=True, metavar="N",
              help="Refuse boards with more non-terminal states than N (the error gives the estimated cost).")
@jobs_option
@scheduler_option
@format_option
def solve_game_command(board_path: str | None, rules_path: str | None, save_path: str | None,
                       checkpoint_dir: str | None, max_states: int, jobs: int | None, scheduler: str | None,
                       fmt: str) -> None:
    """Solve the one-player game exactly: the optimal expected final score (D17-D19 with one
    player), by dynamic programming over every sheet state, layer by layer.

    \b
    Examples:
      shelfie-solve solve-game --board examples/boards/small.toml
      shelfie-solve solve-game --board examples/boards/small.toml --save small-table.json --format json
      shelfie-solve solve-game --board small-3x5.toml --max-states 200000 --jobs 2 --checkpoints ck
      shelfie-solve simulate --board examples/boards/small.toml --players exact:small-table.json
    """
    rules, board, _ = load_setup(rules_path, board_path, None)
    check_size(board, rules, max_states)
    if save_path is not None:
        final = check_output(save_path, "--save", [board_path, rules_path])
        if (checkpoint_dir and final.parent == Path(os.path.realpath(checkpoint_dir))
                and re.fullmatch(r"solve\.json|layer-\d+\.json", final.name)):
            raise click.BadParameter(f"{save_path} is a file of the --checkpoints directory; the value table would "
                                     "replace it. Expected another name", param_hint="'--save'")
    workers = resolve_workers(jobs, scheduler)
    total = state_count(board, rules)
    if sys.stderr.isatty():
        with click.progressbar(length=total, label="Solving", file=sys.stderr, show_pos=True) as bar:
            solution = solve_game(board, rules, checkpoint_dir, progress=lambda _, n: bar.update(n),
                                  jobs=workers, scheduler=scheduler)
    else:
        solution = solve_game(board, rules, checkpoint_dir, jobs=workers, scheduler=scheduler)
    if save_path is not None:
        save_table(save_path, solution)
    click.echo(render(solve_report(solution, save_path), fmt), nl=False)


def solve_report(solution: GameSolution, saved: str | None) -> Report:
    """The report of ``solve-game``: the optimum, the state count and the time."""
    board, best = solution.board, solution.optimum
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), solution.rules)
    title = [f"Exact solitaire optimum on board {board.name!r} "
             f"({board.n_shelves} x {board.n_columns}, a full sheet is worth {possible} points)"]
    rows: list[list[Any]] = [
        ["optimal expected final score", decimal(best, 4)],
        ["exact", exact(best)],
        ["non-terminal states", f"{len(solution.values):,}"],
        ["time", f"{solution.seconds:.1f} s" + (f" ({solution.layers_loaded} layers from checkpoints)"
                                                if solution.layers_loaded else "")],
    ]
    data = {"board": board.name, "optimum": exact(best), "optimum_float": float(best),
            "states": len(solution.values), "seconds": solution.seconds,
            "layers_loaded": solution.layers_loaded, "possible": possible, "saved": saved}
    notes = ["One player; the game ends after the turn that closes the trigger's shelves (D17, D18); "
             "final score D19. Marking fewer items than the dice allow is allowed (D14)."]
    if saved:
        notes.append(f"Value table saved to {saved} (objective table:{saved}, strategy exact:{saved}).")
    return Report(title, ["", "value"], rows, data, notes)
