"""The report of ``shelfie-solve advise`` (and of ``play``'s advice): best holds, best markings,
or the shelf to give up on a failed result (D7, D13, D17, D19), built as a :class:`Report` that
:func:`shelfie_solver.core.report.render` formats; plus the hold labels other dice reports share
(``odds``, ``review``). docs/advise.md shows the output.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from shelfie_solver.core.report import Report, decimal, exact, percent, rank_text
from shelfie_solver.dice.rolls import Counts, dice_codes, dice_names
from shelfie_solver.dice.rules import Ruleset

if TYPE_CHECKING:  # annotations only: the dice advisor's engine is not loaded by every command
    from shelfie_solver.dice.advise.advice import Advice, MarkingOption


def keep_label(keep: Counts, rules: Ruleset) -> str:
    """A hold for a table: its codes; ``(re-roll all)`` for none; ``(stop)`` for every die (D7)."""
    codes = dice_codes(keep, rules)
    if sum(keep) == rules.dice:
        return f"{codes} (stop)"
    return codes or "(re-roll all)"


def reroll_label(dice: Counts, keep: Counts, rules: Ruleset) -> str:
    """The dice a hold re-rolls (``dice`` minus ``keep``): their codes, ``nothing (stop)`` for none."""
    return dice_codes(tuple(d - k for d, k in zip(dice, keep)), rules) or "nothing (stop)"


#: What a marking or failed result that triggers the end (D17) says, in the table and the title.
ENDS_GAME = "this ends the game after the round"

#: One line per objective on what its value means, for the footer (docs/objectives.md).
OBJECTIVE_NOTES = {
    "strategic": ("strategic value: the expected gain in potential points (docs/objectives.md): points of "
                  "scoring lines plus credit for lines still on their way to scoring (D19); unlike points, "
                  "it counts progress that scores only in later turns."),
    "learned": ("learned value (docs/train.md): alone, the change of the expected final score (points); with "
                "opponents (play, advise --opponent), the change of a win-chance score of the gap to the best opponent, in "
                "thousandths (+1000 a sure win, -1000 a sure loss)."),
    "table": ("table value (docs/solve-game.md): the change V(after) - V(before) of the exact optimal expected "
              "final score (points) in the solve-game value table, a fraction with a large denominator (JSON "
              "gives it in full)."),
}


#: Longest exact fraction a table cell shows; longer ones (value tables' denominators run to
#: hundreds of digits) are given in full by JSON and CSV only.
EXACT_CELL_WIDTH = 40


def exact_cell(value: Fraction) -> str:
    """``value`` as ``"p/q"`` for a table cell, or ``"(N characters: --format json)"`` when longer
    than :data:`EXACT_CELL_WIDTH` characters (the decimal column beside it still shows it)."""
    text = str(value)
    return text if len(text) <= EXACT_CELL_WIDTH else f"({len(text)} characters: --format json)"


def objective_notes(objective: str) -> list[str]:
    """The footer line explaining ``objective`` (empty for the self-explaining ones); ``learned:FILE``
    and ``table:FILE`` are explained as ``learned`` and ``table``."""
    base = objective.split(":", 1)[0].strip().lower()
    return [OBJECTIVE_NOTES[base]] if base in OBJECTIVE_NOTES else []


def best_line(names: list[str], shown: int = 4) -> str:
    """``keep X`` and, for exact ties, ``(tied with Y, Z and 12 more)``."""
    text = f"keep {names[0] or 'nothing'}"
    others = [n or "nothing" for n in names[1:]]
    if others:
        more = f" and {len(others) - shown} more" if len(others) > shown else ""
        text += f" (tied with {', '.join(others[:shown])}{more})"
    return text


def advice_report(advice: Advice, top: int | None = None, opponents: bool | None = None) -> Report:
    """The report of ``shelfie-solve advise`` (holds, markings, or a failed result).

    ``opponents``: whether the objective saw opponents (a ``learned`` value is then a win-chance
    score in thousandths, else points: :data:`LEARNED_LABELS`); default: whether the advice
    saw a table of two or more players (:attr:`advise.Advice.table`)."""
    rules, board = advice.rules, advice.board
    title = [
        f"Dice {dice_codes(advice.dice, rules)} ({dice_names(advice.dice, rules)}), "
        f"{advice.rerolls} re-roll{'s' if advice.rerolls != 1 else ''} left, objective {advice.objective}",
        f"Board {board.name!r}, marks {advice.marks}, score now {advice.score} points",
    ]
    data: dict[str, Any] = {
        "dice": dice_codes(advice.dice, rules),
        "rerolls": advice.rerolls,
        "objective": advice.objective,
        "board": board.name,
        "marks": str(advice.marks),
        "score": advice.score,
        "value": exact(advice.value),
        "value_float": float(advice.value),
        "end_triggered": advice.end_triggered,
        "finished": advice.finished,
    }
    if advice.table is not None:
        _table_lines(advice, title, data)
    if advice.finished:
        title.append(f"Sheet finished: final score {advice.score} (no item is available; D17, D19).")
        data["final_score"] = advice.score
    elif advice.end_triggered:
        title.append("The end is already triggered (D17): the game ends after this round (D18).")
    if opponents is None:
        opponents = advice.table is not None and advice.table.players > 1
    words = _value_words(advice.objective, opponents)
    if advice.holds:
        return _holds_report(advice, title, data, top, words)
    if advice.markings:
        return _markings_report(advice, title, data, top, words)
    return _failed_report(advice, title, data)


#: What a ``learned`` value is in ``play`` and ``advise`` (docs/train.md "The objective"): the value column's
#: header, the words after the best hold's value, and the footer line; with opponents, else alone.
LEARNED_LABELS = {
    True: ("value (1/1000)", "a change of the win-chance score, in thousandths",
           "learned value (docs/train.md): not points, but the change of a win-chance score of the gap to the best "
           "opponent, in thousandths: +1000 a sure win, 0 level, -1000 a sure loss (D20); the points column is "
           "the score change this turn."),
    False: ("value (points)", "the change of the expected final score, in points",
            "learned value (docs/train.md): the change of the expected final score (score now plus the points "
            "still to come, D19), in points; unlike the points column (this turn's score change) it counts "
            "what scores only in later turns."),
}


def _value_words(objective: str, opponents: bool) -> tuple[str, str, list[str]]:
    """The value column's header, the words after the best hold's value and the footer lines that
    say what a value of ``objective`` is: for ``learned`` (or ``learned:FILE``) a win-chance score
    in thousandths with ``opponents``, points alone (:data:`LEARNED_LABELS`); else plain
    ``value`` and :func:`objective_notes`."""
    if objective.split(":", 1)[0].strip().lower() == "learned":
        header, words, note = LEARNED_LABELS[opponents]
        return header, f" ({words})", [note]
    return "value", "", objective_notes(objective)


def _table_lines(advice: Advice, title: list[str], data: dict[str, Any]) -> None:
    """The game the advice saw (``advise --opponent``): the opponents' sheets and scores, the
    player's place in the round and the round."""
    from shelfie_solver.dice.board import score

    state = advice.table
    assert state is not None
    n = state.players
    order = (state.active - state.first) % n + 1
    others = state.sheets[1:]
    scores = [score(advice.board, m, advice.rules) for m in others]
    sheets = ", ".join(f"{m} ({p} points)" for m, p in zip(others, scores))
    round_number = state.turn // n + 1
    title.append(f"Round {round_number}, you are number {order} of {n} to play in the round; "
                 f"opponent{'s' if len(others) != 1 else ''} in play order after you: {sheets}")
    data["opponents"] = [{"marks": str(m), "score": p} for m, p in zip(others, scores)]
    data["order"] = order
    data["round"] = round_number


def _holds_report(advice: Advice, title: list[str], data: dict[str, Any], top: int | None,
                  words: tuple[str, str, list[str]]) -> Report:
    rules = advice.rules
    shown = advice.holds[:top] if top else advice.holds
    ranks = [h.rank for h in advice.holds]
    k = len(shown[0].at_least)
    header, after_value, footer = words
    headers = (["rank", "keep", "re-roll", header, "exact", "points", "failed"]
               + [f">={j} items" for j in range(1, k + 1)])
    rows = []
    for h in shown:
        rows.append([rank_text(h.rank, ranks), keep_label(h.keep, rules), reroll_label(advice.dice, h.keep, rules),
                     decimal(h.value), exact_cell(h.value), decimal(h.points, 2), percent(h.fail)]
                    + [percent(p) for p in h.at_least])
    best = advice.holds[0]
    tied = [dice_codes(h.keep, rules) for h in advice.holds if h.rank == 1]
    title.append(f"Best: {best_line(tied)}, re-roll {reroll_label(advice.dice, best.keep, rules)}, "
                 f"value {decimal(best.value)} = {exact_cell(best.value)}{after_value}, "
                 f"expected points this turn {decimal(best.points, 2)}, failed-result chance {percent(best.fail)}")
    if advice.markings:  # stopping is best: what to mark
        title.append("Stop and mark " + _marking_text(advice.markings[0], advice))
        data["stop_marking"] = _marking_record(advice.markings[0], advice)
    data["holds"] = [{
        "keep": dice_codes(h.keep, rules),
        "reroll": dice_codes(tuple(d - k for d, k in zip(advice.dice, h.keep)), rules),
        "rank": h.rank,
        "value": exact(h.value),
        "value_float": float(h.value),
        "points": exact(h.points),
        "points_float": float(h.points),
        "fail": exact(h.fail),
        "fail_float": float(h.fail),
        "at_least": {str(j + 1): exact(p) for j, p in enumerate(h.at_least)},
    } for h in advice.holds]
    notes = [f"{len(advice.holds) - len(shown)} more holds not shown (--top)."] if len(shown) < len(advice.holds) else []
    notes.append("value: expected objective value with optimal play after this hold; points: expected points "
                 "scored this turn (D19) under the same play; failed: chance of a failed result (D13); "
                 ">=j items: chance the final dice can mark j items.")
    notes += footer
    return Report(title, headers, rows, data, notes, records=data["holds"])


def _markings_report(advice: Advice, title: list[str], data: dict[str, Any], top: int | None,
                     words: tuple[str, str, list[str]]) -> Report:
    rules, board = advice.rules, advice.board
    shown = advice.markings[:top] if top else advice.markings
    ranks = [m.rank for m in advice.markings]
    ending = any(m.ends_game for m in shown)
    header, _, footer = words
    headers = ["rank", "mark", "dice groups", "points", "score after", header, "exact"] + (["end"] if ending else [])
    rows = []
    for m in shown:
        cells = " + ".join(board.cell_name(c) for c in m.marking.cells)
        groups = " ".join(g.codes(rules) for g in m.marking.groups)
        rows.append([rank_text(m.rank, ranks), cells, groups, f"{m.points:+d}", m.score_after, decimal(m.value),
                     exact_cell(m.value)] + ([ENDS_GAME if m.ends_game else ""] if ending else []))
    title.append("Best: mark " + _marking_text(advice.markings[0], advice))
    data["markings"] = [_marking_record(m, advice) for m in advice.markings]
    notes = [f"{len(advice.markings) - len(shown)} more markings not shown (--top)."] if len(shown) < len(advice.markings) else []
    notes.append("points: score change now (D19); score after: the sheet's score after the marking.")
    notes += footer
    return Report(title, headers, rows, data, notes, records=data["markings"])


def _marking_text(option: MarkingOption, advice: Advice) -> str:
    groups = option.marking.groups
    where = ", ".join(f"{advice.board.cell_name(g.cell)} with {g.codes(advice.rules)}" for g in groups)
    lines = ", ".join(advice.board.line_name(i) for i in option.scoring_lines) or "none yet"
    text = f"{where} ({option.points:+d} points; score after {option.score_after}, lines scoring: {lines})"
    return text + (f"; {ENDS_GAME}" if option.ends_game else "")


def _marking_record(option: MarkingOption, advice: Advice) -> dict[str, Any]:
    return {
        "cells": [advice.board.cell_name(c) for c in option.marking.cells],
        "groups": [g.codes(advice.rules) for g in option.marking.groups],
        "rank": option.rank,
        "points": option.points,
        "score_after": option.score_after,
        "scoring_lines": [advice.board.line_name(i) for i in option.scoring_lines],
        "ends_game": option.ends_game,
        "value": exact(option.value),
        "value_float": float(option.value),
    }


def _failed_report(advice: Advice, title: list[str], data: dict[str, Any]) -> Report:
    board = advice.board
    best = advice.failed[0] if advice.failed else None
    if best is None:
        if not advice.finished:
            title.append("Failed result (D13): no item can be marked and no shelf has an available item left.")
    else:
        title.append(f"Failed result (D13): no item can be marked. Give up shelf {best.shelf + 1} "
                     f"({board.shelf_label(best.shelf, advice.rules)}): it loses the least line potential "
                     f"({decimal(best.potential_change, 2)}), eliminating "
                     f"{len(best.lost_items)} item{'s' if len(best.lost_items) != 1 else ''} worth {best.lost_points} points"
                     + (f"; {ENDS_GAME}." if best.ends_game else "."))
    ending = any(o.ends_game for o in advice.failed)
    headers = ["shelf", "faces", "items eliminated", "their points", "potential change"] + (["end"] if ending else [])
    rows = [[o.shelf + 1, board.shelf_label(o.shelf, advice.rules), " ".join(board.cell_name(c) for c in o.lost_items),
             o.lost_points, decimal(o.potential_change, 2)] + ([ENDS_GAME if o.ends_game else ""] if ending else [])
            for o in advice.failed]
    data["markings"] = []
    if advice.rerolls:
        data["holds"] = []  # nothing available: no hold can change anything
    data["failed"] = True
    data["give_up_shelf"] = best.shelf + 1 if best else None
    data["shelves"] = [{"shelf": o.shelf + 1, "items": [board.cell_name(c) for c in o.lost_items],
                        "points": o.lost_points, "potential_change": exact(o.potential_change),
                        "potential_change_float": float(o.potential_change), "ends_game": o.ends_game}
                       for o in advice.failed]
    notes = ["potential change: the strategic objective's line potential lost (docs/objectives.md); "
             "marked items on the shelf stay marked and still score (D13)."] if rows else []
    return Report(title, headers, rows, data, notes, records=data["shelves"])
