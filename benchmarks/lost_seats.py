"""How often a seat that can no longer win (its score final below another seat's score now:
``win_chance.lost_seats``, D18-D20) sits beside a turn valued by the joint model in 3- and
4-player games of ``win`` on the default board, and how far leaving it out of the softmax
(``win_model.without_lost``) moves the mover's start value there (docs/win-chance.md, "A seat
that can no longer win stays at an exact 0").

For every played turn of every game (``SeedSequence(seed).spawn(2)[k].spawn(games)``, k = 0 for
3 players, 1 for 4) whose value is the model's (not :func:`win_chance.exact_objective` nor
:func:`win_chance.decided_objective`) and where :func:`win_model.lost_columns` is not empty: the
one-turn engine's start value under ``win`` with the lost seats left out, minus the same with
them counted (``lost=()``, as before 2026-12-07), in points.

A measurement, not a test. Run: ``python benchmarks/lost_seats.py [--games 300] [--seed 18122]``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.win_model import lost_columns, win_objective
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.win_chance import decided_objective, exact_objective


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per number of players")
    parser.add_argument("--seed", type=int, default=18122)
    args = parser.parse_args()
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    for players, seq in zip((3, 4), np.random.SeedSequence(args.seed).spawn(2), strict=True):
        start = time.process_time()
        turns, moves = 0, []
        for child in seq.spawn(args.games):
            played = play_seeded(board, rules, [strategy_named("win")] * players, child)
            for entry in played.played_turns():
                state = entry[0]
                turns += 1
                if not state.marks.has_available or exact_objective(state) is not None \
                        or decided_objective(state) is not None or not lost_columns(state):
                    continue
                objective = win_objective(state)
                left_out = solve_turn(board, state.marks, rules, objective).start_values()[0]
                counted = solve_turn(board, state.marks, rules, replace(objective, lost=())).start_values()[0]
                moves.append(float(left_out - counted) * 100)
        m = np.array(moves) if moves else np.zeros(1)
        print(f"{players} players, {args.games} games: {turns} turns, {len(moves)} model turns beside a lost seat "
              f"({100 * len(moves) / turns:.1f}%); the start value moves by {m.mean():.2f} points on average, "
              f"at most {m.max():.2f}, more than 1 point at {(m > 1).sum()}; {time.process_time() - start:.0f} CPU s")


if __name__ == "__main__":
    main()
