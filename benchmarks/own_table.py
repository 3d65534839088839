"""A board's own solitaire table against the shipped `learned`, paired games (docs/strategies.md,
"A board's own table").

    python benchmarks/own_table.py [BOARD.toml ...] [--family K --family-seed S --family-shapes SxC,...]
        [--shares 1/2,1 | --product] [--sides long|both|shelves] [--games N] [--seed S] [--fits DIR] [--optimum] [--cache DIR]

For each board (files, and/or K boards of the held-out family of ``benchmarks/learned_vs_optimum.py``,
the same draw and ``--family-dir``): the fit to its sub-boards' exact tables
(:func:`learned.own_table.fit_sub_boards`; kept as JSON in ``--fits``, default
``benchmarks/.own-fits``, so another run or share does not fit again), then for each own share
in ``--shares`` the candidate table :func:`learned.own_table.mix` of that fit and the table the
shipped ``learned`` picks on the board (``LearnedModel.for_board``), written as a ``learned:FILE``
model (``--fits``/``STEM-SHARE.json``, :func:`learned.own_table.candidate_model`), and N seeded
solitaire games of it and of the shipped tables on the same seeds (``learned:FILE`` of the shipped
file, :func:`design.fitted_name`: what ``learned`` played on these boards before it got their own
table, and never the own table nor an exact one) (the games of ``simulate
--games N --seed S``, so game ``i`` of each player is dealt the same dice stream until the
players' choices differ). One Markdown row a board and candidate: the shipped mean, the
candidate's, their paired difference with its 95% interval (normal, over the games' differences)
and, with ``--optimum``, the float optimum (``learned_vs_optimum.optimum``, cached in ``--cache``)
and both shares of it with their intervals. ``--product``: the candidate is the product's ``learned``
itself (the board's own table fitted on first use by ``learned.own_cache``, the shipped design; its
fit time is not in the row), played against the same shipped tables. Then one row per candidate over all boards: the sum
of the boards' paired differences, the boards gained and lost beyond their interval.
Games on one process (``--jobs`` of the games, default 1).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from learned_vs_optimum import family_shapes, held_out_family, optimum, table_used, write_family  # noqa: E402

from shelfie_solver.core.files import write_text_atomically  # noqa: E402
from shelfie_solver.core.tournament import run_games  # noqa: E402
from shelfie_solver.dice.board import Board, load_board  # noqa: E402
from shelfie_solver.dice.design import fitted_name  # noqa: E402
from shelfie_solver.dice.learned.model_file import default_model, model_text  # noqa: E402
from shelfie_solver.dice.learned.own_table import candidate_model, fit_sub_boards, mix, share_for  # noqa: E402
from shelfie_solver.dice.rules import DEFAULT_RULES  # noqa: E402
from shelfie_solver.dice.simulate import play_chunk  # noqa: E402


def scores(board: Board, player: str, games: int, seed: int, jobs: int) -> np.ndarray:
    """``int64 (games,)``: the player's final score in each of the seeded solitaire games (game
    order; the games of ``simulate --games games --seed seed``)."""
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    done = sorted(run_games(play_chunk, (board, DEFAULT_RULES, (player,)), games, entropy, jobs),
                  key=lambda item: item[0])
    return np.array([result.seats[0].score for _, result, _ in done], dtype=np.int64)


def interval(x: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean of ``x`` and its 95% normal interval."""
    mean = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / len(x) ** 0.5 if len(x) > 1 else 0.0
    return mean, mean - half, mean + half


def own_fit(path: str, board: Board, fits: Path, sides: str) -> tuple[np.ndarray, float]:
    """The board's sub-board fit (``int64 (3, F)``, sub-boards ``sides``) and its CPU seconds, from
    ``fits`` or fitted now."""
    key = fits / (Path(path).stem + ("-fit.json" if sides == "long" else f"-fit-{sides}.json"))
    text = Path(path).read_text()
    if key.is_file():
        data = json.loads(key.read_text())
        if data.get("board") == text:
            return np.array(data["weights"], dtype=np.int64), float(data["seconds"])
    start = time.process_time()
    weights = fit_sub_boards(board, DEFAULT_RULES, sides=sides)
    seconds = time.process_time() - start
    write_text_atomically(key, json.dumps({"board": text, "weights": weights.tolist(), "seconds": seconds}))
    return weights, seconds


def add_board_options(parser: argparse.ArgumentParser, family_seed: int, family_dir: str) -> None:
    """The boards of a run, shared by the own-table benchmarks (this one, ``own_iterate.py``,
    ``own_select.py``): board files, and ``--family K`` boards of the held-out family
    (``learned_vs_optimum.held_out_family``) of ``--family-seed`` written to ``--family-dir``."""
    parser.add_argument("boards", nargs="*", metavar="BOARD.toml")
    parser.add_argument("--family", type=int, default=0, metavar="K")
    parser.add_argument("--family-seed", type=int, default=family_seed, metavar="S")
    parser.add_argument("--family-dir", default=os.path.join("benchmarks", family_dir), metavar="DIR")
    parser.add_argument("--family-shapes", type=family_shapes, default=((4, 5), (5, 4)), metavar="SxC,...")


def add_fit_options(parser: argparse.ArgumentParser) -> None:
    """Where the own-table benchmarks keep the sub-board fits (``--fits``) and the float optima
    (``--cache``), and ``--optimum`` (also the float optimum and shares of it)."""
    parser.add_argument("--fits", default=os.path.join("benchmarks", ".own-fits"), metavar="DIR")
    parser.add_argument("--optimum", action="store_true", help="also the float optimum and shares of it")
    parser.add_argument("--cache", default=os.path.join("benchmarks", ".optimum-cache"), metavar="DIR")


def family_paths(args: argparse.Namespace) -> list[str]:
    """The files of the ``--family`` boards (:func:`add_board_options`), written; none without it."""
    if not args.family:
        return []
    return write_family(held_out_family(args.family_seed, args.family, args.family_shapes), Path(args.family_dir))


def fit_folders(args: argparse.Namespace) -> tuple[Path, Path]:
    """``--fits`` and ``--cache`` (:func:`add_fit_options`) as folders, made if missing."""
    fits, cache = Path(args.fits), Path(args.cache)
    fits.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    return fits, cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_board_options(parser, 2027, ".family")
    parser.add_argument("--shares", default="1/2", help="own shares to try, e.g. 1/2,1 (default: 1/2)")
    parser.add_argument("--sides", choices=("long", "both", "shelves"), default="shelves",
                        help="sub-boards (own_table.sub_boards): one shelf dropped (default, the shipped design), "
                             "one line of the longer side, or of either side")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1)
    add_fit_options(parser)
    parser.add_argument("--product", action="store_true",
                        help="the candidate is the product's learned (its own table on first use, the shipped design: "
                             "own_cache) instead of --shares/--sides; the fit is not made here")
    args = parser.parse_args()
    try:
        shares = [Fraction(part.strip()) for part in args.shares.split(",")]
    except (ValueError, ZeroDivisionError):
        parser.error(f"--shares: expected fractions such as 1/2,1; got {args.shares!r}")
    if args.product:
        from shelfie_solver.dice.learned.own_table import OWN_SHARE

        shares = [OWN_SHARE]
    if any(not 0 <= s <= 1 for s in shares) or args.games < 2 or args.jobs < 1:
        parser.error("--shares must be within 0..1, --games at least 2, --jobs at least 1")
    paths = list(args.boards) + family_paths(args)
    if not paths:
        parser.error("no boards: give BOARD.toml files or --family K")
    fits, cache = fit_folders(args)
    print(f"{args.games} games per board and player, seed {args.seed}, "
          + ("the product's learned (own_cache, the shipped design)" if args.product else f"sub-boards {args.sides}")
          + (f"; held-out family of {args.family}, --family-seed {args.family_seed}" if args.family else "") + "\n")
    print("| board | shape | columns need | shipped table | own share | fit CPU s | shipped mean | own mean | "
          "own - shipped [95%] | optimum | shipped % [95%] | own % [95%] |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    totals: dict[Fraction, list[tuple[float, float, float]]] = {s: [] for s in shares}
    for path in paths:
        board = load_board(path, DEFAULT_RULES)
        fit, fit_seconds = (None, 0.0) if args.product else own_fit(path, board, fits, args.sides)
        base = default_model().for_board(1, board)
        shipped = scores(board, fitted_name(), args.games, args.seed, args.jobs)
        best = optimum(path, cache, None)[0] if args.optimum else None
        for share in shares:
            if args.product:  # the product's learned: its own table on first use (own_cache), the frozen design
                player = "learned"
            else:
                model = candidate_model(mix(fit, base, share), board,
                                        {"trained": {"own table": f"share {share} of the sub-board fit of {path}"}})
                name = fits / f"{Path(path).stem}-{args.sides}-{str(share).replace('/', 'of')}.json"
                write_text_atomically(name, model_text(model))
                player = f"learned:{name}"
            own = scores(board, player, args.games, args.seed, args.jobs)
            diff = interval((own - shipped).astype(float))
            totals[share].append(diff)
            s_mean, s_low, s_high = interval(shipped.astype(float))
            o_mean, o_low, o_high = interval(own.astype(float))
            ratios = ("—", "—", "—") if best is None else (
                f"{best:.3f}", f"{100 * s_mean / best:.1f}% [{100 * s_low / best:.1f}, {100 * s_high / best:.1f}]",
                f"{100 * o_mean / best:.1f}% [{100 * o_low / best:.1f}, {100 * o_high / best:.1f}]")
            print(f"| `{Path(path).name}` | {board.n_shelves} × {board.n_columns} | "
                  f"{', '.join(map(str, board.columns))} | {table_used(fitted_name(), board)} | "
                  f"{f'product ({share_for(board)})' if args.product else share} | "
                  f"{fit_seconds:.0f} | {s_mean:.2f} | {o_mean:.2f} | {diff[0]:+.2f} [{diff[1]:+.2f}, {diff[2]:+.2f}] | "
                  f"{' | '.join(ratios)} |", flush=True)
    print("\n| own share | boards | sum of differences | boards gained (interval above 0) | "
          "boards lost (interval below 0) | worst difference |\n|---|---|---|---|---|---|")
    for share, rows in totals.items():
        print(f"| {'product' if args.product else share} | {len(rows)} | {sum(r[0] for r in rows):+.2f} | {sum(1 for r in rows if r[1] > 0)} | "
              f"{sum(1 for r in rows if r[2] < 0)} | {min(r[0] for r in rows):+.2f} |")


if __name__ == "__main__":
    main()
