"""``shelfie-solve solve-game``: the exact optimum of the solitaire game on a small board
(docs/solve-game.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from shelfie_solver.cli.options import WholeNumber

from shelfie_solver.dice.board import Board
from shelfie_solver.dice.cheatsheet.wording import joined
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.binary_table import is_binary
from shelfie_solver.dice.wholegame.report import float_report, solve_report
from shelfie_solver.dice.wholegame.solver import MAX_STATES, check_size, solve_game, state_count
from shelfie_solver.dice.wholegame.values import save_table
from shelfie_solver.core.progress import Progress, progress_bar
from shelfie_solver.cli.board_report import refuse_report_options, report_command, report_options
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.cli.options import (board_option, check_kind, force_option, format_option, jobs_option, load_setup,
                                        check_output, resolve_workers, rules_option, scheduler_option)

#: Default largest number of states ``solve-game --float`` accepts (the 4 x 5 and 5 x 4 boards fit).
FLOAT_MAX_STATES = 10_000_000


def _refuse(why: str, given: dict[str, bool]) -> None:
    """Refuse the options of ``given`` that were given (``True``), naming only those (one line,
    exit 2: click.UsageError ``WHY; drop --a and --b``); nothing when none was given."""
    named = [name for name, on in given.items() if on]
    if named:
        raise click.UsageError(f"{why}; drop {joined(named)}")


@click.command("solve-game", short_help="Exact optimal solitaire score and policy of a small board.")
@board_option
@rules_option
@click.option("--save", "save_path", default=None, metavar="FILE",
              help="Write the value table (every state's exact value) to FILE as JSON; use it with "
                   "--objective table:FILE or the strategy exact:FILE.")
@click.option("--checkpoints", "checkpoint_dir", default=None, metavar="DIR",
              help="Write each solved layer to DIR and resume from the layers already there.")
@click.option("--max-states", type=WholeNumber(1, None), default=None, metavar="N",
              help=f"Refuse boards with more non-terminal states than N (the error gives the estimated cost; "
                   f"default {MAX_STATES:,}, with --float {FLOAT_MAX_STATES:,}).")
@click.option("--float", "use_float", is_flag=True,
              help="Solve in float64, compiled (the [fast] extra), with a proven bound on the rounding error; "
                   "--save then writes a binary table FILE.npy (header FILE.json).")
@click.option("--dtype", type=click.Choice(["float64", "float32"]), default="float64", show_default=True,
              help="With --float: the dtype of the saved binary table (the solve is float64 either way).")
@click.option("--players", "players", type=str, default="1", show_default=True, metavar="N",
              help="1: the solitaire game; 2: the two-player game solved for the win (float64 with a proven "
                   "bound, small boards; docs/solve-game.md, two players).")
@click.option("--versus", "versus", type=str, default=None, metavar="solitaire",
              help="With --players 2: also the first player's chance when both play the solitaire optimum, "
                   "and optimal against solitaire-optimal play, both ways.")
@jobs_option
@scheduler_option
@format_option
@report_options
@force_option
def solve_game_command(board_path: str | None, rules_path: str | None, save_path: str | None,
                       checkpoint_dir: str | None, max_states: int | None, use_float: bool, dtype: str,
                       jobs: int | None, scheduler: str | None, fmt: str, board_report: bool = False,
                       report_games: int | None = None, duel_games: int | None = None,
                       report_seed: int | None = None, histogram: str | None = None, force: bool = False,
                       players: str = "1", versus: str | None = None) -> None:
    """Solve the one-player game exactly: the optimal expected final score (D17-D19 with one
    player), by dynamic programming over every sheet state, layer by layer.

    \b
    Examples:
      shelfie-solve solve-game --board examples/boards/small.toml
      shelfie-solve solve-game --board examples/boards/small.toml --save small-table.json --format json
      shelfie-solve solve-game --board small-3x5.toml --max-states 200000 --jobs 2 --checkpoints ck
      shelfie-solve solve-game --board board-4x5.toml --float --save table.npy --checkpoints ck
      shelfie-solve simulate --board examples/boards/small.toml --players exact:small-table.json
      shelfie-solve solve-game --report --board my-board.toml --histogram scores.png
      shelfie-solve solve-game --board examples/boards/tiny-2x3.toml --players 2 --save t2.json
      shelfie-solve simulate --board examples/boards/tiny-2x3.toml --players exact2:t2.json,solver
    """
    seats = _players(players, versus)
    rules, board, _ = load_setup(rules_path, board_path, None)
    if seats == 2:
        _refuse("--players 2 solves in float64 in one process", {
            "--float": use_float, "--report": board_report, "--jobs": jobs is not None and jobs != 1, "--scheduler": bool(scheduler),
            "--dtype": dtype != "float64"})
        refuse_report_options(report_games, duel_games, report_seed, histogram)
        two_player_command(board, rules, [board_path, rules_path], save_path, max_states, versus is not None,
                           fmt, force, checkpoint_dir)
        return
    if board_report:  # the designer's board report (cli/board_report.py)
        _refuse("--report runs its own solve and games", {
            "--float": use_float, "--save": bool(save_path), "--checkpoints": bool(checkpoint_dir),
            "--max-states": max_states is not None, "--dtype": dtype != "float64", "--scheduler": bool(scheduler)})
        report_command(board, rules, [board_path, rules_path], report_games, duel_games, report_seed, histogram,
                       jobs, fmt, force)
        return
    refuse_report_options(report_games, duel_games, report_seed, histogram)
    if use_float:
        float_command(board, rules, board_path, rules_path, save_path, checkpoint_dir, max_states, dtype, jobs,
                      scheduler, fmt, force)
        return
    if dtype != "float64":
        raise click.UsageError("--dtype is for --float tables; exact tables are exact (JSON)")
    check_size(board, rules, MAX_STATES if max_states is None else max_states)
    if save_path is not None:
        if is_binary(save_path):
            raise click.BadParameter(f"{save_path}: a .npy table is written by --float; expected a .json name for "
                                     "the exact table", param_hint="'--save'")
        from shelfie_solver.dice.wholegame.values import TABLE_KIND

        final = check_output(save_path, "--save", [board_path, rules_path])
        if (checkpoint_dir and final.parent == Path(os.path.realpath(checkpoint_dir))
                and re.fullmatch(r"solve\.json|layer-\d+\.json", final.name)):
            raise click.BadParameter(f"{save_path} is a file of the --checkpoints directory; the value table would "
                                     "replace it. Expected another name", param_hint="'--save'")
        check_kind(save_path, "--save", TABLE_KIND, force)
    workers = resolve_workers(jobs, scheduler)
    total = state_count(board, rules)
    with progress_bar("Solving", total) as bar:  # a bar for people, nothing for pipes and tests
        solution = solve_game(board, rules, checkpoint_dir, progress=_layer_steps(bar), jobs=workers,
                              scheduler=scheduler)
    if save_path is not None:
        _saving(lambda: save_table(save_path, solution, force))
    click.echo(render(solve_report(solution, save_path, width=TABLE_WIDTH if fmt == "table" else None), fmt,
                      width=TABLE_WIDTH), nl=False)


def _players(text: str, versus: str | None) -> int:
    """``--players``: 1 or 2; ``--versus`` only ``solitaire`` and only with 2 (one-line errors)."""
    if text.strip() not in ("1", "2"):
        raise click.BadParameter(f"{text!r}: expected 1 (the solitaire game) or 2 (the two-player game); "
                                 "3 or 4 players are not solved exactly", param_hint="'--players'")
    if versus is not None and (versus.strip().lower() != "solitaire" or text.strip() != "2"):
        raise click.BadParameter(f"{versus!r}: expected --versus solitaire, with --players 2",
                                 param_hint="'--versus'")
    return int(text)


def two_player_command(board: Board, rules: Ruleset, inputs: list[str | None], save_path: str | None,
                       max_states: int | None, with_versus: bool, fmt: str, force: bool,
                       checkpoint_dir: str | None = None) -> None:
    """``solve-game --players 2``: the two-player solve, its report, the table (docs/solve-game.md)."""
    from shelfie_solver.dice.wholegame.two_player import MAX_STATES as TWO_MAX, setup_for, solve_two_player
    from shelfie_solver.dice.wholegame.two_player_report import two_player_report, versus
    from shelfie_solver.dice.wholegame.two_player_table import TABLE_KIND, save_two_player

    if save_path is not None:
        if is_binary(save_path):
            raise click.BadParameter(f"{save_path}: the two-player table is JSON; expected a .json name",
                                     param_hint="'--save'")
        check_output(save_path, "--save", inputs, TABLE_KIND, force)
        refuse_in_checkpoints(save_path, checkpoint_dir)
    limit = TWO_MAX if max_states is None else max_states
    setup_for(board, rules)  # a board of too many items: one line before any work
    folder = None
    if checkpoint_dir is not None:
        from shelfie_solver.dice.wholegame.two_player import OPTIMAL
        from shelfie_solver.dice.wholegame.two_player_checkpoints import TwoPlayerCheckpoints

        folder = TwoPlayerCheckpoints(board, rules, (OPTIMAL, OPTIMAL), checkpoint_dir, force)
    with progress_bar("Solving", None) as bar:
        steps = _layer_steps(bar)
        solution = solve_two_player(board, rules, max_states=limit, progress=steps, checkpoints=folder)
        pairings = versus(board, rules, limit, steps) if with_versus else None
    if save_path is not None:
        _saving(lambda: save_two_player(save_path, solution, force))
    click.echo(render(two_player_report(solution, save_path, pairings), fmt, width=TABLE_WIDTH), nl=False)


def _layer_steps(bar: Progress | None) -> Callable[[int, int], None] | None:
    """The solvers' ``progress(layer, states just solved)`` callback advancing ``bar`` (``None``
    without a bar)."""
    return None if bar is None else lambda _, n: bar.advance(n)


def _saving(save: Any) -> None:
    """Run ``save()``; a file that holds another kind by now (written during the solve) is one
    line naming ``--save`` (:func:`files.check_overwrite`), not a traceback."""
    from shelfie_solver.core.files import FileWriteError

    try:
        save()
    except FileWriteError as error:
        raise click.BadParameter(str(error), param_hint="'--save'") from None



def refuse_in_checkpoints(target: str, checkpoint_dir: str | None) -> None:
    """Refuse a ``--float --save`` file (the table ``T.npy`` or its header ``T.json``) that is the
    ``--checkpoints`` directory or lies anywhere inside it (links followed): the directory's files
    (``solve.json``, ``layer-NNN.npy``/``.json``, ``values.f64``) are the resume's inputs, and a
    table there would replace one of them or be taken for one.

    Raises:
        click.BadParameter: one line naming ``--save``.
    """
    if not checkpoint_dir:
        return
    final, folder = Path(os.path.realpath(target)), Path(os.path.realpath(checkpoint_dir))
    if final == folder or folder in final.parents:
        raise click.BadParameter(f"{target} is inside the --checkpoints directory {checkpoint_dir} (the files a "
                                 "resume reads); expected a --save name outside it", param_hint="'--save'")


def float_command(board: Board, rules: Ruleset, board_path: str | None, rules_path: str | None,
                  save_path: str | None, checkpoint_dir: str | None, max_states: int | None, dtype: str,
                  jobs: int | None, scheduler: str | None, fmt: str, force: bool = False) -> None:
    """``solve-game --float``: the float64 solve, its bound, the binary table (docs/solve-game.md)."""
    from shelfie_solver.dice.wholegame.binary_table import (BINARY_ARRAY_KIND, BINARY_HEADER_KIND, header_path,
                                                            save_binary, stored_bound)
    from shelfie_solver.dice.wholegame.float_solver import check_float_size, solve_float

    check_float_size(board, rules, FLOAT_MAX_STATES if max_states is None else max_states)
    from shelfie_solver.dice.wholegame.float_kernel import has_numba
    if not has_numba():  # correct but uncompiled: say why it is slow, and the fix
        click.echo("Note: numba is not installed, so the float solve runs uncompiled, hundreds of times "
                   "slower; pip install '.[fast]' in the clone compiles it.", err=True)
    if save_path is not None:
        if not is_binary(save_path):
            raise click.BadParameter(f"{save_path}: --float writes a binary table; expected a name ending in .npy "
                                     "(its header is written beside it as .json)", param_hint="'--save'")
        for target, kind in ((save_path, BINARY_ARRAY_KIND), (str(header_path(save_path)), BINARY_HEADER_KIND)):
            refuse_in_checkpoints(target, checkpoint_dir)  # T.npy and its header T.json
            check_output(target, "--save", [board_path, rules_path], kind, force)
    workers = resolve_workers(jobs, scheduler)
    with progress_bar("Solving", state_count(board, rules)) as bar:
        solution = solve_float(board, rules, checkpoint_dir, progress=_layer_steps(bar), jobs=workers,
                               scheduler=scheduler, force=force)
    saved_bound = None
    if save_path is not None:
        _saving(lambda: save_binary(save_path, board, rules, solution.values, solution.bound, dtype, force))
        saved_bound = stored_bound(solution.values, solution.bound, dtype)
    click.echo(render(float_report(solution, save_path, dtype, saved_bound), fmt, width=TABLE_WIDTH), nl=False)
