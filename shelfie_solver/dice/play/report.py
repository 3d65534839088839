"""What ``shelfie-solve play`` shows: the sheets, the advice of the current step, what an action
did, the final table (as :class:`core.report.Report`, so every format comes from one content)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from shelfie_solver.dice.advise.advice import Advice, advise, ends_on_every_sheet
from shelfie_solver.dice.board import Board, CellState, Marks, line_points, score_breakdown
from shelfie_solver.dice.rolls import dice_codes
from shelfie_solver.dice.game.events import (
    Block,
    EndTriggered,
    Event,
    Fail,
    GameOver,
    Hold,
    Mark,
    Pass,
    Roll,
    Stop,
    UncheckedMark,
)
from shelfie_solver.core.report import (
    Report,
    cut_to_width,
    decimal,
    display_width,
    exact,
    pad_to_width,
    possessive,
    printable,
)
from shelfie_solver.dice.advise.words import chance_cell, chance_cells, hold_words
from shelfie_solver.dice.advise.report import advice_report
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import failed_result_shelves
from shelfie_solver.dice.play.gamefile import PLAY_OBJECTIVE, KeptGame, objective_for, split_actions, warnings
from shelfie_solver.dice.objective_names import own_table_line


def step_advice(kept: KeptGame, objective: str) -> Advice | None:
    """The advice of the current step: holds with re-rolls left, markings (or the shelves of a
    failed result, D13) with final dice; ``None`` before the roll or after the game. Kept for the
    last few steps (an :class:`Advice` is immutable), by the win model in use too
    (:func:`win_model.chosen_win_model`): ``serve``'s state shows the advice and every seat's
    chance (:func:`table_chances`), one engine run for both."""
    from shelfie_solver.dice.learned.win_model import win_model_in_use

    return _step_advice(kept, objective, win_model_in_use())


@lru_cache(maxsize=8)
def _step_advice(kept: KeptGame, objective: str, model: object) -> Advice | None:
    """:func:`step_advice` under the win model ``model`` (only its cache key: it is the one in
    use, :func:`win_model.win_model_in_use`; a :class:`WinModel` hashes by identity)."""
    if kept.over is not None or kept.dice is None:
        return None
    state = kept.state
    return ends_on_every_sheet(advise(kept.dice, kept.board, state.marks, kept.rules,
                                      objective_for(objective, state), kept.rerolls_left), state)


def best_mark_note(kept: KeptGame, objective: str) -> list[str]:
    """What ``play mark GAME --best`` adds when re-rolls are left and the advice is to re-roll:
    marking now is stopping (D7), so one line names the advised hold and both values in the
    table's rounding (the chance to win in percent, else the value as its table shows it), e.g.
    ``note: the advice was to re-roll (keep PPAJ: 38.3%); marking now: 37.2%``. Empty with no
    re-roll left (or after a stop), before the roll, or when the best hold is stopping."""
    if kept.over is not None or kept.dice is None or not kept.rerolls_left:
        return []
    advice = step_advice(kept, objective)
    dice = kept.rules.dice
    if advice is None or not advice.holds or sum(advice.holds[0].keep) == dice:
        return []
    show = chance_cell if advice.win_chance_exact is not None else decimal
    best = advice.holds[0]
    stop = next(h for h in advice.holds if sum(h.keep) == dice)  # every hold is ranked, stopping too (D7)
    hold = hold_words(kept.dice, best.keep, kept.rules)
    return [f"note: the advice was to re-roll ({hold}: {show(best.value)}); marking now: {show(stop.value)}"]


def whose_turn(kept: KeptGame) -> str:
    """One line: the round, who is to play (no possessive: any name reads right), the dice
    showing (or "game over")."""
    over = kept.over
    if over is not None:
        return f"Game over after {over.rounds} round{'s' if over.rounds != 1 else ''} (D18)."
    state, rules = kept.state, kept.rules
    head = f"Round {state.round}, {kept.active_name} to play"
    if kept.dice is None:
        return f"{head}: roll the {rules.dice} dice (D6)."
    left = kept.rerolls_left
    if kept.stopped:
        return (f"{head}: dice {dice_codes(kept.dice, rules)}, stopped: 0 re-rolls left (D7; mark, or give up a "
                "shelf if nothing can be marked).")
    return (f"{head}: dice {dice_codes(kept.dice, rules)}, {left} re-roll{'s' if left != 1 else ''} left "
            f"({'hold or mark' if left else 'mark, or give up a shelf if nothing can be marked'}).")


def step_report(kept: KeptGame, objective: str, top: int | None = 10) -> Report:
    """The advice for the current step with the game's warnings, or the final table. Alone on a
    board whose ``learned`` plays its own table, the note that says so
    (:func:`objective_names.own_table_line`; JSON ``own_table``), as ``simulate`` says it."""
    if kept.over is not None:
        return final_report(kept)
    advice = step_advice(kept, objective)
    notes = warnings(kept)
    if advice is None:
        return Report([whose_turn(kept)], [], [], {"turn": turn_data(kept), "warnings": notes}, notes,
                      records=[turn_data(kept)])
    report = advice_report(advice, top, opponents=len(kept.players) > 1, names=kept.players, state=kept.state)
    report.title.insert(0, whose_turn(kept))
    report.notes = notes + report.notes
    if len(kept.players) == 1:  # alone, learned (and win) on a board of its own table says so, as simulate does
        own = own_table_line(objective, kept.board, kept.rules, kept.state)
        if own is not None:
            report.note(own, "own_table")  # JSON too: serve's page says it under its values
    report.data = {"turn": turn_data(kept), "warnings": notes, **report.data}
    return report


def action_report(kept: KeptGame, objective: str, done: list[str], top: int | None = 10) -> Report:
    """What a step of ``play`` (and a write of ``serve``) shows: ``done``, the lines of what the
    action did (:func:`describe`, :func:`undone_line`), above the advice of the next step or the
    final table (:func:`step_report`); JSON ``{"done": [...], ...}`` then the step's own keys."""
    report = step_report(kept, objective, top)
    return replace(report, title=told_once(done, kept) + report.title, data={"done": done, **report.data})


def told_once(done: list[str], kept: KeptGame) -> list[str]:
    """``done`` (:func:`describe`'s lines) to print above :func:`step_report` of ``kept``: once
    the game is over, without the game-over line, which the final table's title says (D18-D20),
    so the end is told once."""
    return [line for line in done if not line.startswith("Game over")] if kept.over is not None else done


def undone_line(before: KeptGame, count: int) -> str:
    """What an undo of the last ``count`` actions of ``before`` (the game before the undo) did, in
    one line naming what was taken back (:func:`action_words`): ``Undone: Ann's re-roll (kept CC,
    rolled PCCP).``; for 2 or 3 actions each, oldest first; for more the count and the last one.
    One wording for the step ``play undo``, the session's ``undo`` and the page's Undo."""
    actions = [action for _, action in split_actions(before.events)][-count:] if count > 0 else []
    named = [action_words(before, action) for action in actions]
    if not named:
        return f"Undone: {count} action{'s' if count != 1 else ''} taken back."
    if len(named) == 1:
        return f"Undone: {named[0]}."
    if len(named) <= 3:
        return f"Undone: {len(named)} actions, {'; '.join(named)}."
    return f"Undone: {len(named)} actions, the last {named[-1]}."


def action_words(kept: KeptGame, action: Sequence[Event]) -> str:
    """One input action (:func:`gamefile.split_actions`) of ``kept`` in a few words, whose first:
    ``Ben's roll CCBJPP`` (D6), ``Ann's re-roll (kept CC, rolled PCCP)`` (D7), ``Ann's stop``,
    ``Ann's marking r1c1 r2c2`` (D8; ``told`` when unchecked), ``Ann's failed result (shelf 3 given
    up)`` (D13)."""
    board, rules, names = kept.board, kept.rules, kept.players
    first = action[0]
    who = possessive(names[getattr(first, 'player', 0)])  # "my roll" for a player named me
    if isinstance(first, Hold) and len(action) > 1 and isinstance(action[1], Roll):
        rolled = tuple(d - k for d, k in zip(action[1].dice, first.keep))
        return f"{who} re-roll (kept {dice_codes(first.keep, rules) or 'nothing'}, rolled {dice_codes(rolled, rules)})"
    if isinstance(first, Roll):
        return f"{who} roll {dice_codes(first.dice, rules)}"
    if isinstance(first, Stop):
        return f"{who} stop"
    if isinstance(first, Mark):
        return f"{who} marking {_cells(board, first.cells)}"
    if isinstance(first, UncheckedMark):
        return f"{who} marking {_cells(board, first.cells)} (told, unchecked)"
    if isinstance(first, Fail):
        return f"{who} failed result (shelf {first.shelf + 1} given up)"
    return f"{who} {first.kind}"


def turn_data(kept: KeptGame) -> dict[str, Any]:
    """The turn as JSON: round, active player, dice, re-rolls left, end triggered (D17: the
    trigger has fired, so also once the game is over, which only a fired trigger ends, D18 —
    after the last turn the state kept is that turn's start), over."""
    state = kept.state
    return {"round": state.round, "player": kept.active_name, "seat": kept.active + 1,
            "dice": dice_codes(kept.dice, kept.rules) if kept.dice is not None else None,
            "rerolls_left": kept.rerolls_left if kept.dice is not None else None,
            "stopped": kept.stopped,
            "end_triggered": state.end_triggered or kept.over is not None, "over": kept.over is not None}


def describe(before: KeptGame, after: KeptGame, unstop: str = "'undo'", noted: Sequence[str] = ()) -> list[str]:
    """One line per event ``after`` added to ``before`` (what an action did), D-ids cited;
    ``unstop``: the words that take a stop back where it was typed (``reading.Forms.unstop``: the
    prompt's ``'undo'``, the step's ``play undo GAME 1``, the page's ``tap Undo``); ``noted``:
    lines about the action (:func:`best_mark_note`), after its first line, for the step, the
    prompt and the page alike."""
    board, rules, names = after.board, after.rules, after.players
    lines = []
    added = after.events[len(before.events):]
    if before.dice is not None and before.rerolls_left and added and isinstance(added[0], (Mark, Fail)):
        left = before.rerolls_left  # marking with re-rolls left is stopping first (D7)
        lines.append(f"{before.active_name} stopped with {dice_codes(before.dice, rules)} "
                     f"(D7: {left} re-roll{'s' if left != 1 else ''} left unused).")
    rolled = False  # a Roll among the added events: a failed result after it was checked against its dice
    for event in added:
        if isinstance(event, Hold):
            kept, again = dice_codes(event.keep, rules), rules.dice - sum(event.keep)
            lines.append(f"{names[event.player]} kept {kept} and re-rolled {again} {'die' if again == 1 else 'dice'} (D7)."
                         if kept else f"{names[event.player]} re-rolled all {again} dice (D7).")
        elif isinstance(event, Roll):
            rolled = True
            lines.append(f"{names[event.player]} rolled {dice_codes(event.dice, rules)} "
                         f"({event.rerolls_left} re-roll{'s' if event.rerolls_left != 1 else ''} left).")
        elif isinstance(event, Stop):
            dice = dice_codes(before.dice, rules) if before.dice is not None else ""
            lines.append(f"{names[event.player]} stops with {dice} (D7): the dice are final, a re-roll is refused "
                         f"(to take the stop back: {unstop}).")
        elif isinstance(event, Mark):
            lines.append(f"{names[event.player]} marked {_cells(board, event.cells)}.")
        elif isinstance(event, UncheckedMark):
            lines.append(f"{names[event.player]} marked {_cells(board, event.cells)} (unchecked: no dice recorded).")
        elif isinstance(event, Fail):
            told = " (unchecked: no dice recorded)" if before.dice is None and not rolled else ""
            lines.append(f"{names[event.player]}: failed result (D13), gave up shelf {event.shelf + 1}: "
                         f"{_cells(board, event.cells)} eliminated{told}.")
        elif isinstance(event, Block):
            lines.append(f"{names[event.by]} completed {board.line_name(event.line)}: {names[event.player]} "
                         f"loses {_cells(board, event.cells)} (blocked, D15).")
        elif isinstance(event, EndTriggered):
            who = ", ".join(names[s] for s in event.sheets)
            if any(isinstance(e, GameOver) for e in added):  # on the round's last turn: no round to play out
                lines.append(f"End triggered (D17): {who} closed enough shelves on the round's last turn, so the "
                             "game ends now (D18).")
            else:
                lines.append(f"End triggered (D17): {who} closed enough shelves; the round is played out (D18).")
        elif isinstance(event, Pass):
            lines.append(f"{names[event.player]} has no available item and passes.")
        elif isinstance(event, GameOver):
            lines.append(f"Game over (D18). Winner{'s' if len(event.winners) > 1 else ''}: "
                         f"{', '.join(names[w] for w in event.winners)} with {max(event.scores)} points (D19, D20).")
    lines[1:1] = noted
    return lines


def _cells(board: Board, cells: tuple[int, ...]) -> str:
    return " ".join(board.cell_name(c) for c in cells)


def sheet_grid(board: Board, rules: Ruleset, marks: Marks) -> list[str]:
    """A sheet drawn as text: each item's value, ``(v)`` marked, ``x`` eliminated, ``v``
    available; each line's points at the end of its shelf and under its column (D19)."""
    t = rules.scoring_threshold
    width = max(len(f"({v})") for row in board.values for v in row) + 1
    label = max(len(board.shelf_label(s, rules)) for s in range(board.n_shelves)) + 4
    head = " " * label + "".join(f"c{c + 1}".rjust(width) for c in range(board.n_columns)) + " | points"
    out = [head]
    for s in range(board.n_shelves):
        cells = []
        for c in range(board.n_columns):
            cell = board.cell(s, c)
            state, value = marks.state(cell), board.value(cell)
            text = f"({value})" if state is CellState.MARKED else "x" if state is CellState.ELIMINATED else str(value)
            cells.append(text.rjust(width))
        points = line_points(board, marks, board.lines[s], t)
        out.append(f"r{s + 1} {board.shelf_label(s, rules)}".ljust(label) + "".join(cells) + f" | {points}")
    cols = [line_points(board, marks, board.lines[board.n_shelves + c], t) for c in range(board.n_columns)]
    out.append("points".ljust(label) + "".join(str(p).rjust(width) for p in cols))
    return out


#: Widest player name :func:`compact_sheets` shows (longer names are cut), so four sheets fit
#: 80 columns on the default board.
COMPACT_NAME = 12


def compact_sheets(kept: KeptGame, heading: str = "") -> list[str]:
    """Every player's sheet side by side, one column each (``>`` before the active player): a
    row per shelf with its marks (``o`` marked, ``x`` eliminated, ``.`` available, as
    docs/formats.md) and its points, then the column points and the total (D19). On the default
    board four players fit in 80 columns. ``heading``: a word or two in the names' row, before
    the names (such as ``round 3``; cut to the shelf labels' width)."""
    board, rules = kept.board, kept.rules
    t = rules.scoring_threshold
    label = max(len(f"r{s + 1} {board.shelf_label(s, rules)}") for s in range(board.n_shelves)) + 1
    shelf_points = [[line_points(board, m, board.lines[s], t) for s in range(board.n_shelves)] for m in kept.sheets]
    digits = max(2, *(len(str(p)) for row in shelf_points for p in row))
    # names cut and padded by terminal columns, not characters: a CJK name keeps the grid aligned
    cut = [cut_to_width(printable(name), COMPACT_NAME) for name in kept.players]
    names = [("> " if seat == kept.active and kept.over is None else "") + name for seat, name in enumerate(cut)]
    # room for the marker on every name, so the columns stay put from turn to turn
    width = max(board.n_columns + 1 + digits, *(display_width(name) + 2 for name in cut)) + 2
    rows = [heading[:label - 1].ljust(label) + "".join(pad_to_width(n, width) for n in names)]
    for s in range(board.n_shelves):
        cells = [str(m).split("/")[s] + " " + str(points[s]).rjust(digits)
                 for m, points in zip(kept.sheets, shelf_points)]
        rows.append(f"r{s + 1} {board.shelf_label(s, rules)}".ljust(label) + "".join(c.ljust(width) for c in cells))
    breakdowns = [score_breakdown(board, m, rules) for m in kept.sheets]
    columns = [str(c).rjust(board.n_columns + 1 + digits) for _, c in breakdowns]
    totals = [str(sh + c).rjust(board.n_columns + 1 + digits) for sh, c in breakdowns]
    rows.append("columns".ljust(label) + "".join(c.ljust(width) for c in columns))
    rows.append("total".ljust(label) + "".join(c.ljust(width) for c in totals))
    return [r.rstrip() for r in rows]


def table_chances(kept: KeptGame) -> list[tuple[Fraction, bool]]:
    """Every seat's chance to win now and whether it is exact (D20): the shares of victory when
    the game is over; at a turn's start the figure the last turn's advice gave the choice made
    (:func:`chances.after_turn_chances`); within a turn the active player's value
    (:func:`chances.seat_chances`), with three or more players the others' figures of the turn's
    start scaled to the rest (:func:`chances.within_turn_chances`); a model figure never exactly 0 or 1
    (:func:`chances.model_floor`); empty alone. Kept for the last few games, by the win model in
    use (as :func:`step_advice`): ``serve``'s state and its running review of the same position
    (``review``'s figures, :func:`status_chance_texts`) ask it once."""
    if len(kept.players) < 2:
        return []
    from shelfie_solver.dice.learned.win_model import win_model_in_use

    return list(_chances_under(kept, win_model_in_use()))


@lru_cache(maxsize=8)
def _chances_under(kept: KeptGame, model: object) -> tuple[tuple[Fraction, bool], ...]:
    """:func:`table_chances` under the win model ``model`` (only its cache key: it is the one in
    use, :func:`win_model.win_model_in_use`)."""
    from shelfie_solver.dice.play.chances import model_floor

    return tuple(model_floor(list(_raw_chances_under(kept, model))))


@lru_cache(maxsize=8)
def _raw_chances_under(kept: KeptGame, model: object) -> tuple[tuple[Fraction, bool], ...]:
    """:func:`_table_chances` of ``kept`` under ``model`` (as :func:`_chances_under`), before the
    model's floor: kept, so that the game after the advised choice (:func:`_advised_end`) is
    computed once for the figures and once only for :func:`shown_elsewhere`'s comparison."""
    return tuple(_table_chances(kept))


def _table_chances(kept: KeptGame) -> list[tuple[Fraction, bool]]:
    over = kept.over
    if over is not None:
        from shelfie_solver.dice.win_chance import share

        return [(share(s, [t for j, t in enumerate(over.scores) if j != seat]), True)
                for seat, s in enumerate(over.scores)]
    from shelfie_solver.dice.play.chances import (
        after_turn_chances,
        decided_chances,
        rest_final,
        within_turn_chances,
    )

    decided = decided_chances(kept.state)  # every final score known: every seat's exact share (D20)
    if decided is not None:
        return decided
    advised = _advised_end(kept)
    if advised is not None:  # final dice, 3+ players: every seat as right after the advised choice
        from shelfie_solver.dice.learned.win_model import win_model_in_use

        after = _certain_only(kept, list(_raw_chances_under(advised, win_model_in_use())))
        if after is not None:
            return after
    within = kept.dice is not None
    start = after_turn_chances(*kept.last_turn, kept.state) \
        if kept.last_turn is not None and (not within or len(kept.players) > 2) else None
    if not within and start is not None:  # a turn's start: the figure of the turn before
        return start
    now = _step_chances(kept)
    if start is not None and len(kept.players) > 2 and not all(flag for _, flag in now):
        # the others keep their ratios of the turn's start (unless every figure is exact now:
        # the last seat to decide, chances._last_seat_shares)
        return within_turn_chances(start, kept.state.active, now[kept.state.active], kept.scores(),
                                   rest_final(kept.state, kept.state.active))
    return now


def _advised_end(kept: KeptGame) -> KeptGame | None:
    """With three or more players and final dice (no re-roll left, or stopped, D7): the game right
    after the advised marking, or the advised shelf given up on a failed result (D13), with the
    blocks, end trigger and game over it implies (:func:`gamefile.act`, D15-D18); else ``None``.
    Nothing random is left in the turn, so every seat's figure is its figure after the choice
    the mover's own figure assumes (:func:`chances.after_turn_chances`; the mover's is the same
    value): a failed result that closes the last seat's second shelf is the game over, every
    share exact (D20), not the turn start's ratios scaled to the rest."""
    from shelfie_solver.dice.play.gamefile import act

    if len(kept.players) < 3 or kept.dice is None or (kept.rerolls_left and not kept.stopped):
        return None
    advice = step_advice(kept, PLAY_OBJECTIVE)
    if advice is None:
        return None
    if advice.markings:
        action: tuple[Mark | Fail] = (Mark(kept.active, advice.markings[0].marking.cells),)
    elif advice.failed:
        shelf = advice.failed[0].shelf
        action = (Fail(kept.active, shelf, failed_result_shelves(kept.board, kept.state.marks)[shelf]),)
    else:
        return None
    return act(kept, action)


def _certain_only(kept: KeptGame, after: list[tuple[Fraction, bool]]) -> list[tuple[Fraction, bool]] | None:
    """The figures ``after`` the advised choice (:func:`_advised_end`) with only what is certain
    marked exact: another seat's exact figure there holds only under that choice, so it stays
    exact where every choice the final dice allow (each marking, or each shelf to give up, D13)
    leaves the same settled shares (the game over, or every final score known: D18, D20), or
    where the mover's own figure is an exact 1 (it wins whatever the others do; every figure
    assumes its best play); else the others' flags are dropped (model figures). Where the mover
    is out (its figure an exact 0: every choice is alike to it) and the choices leave different
    outcomes, the figures of the advised one are one pick among equals: ``None`` (the turn's
    start ratios apply instead, :func:`chances.within_turn_chances`). A seat shown an exact 0 at
    the turn's start (:func:`chances.after_turn_chances`) and an exact 0 after the choice
    keeps it: a chance settled at 0 stays 0 whatever the mover chooses (scores never fall, D13,
    D15, D20), as :func:`chances.within_turn_chances` keeps it within the turn (the turn's start
    figures are computed only on that branch)."""
    seat = kept.state.active
    mine, mine_exact = after[seat]
    others_exact = any(flag for j, (_, flag) in enumerate(after) if j != seat)
    if (mine_exact and mine == 1) or not (others_exact or (mine_exact and mine == 0)):
        return after
    if _every_choice_settles_alike(kept):
        return after
    if mine_exact and mine == 0:
        return None
    from shelfie_solver.dice.play.chances import after_turn_chances

    start = after_turn_chances(*kept.last_turn, kept.state) if kept.last_turn is not None else []
    settled = {j for j, (chance, flag) in enumerate(start) if flag and chance == 0}
    return [(chance, flag and (j == seat or (j in settled and chance == 0))) for j, (chance, flag) in enumerate(after)]


def _every_choice_settles_alike(kept: KeptGame) -> bool:
    """Whether every choice of the final dice (each legal marking, else each shelf that may be
    given up, D13) leaves the game over or decided (:func:`chances.decided_chances`) with the
    same shares for every seat (D18, D20)."""
    from shelfie_solver.dice.game.events import legal_sets
    from shelfie_solver.dice.play.chances import decided_chances
    from shelfie_solver.dice.play.gamefile import act
    from shelfie_solver.dice.win_chance import share

    assert kept.dice is not None
    board, marks, seat = kept.board, kept.state.marks, kept.active
    legal = legal_sets(kept.dice, board, marks, kept.rules)
    choices: list[tuple[Mark | Fail]] = [(Mark(seat, cells),) for cells in legal.all_cells()]
    if not choices:
        choices = [(Fail(seat, shelf, cells),) for shelf, cells in failed_result_shelves(board, marks).items()]
    seen: set[tuple[Fraction, ...]] = set()
    for choice in choices:
        now = act(kept, choice)
        if now.over is not None:
            final = now.over.scores
            shares = tuple(share(s, [t for j, t in enumerate(final) if j != k]) for k, s in enumerate(final))
        else:
            decided = decided_chances(now.state)
            if decided is None:
                return False
            shares = tuple(chance for chance, _ in decided)
        seen.add(shares)
        if len(seen) > 1:
            return False
    return True


def _step_chances(kept: KeptGame) -> list[tuple[Fraction, bool]]:
    """:func:`chances.seat_chances` of the step; with dice showing, from the advice of this step
    under ``win`` (its value is ``win-model``'s chance, the same engine run: :func:`step_advice`
    keeps it), the others sharing the rest (:func:`chances.share_the_rest`)."""
    from shelfie_solver.dice.play.chances import seat_chances, share_the_rest

    if kept.dice is not None:
        advice = step_advice(kept, PLAY_OBJECTIVE)
        if advice is not None and advice.win_chance_exact is not None:
            from shelfie_solver.dice.advise.report import first_exact

            flag = first_exact(advice)  # its best marking's or shelf's own flag (D17 ends exact)
            return share_the_rest(kept.state, kept.state.active, advice.value, flag)
    return seat_chances(kept.state, kept.dice, kept.rerolls_left if kept.dice is not None else 0)


def shown_elsewhere(kept: KeptGame) -> tuple[int, ...]:
    """The seats whose chance in :func:`table_chances` another screen shows on its own, so that
    ``play status`` prints them as that screen does (:func:`advise.words.chance_cells`'
    ``pinned``): the seat about to roll or rolling (its advice's value) and, at a turn's start,
    the player of the turn that just ended (the value its advice gave the choice made); with
    final dice, where the figures are those right after the advised choice (:func:`_advised_end`),
    the seats pinned there, so that both print the same texts. None once the game is over (the
    shares of victory)."""
    if kept.over is not None:
        return ()
    advised = _advised_end(kept)
    if advised is not None and table_chances(kept) == table_chances(advised):  # final dice: as after the choice
        return shown_elsewhere(advised)
    seats = [kept.state.active]
    if kept.dice is None and kept.last_turn is not None and kept.last_turn[0].active != kept.state.active:
        seats.insert(0, kept.last_turn[0].active)
    return tuple(seats)


def status_chance_texts(kept: KeptGame, chances: Sequence[tuple[Fraction, bool]] | None = None) -> list[str]:
    """Every seat's chance to win as ``play status`` prints it in its ``win chance`` column (before
    ``(exact)`` / ``(model)``): :func:`table_chances` rounded together so that the column adds up
    to 100% (:func:`advise.words.chance_cells`), the seats another screen shows on their own
    (:func:`shown_elsewhere`: the player who just moved, the seat rolling) printed as there. The
    one rounding of a seat's figure now: ``review``'s title (its start, "now" and "at the end",
    docs/review.md) prints these texts. E.g. a three-way tie at the end: ``33.4%``, ``33.3%``,
    ``33.3%``. ``chances``: :func:`table_chances` of ``kept`` when the caller has it. Empty alone."""
    chances = table_chances(kept) if chances is None else chances
    return chance_cells([chance for chance, _ in chances], pinned=shown_elsewhere(kept)) if chances else []


#: The column of ``play status``'s table with each seat's chance to win (:func:`status_report`).
WIN_CHANCE_HEADER = "win chance"


def win_chance_cell(chance: Fraction | str, exact_flag: bool) -> str:
    """A seat's chance to win in ``play status``'s table: as the advice prints a chance
    (:func:`advise.words.chance_cell`, one decimal, ``<0.1%`` / ``>99.9%`` short of a certainty;
    or the text given, one of :func:`advise.words.chance_cells`, every seat's rounded to add up
    to 100%) and ``exact`` or ``model``, as the advice's title says it (docs/play.md)."""
    text = chance if isinstance(chance, str) else chance_cell(chance)
    return f"{text} ({'exact' if exact_flag else 'model'})"


def status_report(kept: KeptGame, markdown: bool = False) -> Report:
    """Every sheet as a grid, the scores per seat (shelves, columns, total; D19) and, with two
    or more players, each seat's chance to win (D20; :func:`table_chances`, the one figure of the
    table's ``win chance`` column and of the JSON's ``win_chance``, printed as
    :func:`status_chance_texts`, the JSON's ``win_chance_shown``), whose turn, the round and the
    end-trigger state (D17, D18)."""
    board, rules, state = kept.board, kept.rules, kept.state
    title = [whose_turn(kept)]
    if state.end_triggered and kept.over is None:
        title.append("The end is triggered (D17): this is the last round (D18).")
    sheets = []
    for seat, (name, marks) in enumerate(zip(kept.players, kept.sheets)):
        shelves, columns = score_breakdown(board, marks, rules)
        grid = "\n".join([f"{name}: {shelves + columns} points ({shelves} from shelves, {columns} from columns)"]
                         + sheet_grid(board, rules, marks))
        title.append(f"```text\n{grid}\n```" if markdown else f"\n{grid}")
        sheets.append({"seat": seat + 1, "name": name, "marks": str(marks), "score": shelves + columns,
                       "shelf_points": shelves, "column_points": columns,
                       "closed_shelves": marks.closed_shelves()})
    chances = table_chances(kept)  # the one computation of both the JSON and the table
    texts = status_chance_texts(kept, chances)  # they add up to 100%
    for sheet, text, (chance, exact_flag) in zip(sheets, texts, chances):
        sheet.update({"win_chance": exact(chance), "win_chance_float": float(chance), "win_chance_exact": exact_flag,
                      "win_chance_shown": text})
    report = _score_table(kept)
    if chances:
        report.headers.append(WIN_CHANCE_HEADER)
        for row, record, text, (chance, exact_flag) in zip(report.rows, report.records or [], texts, chances):
            row.append(win_chance_cell(text, exact_flag))
            record.update({"win_chance": exact(chance), "win_chance_exact": exact_flag})
    report.title = title
    report.data = {"turn": turn_data(kept), "sheets": sheets, "warnings": warnings(kept)}
    report.notes = warnings(kept)
    return report


def _score_table(kept: KeptGame) -> Report:
    board, rules = kept.board, kept.rules
    over = kept.over
    winners = over.winners if over is not None else ()
    rows: list[list[Any]] = []
    records = []
    for seat, (name, marks) in enumerate(zip(kept.players, kept.sheets)):
        shelves, columns = score_breakdown(board, marks, rules)
        row = [seat + 1, name, shelves, columns, shelves + columns, marks.closed_shelves()]
        if over is not None:
            row.append("winner" if seat in winners else "")
        rows.append(row)
        records.append(dict(zip(["seat", "player", "shelves", "columns", "total", "closed_shelves", "result"], row)))
    headers = ["seat", "player", "shelves", "columns", "total", "closed shelves"] + (["result"] if over else [])
    return Report([], headers, rows, {}, [], records)


def final_report(kept: KeptGame) -> Report:
    """The final table (D19 scores, D20 winners) of a finished game."""
    over = kept.over
    assert over is not None
    report = _score_table(kept)
    names = [kept.players[w] for w in over.winners]
    report.title = [f"Game over after {over.rounds} round{'s' if over.rounds != 1 else ''} (D18).",
                    f"Winner{'s (shared victory, D20)' if len(names) > 1 else ''}: {', '.join(names)} "
                    f"with {max(over.scores)} points."]
    report.data = {"over": True, "rounds": over.rounds, "winners": names,
                   "players": [{"seat": r[0], "name": r[1], "shelf_points": r[2], "column_points": r[3],
                                "score": r[4]} for r in report.rows]}
    return report
