"""The report of ``shelfie-solve review`` (docs/review.md), click-free: one row per decision of
the reviewed player, the summary above and the five costliest decisions below, in the
objective's units or, with opponents and the default objective, in the chance to win (D20);
and :func:`progress_summary`, the running difference to the best that ``serve``'s page shows
(docs/serve.md), from the same :class:`~shelfie_solver.dice.review.Review`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from shelfie_solver.core.report import Report, decimal, exact, loss_cell, rounded, units_adding_to
from shelfie_solver.dice.advise.words import chance_cell
from shelfie_solver.dice.play.gamefile import KeptGame
from shelfie_solver.dice.review import BLUNDER, INACCURACY, MISTAKE, Decision, Review, describe_dice, severity


def _row(number: int, d: Decision, kept: KeptGame) -> list[Any]:
    """A row of the table in the objective's units; the dice as ``PPBCCJ (2)`` (re-rolls left), as
    :func:`_win_row`, so the table fits 80 columns (JSON and CSV have ``rerolls_left``)."""
    return [number, d.round, d.kind, describe_dice(d, kept).replace(" left)", ")"), d.chosen, d.best,
            decimal(d.chosen_value),
            decimal(d.best_value), decimal(d.loss)]


def _pp(value: Fraction) -> str:
    """A change of win chance in percentage points, signed, rounded from the exact value as
    :func:`total_loss_text` (``-5.7``; ``-0.0`` for a loss that rounds to none)."""
    return f"{'-' if value < 0 else '+'}{rounded(abs(value) * 100, 1)}"


def total_loss_text(result: Review) -> str:
    """A player's total loss as the review's summary prints it and ``serve``'s page shows it (one
    text, docs/serve.md): with ``win`` in percentage points of the chance to win at one decimal
    (``5.7``), else in the objective's units at four (``0.5000``); ``0`` for none and ``<0.1``
    (``<0.0001``) for a loss that rounds to none (:func:`core.report.loss_cell`)."""
    return loss_cell(result.total_loss * 100, 1) if result.win else loss_cell(result.total_loss, 4)


def shown_tenths(text: str) -> int:
    """A chance as printed at one decimal (:func:`chance_cell`, or ``play status``'s column,
    :func:`play.report.status_chance_texts`) in tenths of a point: ``33.4%`` is 334, ``100%``
    1000; ``<0.1%`` reads as 0 and ``>99.9%`` as 1000 (the rounding they stand for)."""
    if text.startswith("<"):
        return 0
    if text.startswith(">"):
        return 1000
    return round(Fraction(text.removesuffix("%")) * 10)


def chance_text(chance: Fraction, shown: str | None) -> str:
    """A chance of the review's title: ``shown``, the text ``play status`` prints for it where the
    review speaks its figure (:attr:`review.Review.start_shown`, ``end_shown``), else
    :func:`chance_cell` (one decimal)."""
    return shown if shown is not None else chance_cell(chance, 1)


def parts_in_tenths(start: Fraction, end: Fraction, parts: list[Fraction], fixed: int | None = None,
                    shown: tuple[str | None, str | None] = (None, None)) -> list[int] | None:
    """The parts of a change of win chance (luck, decisions, the others' turns, the turns told
    without dice; they add up to ``end - start`` exactly) in tenths of a percentage point,
    rounded together so that they add up to the change the printed ``start`` and ``end`` show
    (``shown``: their texts where ``play status``'s are printed, :func:`chance_text`; largest
    remainder: each part its value rounded down or up, the units left over to the largest
    remainders, the earlier part first on a tie). The part ``fixed`` keeps its own rounding
    (:func:`_pp`: the decisions, whose total loss the next line prints alone). Where no such
    rounding keeps every part within one tenth (the printed start and end are ``play status``'s
    texts, and the decisions keep theirs), the free part largest in size that is not exactly
    none takes up what is left after each part is rounded alone, so the line still adds up (a
    player's sum of the printed parts is the printed change; the JSON keeps every part exact).
    ``None`` only where every free part is exactly none: round each alone."""
    free = [i for i in range(len(parts)) if i != fixed]
    target = shown_tenths(chance_text(end, shown[1])) - shown_tenths(chance_text(start, shown[0]))
    kept = 0 if fixed is None else round(Fraction(_pp(parts[fixed])) * 10)
    rounded_free = units_adding_to([parts[i] * 1000 for i in free], target - kept)
    if rounded_free is None:
        rounded_free = _taken_up([parts[i] * 1000 for i in free], target - kept)
        if rounded_free is None:
            return None
    units = dict(zip(free, rounded_free))
    return [kept if i == fixed else units[i] for i in range(len(parts))]


def _taken_up(scaled: list[Fraction], total: int) -> list[int] | None:
    """Each of ``scaled`` (tenths) rounded alone (half away from none, as :func:`_pp`), then the
    units short of ``total`` added to the one largest in size that is not exactly none (the
    earlier on a tie); ``None`` where every value is exactly none."""
    if all(x == 0 for x in scaled):
        return None
    units = [int(Fraction(rounded(abs(x), 0))) * (1 if x >= 0 else -1) for x in scaled]
    largest = max((i for i, x in enumerate(scaled) if x != 0), key=lambda i: (abs(scaled[i]), -i))
    units[largest] += total - sum(units)
    return units


def _parts_text(start: Fraction, end: Fraction, parts: list[Fraction], fixed: int | None = None,
                shown: tuple[str | None, str | None] = (None, None)) -> list[str]:
    """:func:`parts_in_tenths` as signed percentage points (``+2.5``), each alone where it gives
    none; a part that is exactly none reads ``0``, as the decisions' table prints no loss
    (:func:`core.report.loss_cell`), not ``+0.0``."""
    tenths = parts_in_tenths(start, end, parts, fixed, shown)
    if tenths is None:
        texts = [_pp(x) for x in parts]
    else:
        texts = [_pp(x) if i == fixed else f"{'+' if t >= 0 else ''}{rounded(Fraction(t, 10), 1)}"
                 for i, (t, x) in enumerate(zip(tenths, parts))]
    return ["0" if x == 0 and text.lstrip("+-") in ("0.0", "0") else text for x, text in zip(parts, texts)]


def _win_row(number: int, d: Decision, kept: KeptGame) -> list[Any]:
    """A row of the win-chance table: the chance as every table shows one (:func:`advise.words.chance_cell`:
    one decimal, a chance short of certain never reads ``100.0%``, a certainty reads ``0%`` or
    ``100%``), the loss in percentage points from the exact value (:func:`core.report.loss_cell`:
    ``0`` for none, ``<0.1`` for a loss that rounds to none, as the total prints it)."""
    return [number, d.round, d.kind, describe_dice(d, kept).replace(" left)", ")"), d.chosen, d.best,
            chance_cell(d.chosen_value, 1), loss_cell(d.loss * 100, 1), severity(d.loss)]


def _record(i: int, d: Decision, kept: KeptGame, win: bool = False) -> dict[str, Any]:
    """The JSON record of decision ``i`` (0-based); ``win`` adds the win-chance fields (D20)."""
    record: dict[str, Any] = {
        "number": i + 1, "round": d.round, "decision": d.kind, "dice": describe_dice(d, kept).split()[0],
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


def _costliest_notes(result: Review, kept: KeptGame, costly: tuple[int, ...],
                     loss_text: Callable[[Fraction], str]) -> list[str]:
    """The notes listing the costliest decisions (positions ``costly``), each loss worded by
    ``loss_text`` (points, or percentage points of win chance)."""
    notes = ["Costliest decisions:" if costly else "No decision lost anything: every choice ties the best."]
    notes += [f"round {d.round}, {d.kind} with {describe_dice(d, kept)}: chose {d.chosen}, best {d.best}, "
              f"loss {loss_text(d.loss)}" for d in (result.decisions[i] for i in costly)]
    return notes


def review_report(result: Review, kept: KeptGame, threshold: Fraction, game: int = 1) -> Report:
    """The report of ``shelfie-solve review`` (one row per decision; summary above, the five
    costliest below); ``game`` is the file's game reviewed, counted from 1 (``--game``)."""
    if result.win:
        return _win_report(result, kept, threshold, game)
    decisions = result.decisions
    title = [f"Review of {result.player} (seat {result.seat + 1}) in game {game}, objective {result.objective}: "
             f"{len(decisions)} decision{'s' if len(decisions) != 1 else ''} in {result.turns} "
             f"turn{'s' if result.turns != 1 else ''}",
             f"Mean loss per decision {decimal(result.mean_loss)} = {exact(result.mean_loss)}; "
             f"per turn {decimal(result.mean_loss_per_turn)}; total {total_loss_text(result)}",
             f"Decisions losing more than {decimal(threshold)}: {result.over(threshold)}"]
    if result.unchecked:
        title.append(f"Not reviewed: {result.unchecked} turn(s) entered without dice (unchecked).")
    headers = ["#", "round", "decision", "dice", "chosen", "best", "chosen value", "best value", "loss"]
    rows = [_row(i + 1, d, kept) for i, d in enumerate(decisions)]
    costly = result.costliest(5)
    notes = _costliest_notes(result, kept, costly, decimal)
    notes.append("Values: expected objective value with optimal play afterwards (holds), the objective's value "
                 "(markings), the change of line potential (shelves, D13). Loss = best - chosen.")

    records = [_record(i, d, kept) for i, d in enumerate(decisions)]
    data = {"game": game, "player": result.player, "seat": result.seat + 1, "objective": result.objective,
            "decisions": records, "turns": result.turns, "unchecked": result.unchecked,
            "summary": _summary(result, threshold, records, costly)}
    # within 80 columns: the round is also in the costliest list, the best value is chosen + loss
    return Report(title, headers, rows, data, notes, records, narrow=["round", "best value"])


def _chance_line(result: Review) -> str:
    """The title's line of how the chance to win moved: from the first turn's start to now (or the
    end), the figures ``play status`` prints then (:attr:`Review.start_shown`, ``end_shown``), split
    into luck, decisions, the others' turns and, after turns told without dice, those turns
    (docs/review.md); before the player's first turn, the figure now and why nothing is split."""
    moment = "at the end" if result.result is not None else "now"
    end = result.result if result.result is not None else result.curve[-1].value if result.curve else None
    if result.start is None:
        if end is None:
            return (f"Chance to win: no figure yet: {result.player} has not played a turn, and the curve starts at "
                    "the first")
        return (f"Chance to win: {chance_text(end, result.end_shown)} {moment}; {result.player} has not played a turn "
                "yet, so there is no curve to split into luck, decisions and the others' turns")
    end = result.start if end is None else end
    parts = [result.luck, -result.total_loss, result.others]
    told = result.told is not None and result.unchecked > 0
    if told and result.told is not None:
        parts.append(result.told)
    texts = _parts_text(result.start, end, parts, fixed=1, shown=(result.start_shown, result.end_shown))
    line = (f"Chance to win: {chance_text(result.start, result.start_shown)} at the first turn, "
            f"{chance_text(end, result.end_shown)} {moment}: luck (the dice) {texts[0]} percentage points, "
            f"decisions {texts[1]}, the others' turns {texts[2]}")
    return line + (f", the turns told without dice {texts[3]}" if told else "")


def _win_report(result: Review, kept: KeptGame, threshold: Fraction, game: int) -> Report:
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
            f"{name} {score}" for name, score in zip(kept.players, kept.scores())))
    title.append(_chance_line(result))
    title.append(f"Decisions losing win chance: {counts['inaccuracy']} inaccurac{'y' if counts['inaccuracy'] == 1 else 'ies'} "
                 f"(>= {float(INACCURACY) * 100:.0f} percentage points), {counts['mistake']} mistake"
                 f"{'s' if counts['mistake'] != 1 else ''} (>= {float(MISTAKE) * 100:.0f}), {counts['blunder']} "
                 f"blunder{'s' if counts['blunder'] != 1 else ''} (>= {float(BLUNDER) * 100:.0f}); total loss "
                 f"{total_loss_text(result)} percentage points; {result.over(threshold)} losing more than "
                 f"{float(threshold) * 100:g} (--threshold)")
    if result.unchecked:
        title.append(f"Not reviewed: {result.unchecked} turn(s) entered without dice (unchecked).")
    headers = ["#", "round", "kind", "dice", "chosen", "best", "chance", "loss", "class"]
    narrow = ["round"]  # the table within 80 columns: the round is also in the costliest list
    rows = [_win_row(i + 1, d, kept) for i, d in enumerate(decisions)]
    costly = result.costliest(5)
    notes = _costliest_notes(result, kept, costly, lambda loss: f"{loss_cell(loss * 100, 1)} percentage points of win chance")
    notes.append("chance: the chance to win after the choice made (holds: with the best play afterwards); loss: "
                 "the best choice's chance minus it, in percentage points; class: docs/review.md.")

    records = [_record(i, d, kept, win=True) for i, d in enumerate(decisions)]
    data = {"game": game, "player": result.player, "seat": result.seat + 1, "objective": result.objective,
            "unit": "win chance", "decisions": records, "turns": result.turns, "unchecked": result.unchecked,
            "result": exact(result.result) if result.result is not None else None,
            "start": exact(result.start) if result.start is not None else None,
            "start_shown": result.start_shown, "end_shown": result.end_shown,
            "luck": exact(result.luck), "luck_float": float(result.luck),
            "others": exact(result.others), "others_float": float(result.others),
            "told": exact(result.told) if result.told is not None else None,
            "told_float": float(result.told) if result.told is not None else None,
            "curve": [{"round": p.round, "what": p.what, "win_chance": exact(p.value),
                       "win_chance_float": float(p.value), "shown": p.shown} for p in result.curve],
            "summary": _summary(result, threshold, records, costly, counts)}
    return Report(title, headers, rows, data, notes, records, narrow=narrow)


def progress_summary(result: Review) -> dict[str, Any]:
    """The running difference to the best of one player so far, as ``serve``'s page shows it
    (docs/serve.md, ``GET /api/review``): the player's name and 1-based seat, the decisions reviewed,
    the turns and those not reviewed (unchecked), the total and mean loss as exact ``"p/q"`` and
    float (in the objective's units; a probability for the chance to win, D20), the total loss
    as the review's summary prints it (``total_loss_shown``, :func:`total_loss_text`: the page
    shows this text, never its own rounding of the float), and the last decision (its kind,
    choice, best and loss) or ``None``."""
    last = result.decisions[-1] if result.decisions else None
    return {"player": result.player, "seat": result.seat + 1, "decisions": len(result.decisions),
            "turns": result.turns, "unchecked": result.unchecked,
            "total_loss": exact(result.total_loss), "total_loss_float": float(result.total_loss),
            "total_loss_shown": total_loss_text(result),
            "mean_loss": exact(result.mean_loss), "mean_loss_float": float(result.mean_loss),
            "last": None if last is None else {
                "kind": last.kind, "chosen": last.chosen, "best": last.best,
                "loss": exact(last.loss), "loss_float": float(last.loss)}}
