"""``shelfie-solve review``: every decision of one player against the solver's best (docs/review.md)."""

from __future__ import annotations

from collections.abc import Callable

import re
from fractions import Fraction
from typing import Any

import click

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.objective_names import OBJECTIVE_NAMES
from shelfie_solver.core.report import TABLE_WIDTH, Report, decimal, exact, render
from shelfie_solver.dice.review import (BLUNDER, INACCURACY, MISTAKE, Decision, Review, describe_dice, load_reviewable,
                                       review, severity)
from shelfie_solver.dice.play.gamefile import PLAY_OBJECTIVE, KeptGame, KeptGameError
from shelfie_solver.cli.options import force_option, format_option


@click.command("review", short_help="Every decision of a player against the solver's best.")
@click.argument("game", metavar="GAME")
@click.option("--player", default=None, metavar="NAME|SEAT",
              help="The player reviewed: a name or a 1-based seat. Default: the first seat.")
@click.option("--game", "number", type=int, default=1, show_default=True, metavar="N",
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
    table = load_reviewable(game, number)
    result = review(table, _seat(table, player), objective)
    if plot is not None and image is not None:
        if not result.win:
            why = ("this game has no opponents (a solitaire game is reviewed in points)" if len(table.players) < 2
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
    report = review_report(result, table, limit / 100 if result.win else limit, number)
    click.echo(render(report, fmt, width=TABLE_WIDTH if fmt == "table" else None), nl=False)


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


def _seat(table: KeptGame, player: str | None) -> int:
    if player is None:
        return 0
    if player.strip().isdigit():
        seat = int(player) - 1
        if not 0 <= seat < len(table.players):
            raise KeptGameError(f"seat {player} is not in this game; seats 1..{len(table.players)} "
                             f"({', '.join(table.players)})")
        return seat
    return table.seat_of(player)


def _row(number: int, d: Decision, table: KeptGame) -> list[Any]:
    """A row of the table in the objective's units; the dice as ``PPBCCJ (2)`` (re-rolls left), as
    :func:`_win_row`, so the table fits 80 columns (JSON and CSV have ``rerolls_left``)."""
    return [number, d.round, d.kind, describe_dice(d, table).replace(" left)", ")"), d.chosen, d.best,
            decimal(d.chosen_value),
            decimal(d.best_value), decimal(d.loss)]


def _pp(value: Fraction) -> str:
    """A change of win chance in percentage points, signed."""
    return f"{float(value) * 100:+.1f}"


def _win_row(number: int, d: Decision, table: KeptGame) -> list[Any]:
    return [number, d.round, d.kind, describe_dice(d, table).replace(" left)", ")"), d.chosen, d.best,
            f"{float(d.chosen_value) * 100:.1f}%", f"{float(d.loss) * 100:.1f}", severity(d.loss)]


def _record(i: int, d: Decision, table: KeptGame, win: bool = False) -> dict[str, Any]:
    """The JSON record of decision ``i`` (0-based); ``win`` adds the win-chance fields (D20)."""
    record: dict[str, Any] = {
        "number": i + 1, "round": d.round, "decision": d.kind, "dice": describe_dice(d, table).split()[0],
        "rerolls_left": d.rerolls_left, "chosen": d.chosen, "best": d.best,
        "chosen_value": exact(d.chosen_value), "best_value": exact(d.best_value)}
    if win:
        record |= {"win_chance": exact(d.chosen_value), "win_chance_float": float(d.chosen_value)}
    record |= {"loss": exact(d.loss), "loss_float": float(d.loss)}
    if win:
        record |= {"loss_points": float(d.loss) * 100, "class": severity(d.loss)}
    return record


def _summary(result: Review, threshold: Fraction, records: list[dict[str, Any]], costly: tuple[int, ...],
             counts: dict[str, int] | None = None) -> dict[str, Any]:
    """The JSON summary of a review; ``counts`` (the win review's classes) comes before the costliest."""
    return {"decisions": len(result.decisions), "mean_loss": exact(result.mean_loss),
            "mean_loss_float": float(result.mean_loss), "mean_loss_per_turn": exact(result.mean_loss_per_turn),
            "total_loss": exact(result.total_loss), "threshold": exact(threshold),
            "over_threshold": result.over(threshold), **(counts or {}),
            "costliest": [records[i] for i in costly]}


def _costliest_notes(result: Review, table: KeptGame, costly: tuple[int, ...],
                     loss_text: Callable[[Fraction], str]) -> list[str]:
    """The notes listing the costliest decisions (positions ``costly``), each loss worded by
    ``loss_text`` (points, or percentage points of win chance)."""
    notes = ["Costliest decisions:" if costly else "No decision lost anything: every choice ties the best."]
    notes += [f"round {d.round}, {d.kind} with {describe_dice(d, table)}: chose {d.chosen}, best {d.best}, "
              f"loss {loss_text(d.loss)}" for d in (result.decisions[i] for i in costly)]
    return notes


def review_report(result: Review, table: KeptGame, threshold: Fraction, game: int = 1) -> Report:
    """The report of ``shelfie-solve review`` (one row per decision; summary above, the five
    costliest below); ``game`` is the file's game reviewed, counted from 1 (``--game``)."""
    if result.win:
        return _win_report(result, table, threshold, game)
    decisions = result.decisions
    title = [f"Review of {result.player} (seat {result.seat + 1}) in game {game}, objective {result.objective}: "
             f"{len(decisions)} decision{'s' if len(decisions) != 1 else ''} in {result.turns} "
             f"turn{'s' if result.turns != 1 else ''}",
             f"Mean loss per decision {decimal(result.mean_loss)} = {exact(result.mean_loss)}; "
             f"per turn {decimal(result.mean_loss_per_turn)}; total {decimal(result.total_loss)}",
             f"Decisions losing more than {decimal(threshold)}: {result.over(threshold)}"]
    if result.unchecked:
        title.append(f"Not reviewed: {result.unchecked} turn(s) entered without dice (unchecked).")
    headers = ["#", "round", "decision", "dice", "chosen", "best", "chosen value", "best value", "loss"]
    rows = [_row(i + 1, d, table) for i, d in enumerate(decisions)]
    costly = result.costliest(5)
    notes = _costliest_notes(result, table, costly, decimal)
    notes.append("Values: expected objective value with optimal play afterwards (holds), the objective's value "
                 "(markings), the change of line potential (shelves, D13). Loss = best - chosen.")

    records = [_record(i, d, table) for i, d in enumerate(decisions)]
    data = {"game": game, "player": result.player, "seat": result.seat + 1, "objective": result.objective,
            "decisions": records, "turns": result.turns, "unchecked": result.unchecked,
            "summary": _summary(result, threshold, records, costly)}
    # within 80 columns: the round is also in the costliest list, the best value is chosen + loss
    return Report(title, headers, rows, data, notes, records, narrow=["round", "best value"])


def _win_report(result: Review, table: KeptGame, threshold: Fraction, game: int) -> Report:
    """The review in the chance to win (D20): losses in percentage points, classified, with the
    result and how the chance moved (luck, decisions, the others' turns)."""
    decisions = result.decisions
    counts = result.counts()
    title = [f"Review of {result.player} (seat {result.seat + 1}) in game {game}, objective {result.objective}: "
             f"{len(decisions)} decision{'s' if len(decisions) != 1 else ''} in {result.turns} "
             f"turn{'s' if result.turns != 1 else ''}; values are the chance to win (D20)"]
    if result.result is not None:
        outcome = "won" if result.result == 1 else "lost" if result.result == 0 else f"shared the victory ({result.result})"
        title.append(f"Result: {outcome}; scores " + ", ".join(
            f"{name} {score}" for name, score in zip(table.players, table.scores())))
    if result.start is not None:
        end = result.result if result.result is not None else (result.curve[-1].value if result.curve else result.start)
        title.append(f"Chance to win: {float(result.start) * 100:.1f}% at the first turn, {float(end) * 100:.1f}% "
                     f"{'at the end' if result.result is not None else 'now'}: luck (the dice) {_pp(result.luck)} "
                     f"points, decisions {_pp(-result.total_loss)}, the others' turns {_pp(result.others)}")
    title.append(f"Decisions losing win chance: {counts['inaccuracy']} inaccurac{'y' if counts['inaccuracy'] == 1 else 'ies'} "
                 f"(>= {float(INACCURACY) * 100:.0f} points), {counts['mistake']} mistake"
                 f"{'s' if counts['mistake'] != 1 else ''} (>= {float(MISTAKE) * 100:.0f}), {counts['blunder']} "
                 f"blunder{'s' if counts['blunder'] != 1 else ''} (>= {float(BLUNDER) * 100:.0f}); total loss "
                 f"{float(result.total_loss) * 100:.1f} points; {result.over(threshold)} losing more than "
                 f"{float(threshold) * 100:g} (--threshold)")
    if result.unchecked:
        title.append(f"Not reviewed: {result.unchecked} turn(s) entered without dice (unchecked).")
    headers = ["#", "round", "kind", "dice", "chosen", "best", "chance", "loss", "class"]
    narrow = ["round"]  # the table within 80 columns: the round is also in the costliest list
    rows = [_win_row(i + 1, d, table) for i, d in enumerate(decisions)]
    costly = result.costliest(5)
    notes = _costliest_notes(result, table, costly, lambda loss: f"{float(loss) * 100:.1f} points of win chance")
    notes.append("chance: the chance to win after the choice made (holds: with the best play afterwards); loss: "
                 "the best choice's chance minus it, in percentage points; class: docs/review.md.")

    records = [_record(i, d, table, win=True) for i, d in enumerate(decisions)]
    data = {"game": game, "player": result.player, "seat": result.seat + 1, "objective": result.objective,
            "unit": "win chance", "decisions": records, "turns": result.turns, "unchecked": result.unchecked,
            "result": exact(result.result) if result.result is not None else None,
            "start": exact(result.start) if result.start is not None else None,
            "luck": exact(result.luck), "luck_float": float(result.luck),
            "others": exact(result.others), "others_float": float(result.others),
            "curve": [{"round": p.round, "what": p.what, "win_chance": exact(p.value),
                       "win_chance_float": float(p.value)} for p in result.curve],
            "summary": _summary(result, threshold, records, costly, counts)}
    return Report(title, headers, rows, data, notes, records, narrow=narrow)
