"""Small boards: each strategy's loss against the exact solitaire optimum (docs/strategies.md).

    python benchmarks/small_boards.py TABLE.json [--games N] [--seed S] [--players a,b,...]

TABLE.json is a value table from ``shelfie-solve solve-game --board B --save TABLE.json``; the
board and rules are the table's. For each strategy it plays N seeded solitaire games (the same
games as ``shelfie-solve simulate --board B --players P --games N --seed S``) and prints, as a
Markdown row: the mean score with its 95% interval, the loss per game (exact optimum minus the
mean), the mean number of decisions (holds incl. stopping early, markings, failed results) per
game, the mean exact loss per decision (:func:`values.decision_losses`) and the summed decision
losses per game with their 95% interval (an estimate of the loss per game with less noise).
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from shelfie_solver.dice.wholegame.values import decision_losses, load_table
from shelfie_solver.dice.game.record import game_from_json
from shelfie_solver.core.stats import estimate
from shelfie_solver.dice.simulate import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--players", default="solver,threshold,greedy")
    args = parser.parse_args()
    table = load_table(args.table)
    best = table.optimum
    print(f"board {table.board.name!r}: optimum {float(best):.4f} ({len(table.values):,} states), "
          f"{args.games} games, seed {args.seed}\n")
    print("| strategy | mean score [95%] | loss per game [95%] | decisions per game | loss per decision | "
          "summed decision losses per game [95%] |\n|---|---|---|---|---|---|")
    for name in args.players.split(","):
        summary, lines = simulate(table.board, table.rules, [name], args.games, args.seed, 1, save=True)
        score = summary.seats[0].stats["score"]
        totals: list[Fraction] = []
        count = 0
        for line in lines:
            losses = decision_losses(game_from_json(line), table)
            count += len(losses)
            totals.append(sum((loss for _, loss in losses), Fraction(0)))
        summed = estimate(totals)
        per_decision = sum(totals, Fraction(0)) / count
        print(f"| `{name}` | {float(score.mean):.2f} [{score.low:.2f}, {score.high:.2f}] | "
              f"{float(best - score.mean):.2f} [{float(best) - score.high:.2f}, {float(best) - score.low:.2f}] | "
              f"{count / len(lines):.2f} | {float(per_decision):.3f} | "
              f"{float(summed.mean):.2f} [{summed.low:.2f}, {summed.high:.2f}] |", flush=True)


if __name__ == "__main__":
    main()
