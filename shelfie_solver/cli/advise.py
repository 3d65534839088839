"""``shelfie-solve advise``: which dice to hold, or which items to mark, with exact odds."""

from __future__ import annotations

import click

from ..advise import advise
from ..dice import parse_dice
from ..objectives import OBJECTIVE_NAMES, parse_objective
from ..render import advice_report, render
from .options import board_option, format_option, load_setup, marks_option, rules_option


@click.command("advise", short_help="Which dice to hold, which items to mark, with exact odds.")
@click.option("--dice", "dice_text", required=True, metavar="DICE",
              help="The dice showing: one-letter codes (CCBJPP; case-insensitive) or face names as words "
                   "(cat cat book joker plant plant; plurals such as cats allowed), separated by spaces, "
                   "commas or semicolons if at all.")
@click.option("--rerolls", type=click.IntRange(0, None), default=None, metavar="N",
              help="Re-rolls left (default: the ruleset's, 2). 0 = the dice are final: show the markings.")
@marks_option
@board_option
@rules_option
@click.option("--objective", default="strategic", show_default=True, metavar="NAME",
              help=f"What to maximise: {', '.join(OBJECTIVE_NAMES)} (docs/objectives.md). strategic: expected "
                   "gain in potential points (scoring lines plus credit for lines on their way to scoring), "
                   "which unlike points counts progress that scores in later turns; the points column "
                   "always shows the expected points this turn.")
@click.option("--top", type=click.IntRange(1, None), default=10, show_default=True, metavar="K",
              help="Rows to show in table and markdown output (JSON and CSV list all).")
@format_option
def advise_command(dice_text: str, rerolls: int | None, marks_text: str | None, board_path: str | None,
                   rules_path: str | None, objective: str, top: int, fmt: str) -> None:
    """Advise a turn: rank the holds (re-rolls left) or the markings (final dice), exactly.

    \b
    Examples:
      shelfie-solve advise --dice CCBJPP
      shelfie-solve advise --dice "cat cat book joker plant plant" --rerolls 1 --objective points
      shelfie-solve advise --dice CCCBJP --rerolls 0 --marks oo.../...../x..../...../.....
    """
    rules, board, marks = load_setup(rules_path, board_path, marks_text)
    if rerolls is not None and rerolls > rules.rerolls:
        raise click.BadParameter(f"{rerolls} re-rolls left, but the ruleset allows at most {rules.rerolls} (D7)",
                                 param_hint="'--rerolls'")
    dice = parse_dice(dice_text, rules)
    result = advise(dice, board, marks, rules, parse_objective(objective, board), rerolls)
    report = advice_report(result, top=None if fmt == "json" else top)
    click.echo(render(report, fmt), nl=False)
