"""``shelfie-solve solve-game``: the exact optimum of the solitaire game on a small board
(docs/solve-game.md)."""

from __future__ import annotations

import os
import re
import sys
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.binary_table import is_binary
from shelfie_solver.dice.wholegame.solver import MAX_STATES, GameSolution, check_size, solve_game, state_count
from shelfie_solver.dice.wholegame.values import save_table
from shelfie_solver.core.report import TABLE_WIDTH, Report, decimal, exact, render
from shelfie_solver.cli.options import (board_option, check_kind, force_option, format_option, jobs_option, load_setup,
                                        check_output, resolve_workers, rules_option, scheduler_option)


if TYPE_CHECKING:
    from shelfie_solver.dice.wholegame.float_solver import FloatSolution

#: Default largest number of states ``solve-game --float`` accepts (the 4 x 5 and 5 x 4 boards fit).
FLOAT_MAX_STATES = 10_000_000


@click.command("solve-game", short_help="Exact optimal solitaire score and policy of a small board.")
@board_option
@rules_option
@click.option("--save", "save_path", default=None, metavar="FILE",
              help="Write the value table (every state's exact value) to FILE as JSON; use it with "
                   "--objective table:FILE or the strategy exact:FILE.")
@click.option("--checkpoints", "checkpoint_dir", default=None, metavar="DIR",
              help="Write each solved layer to DIR and resume from the layers already there.")
@click.option("--max-states", type=click.IntRange(1, None), default=None, metavar="N",
              help=f"Refuse boards with more non-terminal states than N (the error gives the estimated cost; "
                   f"default {MAX_STATES:,}, with --float {FLOAT_MAX_STATES:,}).")
@click.option("--float", "use_float", is_flag=True,
              help="Solve in float64, compiled (the [fast] extra), with a proven bound on the rounding error; "
                   "--save then writes a binary table FILE.npy (header FILE.json).")
@click.option("--dtype", type=click.Choice(["float64", "float32"]), default="float64", show_default=True,
              help="With --float: the dtype of the saved binary table (the solve is float64 either way).")
@jobs_option
@scheduler_option
@format_option
@force_option
def solve_game_command(board_path: str | None, rules_path: str | None, save_path: str | None,
                       checkpoint_dir: str | None, max_states: int | None, use_float: bool, dtype: str,
                       jobs: int | None, scheduler: str | None, fmt: str, force: bool) -> None:
    """Solve the one-player game exactly: the optimal expected final score (D17-D19 with one
    player), by dynamic programming over every sheet state, layer by layer.

    \b
    Examples:
      shelfie-solve solve-game --board examples/boards/small.toml
      shelfie-solve solve-game --board examples/boards/small.toml --save small-table.json --format json
      shelfie-solve solve-game --board small-3x5.toml --max-states 200000 --jobs 2 --checkpoints ck
      shelfie-solve solve-game --board board-4x5.toml --float --save table.npy --checkpoints ck
      shelfie-solve simulate --board examples/boards/small.toml --players exact:small-table.json
    """
    rules, board, _ = load_setup(rules_path, board_path, None)
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
    if sys.stderr.isatty():
        with click.progressbar(length=total, label="Solving", file=sys.stderr, show_pos=True) as bar:
            solution = solve_game(board, rules, checkpoint_dir, progress=lambda _, n: bar.update(n),
                                  jobs=workers, scheduler=scheduler)
    else:
        solution = solve_game(board, rules, checkpoint_dir, jobs=workers, scheduler=scheduler)
    if save_path is not None:
        _saving(lambda: save_table(save_path, solution, force))
    click.echo(render(solve_report(solution, save_path, width=TABLE_WIDTH if fmt == "table" else None), fmt,
                      width=TABLE_WIDTH), nl=False)


def _saving(save: Any) -> None:
    """Run ``save()``; a file that holds another kind by now (written during the solve) is one
    line naming ``--save`` (:func:`files.check_overwrite`), not a traceback."""
    from shelfie_solver.core.files import FileWriteError

    try:
        save()
    except FileWriteError as error:
        raise click.BadParameter(str(error), param_hint="'--save'") from None


def _progress(total: int) -> Any:
    """A progress bar on stderr when it is a terminal, else ``None``."""
    return click.progressbar(length=total, label="Solving", file=sys.stderr, show_pos=True) \
        if sys.stderr.isatty() else None


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
                                                            save_binary)
    from shelfie_solver.dice.wholegame.float_solver import check_float_size, solve_float

    check_float_size(board, rules, FLOAT_MAX_STATES if max_states is None else max_states)
    from shelfie_solver.dice.wholegame.float_kernel import has_numba
    if not has_numba():  # correct but uncompiled: say why it is slow, and the fix
        click.echo("Note: numba is not installed, so the float solve runs uncompiled, hundreds of times "
                   "slower; pip install 'shelfie-solve[fast]' compiles it.", err=True)
    if save_path is not None:
        if not is_binary(save_path):
            raise click.BadParameter(f"{save_path}: --float writes a binary table; expected a name ending in .npy "
                                     "(its header is written beside it as .json)", param_hint="'--save'")
        for target, kind in ((save_path, BINARY_ARRAY_KIND), (str(header_path(save_path)), BINARY_HEADER_KIND)):
            refuse_in_checkpoints(target, checkpoint_dir)  # T.npy and its header T.json
            check_output(target, "--save", [board_path, rules_path], kind, force)
    workers = resolve_workers(jobs, scheduler)
    bar = _progress(state_count(board, rules))
    if bar is not None:
        with bar:
            solution = solve_float(board, rules, checkpoint_dir, progress=lambda _, n: bar.update(n),
                                   jobs=workers, scheduler=scheduler, force=force)
    else:
        solution = solve_float(board, rules, checkpoint_dir, jobs=workers, scheduler=scheduler, force=force)
    saved_bound = None
    if save_path is not None:
        _saving(lambda: save_binary(save_path, board, rules, solution.values, solution.bound, dtype, force))
        saved_bound = solution.bound + (Fraction(float(solution.values.max(initial=0.0))) / 2**24
                                        if dtype == "float32" else 0)
    click.echo(render(float_report(solution, save_path, dtype, saved_bound), fmt, width=TABLE_WIDTH), nl=False)


def float_report(solution: FloatSolution, saved: str | None, dtype: str, saved_bound: Fraction | None) -> Report:
    """The report of ``solve-game --float``: the optimum with its proven error bound."""
    from shelfie_solver.dice.wholegame.binary_table import round_up

    board, best, bound = solution.board, solution.optimum, round_up(solution.bound)
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), solution.rules)
    states = len(solution.values)
    title = [f"Float64 solitaire optimum on board {board.name!r} "
             f"({board.n_shelves} x {board.n_columns}, a full sheet is worth {possible} points)"]
    rate = states / solution.cpu_seconds if solution.cpu_seconds > 0 and not solution.layers_loaded else None
    rows: list[list[Any]] = [
        ["optimal expected final score", f"{best:.4f}"],
        ["float64", repr(best)],
        ["rounding error at most", f"{bound:.3g} points (proven bound)"],
        ["non-terminal states", f"{states:,}"],
        ["time", f"{solution.seconds:.1f} s" + (f" ({solution.layers_loaded} layers from checkpoints)"
                                                if solution.layers_loaded else "")
         + (f", {rate:,.0f} states per CPU second here" if rate else "")],
    ]
    data = {"board": board.name, "optimum_float": best, "error_bound": bound, "states": states,
            "seconds": solution.seconds, "cpu_seconds": solution.cpu_seconds,
            "layers_loaded": solution.layers_loaded, "possible": possible, "saved": saved,
            "dtype": dtype if saved else None}
    notes = ["One player; the game ends after the turn that closes the trigger's shelves (D17, D18); "
             "final score D19. Marking fewer items than the dice allow is allowed (D14).",
             "Float64: the exact optimum is within the bound of this value (docs/solve-game.md, the float path); "
             "choices whose values differ by less than twice the bound are ties."]
    if saved:
        assert saved_bound is not None
        notes.append(f"Value table saved to {saved} ({dtype}, header {Path(saved).with_suffix('.json').name}, values "
                     f"within {round_up(saved_bound):.3g} points; objective table:{saved}, strategy exact:{saved}).")
    return Report(title, ["", "value"], rows, data, notes)


_OPTIMUM_LABEL = "optimal expected final score"


def exact_lines(value: Fraction, width: int) -> str:
    """``value`` as ``p/q`` on lines of at most ``width`` characters (a table cell at 80 columns):
    the numerator's digits run on over as many lines as it needs, then the denominator's after a
    ``/``; on one line when it fits. E.g. ``exact_lines(Fraction(123456, 7), 4) == "1234\\n56\\n/7"``.

    Raises:
        ValueError: ``width`` below 2 (no room for ``/`` and a digit).
    """
    if width < 2:
        raise ValueError(f"width {width}: expected at least 2")
    text = exact(value)
    if len(text) <= width:
        return text
    p, q = text.split("/")
    lines = [p[i:i + width] for i in range(0, len(p), width)]
    lines += ["/" + q[i:i + width - 1] if i == 0 else q[i:i + width] for i in [0, *range(width - 1, len(q), width)]]
    return "\n".join(lines)


def solve_report(solution: GameSolution, saved: str | None, width: int | None = None) -> Report:
    """The report of ``solve-game``: the optimum, the state count and the time. With a ``width``
    (the table at 80 columns) an exact optimum too long for one line runs on over several
    (:func:`exact_lines`); JSON carries it on one line either way."""
    board, best = solution.board, solution.optimum
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), solution.rules)
    title = [f"Exact solitaire optimum on board {board.name!r} "
             f"({board.n_shelves} x {board.n_columns}, a full sheet is worth {possible} points)"]
    rows: list[list[Any]] = [
        [_OPTIMUM_LABEL, decimal(best, 4)],
        ["exact", exact(best) if width is None else exact_lines(best, width - len(_OPTIMUM_LABEL) - 2)],
        ["non-terminal states", f"{len(solution.values):,}"],
        ["time", f"{solution.seconds:.1f} s" + (f" ({solution.layers_loaded} layers from checkpoints)"
                                                if solution.layers_loaded else "")],
    ]
    data = {"board": board.name, "optimum": exact(best), "optimum_float": float(best),
            "states": len(solution.values), "seconds": solution.seconds,
            "layers_loaded": solution.layers_loaded, "possible": possible, "saved": saved}
    notes = ["One player; the game ends after the turn that closes the trigger's shelves (D17, D18); "
             "final score D19. Marking fewer items than the dice allow is allowed (D14)."]
    if "\n" in rows[1][1]:
        notes.append("exact: one fraction p/q, its digits run on over lines; on one line in --format json, csv "
                     "or markdown.")
    if saved:
        notes.append(f"Value table saved to {saved} (objective table:{saved}, strategy exact:{saved}).")
    return Report(title, ["", "value"], rows, data, notes)
