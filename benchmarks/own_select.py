"""Value-iteration designs of a board's own table against each other on the board's own games
(docs/strategies.md, "Games scaled to the board's spread").

    python benchmarks/own_select.py BOARD.toml ... [--family K --family-seed S --family-heavy H]
        [--candidates 'g=2000,i=4 rel=1/100,max=20000,i=4'] [--games N] [--eval-seed S] [--optimum]

For each board: the own table before value iteration, W0 (the sub-board fit of
:func:`learned.own_table.fit_sub_boards`, cached in ``--fits`` as ``benchmarks/own_table.py`` does,
mixed with the shipped table at :func:`learned.own_table.share_for`), then each candidate:
:func:`learned.own_table.iterate_weights` from W0 with ``i`` steps of ``g`` lockstep games (dice
seed ``--fvi-seed``, pooled, the best-scoring weights kept), with ``rel``/``max`` the games scaled
to the board (:func:`learned.own_table.games_for`), with ``pg=1`` one dice generator per game and
``m`` the selection's margin in standard errors (:func:`learned.own_table.beats`), with ``share``
the start the sub-board fit mixed with the shipped table at that share instead (0: the shipped table). Each candidate's weights are then played in
``--games`` lockstep solitaire games (:func:`learned.own_table.iteration_sums`, the games of the
``learned`` strategy on the same dice, dice seed ``--eval-seed``), game by game on common dice, and
compared with the first candidate: the mean, the paired difference with its 95% normal interval,
the value iteration's CPU seconds and, with ``--optimum``, the share of the float optimum.
``--family-heavy H`` keeps only the family's boards with at least H columns needing 4 or 5 dice.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from learned_vs_optimum import optimum  # noqa: E402
from own_table import add_board_options, add_fit_options, family_paths, fit_folders, interval, own_fit  # noqa: E402

from shelfie_solver.dice.board import load_board  # noqa: E402
from shelfie_solver.dice.learned.model_file import default_model  # noqa: E402
from shelfie_solver.dice.learned.own_table import game_generators, iterate_weights, iteration_sums, mix, share_for  # noqa: E402
from shelfie_solver.dice.rules import DEFAULT_RULES  # noqa: E402


def lockstep_scores(board_path: str, weights: np.ndarray, games: int, seed: int) -> np.ndarray:
    """``int64 (games,)``: the final score of each of ``games`` lockstep games of ``weights``
    (:func:`iteration_sums`, one dice generator per game from ``seed``,
    :func:`learned.own_table.game_generators`), by game number."""
    board = load_board(board_path, DEFAULT_RULES)
    order: list[int] = []
    _, finished = iteration_sums(board, DEFAULT_RULES, weights, games, game_generators(seed, games), order=order)
    out = np.zeros(games, dtype=np.int64)
    out[np.array(order, dtype=np.int64)] = finished
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_board_options(parser, 15001, ".family-15001")
    parser.add_argument("--family-heavy", type=int, default=0, metavar="H")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--eval-seed", type=int, default=15010)
    parser.add_argument("--fvi-seed", type=int, default=20261206)
    parser.add_argument("--candidates", default="g=2000,i=4")
    add_fit_options(parser)
    args = parser.parse_args()
    candidates = []
    for text in args.candidates.split():
        spec = dict(part.split("=") for part in text.split(","))
        candidates.append((text, int(spec.get("g", "2000")), int(spec.get("i", "4")),
                           Fraction(spec["rel"]) if "rel" in spec else None,
                           int(spec["max"]) if "max" in spec else None, spec.get("pg", "0") == "1",
                           Fraction(spec.get("m", "0")), Fraction(spec.get("share", "-1"))))
    paths = list(args.boards) + [p for p in family_paths(args)
                                 if sum(c >= 4 for c in load_board(p, DEFAULT_RULES).columns) >= args.family_heavy]
    fits, _ = fit_folders(args)
    print(f"{args.games} lockstep games a candidate, dice seed {args.eval_seed}; "
          f"value iteration dice seed {args.fvi_seed}\n")
    print("| board | columns need | candidate | FVI CPU s | mean | sd | − first [95%] | % of optimum [95%] |\n"
          "|---|---|---|---|---|---|---|---|", flush=True)
    for path in paths:
        board = load_board(path, DEFAULT_RULES)
        fit, _ = own_fit(path, board, fits, "shelves")
        w0 = mix(fit, default_model().for_board(1, board), share_for(board))
        best = optimum(path, Path(args.cache), None)[0] if args.optimum else None
        first = None
        for text, games, steps, rel, most, per_game, margin, share in candidates:
            start = time.process_time()
            begin = w0 if share < 0 else mix(fit, default_model().for_board(1, board), share)
            weights = iterate_weights(board, DEFAULT_RULES, begin, games, steps, args.fvi_seed, Fraction(1), True, True,
                                      report=lambda line: print(f"<!-- {Path(path).stem} {text}: {line} -->",
                                                                file=sys.stderr, flush=True),
                                      relative_error=rel, max_games=most, per_game=per_game, margin=margin)
            seconds = time.process_time() - start
            got = lockstep_scores(path, weights, args.games, args.eval_seed)
            first = got if first is None else first
            mean, low, high = interval(got.astype(float))
            diff = interval((got - first).astype(float))
            share = "—" if best is None else f"{100 * mean / best:.2f}% [{100 * low / best:.2f}, {100 * high / best:.2f}]"
            print(f"| `{Path(path).name}` | {', '.join(map(str, board.columns))} | {text} | {seconds:.0f} | "
                  f"{mean:.2f} | {got.std(ddof=1):.1f} | {diff[0]:+.2f} [{diff[1]:+.2f}, {diff[2]:+.2f}] | {share} |",
                  flush=True)


if __name__ == "__main__":
    main()
