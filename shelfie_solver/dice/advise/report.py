"""The report of ``shelfie-solve advise`` (and of ``play``'s advice): best holds, best markings,
or the shelf to give up on a failed result (D7, D13, D17, D19), built as a :class:`Report` that
:func:`shelfie_solver.core.report.render` formats; plus the hold labels other dice reports share
(``odds``, ``review``). docs/advise.md shows the output.
"""

from __future__ import annotations

from fractions import Fraction
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from shelfie_solver.core.report import Report, decimal, exact, rank_text
from shelfie_solver.dice.board import highest_score, score
from shelfie_solver.dice.rolls import Counts, dice_codes, dice_names
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.advise.words import CHANCE_PLACES, chance_cell, hold_words, risk_cell, signed_points, tie_list

if TYPE_CHECKING:  # annotations only: the dice advisor's engine is not loaded by every command
    from shelfie_solver.dice.advise.advice import Advice, HoldOption, MarkingOption, ShelfOption
    from shelfie_solver.dice.game.events import GameState


def keep_label(keep: Counts, rules: Ruleset) -> str:
    """A hold for a table: its codes; ``(re-roll all)`` for none; ``(stop)`` for every die (D7)."""
    codes = dice_codes(keep, rules)
    if sum(keep) == rules.dice:
        return f"{codes} (stop)"
    return codes or "(re-roll all)"


def reroll_label(dice: Counts, keep: Counts, rules: Ruleset) -> str:
    """The dice a hold re-rolls (``dice`` minus ``keep``): their codes, ``nothing (stop)`` for none."""
    return dice_codes(tuple(d - k for d, k in zip(dice, keep)), rules) or "nothing (stop)"


def ends_game_words(state: GameState | None) -> str:
    """What a marking or failed result that triggers the end (D17) says in the title, in the
    game ``state`` it is made in: the last player of the round ends the game at once (D18;
    alone, solitaire, too), an earlier seat after the round is played out (D18), as the reason
    line says (:func:`reasons.ending`). Advice on one sheet without a game (``None``): after
    the round, the general case. The one home of those words for every title line."""
    at_once = state is not None and state.is_last_in_round()
    return f"this ends the game {'at once' if at_once else 'after the round'}"


def _ends_game_note(state: GameState | None) -> str:
    """The footer's words on the ``ends game`` column, as :func:`ends_game_words` times it (D18)."""
    then = "the game ends at once, this seat being last in the round (D18)" \
        if state is not None and state.is_last_in_round() else "the round is played out (D18)"
    return f"; ends game: it closes the shelf that triggers the end (D17), {then}."


#: The same in a table's ``end`` column (short, so the table fits 80 columns).
ENDS_CELL = "ends game (D17)"

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
    "exact optimum": ("exact optimum (docs/solve-game.md, exact where it fits): this board's solitaire game "
                      "solved whole (once, kept in the table cache); a value is the change V(after) - V(before) "
                      "of the optimal expected final score (points), so the best choice is optimal play. "
                      "learned and win play this alone on every board within SHELFIE_SOLVE_EXACT_BUDGET."),
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
    """The best hold (its :func:`hold_words`) and, for exact ties, ``(tied with Y, Z and 12 more)``
    (:func:`words.tie_list`)."""
    return names[0] + (f" (tied with {tie_list(names[1:], shown)})" if len(names) > 1 else "")


def best_hold(advice: Advice) -> str:
    """The best hold for the ``Best:`` line: :func:`hold_words` with the dice re-rolled for a partial
    hold (``keep CC, re-roll PPAA``), then the exact ties (:func:`best_line`)."""
    rules, best = advice.rules, advice.holds[0]
    tied = [hold_words(advice.dice, h.keep, rules) for h in advice.holds if h.rank == 1]
    text = best_line(tied)
    if 0 < sum(best.keep) < rules.dice:
        head, _, ties = text.partition(" (tied with ")
        text = f"{head}, re-roll {reroll_label(advice.dice, best.keep, rules)}" + (f" (tied with {ties}" if ties else "")
    return text


def advice_report(advice: Advice, top: int | None = None, opponents: bool | None = None,
                  names: Sequence[str] | None = None, state: GameState | None = None) -> Report:
    """The report of ``shelfie-solve advise`` (holds, markings, or a failed result).

    ``opponents``: whether the objective saw opponents (a ``learned`` value is then a win-chance
    score in thousandths, else points: :data:`LEARNED_LABELS`); default: whether the advice
    saw a table of two or more players (:attr:`advice.Advice.state`). ``names``: every seat's
    name, for the reason line (:mod:`reasons`; default "the opponent", "opponent 1", ...), and
    ``state`` the game it sees (default :attr:`advice.Advice.state`; ``play`` passes its own).
    Values that are the chance to win (:attr:`advice.Advice.win_chance_exact`) are shown in
    percent by :func:`win_report`."""
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
    if advice.state is not None:
        _table_lines(advice, title, data)
    if advice.finished:
        title.append(f"Sheet finished: final score {advice.score} (no item is available; D17, D19).")
        data["final_score"] = advice.score
    elif advice.end_triggered:
        title.append("The end is already triggered (D17): the game ends after this round (D18).")
    if opponents is None:
        opponents = advice.state is not None and advice.state.players > 1
    from shelfie_solver.dice.advise.reasons import reason

    seen = advice if state is None else replace(advice, state=state)
    why = reason(seen, names)
    if advice.win_chance_exact is not None:  # every value is the chance to win (D20), in percent
        report = win_report(advice, title, data, top, why, seen.state)
        if why:  # the reason at whole percent and at one decimal (serve's page shows [1], as the tables)
            report.data["reason_by_places"] = [reason(seen, names, places) for places in range(CHANCE_PLACES + 1)]
        return report
    if why:
        data["reason"] = why
    unit = value_words(advice.objective, opponents)  # not the chance to win: that is win_report's
    words = (unit.header, f" ({unit.words})" if unit.words else "", list(unit.notes))
    if advice.holds:
        report = _holds_report(advice, title, data, top, words, seen.state)
    elif advice.markings:
        report = _markings_report(advice, title, data, top, words, seen.state)
    else:
        report = _failed_report(advice, title, data, seen.state)
    if why:
        report.title.append(f"Why: {why}.")
    return report


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


def hold_record(hold: HoldOption, advice: Advice, chance: dict[str, Any] | None = None) -> dict[str, Any]:
    """One hold as JSON/CSV: dice, rank, exact value (``chance``: the win-chance fields, after the
    value, with opponents), expected points this turn, failed-result chance (D13) and the chances
    of marking at least j items."""
    return {
        "keep": dice_codes(hold.keep, advice.rules),
        "reroll": dice_codes(tuple(d - k for d, k in zip(advice.dice, hold.keep)), advice.rules),
        "rank": hold.rank,
        "value": exact(hold.value),
        "value_float": float(hold.value),
        **(chance or {}),
        "points": exact(hold.points),
        "points_float": float(hold.points),
        "fail": exact(hold.fail),
        "fail_float": float(hold.fail),
        "at_least": {str(j + 1): exact(p) for j, p in enumerate(hold.at_least)},
    }


@dataclass(frozen=True)
class ValueWords:
    """What a value of an objective is, in a player's words: the one wording ``advise``,
    ``play`` and ``serve``'s page give (:func:`value_words`).

    Attributes:
        header: the value column's header (``value``, ``value (points)``, ``chance to win``...).
        words: what the value is, said after it (e.g. ``the change of the expected final score,
            in points``); ``""`` when the footer says it all.
        notes: the footer lines explaining the value (docs/objectives.md, docs/train.md).
        chance: the value is the chance to win (D20), a probability shown in percent.
    """

    header: str
    words: str
    notes: tuple[str, ...]
    chance: bool = False


#: The wording of the chance to win (D20) as a value (``win`` with opponents, or the exact
#: ``win (exact)`` of the last turns): :data:`ValueWords.chance` set.
CHANCE_WORDS = ValueWords(
    "chance to win", "the chance to win (D20)",
    ("chance to win: the chance that this choice leads to a win (D20), exact on the last turns, else from the "
     "fitted model (docs/train.md); a shared victory counts its share.",), chance=True)
#: The same for a two-player table (``exact2:FILE``, or ``win`` on a board that fits: the exact
#: two-player optimum), exact at every turn.
TABLE_CHANCE_WORDS = ValueWords(
    "chance to win", "the chance to win (D20)",
    ("chance to win: the chance that this choice leads to a win (D20) with the best play by both, from the "
     "exact two-player table (float64 within its proven bound, shown to 2^-30); a tie counts one half.",),
    chance=True)


def value_words(objective: str, opponents: bool) -> ValueWords:
    """What a value of ``objective`` (its name, as :attr:`advice.Advice.objective` gives it) is,
    with or without ``opponents``: with opponents a two-player table's (:func:`is_two_player_table`)
    the exact chance to win (:data:`TABLE_CHANCE_WORDS`), ``win``, ``win-model`` and the exact
    ``win (exact)`` value the chance to win (:data:`CHANCE_WORDS`); ``learned`` (or
    ``learned:FILE``, or ``win`` alone: learned's expected final score) a win-chance score in
    thousandths with ``opponents``, points alone (:data:`LEARNED_LABELS`); else plain ``value``
    with :data:`VALUE_WORDS` and :func:`objective_notes`."""
    name = objective.strip().lower()
    kind = name.split(":", 1)[0].strip()
    if opponents and is_two_player_table(name):
        return TABLE_CHANCE_WORDS
    if opponents and (kind in ("win", "win-model") or "win (exact)" in name or "win chance" in name):
        return CHANCE_WORDS
    if kind in ("learned", "win"):
        header, words, note = LEARNED_LABELS[opponents]
        return ValueWords(header, words, (note,))
    return ValueWords("value", VALUE_WORDS.get(kind, ""), tuple(objective_notes(objective)))


#: What the best hold's value is, in words, after the number (the footer says more): a
#: surrogate such as the strategic potential is never shown as a bare number.
VALUE_WORDS = {
    "strategic": "potential points: points now plus credit for lines on their way",
    "points": "points this turn",
    "marks": "items marked",
    "safe": "chance of marking an item",
    "cell": "chance of marking that item",
    "table": "the expected final score, in points",
    "exact optimum": "change of the optimal expected final score, in points",
}


def _table_lines(advice: Advice, title: list[str], data: dict[str, Any]) -> None:
    """The game the advice saw (``advise --opponent``): the opponents' sheets and scores, the
    player's place in the round and the round."""

    state = advice.state
    assert state is not None
    n = state.players
    order = state.place(state.active) + 1
    others = state.sheets[1:]
    scores = [score(advice.board, m, advice.rules) for m in others]
    sheets = ", ".join(f"{m} ({p} points)" for m, p in zip(others, scores))
    round_number = state.turn // n + 1
    title.append(f"Round {round_number}, you are number {order} of {n} to play in the round; "
                 f"opponent{'s' if len(others) != 1 else ''} in play order from the player after you: {sheets}")
    data["opponents"] = [{"marks": str(m), "score": p} for m, p in zip(others, scores)]
    data["order"] = order
    data["round"] = round_number


def _holds_report(advice: Advice, title: list[str], data: dict[str, Any], top: int | None,
                  words: tuple[str, str, list[str]], state: GameState | None) -> Report:
    rules = advice.rules
    shown = advice.holds[:top] if top else advice.holds
    ranks = [h.rank for h in advice.holds]
    k = len(shown[0].at_least)
    header, after_value, footer = words
    headers = (["rank", "keep", "re-roll", header, "exact", "points", "failed"]
               + [f">={j}" for j in range(1, k + 1)])
    rows = []
    for h in shown:
        rows.append([rank_text(h.rank, ranks), keep_label(h.keep, rules), reroll_label(advice.dice, h.keep, rules),
                     decimal(h.value), exact_cell(h.value), decimal(h.points, 2), risk_cell(h.fail, False)]
                    + [risk_cell(p, False) for p in h.at_least])
    best = advice.holds[0]
    title.append(f"Best: {best_hold(advice)}, "
                 f"value {decimal(best.value)}{after_value}, "
                 f"expected points this turn {decimal(best.points, 2)}, "
                 f"failed-result chance {risk_cell(best.fail, False)}")
    if advice.baseline is not None:  # learned alone: the value is a change of the expected final score
        title.append(expected_final_line(advice, advice.baseline + best.value))
    if advice.markings:  # stopping is best: what to mark
        title.append("Stop and mark " + _marking_text(advice.markings[0], advice, state))
        data["stop_marking"] = marking_record(advice.markings[0], advice)
    data["holds"] = [hold_record(h, advice) for h in advice.holds]
    notes = [f"{len(advice.holds) - len(shown)} more holds not shown (--top)."] if len(shown) < len(advice.holds) else []
    notes.append("value: expected objective value with optimal play after this hold; points: expected points "
                 "scored this turn (D19) under the same play; failed: chance of a failed result (D13); "
                 ">=j: chance the final dice can mark j items.")
    notes += footer
    return Report(title, headers, rows, data, notes, records=data["holds"], narrow=["re-roll"])


def _markings_report(advice: Advice, title: list[str], data: dict[str, Any], top: int | None,
                     words: tuple[str, str, list[str]], state: GameState | None) -> Report:
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
                     exact_cell(m.value)] + ([ENDS_CELL if m.ends_game else ""] if ending else []))
    title.append("Best: mark " + _marking_text(advice.markings[0], advice, state, tied_markings(advice)))
    data["markings"] = [marking_record(m, advice) for m in advice.markings]
    notes = [f"{len(advice.markings) - len(shown)} more markings not shown (--top)."] if len(shown) < len(advice.markings) else []
    notes.append("points: score change now (D19); score after: the sheet's score after the marking.")
    notes += footer
    return Report(title, headers, rows, data, notes, records=data["markings"], narrow=["dice groups", "score after"])


def expected_final_line(advice: Advice, estimate: Fraction) -> str:
    """The headline of ``learned``'s expected final score (points): its estimate, or the bound it
    passes — a final score is at least the score now and at most the sheet with every available
    item marked (D19) — since a fitted value function can stray beyond either on a board unlike
    its training boards (docs/train.md). For ``exact optimum`` the optimal expected final score.
    """
    board, marks = advice.board, advice.marks
    if advice.objective == "exact optimum":  # the solved table: exactly the optimum, within its bounds
        return f"Expected final score {decimal(estimate, 2)} points with optimal play (exact optimum)"
    most = highest_score(board, marks, advice.rules)
    said = f"learned's estimate {decimal(estimate, 2)}"
    if estimate > most:
        return (f"Expected final score at most {most} points (every available item marked; {said} is above "
                "it)")
    if estimate < advice.score:
        return f"Expected final score at least {advice.score} points (the score now; {said} is below it)"
    return f"Expected final score {decimal(estimate, 2)} points (learned: score now {advice.score} + points still to come)"


def tied_markings(advice: Advice) -> str:
    """``, tied with r1c2 + r3c3 and r2c2`` for the markings exactly tied with the best (rank 1:
    exact ties, as the holds' ``Best:`` line names them, :func:`best_line`), else empty; placed
    before the words that the marking ends the game."""
    tied = [" + ".join(advice.board.cell_name(c) for c in m.marking.cells) for m in advice.markings[1:] if m.rank == 1]
    return f", tied with {tie_list(tied)}" if tied else ""


def _marking_text(option: MarkingOption, advice: Advice, state: GameState | None, tied: str = "") -> str:
    groups = option.marking.groups
    where = ", ".join(f"{advice.board.cell_name(g.cell)} with {g.codes(advice.rules)}" for g in groups)
    lines = ", ".join(advice.board.line_name(i) for i in option.scoring_lines) or "none yet"
    text = f"{where} ({signed_points(option.points)}; score after {option.score_after}, lines scoring: {lines}){tied}"
    return text + (f"; {ends_game_words(state)}" if option.ends_game else "")


def marking_record(option: MarkingOption, advice: Advice) -> dict[str, Any]:
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


def _failed_report(advice: Advice, title: list[str], data: dict[str, Any], state: GameState | None) -> Report:
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
                     + (f"; {ends_game_words(state)}." if best.ends_game else "."))
    ending = any(o.ends_game for o in advice.failed)
    headers = ["shelf", "faces", "items eliminated", "their points", "potential change"] + (["end"] if ending else [])
    rows = [[o.shelf + 1, board.shelf_label(o.shelf, advice.rules), " ".join(board.cell_name(c) for c in o.lost_items),
             o.lost_points, decimal(o.potential_change, 2)] + ([ENDS_CELL if o.ends_game else ""] if ending else [])
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
    return Report(title, headers, rows, data, notes, records=data["shelves"], narrow=["faces", "their points"])


# --- values that are the chance to win (D20) ---------------------------------------------


#: What the chance is, for the footer: exact, or under the model.
EXACT_NOTE = ("win chance: your exact chance to win (D20: a k-way tie for the top counts 1/k) with the best play "
              "from here; exact because every other score is final after this turn or the next (D18), or because "
              "your game is decided (the best final score you can still reach below another seat's score now, or "
              "your score above the best every other seat can reach).")
TABLE_NOTE = ("win chance: your chance to win (D20: a tie counts 1/2) with the best play by both from "
              "here, from the two-player table (solve-game --players 2: float64 within its proven bound, shown "
              "to 2^-30; the exact two-player optimum: win plays it on every board within "
              "SHELFIE_SOLVE_EXACT2_BUDGET, docs/solve-game.md \"Exact where it fits\").")
#: The objective's name when ``win`` plays the cached two-player table (:data:`wholegame.exact2_cache.EXACT2_NAME`).
EXACT2_OBJECTIVE = "exact two-player optimum"


def is_two_player_table(objective: str) -> bool:
    """Whether an objective name is a two-player table's: ``exact2:FILE`` or :data:`EXACT2_OBJECTIVE`."""
    return objective.startswith("exact2:") or objective == EXACT2_OBJECTIVE


#: What the chance is under the model (the default board, 3-4 players, boards over the two-player budget).
MODEL_NOTE = ("win chance: your chance to win (D20: a k-way tie counts 1/k) under the win model, one softmax of "
              "every seat's strength fitted on self-play outcomes (docs/win-chance.md, \"Measured: the joint model\"); an "
              "estimate: about 7 percentage points from rollouts of the advised play on average (root mean square at "
              "turn starts: 6 to 8 by the number of players; docs/win-chance.md, \"Both sheets: trees on the line states\" "
              "and \"The sheets' line states with 3 and 4 players\").")

#: :data:`MODEL_NOTE` on a board of another shape than the model's line states and trees were
#: fitted on (:meth:`learned.win_model.WinModel.for_board`): its coefficients of format 3's
#: features in the board's own points, whose distance from rollouts was measured on three such
#: boards (docs/win-chance.md, "In the board's own points": 5.3 to 7.4 points by board, seed 18110).
OTHER_SHAPE_NOTE = ("win chance: your chance to win (D20: a k-way tie counts 1/k) under the win model, one softmax of "
                    "every seat's strength fitted on self-play outcomes; on this board's shape its coefficients "
                    "without the sheets' line states and trees, which were fitted on {shape} boards, read in points "
                    "of this board's size (docs/win-chance.md, \"Off the fitted board's shape\", \"In the board's own "
                    "points\"); an estimate: on average about 7 percentage points from rollouts on three boards of "
                    "other shapes (mean absolute error with the rollouts' noise removed, 2 and 3 players; root mean "
                    "square 13).")


def model_note(advice: Advice) -> str:
    """The note under a table of the model's chances: :data:`MODEL_NOTE`, or
    :data:`OTHER_SHAPE_NOTE` where the model read its other shapes' coefficients
    (:attr:`Advice.fitted_shape`; docs/win-chance.md "Off the fitted board's shape")."""
    shape = advice.fitted_shape
    return MODEL_NOTE if shape is None else OTHER_SHAPE_NOTE.format(shape=f"{shape[0]} x {shape[1]}")


def settled_chance(value: Fraction | None) -> bool:
    """Whether the engine's chance to win ``value`` (under ``win``) is settled, 0 or 1 exactly:
    then it is exact whatever the objective's flag says. Read off the value, which is sound for
    the engine's values only: the model never gives 0 or 1 (its chances are kept within 1 and
    ``CHANCE_SCALE - 1`` over ``CHANCE_SCALE``, learned.win_model), so a value of exactly 1 (or 0)
    is a mean over the dice of terminals that are all settled won (or lost) exactly (D17, D18, D20):
    a certainty, never the model's estimate (docs/advise.md: ``100%`` is exactly won). Figures
    derived from such values by sharing the rest among seats are another matter: a share can be 0
    by arithmetic, so ``play``'s table raises a model share of 0 to the model's floor instead of
    calling it settled (:func:`play.chances.model_floor`)."""
    return value is not None and value in (0, 1)


def how(advice: Advice, option: HoldOption | MarkingOption | ShelfOption | None = None) -> str:
    """``exact`` or ``model`` for the title: of ``option``'s chance when given
    (:func:`option_exact`), else of the advice's best choice (:func:`first_exact`)."""
    return "exact" if (first_exact(advice) if option is None else option_exact(option, advice)) else "model"


def option_exact(option: HoldOption | MarkingOption | ShelfOption, advice: Advice) -> bool:
    """Whether a hold's, a marking's or a shelf's chance is exact: its own flag where the
    objective knows it per option (a marking that ends the game, D17; ``win`` on a shelf whose
    loss ends it, D13, D17; a hold whose every roll reached is exact, keeping every die: the best
    marking's, D7, :func:`advice.shown_turn`), else the advice's; a certainty always
    (:func:`settled_chance`)."""
    return bool(advice.win_chance_exact if option.exact is None else option.exact) or settled_chance(option.value)


def first_exact(advice: Advice) -> bool:
    """Whether the chance of ``advice``'s best choice is exact: of its first hold (re-rolls left),
    of its first marking (final dice), of its first shelf (a failed result, D13), else the
    advice's (a certainty always: :func:`option_exact`, :func:`settled_chance`)."""
    if advice.holds:
        return option_exact(advice.holds[0], advice)
    if advice.markings:
        return option_exact(advice.markings[0], advice)
    if advice.failed and advice.failed[0].value is not None:
        return option_exact(advice.failed[0], advice)
    return bool(advice.win_chance_exact)


def chance_fields(value: Fraction, exact_flag: bool | None) -> dict[str, Any]:
    """The JSON fields of one chance: ``win_chance`` ("p/q"), ``win_chance_float``, ``win_chance_exact``."""
    return {"win_chance": exact(value), "win_chance_float": float(value), "win_chance_exact": bool(exact_flag)}


def win_report(advice: Advice, title: list[str], data: dict[str, Any], top: int | None, reason: str | None,
               state: GameState | None = None) -> Report:
    """The holds, markings or shelves of ``advice`` (``win_chance_exact`` not None), in percent;
    a decided game (:func:`decided_report`) says so instead of ranking the choices. ``state``:
    the game the choice is made in (whether the end it triggers comes at once, D18:
    :func:`ends_game_words`), default the advice's."""
    state = state if state is not None else advice.state
    data.update(chance_fields(advice.value, first_exact(advice)))
    if advice.holds:
        report = _win_holds(advice, title, data, top)
    elif advice.markings:
        report = _win_markings(advice, title, data, top, state)
    else:
        report = _win_shelves(advice, title, data)
    settled = decided_choices(advice)
    if settled is not None:
        report = decided_report(advice, report, settled)
    elif reason:
        report.title.append(f"Why: {reason}.")
    if reason:
        report.data["reason"] = reason
    report.notes.append((TABLE_NOTE if is_two_player_table(advice.objective) else EXACT_NOTE)
                        if advice.win_chance_exact else model_note(advice))
    return report


def _win_holds(advice: Advice, title: list[str], data: dict[str, Any], top: int | None) -> Report:
    rules = advice.rules
    shown = advice.holds[:top] if top else advice.holds
    ranks = [h.rank for h in advice.holds]
    best = advice.holds[0]
    tied = [h for h in advice.holds if h.rank == 1]
    title.append(f"Best: {best_hold(advice)}: "
                 f"chance to win {chance_cell(best.value)} ({how(advice)})")
    title.append(f"Expected points this turn {decimal(best.points, 2)}, failed-result chance {risk_cell(best.fail, True)}"
                 + ("; tied holds listed by expected points this turn" if len(tied) > 1 else ""))
    if advice.markings:
        first = advice.markings[0]
        title.append("Stop and mark " + _win_cells(first, advice) + f" ({signed_points(first.points)})")
        data["stop_marking"] = {**marking_record(first, advice), **chance_fields(best.value, option_exact(best, advice))}
    headers = ["rank", "keep", "re-roll", "win chance", "exact", "points", "failed"]  # exact: --exact only
    rows = [[rank_text(h.rank, ranks), keep_label(h.keep, rules), reroll_label(advice.dice, h.keep, rules),
             chance_cell(h.value), exact_cell(h.value), decimal(h.points, 2), risk_cell(h.fail, True)] for h in shown]
    data["holds"] = [hold_record(h, advice, chance_fields(h.value, option_exact(h, advice))) for h in advice.holds]
    notes = [f"{len(advice.holds) - len(shown)} more holds not shown (--top)."] if len(shown) < len(advice.holds) else []
    notes.append("points: expected points scored this turn (D19) under the same play; failed: chance of a "
                 "failed result (D13). Exact fractions: --exact, --format json or csv.")
    return Report(title, headers, rows, data, notes, records=data["holds"])


def _win_cells(option: MarkingOption, advice: Advice) -> str:
    return " + ".join(advice.board.cell_name(c) for c in option.marking.cells)


def _win_markings(advice: Advice, title: list[str], data: dict[str, Any], top: int | None,
                  state: GameState | None) -> Report:
    rules = advice.rules
    shown = advice.markings[:top] if top else advice.markings
    ranks = [m.rank for m in advice.markings]
    best = advice.markings[0]
    groups = ", ".join(f"{advice.board.cell_name(g.cell)} with {g.codes(rules)}" for g in best.marking.groups)
    title.append(f"Best: mark {groups} ({signed_points(best.points)}, score after {best.score_after}): chance to win "
                 f"{chance_cell(best.value)} ({how(advice, best)})" + tied_markings(advice)
                 + (f"; {ends_game_words(state)}" if best.ends_game else ""))
    ending = any(m.ends_game for m in shown)
    headers = ["rank", "mark", "dice", "points", "score", "win chance", "exact"] + (["end"] if ending else [])
    rows = [[rank_text(m.rank, ranks), _win_cells(m, advice), " ".join(g.codes(rules) for g in m.marking.groups),
             f"{m.points:+d}", m.score_after, chance_cell(m.value), exact_cell(m.value)]
            + (["ends game" if m.ends_game else ""] if ending else [])
            for m in shown]
    data["markings"] = [{**marking_record(m, advice), **chance_fields(m.value, option_exact(m, advice))}
                        for m in advice.markings]
    notes = [f"{len(advice.markings) - len(shown)} more markings not shown (--top)."] if len(shown) < len(advice.markings) else []
    notes.append("points: score change now (D19); score: the sheet's score after the marking"
                 + (_ends_game_note(state) if ending else "."))
    return Report(title, headers, rows, data, notes, records=data["markings"])


def _win_shelves(advice: Advice, title: list[str], data: dict[str, Any]) -> Report:
    board = advice.board
    best = advice.failed[0] if advice.failed else None
    if best is not None:
        title.append(f"Failed result (D13): no item can be marked. Give up shelf {best.shelf + 1} "
                     f"({board.shelf_label(best.shelf, advice.rules)}): chance to win "
                     f"{chance_cell(best.value if best.value is not None else advice.value)} "
                     f"({how(advice, best)})")
    headers = ["shelf", "faces", "items eliminated", "their points", "win chance", "exact"]
    rows = [[o.shelf + 1, board.shelf_label(o.shelf, advice.rules), " ".join(board.cell_name(c) for c in o.lost_items),
             o.lost_points, chance_cell(o.value) if o.value is not None else "",
             exact_cell(o.value) if o.value is not None else ""] for o in advice.failed]
    data["markings"] = []
    if advice.rerolls:
        data["holds"] = []
    data["failed"] = True
    data["give_up_shelf"] = best.shelf + 1 if best else None
    data["shelves"] = [{"shelf": o.shelf + 1, "items": [board.cell_name(c) for c in o.lost_items],
                        "points": o.lost_points, "potential_change": exact(o.potential_change),
                        "potential_change_float": float(o.potential_change), "ends_game": o.ends_game,
                        **(chance_fields(o.value, option_exact(o, advice)) if o.value is not None else {})}
                       for o in advice.failed]
    notes = ["Marked items on the shelf stay marked and still score (D13)."] if rows else []
    return Report(title, headers, rows, data, notes, records=data["shelves"])


def decided_choices(advice: Advice) -> Fraction | None:
    """The chance every choice of ``advice`` gives when the game is decided: every hold, marking
    or shelf exactly 1 (won whatever the player does) or exactly 0 (:func:`reasons.decided`)."""
    from shelfie_solver.dice.advise.reasons import decided

    if advice.holds:
        return decided([h.value for h in advice.holds], all(option_exact(h, advice) for h in advice.holds))
    if advice.markings:
        return decided([m.value for m in advice.markings],
                       all(option_exact(m, advice) for m in advice.markings))
    values = [o.value for o in advice.failed if o.value is not None]
    return decided(values, all(option_exact(o, advice) for o in advice.failed)) \
        if len(values) == len(advice.failed) else None


def decided_report(advice: Advice, report: Report, settled: Fraction) -> Report:
    """``report`` of a decided game: its title says so (``you have won whatever you roll``) and
    names the choice that scores the most, and the text table ranks nothing (every row would be
    the same chance); JSON and CSV keep every choice."""
    from shelfie_solver.dice.advise.reasons import decided_words

    rules = advice.rules
    verb = "roll" if advice.holds else ("mark" if advice.markings else "give up")
    keep = [line for line in report.title if not line.startswith(("Best:", "Expected points"))]
    if advice.holds:
        best = advice.holds[0]  # tied holds come by expected points this turn, best first
        choice = (f"any hold will do; {hold_words(advice.dice, best.keep, rules)} scores the most this turn "
                  f"({decimal(best.points, 2)} expected points)")
    elif advice.markings:
        top = max(advice.markings, key=lambda m: (m.points, -m.rank))
        choice = f"any marking will do; {_win_cells(top, advice)} scores the most now ({signed_points(top.points)})"
    else:
        choice = f"any shelf will do; shelf {advice.failed[0].shelf + 1} loses the least line potential"
    chance = chance_cell(settled)
    at = next((i for i, line in enumerate(keep) if line.startswith(("Stop and mark", "Failed result"))), len(keep))
    keep.insert(at, f"Decided: {decided_words(settled, verb)} (chance to win {chance}, exact): {choice}.")
    report.data["decided"] = True
    notes = [n for n in report.notes if "not shown (--top)" not in n]
    return replace(report, title=keep, rows=[],
                   notes=[f"Every choice gives {chance}, exactly: --format json lists them."] + notes)
