"""``solve-game --report``: the board report for designers (docs/solve-game.md, "The board
report"); the report itself is the click-free :mod:`shelfie_solver.dice.design`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from shelfie_solver.cli.options import WholeNumber, SeedType, check_output, resolve_workers
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.rules import Ruleset

F = TypeVar("F", bound=Callable[..., Any])


def report_options(func: F) -> F:
    """The options of ``solve-game --report``: ``--report``, ``--games``, ``--duel-games``,
    ``--seed``, ``--histogram``."""
    from shelfie_solver.dice.design import DEFAULT_DUEL_GAMES, DEFAULT_GAMES

    options = [
        click.option("--report", "board_report", is_flag=True,
                     help="The board report for designers: the optimal solitaire mean and its distribution, the "
                          "game length, each strategy's share of the optimum, and with 2 players win and learned "
                          "against solver (how much skill the board rewards)."),
        click.option("--games", "report_games", type=WholeNumber(1, 1_000_000), default=None, metavar="N",
                     help=f"With --report: solitaire games per strategy [default: {DEFAULT_GAMES}]."),
        click.option("--duel-games", "duel_games", type=WholeNumber(1, 1_000_000), default=None, metavar="N",
                     help=f"With --report: two-player games per pairing [default: {DEFAULT_DUEL_GAMES}]."),
        click.option("--seed", "report_seed", type=SeedType(), default=None, metavar="S",
                     help="With --report: the root seed of every game [default: 0]."),
        click.option("--histogram", "histogram", default=None, metavar="FILE.png",
                     help="With --report: write the histogram of the simulated scores to FILE.png (whole)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def refuse_report_options(games: int | None, duel_games: int | None, seed: int | None,
                          histogram: str | None) -> None:
    """Without ``--report``: refuse its options (one line, exit 2)."""
    for name, given in (("--games", games), ("--duel-games", duel_games), ("--seed", seed),
                        ("--histogram", histogram)):
        if given is not None:
            raise click.UsageError(f"{name} is an option of --report (the board report); add --report or drop it")


def report_command(board: Board, rules: Ruleset, inputs: list[str | None], games: int | None,
                   duel_games: int | None, seed: int | None, histogram: str | None, jobs: int | None,
                   fmt: str, force: bool = False) -> None:
    """Run the board report and print it; the histogram written whole when asked (an existing
    file there that is not a PNG image is refused unless ``force``, docs/formats.md)."""
    from shelfie_solver.core.files import magic_kind, replace_all
    from shelfie_solver.core.parallel import signals_raise
    from shelfie_solver.dice.design import DEFAULT_DUEL_GAMES, DEFAULT_GAMES, board_report, histogram_png, report

    if histogram is not None:
        if not histogram.lower().endswith(".png"):
            raise click.BadParameter(f"{histogram}: expected a name ending in .png", param_hint="'--histogram'")
        check_output(histogram, "--histogram", inputs, magic_kind("a PNG image", b"\x89PNG\r\n\x1a\n"), force)
    workers = resolve_workers(jobs, None)
    with signals_raise():
        result = board_report(board, rules, DEFAULT_GAMES if games is None else games,
                              DEFAULT_DUEL_GAMES if duel_games is None else duel_games,
                              0 if seed is None else seed, workers)
        if histogram is not None:
            replace_all({histogram: histogram_png(result)})
    click.echo(render(report(result, histogram), fmt, width=TABLE_WIDTH), nl=False)
