"""``shelfie-solve review``: every decision of one player against the solver's best (docs/review.md)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import click

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.objective_names import OBJECTIVE_NAMES
from shelfie_solver.core.report import Report, decimal, exact, render
from shelfie_solver.dice.review import Decision, Review, describe_dice, load_reviewable, review
from shelfie_solver.dice.play.gamefile import KeptGame, KeptGameError
from shelfie_solver.cli.options import format_option


@click.command("review", short_help="Every decision of a player against the solver's best.")
@click.argument("game", metavar="GAME")
@click.option("--player", default=None, metavar="NAME|SEAT",
              help="The player reviewed: a name or a 1-based seat. Default: the first seat.")
@click.option("--game", "number", type=int, default=1, show_default=True, metavar="N",
              help='Which game of a JSON Lines file (simulate --save), counted from 1: --game 1 is the first '
                   'line, saved as "game": 0.')
@click.option("--objective", default="strategic", show_default=True, metavar="NAME",
              help=f"What 'best' means: {', '.join(OBJECTIVE_NAMES)} (docs/objectives.md).")
@click.option("--threshold", default="1", show_default=True, metavar="LOSS",
              help="Count the decisions losing more than this (a number or p/q, in the objective's units).")
@format_option
def review_command(game: str, player: str | None, number: int, objective: str, threshold: str, fmt: str) -> None:
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
    table = load_reviewable(game, number)
    result = review(table, _seat(table, player), objective)
    click.echo(render(review_report(result, table, limit, number), fmt), nl=False)


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
    return [number, d.round, d.kind, describe_dice(d, table), d.chosen, d.best, decimal(d.chosen_value),
            decimal(d.best_value), decimal(d.loss)]


def review_report(result: Review, table: KeptGame, threshold: Fraction, game: int = 1) -> Report:
    """The report of ``shelfie-solve review`` (one row per decision; summary above, the five
    costliest below); ``game`` is the file's game reviewed, counted from 1 (``--game``)."""
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
    notes = ["Costliest decisions:" if costly else "No decision lost anything: every choice ties the best."]
    notes += [f"round {d.round}, {d.kind} with {describe_dice(d, table)}: chose {d.chosen}, best {d.best}, "
              f"loss {decimal(d.loss)}" for d in (decisions[i] for i in costly)]
    notes.append("Values: expected objective value with optimal play afterwards (holds), the objective's value "
                 "(markings), the change of line potential (shelves, D13). Loss = best - chosen.")

    def record(i: int, d: Decision) -> dict[str, Any]:
        return {"number": i + 1, "round": d.round, "decision": d.kind,
                "dice": describe_dice(d, table).split()[0], "rerolls_left": d.rerolls_left, "chosen": d.chosen,
                "best": d.best, "chosen_value": exact(d.chosen_value), "best_value": exact(d.best_value),
                "loss": exact(d.loss), "loss_float": float(d.loss)}

    records = [record(i, d) for i, d in enumerate(decisions)]
    data = {"game": game, "player": result.player, "seat": result.seat + 1, "objective": result.objective,
            "decisions": records, "turns": result.turns, "unchecked": result.unchecked,
            "summary": {"decisions": len(decisions), "mean_loss": exact(result.mean_loss),
                        "mean_loss_float": float(result.mean_loss),
                        "mean_loss_per_turn": exact(result.mean_loss_per_turn),
                        "total_loss": exact(result.total_loss), "threshold": exact(threshold),
                        "over_threshold": result.over(threshold),
                        "costliest": [records[i] for i in costly]}}
    return Report(title, headers, rows, data, notes, records)
