"""Value iteration on a board's own table, against the own table it starts from, paired games
(docs/strategies.md, "Value iteration on the board itself").

    python benchmarks/own_iterate.py BOARD.toml ... [--family K --family-seed S] [--games N] [--seed S]
        [--fvi-games G] [--fvi-seed S] [--candidates 'i=4,pool=1,select=1 i=3,step=1/2,share=1/2'] [--optimum]

For each board: the own table as shipped before value iteration, W0 (the sub-board fit of
:func:`learned.own_table.fit_sub_boards`, cached in ``--fits`` as ``benchmarks/own_table.py`` does,
mixed with the shipped table at :func:`learned.own_table.share_for`), then each candidate:
:func:`learned.own_table.iterate_weights` from W0 with ``i`` steps of ``--fvi-games`` lockstep
games (dice seed ``--fvi-seed``), ``step`` (the mix with the weights a step starts from), ``pool``
(fit every step's sums so far), ``select`` (the weights whose games scored most), then ``share``
of the result in a mix with W0. Each is played as ``learned:FILE`` in N seeded solitaire games
against W0 on the same seeds (the games of ``simulate --games N --seed S``); one Markdown row a
board and candidate: the means, the paired difference with its 95% normal interval, the value
iteration's CPU seconds and, with ``--optimum``, the float optimum and both shares of it.
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

from learned_vs_optimum import optimum, table_used  # noqa: E402
from own_table import add_board_options, add_fit_options, family_paths, fit_folders, interval, own_fit, scores  # noqa: E402

from shelfie_solver.core.files import write_text_atomically  # noqa: E402
from shelfie_solver.dice.board import load_board  # noqa: E402
from shelfie_solver.dice.design import fitted_name  # noqa: E402
from shelfie_solver.dice.learned.model_file import default_model, model_text  # noqa: E402
from shelfie_solver.dice.learned.own_table import candidate_model, iterate_weights, mix, share_for  # noqa: E402
from shelfie_solver.dice.rules import DEFAULT_RULES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_board_options(parser, 4242, ".family")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--fvi-games", type=int, default=1000)
    parser.add_argument("--fvi-seed", type=int, default=1)
    parser.add_argument("--candidates", default="i=3",
                        help="space-separated candidates, each i=STEPS[,step=F][,pool=1][,share=F] (share: of the "
                             "iterated weights in a mix with the product's own table)")
    add_fit_options(parser)
    args = parser.parse_args()
    candidates = []
    for text in args.candidates.split():
        spec = dict(part.split("=") for part in text.split(","))
        candidates.append((text, int(spec["i"]), Fraction(spec.get("step", "1")), spec.get("pool", "0") == "1",
                           Fraction(spec.get("share", "1")), spec.get("select", "0") == "1"))
    paths = list(args.boards) + family_paths(args)
    fits, _ = fit_folders(args)
    print(f"{args.games} paired games, seed {args.seed}; value iteration {args.fvi_games} games a step, "
          f"seed {args.fvi_seed}\n")
    print("| board | shape | columns need | table | candidate | FVI CPU s | own mean | candidate mean | "
          "candidate - own [95%] | optimum | own % [95%] | candidate % [95%] |\n|---|---|---|---|---|---|---|---|---|---|---|---|",
          flush=True)
    for path in paths:
        board = load_board(path, DEFAULT_RULES)
        fit, _ = own_fit(path, board, fits, "shelves")
        w0 = mix(fit, default_model().for_board(1, board), share_for(board))
        name0 = fits / f"{Path(path).stem}-product.json"
        write_text_atomically(name0, model_text(candidate_model(w0, board)))
        own = scores(board, f"learned:{name0}", args.games, args.seed, 1)
        best = optimum(path, Path(args.cache), None)[0] if args.optimum else None
        o_mean, o_low, o_high = interval(own.astype(float))
        for text, count, step, pool, share, select in candidates:
            start = time.process_time()
            weights = iterate_weights(board, DEFAULT_RULES, w0, args.fvi_games, count, args.fvi_seed, step, pool, select,
                                      report=lambda line: print(f"<!-- {Path(path).stem} {text}: {line} -->",
                                                                file=sys.stderr, flush=True))
            weights = mix(weights, w0, share)
            seconds = time.process_time() - start
            name = fits / f"{Path(path).stem}-fvi-{text.replace('/', 'of').replace(',', '-').replace('=', '')}.json"
            write_text_atomically(name, model_text(candidate_model(weights, board)))
            cand = scores(board, f"learned:{name}", args.games, args.seed, 1)
            diff = interval((cand - own).astype(float))
            c_mean, c_low, c_high = interval(cand.astype(float))
            ratios = ("—", "—", "—") if best is None else (
                f"{best:.3f}", f"{100 * o_mean / best:.2f}% [{100 * o_low / best:.2f}, {100 * o_high / best:.2f}]",
                f"{100 * c_mean / best:.2f}% [{100 * c_low / best:.2f}, {100 * c_high / best:.2f}]")
            print(f"| `{Path(path).name}` | {board.n_shelves} × {board.n_columns} | "
                  f"{', '.join(map(str, board.columns))} | {table_used(fitted_name(), board)} | {text} | "
                  f"{seconds:.0f} | {o_mean:.2f} | {c_mean:.2f} | {diff[0]:+.2f} [{diff[1]:+.2f}, {diff[2]:+.2f}] | "
                  f"{' | '.join(ratios)} |", flush=True)


if __name__ == "__main__":
    main()
