"""``shelfie-solve review``: every decision of one player against the solver's best (docs/review.md)."""

from __future__ import annotations

import re
from fractions import Fraction

import click

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.objective_names import OBJECTIVE_NAMES
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.dice.review import load_reviewable, review
from shelfie_solver.dice.review_report import review_report
from shelfie_solver.dice.play.gamefile import PLAY_OBJECTIVE, KeptGame, KeptGameError
from shelfie_solver.cli.options import WholeNumber, force_option, format_option, sigterm_stops


@click.command("review", short_help="Every decision of a player against the solver's best.")
@click.argument("game", metavar="GAME")
@click.option("--player", default=None, metavar="NAME|SEAT",
              help="The player reviewed: a name or a 1-based seat. Default: the first seat.")
@click.option("--game", "number", type=WholeNumber(), default=1, show_default=True, metavar="N",
              help='Which game of a JSON Lines file (simulate --save), counted from 1: --game 1 is the first '
                   'line, saved as "game": 0.')
@click.option("--objective", default=PLAY_OBJECTIVE, show_default=True, metavar="NAME",
              help=f"What 'best' means: {', '.join(OBJECTIVE_NAMES)} (docs/objectives.md). The default is "
                   "the objective play advises with: with opponents the chance to win, so losses are in "
                   "percentage points of win chance.")
@click.option("--threshold", default="1", show_default=True, metavar="LOSS",
              help="Count the decisions losing more than this (a number or p/q, in the objective's units; "
                   "percentage points for a chance to win).")
@click.option("--plot", "plot", default=None, metavar="FILE",
              help="Write the win-chance curve over the game to FILE, as PNG, SVG or PDF by its suffix "
                   "(.png, .svg, .pdf; a game with opponents).")
@format_option
@force_option
@sigterm_stops
def review_command(game: str, player: str | None, number: int, objective: str, threshold: str, plot: str | None,
                   fmt: str, force: bool) -> None:
    """Review a played game (``play``) or a simulated one (``simulate --save``): for every hold,
    marking and shelf given up of one player, the choice, the solver's best, their exact values
    and the loss; then the mean loss per decision and the five costliest decisions.

    \b
    Examples:
      shelfie-solve review game.json --player me
      shelfie-solve review games.jsonl --game 3 --player 2 --format csv
    """
    try:
        if len(threshold) > 60 or re.search(r"[eE]\s*[+-]?\d{4,}", threshold):  # 1e999999999: minutes of work
            raise ValueError(threshold)
        limit = Fraction(threshold)
    except (ValueError, ZeroDivisionError):
        raise click.BadParameter(f"{shorten(threshold)} is not a number; expected e.g. 1, 0.5 or 1/2 "
                                 "(at most 60 characters, exponents below 1000)",
                                 param_hint="'--threshold'") from None
    if limit < 0:
        raise click.BadParameter(f"{threshold} is negative; a loss is never below 0", param_hint="'--threshold'")
    image = _plot_format(plot, game, force) if plot is not None else None
    kept = load_reviewable(game, number)
    result = review(kept, _seat(kept, player), objective)
    if plot is not None and image is not None:
        if not result.win:
            why = ("this game has no opponents (a solitaire game is reviewed in points)" if len(kept.players) < 2
                   else f"{result.player} has not started a turn yet" if not result.turns
                   else f"this review is in {objective} units")
            raise click.UsageError("--plot draws the chance to win, which needs a game with opponents reviewed "
                                   f"with the default objective (win); {why}. Leave out --plot")
        from shelfie_solver.core.files import FileWriteError, replace_checked
        from shelfie_solver.dice.review_plot import PLOT_KINDS, curve_image

        try:
            replace_checked({plot: (curve_image(result, image), PLOT_KINDS[image])}, force)
        except FileWriteError as error:
            raise KeptGameError(str(error)) from None
    report = review_report(result, kept, limit / 100 if result.win else limit, number)
    click.echo(render(report, fmt, width=TABLE_WIDTH if fmt == "table" else None), nl=False)
    if plot is not None:  # after the report: stdout stays the report's format; the note on stderr
        click.echo(f"Wrote {plot}", err=True)


def _plot_format(plot: str, game: str, force: bool = False) -> str:
    """The image format of ``--plot FILE`` by its suffix (``png``, ``svg`` or ``pdf``), checked
    before any work: standard output (``-``) is refused (an image is binary), as is any other
    suffix, an unwritable file, and the reviewed ``game`` file itself (followed through links),
    which writing would replace, and an existing file that is not an image of that format (unless
    ``force``; docs/formats.md, "Limits").

    Raises:
        click.BadParameter: one line naming ``--plot`` and the expected form.
    """
    import os

    from shelfie_solver.cli.options import check_output, refuse_input_as_output
    from shelfie_solver.dice.review_plot import PLOT_FORMATS, PLOT_KINDS

    if plot == "-":
        raise click.BadParameter("- (standard output) cannot take an image; expected a file name ending "
                                 ".png, .svg or .pdf", param_hint="'--plot'")
    refuse_input_as_output(plot, "--plot", [game])
    suffix = os.path.splitext(plot)[1].lower()
    if suffix not in PLOT_FORMATS:
        raise click.BadParameter(f"{shorten(plot)} does not end .png, .svg or .pdf; expected e.g. curve.png "
                                 "(the suffix picks the image format)", param_hint="'--plot'")
    image = PLOT_FORMATS[suffix][0]
    check_output(plot, "--plot", [game], PLOT_KINDS[image], force)
    return image


def _seat(kept: KeptGame, player: str | None) -> int:
    if player is None:
        return 0
    if player.strip().isdigit():
        seat = int(player) - 1
        if not 0 <= seat < len(kept.players):
            raise KeptGameError(f"seat {player} is not in this game; seats 1..{len(kept.players)} "
                             f"({', '.join(kept.players)})")
        return seat
    return kept.seat_of(player)
