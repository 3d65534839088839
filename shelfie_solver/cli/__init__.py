"""The ``shelfie-solve`` command: a thin click layer over the click-free core.

Subcommands are imported only when invoked (a lazy group), so ``advise`` starts fast. Every
input error becomes one line ``Error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import errno
import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from shelfie_solver import __version__
from shelfie_solver.core.errors import ShelfieError, close_word, error_line

if TYPE_CHECKING:
    from shelfie_solver.core.parallel import Interrupted

# Before numpy is first imported (by a subcommand's module): the CLI computes in int64 and
# object arrays (no BLAS) and parallelises with processes, so OpenBLAS's own thread pool only
# costs start-up: starting it is 40-70 ms of `advise`'s wall-clock on 2 cores
# (docs/performance.md, "Start-up"). A value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: command name -> "module:function" under shelfie_solver.cli
COMMANDS = {
    "advise": "advise:advise_command",
    "odds": "odds:odds_command",
    "cheatsheet": "cheatsheet:cheatsheet_command",
    "simulate": "simulate:simulate_command",
    "play": "play:play_command",
    "review": "review:review_command",
    "rollout": "rollout:rollout_command",
    "serve": "serve:serve_command",
    "tile": "tile:tile_group",
    "solve-game": "solve_game:solve_game_command",
    "train": "train:train_command",
    "cache": "cache:cache_command",
}


class ShelfieGroup(click.Group):
    """A click group that loads subcommands lazily and reports bad input in one line (exit 2)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        name = f"{__name__}.{module_name}"
        module = sys.modules.get(name) or _import_quietly(name)
        command: click.Command = getattr(module, attr)
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        """Click's resolution, and for a name that is no command the close one (``advice``: did
        you mean 'advise'?, :func:`core.errors.close_word`, as ``play rol``)."""
        name = click.utils.make_str(args[0]) if args else ""
        if args and name not in COMMANDS and not ctx.resilient_parsing and not name.startswith("-"):
            close = close_word(name, sorted(COMMANDS))
            if close:
                ctx.fail(f"No such command {name!r}; did you mean {close!r}?")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:  # noqa: D102 - see class docstring
        try:
            return super().invoke(ctx)
        except (KeyboardInterrupt, EOFError):  # click would print an empty line first
            raise click.exceptions.Abort() from None

    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102 - see class docstring
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.exceptions.Exit as stop:
            sys.exit(stop.exit_code)
        except click.exceptions.NoArgsIsHelpError as error:  # bare `shelfie-solve`: show the help
            assert error.ctx is not None
            click.echo(error.ctx.get_help())
            sys.exit(0)
        except click.ClickException as error:
            hint = ""
            if isinstance(error, click.UsageError) and error.ctx is not None:
                hint = f" (see '{error.ctx.command_path} --help')"
            line = error_line(error.format_message(), quoted=True)
            if hint and line.endswith("."):  # "... 1<=x<=1000000 (see ...)", not ". (see ...)"
                line = line[:-1]
            click.echo(f"Error: {line}{hint}", err=True)
            sys.exit(2)
        except ShelfieError as error:
            click.echo(f"Error: {error_line(str(error))}", err=True)
            sys.exit(2)
        except _interrupted() as stop:  # SIGINT / SIGTERM during a parallel run: workers already stopped
            click.echo(str(stop), err=True)
            sys.exit(stop.exit_code)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except OSError as error:  # writing the output failed: a full disk, a closed pipe
            _output_failed(error)
        sys.exit(code if isinstance(code, int) else 0)


def _import_quietly(name: str) -> Any:
    """Import a subcommand's module (numpy and the engine with it) with the cyclic garbage
    collector paused, then freeze what was loaded (:func:`gc.freeze`): importing makes almost
    no garbage, and later collections (``advise`` builds thousands of ``Fraction``s) need not
    walk every object of numpy and the modules again. Together 20-40 ms CPU of ``advise``'s
    start-up on this machine (docs/performance.md, "Start-up"). Done once per module, so a
    long-lived caller (the tests' ``CliRunner``) freezes at most one batch per subcommand."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(name)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _interrupted() -> type[Interrupted]:
    """:class:`parallel.Interrupted`, imported only when an exception reaches its ``except``
    clause (clauses are evaluated then), so commands that never run in parallel (``advise``)
    do not pay for the runner's import at start-up (docs/performance.md)."""
    from shelfie_solver.core.parallel import Interrupted as interrupted

    return interrupted


def _output_failed(error: OSError) -> None:
    """Exit 1 after a failed write of the output: quietly for a closed pipe (``| head -1``),
    else with one line on stderr (``> /dev/full``). Standard output is pointed at the null
    device first, so the interpreter's final flush cannot fail again with a traceback."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass
    if error.errno != errno.EPIPE:
        where = f"{error.filename}" if error.filename else "standard output"
        try:
            click.echo(f"Error: {error_line(f'cannot write to {where}: {error.strerror or error}')}", err=True)
        except OSError:
            pass
    sys.exit(1)


@click.group(cls=ShelfieGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="shelfie-solve")
def main() -> None:
    """Exact strategy engine for My Shelfie: The Dice Game.

    \b
    Rules: docs/rules.md, ids D1-D20.
    Dice:  P=plant G=game B=book A=award C=cat J=joker, e.g. CCBJPP.
    Marks: shelves top to bottom separated by '/': '.' available, 'o' marked,
           'x' eliminated, e.g. oo.../...../x..../...../.....
    Start: shelfie-solve advise --dice CCBJPP
    """
