"""Every seat's figure ``play status`` flags exact at the turn starts of the last round, checked
against a rollout of the position (the rule of docs/win-chance.md "One seat left to decide" and
the other exact endings of D17, D18, D20).

Plays fresh ``win`` self-play games (``game.turn.play_seeded``, one child of ``SeedSequence(seed)``
per game) and, at each turn start after the end is triggered where the game is not yet decided
(``chances.decided_chances``) and every seat's figure (``report.table_chances``) is flagged exact,
plays the position out ``--playouts`` times with ``win`` in every seat (``rollout.run.rollout``,
the position only, no early stop) and prints, per seat, the exact figure against the rollout's
mean and 95% Wilson interval, one JSON line each; the last line counts the figures outside the
interval (widened by half a point for the interval's own rounding). About 1 in 20 figures falls
outside a 95% interval by chance alone.

Run: ``python benchmarks/exact_vs_rollout.py BOARD PLAYERS [--games 200] [--seed 18902]
[--positions 25] [--playouts 1500]``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.play.chances import decided_chances
from shelfie_solver.dice.play.gamefile import act, split_actions, start_kept_game
from shelfie_solver.dice.play.report import table_chances
from shelfie_solver.dice.rollout.run import rollout
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import strategy_named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("board")
    parser.add_argument("players", type=int)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=18902)
    parser.add_argument("--positions", type=int, default=25)
    parser.add_argument("--playouts", type=int, default=1500)
    args = parser.parse_args()
    board, rules = load_board(args.board, DEFAULT_RULES), DEFAULT_RULES
    checked = outside = 0
    for g, seed in enumerate(np.random.SeedSequence(args.seed).spawn(args.games)):
        played = play_seeded(board, rules, [strategy_named("win")] * args.players, seed)
        kept = start_kept_game(board, rules, tuple("ABCD"[:args.players]), played.events[0].first)
        for _, action in split_actions(played.events):
            kept = act(kept, action)
            if kept.over is not None or checked >= args.positions:
                break
            if kept.dice is not None or kept.last_turn is None or not kept.state.end_triggered:
                continue  # turn starts of the last round only
            if decided_chances(kept.state) is not None:
                continue
            chances = table_chances(kept)
            if not all(flag for _, flag in chances):
                continue
            result = rollout(kept, ("win",) * args.players, args.playouts, args.seed * 1000 + g, top=0,
                             early_stop=False)
            checked += 1
            for seat, ((chance, _), est) in enumerate(zip(chances, result.position)):
                inside = est.low - 0.005 <= float(chance) <= est.high + 0.005
                outside += not inside
                print(json.dumps({"game": g, "seat": seat, "exact": float(chance), "rollout": float(est.mean),
                                  "low": est.low, "high": est.high, "inside": inside}), flush=True)
        if checked >= args.positions:
            break
    print(f"{checked} positions, {outside} seat figures outside the rollout's 95% interval", flush=True)


if __name__ == "__main__":
    main()
