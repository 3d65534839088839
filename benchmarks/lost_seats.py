"""How often a seat that can no longer win sits beside a turn valued by the joint model in 3- and
4-player games of ``win`` on the default board, and how far leaving it out of the softmax
(``win_model.without_lost``) moves the mover's start value there (docs/win-chance.md, "A seat
that can no longer win stays at an exact 0"): a seat out at the turn's start (its score final
below another seat's score now: ``win_chance.lost_seats``, D18-D20), and a seat that the
mover's own marking puts out at a terminal (``win_chance.lost_bounds``, ``lost_at``: its best
final score below the mover's new score where the mover's game is over, D17, D18).

For every played turn of every game (``SeedSequence(seed).spawn(2)[k].spawn(games)``, k = 0 for
3 players, 1 for 4) whose value is the model's (not :func:`win_chance.exact_objective` nor
:func:`win_chance.decided_objective`), the one-turn engine's start value under ``win`` three
ways: every seat counted (``lost`` empty, as before the lost-seat rule), the seats out at the
turn's start left out at every terminal (the rule before the per-terminal one: their bounds
:data:`win_chance.NO_LOW`), and the rule as it is (per terminal). Reported, in points:

* start: the turns with a seat out at their start, the second minus the first;
* terminal: the turns where some terminal not settled exactly (``WinObjective.settled``: an
  item set of the mover's sheet marked, or a shelf given up, D13) puts an opponent out that was
  not out at the start, the third minus the second.

A measurement, not a test. Run: ``python benchmarks/lost_seats.py [--games 300] [--seed 18136]``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from shelfie_solver.dice.board import item_sets, load_board
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.objective import scores
from shelfie_solver.dice.learned.win_model import WinObjective, lost_columns, lost_rows, win_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.sheet_rules import end_trigger_shelves
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.win_chance import NO_HIGH, NO_LOW, decided_objective, exact_objective


def start_rule(state: GameState) -> np.ndarray:
    """``int64 (J, 2)``: the bounds that leave out the seats out at the turn's start
    (:func:`win_model.lost_columns`) at every terminal, and no other."""
    out = np.full((state.players - 1, 2), NO_HIGH, dtype=np.int64)
    out[[c - 1 for c in lost_columns(state)]] = NO_LOW
    return out


def terminal_puts_out(objective: WinObjective, state: GameState, before: np.ndarray) -> bool:
    """Whether some terminal of the turn whose value is the model's (not settled) has an opponent
    out under :attr:`WinObjective.lost` that ``before`` (:func:`start_rule`) counts."""
    board, rules = state.board, state.rules
    arrays = StateArrays(board, rules, state.marks)
    m, a, mp, ap = arrays.line_totals
    sets = item_sets(board, rules.combinations_per_turn)
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    count = chosen.line_count
    shelves, gm, ga, gmp, _ = objective._give_up_totals(arrays)
    totals = [(m + count, a - count, mp + chosen.line_points)]
    if shelves:
        totals.append((gm, ga, gmp))
    for after_m, after_a, after_mp in totals:
        final = scores(after_m, after_mp, rules.scoring_threshold)
        distance = end_trigger_shelves(board, rules) - (after_a[:, : board.n_shelves] == 0).sum(axis=1)
        over = objective.game_over(distance)
        free = objective.settled(arrays, after_m, after_a, after_mp) < 0
        now, then = lost_rows(objective.lost, final, over), lost_rows(before, final, over)
        if now is not None and then is not None and (now & ~then)[free].any():
            return True
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per number of players")
    parser.add_argument("--seed", type=int, default=18136)
    args = parser.parse_args()
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    for players, seq in zip((3, 4), np.random.SeedSequence(args.seed).spawn(2), strict=True):
        start = time.process_time()
        turns, model_turns, moves = 0, 0, {"start": [], "terminal": []}
        for child in seq.spawn(args.games):
            played = play_seeded(board, rules, [strategy_named("win")] * players, child)
            for entry in played.played_turns():
                state = entry[0]
                turns += 1
                if not state.marks.has_available or exact_objective(state) is not None \
                        or decided_objective(state) is not None:
                    continue
                model_turns += 1
                objective = win_objective(state)
                before = start_rule(state)
                at_start = bool(lost_columns(state))
                at_terminal = terminal_puts_out(objective, state, before)
                if not at_start and not at_terminal:
                    continue

                def start_value(lost: np.ndarray) -> float:
                    value = solve_turn(board, state.marks, rules, replace(objective, lost=lost)).start_values()[0]
                    return float(value) * 100

                old = start_value(before)
                if at_start:
                    moves["start"].append(old - start_value(np.zeros((0, 2), dtype=np.int64)))
                if at_terminal:
                    moves["terminal"].append(start_value(objective.lost) - old)
        print(f"{players} players, {args.games} games: {turns} turns, {model_turns} valued by the model; "
              f"{time.process_time() - start:.0f} CPU s")
        for kind, found in moves.items():
            m = np.array(found) if found else np.zeros(1)
            print(f"  {kind}: {len(found)} model turns ({100 * len(found) / turns:.1f}% of turns); the start "
                  f"value moves by {m.mean():.2f} points on average, at most {m.max():.2f} (least {m.min():.2f}), "
                  f"more than 1 point at {(m > 1).sum()}")


if __name__ == "__main__":
    main()
