"""``shelfie-solve odds``: exact odds of reaching target combinations over the remaining re-rolls."""

from __future__ import annotations

import click

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import parse_dice
from shelfie_solver.dice.odds import MAX_SIMULATED_TURNS, odds, odds_report, sample_turns
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.dice.rules import Ruleset, load_rules
from shelfie_solver.dice.workload import check_work
from shelfie_solver.dice.targets import parse_target
from shelfie_solver.cli.options import WholeNumber, board_option, format_option, load_setup, marks_option, rules_option, sigterm_stops


@click.command("odds", short_help="Exact chance of reaching a target combination or item.")
@click.option("--target", "target_text", required=True, metavar="TARGET",
              help="What to reach: 3C (three cats; Jokers per D11), 5* (five of any one face), "
                   "3C+2B (both, disjoint dice), r2c4 (mark that item), r2c4+r3c1 (both in one turn), "
                   "r2c4|r2c5 (either). '+' binds tighter than '|'. Faces by code or name (3cat). "
                   "See docs/odds.md.")
@click.option("--dice", "dice_text", default=None, metavar="DICE",
              help="The dice showing (CCBJPP or face names). Without it: from the start of a turn.")
@click.option("--rerolls", type=WholeNumber(0, None), default=None, metavar="N",
              help="Re-rolls left (default: the ruleset's, 2). With --dice and 0: do the final dice meet the target?")
@marks_option
@board_option
@rules_option
@click.option("--simulate", "turns", type=WholeNumber(1, MAX_SIMULATED_TURNS), default=None, metavar="N",
              help=f"Also play the optimal policy in N simulated turns (at most {MAX_SIMULATED_TURNS:,}) and "
                   "check the exact chance against the estimate's 99% interval.")
@click.option("--seed", type=WholeNumber(0, None), default=0, show_default=True, metavar="S",
              help="Seed of the simulation's random generator (same seed, same output).")
@click.option("--top", type=WholeNumber(1, None), default=20, show_default=True, metavar="K",
              help="Holds to show in table and markdown output (JSON and CSV list all).")
@format_option
@sigterm_stops
def odds_command(target_text: str, dice_text: str | None, rerolls: int | None, marks_text: str | None,
                 board_path: str | None, rules_path: str | None, turns: int | None, seed: int, top: int,
                 fmt: str) -> None:
    """Exact chance of reaching a target, under optimal holds and under a plain baseline.

    Shows the chance as an exact fraction, a percentage and "1 in X", beside the chance of the
    baseline policy "keep the dice that already fit, re-roll the rest". With --dice, every
    distinct hold of those dice is ranked by its chance (ties share a rank).

    \b
    Examples:
      # What are my chances of getting three cats and two books this turn?
      shelfie-solve odds --target 3C+2B
      # ... with CCBJPP showing and two re-rolls left: which dice should I keep?
      shelfie-solve odds --target 3C+2B --dice CCBJPP
      # Of marking r2c4 or r2c5 (on my board, in this state)?
      shelfie-solve odds --target 'r2c4|r2c5' --marks oo.../...../x..../...../.....
      # Four cats or four books, one re-roll left, checked by 100000 simulated turns:
      shelfie-solve odds --target '4C|4B' --rerolls 1 --simulate 100000 --seed 7
      # The classic five-dice check: five of a kind within three rolls = 347897/7558272
      shelfie-solve odds --rules examples/rules/classic-five-dice.toml --target '5*'
    """
    rules = load_rules(rules_path)
    check_work(None, rules)  # the dice alone; load_setup checks the board too when one is needed
    if rerolls is not None and rerolls > rules.rerolls:
        raise click.BadParameter(f"{rerolls} re-rolls left, but the ruleset allows at most {rules.rerolls} (D7)",
                                 param_hint="'--rerolls'")
    target = parse_target(target_text, rules)
    board, marks = _board_and_marks(rules, rules_path, board_path, marks_text, target.has_items)
    dice = parse_dice(dice_text, rules) if dice_text is not None else None
    result = odds(target, rules, board, marks, dice, rerolls)
    check = sample_turns(result.solution, turns, seed, result.rerolls, dice) if turns else None
    click.echo(render(odds_report(result, check, top=None if fmt == "json" else top), fmt, width=TABLE_WIDTH),
               nl=False)


def _board_and_marks(rules: Ruleset, rules_path: str | None, board_path: str | None, marks_text: str | None,
                     needed: bool) -> tuple[Board | None, Marks | None]:
    """The board and marks: loaded (and checked) when the target names items or they are given.

    Dice targets need no board, so a ruleset whose faces the default board does not use (the
    classic five dice) works without --board.
    """
    if not (needed or board_path or marks_text):
        return None, None
    _, board, marks = load_setup(rules_path, board_path, marks_text)
    return board, marks
