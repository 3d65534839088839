"""Seeded tournaments on the default board: the ``win-model`` strategy (``win`` by the model with
any number of players; ``win`` itself uses it with the players of ``win_model.MODEL_PLAYERS``, 2-4) (the chance to win: the
calibrated model, exact on the last turns) against today's ``learned`` (2, 3 and 4 players: one
``win`` seat against ``learned`` seats), with the 95% Wilson interval of its win rate against the
fair share 1/n (docs/train.md, "The chance to win"). A measurement, not a test.

Run: ``python benchmarks/tournament_win.py [--games2 N] [--games3 N] [--games4 N] [--seed S]
[--jobs J] [--win-model FILE]`` (``win`` plays by that model file; default the shipped one). Prints Markdown table rows and the time used.
"""

from __future__ import annotations

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from chance_vs_rollout import use_win_model
from tournament_learned import arguments, one_against_field


def main() -> None:
    args = arguments(__doc__, {2: 2000, 3: 2000, 4: 2000}, 2018, win_model=True)
    use_win_model(args.win_model)
    rules = DEFAULT_RULES
    board = load_board(None, rules)
    print(f"seed {args.seed}, --jobs {args.jobs}, win model {args.win_model or 'shipped'}")
    print("| players | seats | games | win: win rate [95%] (fair share) | reaches the fair share | "
          "win: mean score | learned: mean score (mean seat) |")
    print("|---|---|---|---|---|---|---|")
    for n, seats, games, summary, seconds in one_against_field(board, rules, "win-model", "learned", args):
        win = summary.seats[0].stats
        rate = win["win"]
        others = sum(float(s.stats["score"].mean) for s in summary.seats[1:]) / (n - 1)
        print(f"| {n} | {','.join(seats)} | {games} | {float(rate.mean) * 100:.1f}% [{rate.low * 100:.1f}, "
              f"{rate.high * 100:.1f}] ({100 / n:.1f}%) | {'yes' if rate.high >= 1 / n else 'no'} | "
              f"{float(win['score'].mean):.1f} | {others:.1f} | <!-- {seconds:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
