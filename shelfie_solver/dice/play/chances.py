"""Every seat's chance to win at a moment of a game kept by ``play`` (D20): ``play status
--format json`` gives each sheet its ``win_chance`` (docs/play.md, "Advice that knows the game")."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, win_objective
from shelfie_solver.dice.objectives import StateArrays


def seat_chances(state: GameState, dice: Any = None, rerolls_left: int = 0) -> list[tuple[Fraction, bool]]:
    """Every seat's chance to win now (D20), in seat order, each with whether it is exact: the
    active player's from the engine under ``win-model`` (exact where :mod:`win_chance` applies) at the
    start of the turn (``dice`` None), after a roll with ``rerolls_left``, or with final dice; with
    two players the other's is the rest; with more, the others share the rest in proportion to
    the model's chance of each as if they had just played (an estimate). Empty alone."""
    from shelfie_solver.dice.advise.advice import rank_markings
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.objective_names import advice_objective

    n, me = state.players, state.active
    if n < 2:
        return []
    board, rules = state.board, state.rules
    objective = advice_objective("win-model", state)  # the model's chance with any number of players
    exact_flag = bool(getattr(objective, "win_chance_exact", False))
    if not state.marks.available:
        mine = Fraction(objective.failed_value(StateArrays(board, rules, state.marks)), objective.scale(rules))
    elif dice is None or rerolls_left > 0:
        solution = solve_turn(board, state.marks, rules, objective)
        mine = solution.start_values()[0] if dice is None else solution.roll_value(dice, rerolls_left)
    else:
        options = rank_markings(dice, board, state.marks, rules, objective)
        mine = options[0].value if options else Fraction(
            objective.failed_value(StateArrays(board, rules, state.marks)), objective.scale(rules))
    out: list[tuple[Fraction, bool]] = [(Fraction(0), False)] * n
    out[me] = (mine, exact_flag)
    others = [j for j in range(n) if j != me]
    if n == 2:
        out[others[0]] = (1 - mine, exact_flag)
        return out
    raw = {}
    for j in others:
        seen = replace(state, active=j)
        objective_j = win_objective(seen)
        m, a, mp, ap = StateArrays(board, rules, state.sheets[j]).line_totals
        raw[j] = Fraction(int(objective_j.chance_of(StateArrays(board, rules, state.sheets[j]), m[None], a[None],
                                                     mp[None], ap[None])[0]), CHANCE_SCALE)
    total = sum(raw.values(), Fraction(0))
    for j in others:
        out[j] = ((1 - mine) * raw[j] / total if total else (1 - mine) / len(others), False)
    return out
