"""``shelfie-solve advise``: which dice to hold, or which items to mark, with exact odds."""

from __future__ import annotations

import click

from shelfie_solver.dice.advise.advice import Advice, advise, advise_in_game
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import Counts, parse_dice
from shelfie_solver.dice.objective_names import (OBJECTIVE_NAMES, TABLE_OBJECTIVE_NAMES, is_two_player, own_table_line,
                                                parse_objective, sees_the_table)
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.dice.advise.report import advice_report
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.cli.options import (
    WholeNumber,
    board_option,
    exact_option,
    exact_wanted,
    format_option,
    load_setup,
    marks_option,
    refuse_win_model,
    rules_option,
    sigterm_stops,
    note_win_model,
    win_model_option,
)


@click.command("advise", short_help="Which dice to hold, which items to mark, with exact odds.")
@click.option("--dice", "dice_text", required=True, metavar="DICE",
              help="The dice showing: one-letter codes (CCBJPP; case-insensitive) or face names as words "
                   "(cat cat book joker plant plant; plurals such as cats allowed), separated by spaces, "
                   "commas or semicolons if at all.")
@click.option("--rerolls", type=WholeNumber(0, None), default=None, metavar="N",
              help="Re-rolls left (default: the ruleset's, 2). 0 = the dice are final: show the markings.")
@marks_option
@board_option
@rules_option
@click.option("--opponent", "opponent_texts", multiple=True, metavar="STATE",
              help="An opponent's sheet, like --marks (text, a file or '-'); repeat for each opponent (D1: "
                   "at most 3), in play order starting with the player after you. The advice then sees "
                   "the table: the learned objective values blocking (D15), the end trigger on any sheet "
                   "(D17, D18) and the score gap.")
@click.option("--order", type=WholeNumber(1, 4), default=None, metavar="K",
              help="With --opponent: your place in the round's play order, 1 = you play first (D5). [default: 1]")
@click.option("--round", "round_number", type=WholeNumber(1, 1000), default=None, metavar="N",
              help="With --opponent: the round being played, from 1 (the win chance's and the learned values' clock). [default: 1]")
@click.option("--objective", default=None, metavar="NAME",
              help=f"What to maximise: {', '.join(OBJECTIVE_NAMES)} (docs/objectives.md). strategic: expected "
                   "gain in potential points (scoring lines plus credit for lines on their way to scoring), "
                   "which unlike points counts progress that scores in later turns; the points column "
                   "always shows the expected points this turn. With --opponent only the objectives that see "
                   f"the table: {', '.join(TABLE_OBJECTIVE_NAMES)} (win: the chance to win, in percent, exact on "
                   "the last turns, else the calibrated model; exact2:FILE: a two-player table, one --opponent). "
                   "[default: strategic; win with --opponent]")
@click.option("--top", type=WholeNumber(1, None), default=10, show_default=True, metavar="K",
              help="Rows to show in table and markdown output (JSON and CSV list all).")
@format_option
@exact_option
@win_model_option
@sigterm_stops
def advise_command(dice_text: str, rerolls: int | None, marks_text: str | None, board_path: str | None,
                   rules_path: str | None, opponent_texts: tuple[str, ...], order: int | None,
                   round_number: int | None, objective: str | None, top: int, fmt: str) -> None:
    """Advise a turn: rank the holds (re-rolls left) or the markings (final dice), exactly.

    \b
    Examples:
      shelfie-solve advise --dice CCBJPP
      shelfie-solve advise --dice "cat cat book joker plant plant" --rerolls 1 --objective points
      shelfie-solve advise --dice CCCBJP --rerolls 0 --marks oo.../...../x..../...../.....
      shelfie-solve advise --dice CCBJPP --marks oo.../...../x..../...../..... \\
          --opponent o..../o..../o..../...../..... --order 2 --round 3
    """
    rules, board, marks = load_setup(rules_path, board_path, marks_text)
    if rerolls is not None and rerolls > rules.rerolls:
        raise click.BadParameter(f"{rerolls} re-rolls left, but the ruleset allows at most {rules.rerolls} (D7)",
                                 param_hint="'--rerolls'")
    dice = parse_dice(dice_text, rules)
    if not opponent_texts or (objective or "win").strip().lower() not in ("win", "win-model"):
        refuse_win_model("it gives the chance to win of the objective win or win-model with --opponent")
    if opponent_texts:
        result = _advise_in_game(dice, board, rules, marks, opponent_texts, 1 if order is None else order,
                                 1 if round_number is None else round_number,
                                 objective or "win", rerolls)
    else:
        for name, given in (("--order", order), ("--round", round_number)):
            if given is not None:
                raise click.UsageError(f"{name} places you in a game with opponents; give their sheets with "
                                       "--opponent STATE (once per opponent)")
        result = advise(dice, board, marks, rules, parse_objective(objective or "strategic", board, rules=rules),
                        rerolls)
    report = advice_report(result, top=None if fmt == "json" else top)
    note_win_model(report)
    if not opponent_texts:  # learned alone on a board of its own table says so, as simulate does
        own = own_table_line(objective or "strategic", board, rules)
        if own is not None:
            report.note(own, "own_table")  # JSON too, as play's
    click.echo(render(report, fmt, width=TABLE_WIDTH, exact=exact_wanted()), nl=False)


def _advise_in_game(dice: Counts, board: Board, rules: Ruleset, marks: Marks, opponent_texts: tuple[str, ...],
                    order: int, round_number: int, objective: str, rerolls: int | None) -> Advice:
    """Advice that sees the table (``--opponent``): the game state rebuilt from the sheets typed
    (:func:`seats.state_from_seats`) and the ``learned`` objective of that state."""
    from shelfie_solver.dice.board import load_marks
    from shelfie_solver.dice.advise.seats import state_from_seats
    from shelfie_solver.dice.errors import MarksError
    from shelfie_solver.dice.objective_names import advice_objective, is_named, unknown_objective

    if not is_named(objective):  # a misspelling: unknown, as without --opponent
        raise unknown_objective(objective)
    if not sees_the_table(objective) and not is_two_player(objective):
        raise click.UsageError(f"--objective {objective} sees one sheet; with --opponent use "
                               f"{', '.join(TABLE_OBJECTIVE_NAMES)} (the objectives that see the table), "
                               "or drop --opponent")
    opponents = []
    for number, text in enumerate(opponent_texts, 1):
        try:
            opponents.append(load_marks(text, board))
        except MarksError as error:
            raise MarksError(f"--opponent {number}: {error}") from None
    state = state_from_seats(board, rules, marks, tuple(opponents), order, round_number)
    return advise_in_game(dice, state, advice_objective(objective, state), rerolls)
