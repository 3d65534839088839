"""Options shared by several commands, each defined once as a decorator (pip-tools style),
and the loading of the ruleset, board and marks they name."""

from __future__ import annotations

import re

import functools
import signal
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

from shelfie_solver.core.errors import shorten
from shelfie_solver.core.report import FORMATS, Report
from shelfie_solver.dice.rules import Ruleset, load_rules

if TYPE_CHECKING:
    from shelfie_solver.core.files import FileKind
    from shelfie_solver.dice.board import Board, Marks

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")

_EXISTING_FILE = click.Path(exists=True, dir_okay=False, readable=True)


def sigterm_stops(command: Callable[P, R]) -> Callable[P, R]:
    """A command body that SIGTERM stops as Ctrl-C does, instead of the default silent death
    (exit -15): in the main thread, SIGTERM raises :class:`core.parallel.Interrupted` (imported
    only then, so ``advise`` starts without the runner: docs/performance.md "Start-up"), which
    the group prints as one line and exits 143 with (``128 + signal``, as ``simulate``). A
    :func:`core.parallel.signals_raise` inside (a first-use exact solve) takes over within
    itself. The handler before is put back when the body ends. Put it below the click options."""
    def stop(signum: int, frame: Any) -> None:
        from shelfie_solver.core.parallel import Interrupted

        raise Interrupted(signum)

    @functools.wraps(command)
    def body(*args: P.args, **kwargs: P.kwargs) -> R:
        if threading.current_thread() is not threading.main_thread():  # signal.signal works there only
            return command(*args, **kwargs)
        previous = signal.signal(signal.SIGTERM, stop)
        try:
            return command(*args, **kwargs)
        finally:
            signal.signal(signal.SIGTERM, previous)

    return body


def rules_option(func: F) -> F:
    """``--rules FILE``: a ruleset TOML (default: the rules of docs/rules.md)."""
    return click.option("--rules", "rules_path", type=_EXISTING_FILE, default=None, metavar="FILE",
                        help="Ruleset TOML file (dice, faces, re-rolls, Joker limits...; docs/formats.md). "
                             "Default: the rules of docs/rules.md.")(func)


def board_option(func: F) -> F:
    """``--board FILE``: a board TOML (default: the embedded default board)."""
    return click.option("--board", "board_path", type=_EXISTING_FILE, default=None, metavar="FILE",
                        help="Board TOML file (faces per shelf, dice per column, item values; "
                             "docs/formats.md). Default: the embedded default board.")(func)


def marks_option(func: F) -> F:
    """``--marks STATE``: the board state, as compact text or a file holding it."""
    return click.option("--marks", "marks_text", default=None, metavar="STATE",
                        help="Board state, shelves top to bottom separated by '/', one character per item: "
                             "'.' available, 'o' marked, 'x' eliminated (e.g. oo.../...../x..../...../.....), "
                             "or a file holding it, or '-' for standard input. Text made only of '.ox/' and "
                             "spaces is always marks, never a file name (docs/formats.md). Default: empty board.")(func)


def format_option(func: F) -> F:
    """``--format table|json|csv|markdown``."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                        help="Output format.")(func)


def play_objective_option(func: F) -> F:
    """``--objective NAME``: what the advice of ``play`` (its steps and its session) and ``serve``
    maximises, default ``play``'s (``win``, :data:`gamefile.PLAY_OBJECTIVE`). Imported here when
    the decorator runs, so the commands that do not use it (``advise``) do not load them."""
    from shelfie_solver.dice.objective_names import OBJECTIVE_NAMES
    from shelfie_solver.dice.play.gamefile import PLAY_OBJECTIVE

    return click.option("--objective", default=PLAY_OBJECTIVE, show_default=True, metavar="NAME",
                        help=f"What the advice maximises: {', '.join(OBJECTIVE_NAMES)} (docs/objectives.md).")(func)


def _remember_exact(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    ctx.meta["shelfie_exact"] = ctx.meta.get("shelfie_exact", False) or value
    return value


def exact_option(func: F) -> F:
    """``--exact``: table and Markdown output add the column of exact values (``p/q``; JSON and
    CSV always carry them). Not passed to the command: read it with :func:`exact_wanted`."""
    return click.option("--exact", is_flag=True, expose_value=False, callback=_remember_exact,
                        help="Table and Markdown output: add the column of exact values (p/q; JSON and CSV "
                             "always have them). Without it the table fits 80 columns.")(func)


def exact_wanted() -> bool:
    """Whether ``--exact`` (:func:`exact_option`) was given to the command running now."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get("shelfie_exact", False))


def _use_win_model(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """Read the ``--win-model`` file (a bad one refused here: one line, exit 2) and make its model
    the one in use until the command ends (:func:`win_model.chosen_win_model`, closed with the
    context); its path kept for :func:`win_model_path`."""
    if value is None:
        return
    from shelfie_solver.dice.learned.win_model import WinModelError, chosen_win_model, load_win_model

    try:
        model = load_win_model(value)
    except WinModelError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None
    ctx.meta["shelfie_win_model"] = value
    ctx.with_resource(chosen_win_model(model))


def win_model_option(func: F) -> F:
    """``--win-model FILE``: a win-model file (``train --win-model``'s output, docs/formats.md
    "Win-model file") gives the chance to win instead of the shipped data/win.json, for the whole
    command (the objectives ``win`` and ``win-model``, every seat's chance, the win strategies'
    play). Not passed to the command: read its path with :func:`win_model_path`. Without it
    nothing changes."""
    return click.option("--win-model", default=None, metavar="FILE", expose_value=False, callback=_use_win_model,
                        help="A win-model file (written by train --win-model; docs/formats.md) that gives the "
                             "chance to win instead of the shipped data/win.json: the objectives win and "
                             "win-model, every seat's chance, the win strategies' play. Exact chances stay "
                             "exact.")(func)


def win_model_path() -> str | None:
    """The file of ``--win-model`` (:func:`win_model_option`) given to the command running now, or None."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get("shelfie_win_model")


def win_model_note(path: str | None,
                   what: str = "the chances to win that are not exact are its estimates") -> str:
    """The line a report adds under ``--win-model FILE``: what the file's model gave (``what``)."""
    return f"Win model: {path} (--win-model): {what}."


def note_win_model(report: Report, what: str = "the chances to win that are not exact are its estimates") -> None:
    """Under ``--win-model FILE`` (:func:`win_model_path`), say so in ``report``: its notes get
    :func:`win_model_note` (table, Markdown) and its JSON the key ``win_model`` (the file as
    given), so every format names the model its figures came from; nothing without the option."""
    path = win_model_path()
    if path is None:
        return
    report.notes.append(win_model_note(path, what))
    report.data["win_model"] = path


def refuse_win_model(why: str) -> None:
    """Refuse ``--win-model`` where the command would not read it (``why``: what reads it), as a
    usage error (one line, exit 2); nothing when it was not given."""
    if win_model_path() is not None:
        raise click.UsageError(f"--win-model has no effect here: {why}")


def games_option(default: int, most: int) -> Callable[[F], F]:
    """``--games N``: games to play, 1 to ``most`` (``simulate``, ``tile simulate``)."""
    return click.option("--games", type=WholeNumber(1, most), default=default, show_default=True, metavar="N",
                        help=f"Games to play (at most {most:,}).")


def save_option(func: F) -> F:
    """``--save FILE``: every game played, as JSON Lines (``simulate``, ``tile simulate``)."""
    return click.option("--save", "save_path", default=None, metavar="FILE",
                        help="Write every game (events, replayable) to FILE as JSON Lines.")(func)


def force_option(func: F) -> F:
    """``--force``: replace an output file that holds another kind of file (a saved game where a
    table header goes); without it such a file is refused (:func:`files.check_overwrite`)."""
    return click.option("--force", "force", is_flag=True,
                        help="Replace output files even when they hold something this command did not write "
                             "(without it such a file is refused and left as it is; docs/formats.md).")(func)


def load_setup(rules_path: str | None, board_path: str | None,
               marks_text: str | None) -> tuple[Ruleset, Board, Marks]:
    """Load the ruleset, the board (faces resolved against the ruleset) and the marks.

    Raises:
        RulesError, BoardError, MarksError: bad input, with a one-line message.
        WorkError: a board and ruleset too large for the exact engine (:func:`workload.check_work`).
    """
    from shelfie_solver.dice.board import load_board, load_marks, verify_marks_fit  # here: the tile game needs no dice board
    from shelfie_solver.dice.workload import check_work

    rules = load_rules(rules_path)
    board = load_board(board_path, rules)
    check_work(board, rules)
    marks = load_marks(marks_text, board)
    verify_marks_fit(marks, board)
    return rules, board, marks


class WholeNumber(click.IntRange):
    """A whole number in a range, as click's ``IntRange``, whose refusal of a value that is not a
    whole number says so and gives the range (``'two' is not a whole number; expected x>=0``)
    instead of click's "is not a valid integer range"."""

    name = "whole number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            if not re.fullmatch(r"[+-]?[0-9]+", value.strip()):  # not int()'s '1_0' or other scripts' digits
                bounded = self.min is not None or self.max is not None
                self.fail(f"{shorten(value)} is not a whole number; expected "
                          f"{self._describe_range() if bounded else 'one such as 3'}", param, ctx)
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        """The range as ``--help`` shows it (``x>=1``); nothing for a whole number without bounds
        (click's ``IntRange`` would print ``x<=None``)."""
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()


class SeedType(click.ParamType[int]):
    """A root seed: decimal digits for a whole number from 0 to 2**128-1 (checked on the digits
    first, so a 5,000-digit value is refused without converting it)."""

    name = "seed"
    maximum = 2**128 - 1

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        text = str(value).strip()
        if not (text.isascii() and text.isdecimal() and len(text) <= len(str(self.maximum))
                and int(text) <= self.maximum):
            self.fail(f"{shorten(text)} is not a whole number from 0 to 2**128-1", param, ctx)
        return int(text)


def seed_option(func: F) -> F:
    """``--seed S``: the root seed of every random draw, 0 to 2**128-1 (the command draws a fresh
    one with ``tournament.fresh_seed`` and prints it when omitted)."""
    return click.option("--seed", type=SeedType(), default=None, metavar="S",
                        help="Root seed, a whole number from 0 to 2**128-1; the same seed gives the same results "
                             "whatever --jobs is. Default: a fresh 32-bit seed from OS entropy, printed so the "
                             "run can be repeated.")(func)


def first_seed_option(func: F) -> F:
    """``--seed S``: the seed of the draw of who plays first (D5; ``play new``, ``serve``'s New game)."""
    return click.option("--seed", type=WholeNumber(0, None), default=None, metavar="S",
                        help="Seed for drawing the first player (D5). Default: fresh entropy.")(func)


def jobs_option(func: F) -> F:
    """``--jobs J``: worker processes on this machine (see :func:`resolve_workers`)."""
    return click.option("--jobs", type=WholeNumber(1, None), default=None, metavar="J",
                        help="Worker processes on this machine (default and maximum: the number of usable "
                             "cores; more is capped, with a note). Results do not depend on it.")(func)


def scheduler_option(func: F) -> F:
    """``--scheduler ADDRESS``: run the tasks on a dask.distributed cluster (:mod:`parallel`)."""
    return click.option("--scheduler", default=None, metavar="ADDRESS",
                        help="Run on a dask.distributed cluster, e.g. tcp://host:8786 (needs "
                             "pip install 'shelfie-solve[distributed]'); same results as --jobs 1.")(func)


def resolve_workers(jobs: int | None, scheduler: str | None) -> int:
    """Worker processes for ``--jobs`` (default: every usable core). More than the cores is
    capped, with a one-line note on stderr; ``--jobs`` with ``--scheduler`` is refused (the
    cluster's workers run the tasks).

    Raises:
        click.UsageError, click.BadParameter: both options given, or an empty address.
    """
    from shelfie_solver.core.parallel import usable_cores  # not at import: advise does not need it

    if scheduler is not None:
        if jobs is not None:
            raise click.UsageError("--jobs and --scheduler cannot be combined: with --scheduler the "
                                   "cluster's workers run the tasks")
        if not scheduler.strip():
            raise click.BadParameter("empty address; expected e.g. tcp://host:8786", param_hint="'--scheduler'")
        return 1
    cores = usable_cores()
    if jobs is not None and jobs > cores:
        shown = jobs if jobs < 10**12 else f"{str(jobs)[:12]}..."
        click.echo(f"Note: --jobs {shown} capped at {cores}, the number of usable cores.", err=True)
    return min(jobs, cores) if jobs is not None else cores


def prepare_run(save_path: str | None, seed: int | None, jobs: int | None,
                scheduler: str | None, inputs: Iterable[str | None] = (),
                kinds: FileKind | tuple[FileKind, ...] | None = None, force: bool = False) -> tuple[int, int]:
    """Settle the options of a run of many games before any is played (``simulate``,
    ``tile simulate``): ``--save`` must be writable and not one of the run's ``inputs``
    (:func:`check_output`: refused now, not after the games), a fresh seed is drawn when none
    and hold nothing but the ``kinds`` of file the run writes unless ``force``), a fresh seed is drawn
    when none was given (:func:`tournament.fresh_seed`, printed by the report), and the workers are resolved
    (:func:`resolve_workers`).

    Returns:
        ``(seed, workers)``.
    Raises:
        click.BadParameter, click.UsageError: an unwritable ``--save`` or bad worker options.
    """
    from shelfie_solver.core.tournament import fresh_seed

    if save_path is not None:
        check_output(save_path, "--save", inputs, kinds, force)
    return (fresh_seed() if seed is None else seed), resolve_workers(jobs, scheduler)


def check_output(path: str, option: str, inputs: Iterable[str | None] = (),
                 kinds: FileKind | tuple[FileKind, ...] | None = None, force: bool = False) -> Path:
    """Check an output file before any long work: writable (:func:`files.check_writable`), not
    one of the command's ``inputs`` (:func:`refuse_input_as_output`) and, unless ``force``,
    not an existing file of another kind than ``kinds`` (:func:`files.check_overwrite`; ``()``:
    any existing non-empty file is refused; ``None``: not checked here, the caller does it).

    Returns:
        The file a write would replace (a symbolic link followed).
    Raises:
        click.BadParameter: one line naming ``option``.
    """
    from shelfie_solver.core.files import FileWriteError, check_writable

    try:
        final = check_writable(path)
    except FileWriteError as error:
        raise click.BadParameter(str(error), param_hint=f"'{option}'") from None
    refuse_input_as_output(path, option, inputs)
    if kinds is not None:
        check_kind(path, option, kinds, force)
    return final


def check_kind(path: str, option: str, kinds: FileKind | tuple[FileKind, ...], force: bool = False) -> None:
    """:func:`files.check_overwrite` of an output file, as a one-line error naming ``option``.

    Raises:
        click.BadParameter: ``path`` holds another kind of file and ``force`` is false.
    """
    from shelfie_solver.core.files import FileWriteError, check_overwrite

    try:
        check_overwrite(path, kinds, force)
    except FileWriteError as error:
        raise click.BadParameter(str(error), param_hint=f"'{option}'") from None


def refuse_input_as_output(output: str | None, option: str, inputs: Iterable[str | None]) -> None:
    """Refuse an output file that is also one of the command's input files (a board, ruleset,
    value table or parameter file, compared after following links, and as the same file on disk so
    a hard link counts too): writing it would replace what was read (``solve-game --board b.toml
    --save b.toml``).

    Raises:
        click.BadParameter: ``output`` names one of ``inputs`` (one line naming ``option``).
    """
    import os

    if not output:
        return
    target = os.path.realpath(output)
    for path in inputs:
        if path and (os.path.realpath(path) == target or _same_file(path, output)):
            raise click.BadParameter(f"{shorten(output)} is also read by this command (as {shorten(path)}); "
                                     "writing it would replace it. Expected another file name",
                                     param_hint=f"'{option}'")


def _same_file(first: str, second: str) -> bool:
    """Whether two existing paths name one file (a hard link); False when either is missing."""
    import os

    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):
        return False


def player_files(players_text: str) -> list[str]:
    """The files named by strategies ``exact:FILE``, ``table:FILE`` and ``learned:FILE`` in a
    ``--players`` list (for :func:`refuse_input_as_output`)."""
    prefixes = ("exact:", "table:", "learned:")
    words = [w.strip() for w in players_text.split(",")]
    return [w.split(":", 1)[1].strip() for w in words if w.lower().startswith(prefixes)]
