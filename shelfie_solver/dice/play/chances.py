"""Every seat's chance to win at a moment of a game kept by ``play`` (D20): ``play status
--format json`` gives each sheet its ``win_chance`` (docs/play.md, "Advice that knows the game").

One position, one figure: at the start of a turn the chances are those of the turn that just
ended, the value its player's advice gave the choice made (the marking or the shelf given up,
:func:`after_turn_chances`), so the chance shown for a marking is the chance ``play status``
shows right after it is recorded; within a turn they are the active player's values through the
one-turn engine (:func:`seat_chances`). The seats always add up to 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from shelfie_solver.dice.board import ItemSets, item_sets, score
from shelfie_solver.dice.game.events import Event, Fail, GameState
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, win_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.win_chance import best_score_range, last_seat_shares, lost_seats, share

#: The objective of every figure here: the model's chance with any number of players, exact on
#: the turns :mod:`win_chance` covers (the objective ``play``'s advice uses, ``win``).
CHANCE_OBJECTIVE = "win-model"


def seat_chances(state: GameState, dice: Any = None, rerolls_left: int = 0) -> list[tuple[Fraction, bool]]:
    """Every seat's chance to win now (D20), in seat order, each with whether it is exact: the
    active player's from the engine under ``win-model`` (exact where :mod:`win_chance` applies) at the
    start of the turn (``dice`` None), after a roll with ``rerolls_left``, or with final dice (the
    value the advice shows, exact where every final roll it reaches is: :func:`advice.shown_turn`);
    the others share the rest (:func:`share_the_rest`). Empty alone."""
    from shelfie_solver.dice.advise.advice import failed_options, failed_value, rank_markings, ranked_shelves, shown_turn
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.objective_names import advice_objective

    if state.players < 2:
        return []
    decided = decided_chances(state)
    if decided is not None:
        return decided
    board, rules = state.board, state.rules
    objective = advice_objective(CHANCE_OBJECTIVE, state)
    exact_flag = bool(getattr(objective, "win_chance_exact", False))
    if not state.marks.available:
        mine = Fraction(objective.failed_value(StateArrays(board, rules, state.marks)), objective.scale(rules))
    elif dice is None or rerolls_left > 0:  # the value shown, exact where every roll it reaches is
        solution = solve_turn(board, state.marks, rules, objective)
        shown = shown_turn(board, state.marks, rules, objective, solution)
        if shown is not None:
            mine, exact_now = shown.start() if dice is None else shown.roll(dice, rerolls_left)
            exact_flag = exact_flag or exact_now
        else:
            mine = solution.start_values()[0] if dice is None else solution.roll_value(dice, rerolls_left)
    else:
        options = rank_markings(dice, board, state.marks, rules, objective)
        if options:
            mine = options[0].value  # the exact Fraction where the marking's value is exact
            exact_flag = bool(options[0].exact) if options[0].exact is not None else exact_flag
        else:  # a failed result (D13): the best shelf's value, exact where giving it up ends it (D17)
            arrays = StateArrays(board, rules, state.marks)
            failed = ranked_shelves(failed_options(board, state.marks, rules), arrays, objective)
            mine = failed_value(objective, arrays, failed)
            exact_flag = bool(failed[0].exact) if failed and failed[0].exact is not None else exact_flag
    return share_the_rest(state, state.active, mine, exact_flag)


def decided_chances(state: GameState) -> list[tuple[Fraction, bool]] | None:
    """Every seat's exact share of the victory (D20), in seat order, where every final score is
    known in ``state`` (D18, D19): the end is triggered and each seat has no available item, has
    played its last turn (it plays before the active seat in the round) or cannot change its score
    in the one turn it has left (its best one-turn score, :func:`win_chance.best_score_range`, is
    its score now: scores never fall, D13, D15); else ``None`` (or alone)."""
    if state.players < 2 or not state.end_triggered:
        return None
    board, rules = state.board, state.rules
    scores = _scores(state)
    for j, sheet in enumerate(state.sheets):
        if not sheet.has_available or (j != state.active and not state.plays_later_this_round(j)):
            continue
        if best_score_range(board, rules, sheet)[1] != scores[j]:
            return None
    return [(share(s, scores[:j] + scores[j + 1:]), True) for j, s in enumerate(scores)]


def rest_final(state: GameState, seat: int) -> bool:
    """Whether every seat but ``seat`` has its score final once ``seat``'s game is over, seen at
    ``seat``'s turn in ``state`` (D18): each has no available item or, the end triggered in
    ``state`` (D17), plays before ``seat`` in the round, or has lost (:func:`win_chance.lost_seats`
    at ``seat``'s turn: it is never at the top, so its final score changes no share, D20). Only
    then does ``seat``'s exact 0 settle the others' figures (:func:`_settled_rest`): an exact 0
    may also come from another seat's score now while some seat that can still win plays
    (:func:`win_chance.settled_bounds`), or before the end is triggered from ``seat``'s ceiling
    below another seat's score (:func:`win_chance.decided_objective`: its game goes on, and so
    does every other seat's, D18)."""
    left = [j for j in range(state.players) if j != seat and state.sheets[j].has_available
            and (not state.end_triggered or state.place(j) > state.place(seat))]
    if not left:
        return True
    lost = lost_seats(replace(state, active=seat), _scores(state))
    return all(j in lost for j in left)


def after_turn_chances(before: GameState, action: Event, now: GameState) -> list[tuple[Fraction, bool]]:
    """Every seat's chance to win in ``now``, right after the turn that started in ``before``
    ended with ``action`` (a :class:`Mark`, an :class:`UncheckedMark` or a :class:`Fail`): its
    player's chance is the value the advice of that turn gives the choice made, under the same
    objective (``win``: :func:`objective_names.advice_objective`), the others share the rest
    (:func:`share_the_rest` in ``now``). Empty alone."""
    from shelfie_solver.dice.advise.advice import exact_chances, exact_shelf_chances, exact_shelves
    from shelfie_solver.dice.objective_names import advice_objective

    if before.players < 2:
        return []
    decided = decided_chances(now)
    if decided is not None:
        return decided
    board, rules = before.board, before.rules
    objective = advice_objective(CHANCE_OBJECTIVE, before)
    arrays = StateArrays(board, rules, before.marks)
    exact_flag = bool(getattr(objective, "win_chance_exact", False))
    scale = objective.scale(rules)
    if isinstance(action, Fail):
        shelf_values = getattr(objective, "shelf_values", None)
        worth = dict(shelf_values(arrays)) if callable(shelf_values) else {}
        mine = Fraction(worth.get(action.shelf, objective.failed_value(arrays)), scale)
        chances = exact_shelf_chances(objective, arrays)
        if chances is not None and action.shelf in chances:  # it ends the game (D13, D17): exactly
            mine, exact_flag = chances[action.shelf], True
        elif chances is None and action.shelf in (exact_shelves(objective, arrays) or ()):
            exact_flag = True
    else:
        cells = tuple(getattr(action, "cells"))
        one = _item_set(before, cells)
        mine = Fraction(int(objective.values(arrays, one)[0]), scale)
        exact = exact_chances(objective, arrays, one)  # the advice's own figure (rank_markings)
        exact_of = getattr(objective, "exact_markings", None)
        if exact is not None:
            exact_flag = exact[0] is not None
            mine = exact[0] if exact[0] is not None else mine
        elif callable(exact_of):
            exact_flag = bool(exact_of(arrays, one)[0])
    final = rest_final(now, before.active)  # (the sheets and the end trigger after the turn: D15, D17)
    if before.players > 2 and now.active != before.active:
        return _with_next_roller(now, before.active, mine, exact_flag, final)
    return share_the_rest(now, before.active, mine, exact_flag, final)


def _with_next_roller(now: GameState, seat: int, mine: Fraction, exact_flag: bool,
                      final: bool) -> list[tuple[Fraction, bool]]:
    """Three or more players, right after ``seat``'s turn: ``seat``'s chance ``mine``, the seat
    about to roll its own value of this position (the engine's start value under its objective,
    :func:`seat_chances`; when ``mine`` is above the roller's view of ``seat``, the roller and the
    rest share ``1 - mine`` in the proportions of the roller's view instead), the others sharing what remains in
    proportion to the model (:func:`share_the_rest`). So the seat about to roll sees, before it
    rolls, the figure shown for it here: one probability of the position at the hand-off
    (docs/win-chance.md measures the gap this closes). ``final``: :func:`rest_final` of ``seat``'s turn."""
    roller = now.active
    view = seat_chances(now)  # the roller's own view: its value, the others sharing the rest
    if all(flag for _, flag in view) and view[seat][0] == mine:  # the whole position exact, and seat's
        return view  # figure among it (the last seat to decide, _last_seat_shares)
    own, own_exact = view[roller]
    rest = [j for j in range(now.players) if j not in (seat, roller)]
    # the roller and the rest share what seat leaves; when seat's figure is above the roller's
    # view of it, the roller's view leaves them too little, and both are scaled down in the
    # roller's proportions (never a model 0 for the rest: docs/win-chance.md)
    viewed = own + sum((view[j][0] for j in rest), Fraction(0))
    theirs = min(own, (1 - mine) * own / viewed) if viewed else min(own, 1 - mine)
    out = share_the_rest(now, seat, mine, exact_flag, final)
    live = [j for j in rest if not (out[j][1] and out[j][0] == 0)]  # not lost (lost_seats): no share
    if own_exact and own == 0:  # the roller cannot win whatever it rolls (its own exact 0): shown so,
        theirs = Fraction(0)  # not as a model 0 the floor lifts from seat's figure
        out[roller] = (theirs, True)
    elif not live:  # only seat and the roller can still win: the roller has the rest
        theirs = 1 - mine
        out[roller] = (theirs, exact_flag)
    else:  # exact only as the roller's own value: a figure scaled to fit seat's is not
        out[roller] = (theirs, own_exact and exact_flag and theirs == own)
    left = 1 - mine - theirs  # shared by the live rest (none: _sole_chance makes seat the exact 1)
    weights = {j: out[j][0] for j in live}
    total = sum(weights.values(), Fraction(0))
    for j in live:
        out[j] = (left * weights[j] / total if total else left / len(live), False)
    return _settled_rest(out, seat, _scores(now), final)


def within_turn_chances(start: list[tuple[Fraction, bool]], seat: int, now: tuple[Fraction, bool],
                        scores: Sequence[int], final: bool = True) -> list[tuple[Fraction, bool]]:
    """Every seat's chance during ``seat``'s turn, three or more players: ``seat``'s own value
    ``now`` (the engine's, at the roll or re-roll of this moment), the others their figures of
    the turn's start (``start``, :func:`after_turn_chances`) scaled to share what ``seat``
    leaves, so that their order and ratios do not move while only ``seat``'s dice change; exact
    where ``seat``'s is exactly 1, or exactly 0 with ``final`` (:func:`rest_final`; every seat's
    score now ``scores``, :func:`_settled_rest`). A seat's exact 0 of the turn's start stays an
    exact 0: a chance settled at 0 stays 0 whatever the dice (D20), and is not shown as the
    model's ``<0.1%`` in the middle of the next turn."""
    mine, exact_flag = now
    rest = 1 - start[seat][0]
    out = list(start)
    out[seat] = (mine, exact_flag)
    others = [j for j in range(len(start)) if j != seat]
    for j in others:
        share = start[j][0] / rest if rest else Fraction(1, len(others))
        out[j] = ((1 - mine) * share, start[j][1] and start[j][0] == 0)
    return _settled_rest(out, seat, scores, final)


def _item_set(state: GameState, cells: tuple[int, ...]) -> ItemSets:
    """The one-row :class:`board.ItemSets` of the items ``cells`` (1 to ``combinations_per_turn``)."""
    sets = item_sets(state.board, state.rules.combinations_per_turn)
    row = np.array(tuple(sorted(cells)) + (-1,) * (sets.cells.shape[1] - len(cells)), dtype=np.int64)
    found = np.flatnonzero((sets.cells == row).all(axis=1))
    return sets.take(found[:1])


def share_the_rest(state: GameState, seat: int, mine: Fraction, exact_flag: bool,
                   final: bool | None = None) -> list[tuple[Fraction, bool]]:
    """``seat``'s chance ``mine`` and the others' shares of the rest, in seat order: with two
    players the other's is ``1 - mine`` (exact when ``mine`` is); with more, the rest is shared in
    proportion to the others' chances under the joint model (:mod:`learned.win_model`: one softmax
    over the seats) at ``state`` as right after ``seat``'s turn (an estimate; settled by
    :func:`_settled_rest` with ``final``, :func:`rest_final` of ``seat``'s turn, by default of
    ``state`` at ``seat``'s turn)."""
    board, rules, n = state.board, state.rules, state.players
    out: list[tuple[Fraction, bool]] = [(Fraction(0), False)] * n
    out[seat] = (mine, exact_flag)
    others = [j for j in range(n) if j != seat]
    if n == 2:
        out[others[0]] = (1 - mine, exact_flag)
        return out
    scores = _scores(state)
    lost = set(lost_seats(state, scores))
    live = [j for j in others if j not in lost]
    for j in lost & set(others):  # its model share is not a chance (lost_seats)
        out[j] = (Fraction(0), True)
    last = _last_seat_shares(state, seat, mine, exact_flag, live, scores)
    if last is not None:
        return last
    if live:  # (none: seat alone can still win, _sole_chance makes it the exact 1)
        # the joint model's chances of the live others at this position, as right after seat's turn
        every = win_objective(replace(state, active=seat)).every_chance(StateArrays(board, rules, state.sheets[seat]))
        raw = {j: Fraction(int(v), CHANCE_SCALE) for j, v in zip(others, every[1:]) if j not in lost}
        total = sum(raw.values(), Fraction(0))
        for j in live:
            out[j] = ((1 - mine) * raw[j] / total if total else (1 - mine) / len(live), False)
    return _settled_rest(out, seat, scores, rest_final(state, seat) if final is None else final)


def _last_seat_shares(state: GameState, seat: int, mine: Fraction, exact_flag: bool, live: list[int],
                      scores: list[int]) -> list[tuple[Fraction, bool]] | None:
    """Every seat's exact chance where ``seat``, the active seat with its exact chance ``mine``, is
    the last that can change the outcome: the end triggered (D17, D18) and every other seat that
    has not lost (``live``) on its final score (its last turn played, or no available item), which
    share what ``seat`` leaves by :func:`win_chance.last_seat_shares`; the lost seats 0; else
    ``None``."""
    if not (exact_flag and seat == state.active and state.end_triggered and live):
        return None
    if any(state.sheets[j].has_available and state.plays_later_this_round(j) for j in live):
        return None  # a seat still to play that can change the outcome
    shares = last_seat_shares({j: scores[j] for j in live}, mine)
    out = [(shares.get(j, Fraction(0)), True) for j in range(state.players)]
    out[seat] = (mine, True)
    return out


def _scores(state: GameState) -> list[int]:
    """Every seat's score now (D19), in seat order."""
    return [score(state.board, marks, state.rules) for marks in state.sheets]


def _settled_rest(chances: list[tuple[Fraction, bool]], seat: int, scores: Sequence[int],
                  final: bool) -> list[tuple[Fraction, bool]]:
    """``chances`` with the other seats' figures exact where ``seat``'s is exactly 0 or 1, given
    every seat's score now ``scores``: at 1 (a sole win, D20: a tie would count ``1/k``) every other
    seat's is 0; at 0 with three or more players, where every other seat's score is final
    (``final``, :func:`rest_final`: :class:`win_chance.LastTurnWin`, D18, or a marking that ends
    the game, D17), every other seat's is its share of the victory among the other seats' scores
    (:func:`win_chance.share`). So no certainty is shown as a model figure ("0% (model)",
    docs/play.md); else ``chances`` as they are (an exact 0 beside a seat still to play leaves
    the others' figures the model's: :func:`win_chance.settled_bounds`)."""
    from shelfie_solver.dice.win_chance import share

    mine, exact_flag = chances[seat]
    if not (exact_flag and mine == 0 and len(chances) >= 3 and final):
        return _sole_chance(chances)  # (seat's exact 1 among them: every other seat an exact 0)
    rest = [j for j in range(len(chances)) if j != seat]
    out = list(chances)
    for j in rest:
        out[j] = (share(scores[j], [scores[k] for k in rest if k != j]), True)
    return out


def _sole_chance(chances: list[tuple[Fraction, bool]]) -> list[tuple[Fraction, bool]]:
    """``chances`` with the one seat whose figure is not an exact 0, where every other seat's is,
    an exact 1 (the seats add up to 1: it wins with certainty, D20), and every seat beside an
    exact 1 an exact 0 (a sole certain winner: the roller's own exact 1 at a hand-off left the
    others a model 0, :func:`_with_next_roller`); the one seat whose figure is not exact, where
    every other seat's is, exact: it is ``1 -`` theirs (a tie settled at the top, D20: the
    mover's exact 1/2 beside the roller's exact 0 left the other half a model figure); else as
    they are."""
    sure = [j for j, (chance, exact_flag) in enumerate(chances) if exact_flag and chance == 1]
    if sure:
        return [(Fraction(1 if j == sure[0] else 0), True) for j in range(len(chances))]
    left = [j for j, (chance, exact_flag) in enumerate(chances) if not (exact_flag and chance == 0)]
    if len(left) == 1:
        return [(Fraction(1 if j == left[0] else 0), True) for j in range(len(chances))]
    loose = [j for j, (_, exact_flag) in enumerate(chances) if not exact_flag]
    if len(loose) != 1:
        return chances
    out = list(chances)
    out[loose[0]] = (1 - sum((c for j, (c, _) in enumerate(chances) if j != loose[0]), Fraction(0)), True)
    return out


def model_floor(chances: list[tuple[Fraction, bool]]) -> list[tuple[Fraction, bool]]:
    """``chances`` (every seat's chance and whether it is exact, adding up to 1) with every model
    figure at or above the model's floor: a model chance of 0 becomes ``1 / CHANCE_SCALE`` (the
    least the model gives a seat, :mod:`learned.win_model`), taken from the largest model figure,
    so the seats still add up to 1 and only an exact figure shows ``0%`` or ``100%``
    (docs/play.md). The figures here are shares of the rest, which can be 0 by arithmetic (a
    share of nothing), so a 0 is not taken as settled as the engine's own value is
    (:func:`advise.report.settled_chance`)."""
    out = list(chances)
    tiny = Fraction(1, CHANCE_SCALE)
    for j, (chance, exact_flag) in enumerate(out):
        if exact_flag or chance > 0:
            continue
        donors = [i for i, (c, e) in enumerate(out) if not e and c > 2 * tiny]
        if not donors:
            continue
        big = max(donors, key=lambda i: out[i][0])
        out[big] = (out[big][0] - tiny, False)
        out[j] = (tiny, False)
    return out
