"""`learned` solitaire against the float optimum on boards of every shape (docs/strategies.md).

    python benchmarks/learned_vs_optimum.py BOARD.toml [BOARD.toml ...] [--games N] [--seed S]
        [--player learned|learned:FILE] [--jobs J] [--cache DIR] [--tables DIR]

For each board: the optimal solitaire expected score from the float whole-game solver
(``solve-game --float``, :func:`wholegame.float_solver.solve_float`; optimum and its proven
rounding bound, cached as JSON in ``--cache`` so a rerun or another player does not solve again;
``--tables DIR`` also saves the binary table ``DIR/STEM.npy`` for ``train --table``), then N
seeded solitaire games of the player (the same games as ``shelfie-solve simulate --board B
--players P --games N --seed S``), printed as one Markdown row: the optimum, the mean score with
its 95% interval (Student t, :mod:`core.stats`), the ratio mean / optimum with the interval's ends
divided by the optimum (the bound, below 1e-9 points, is far below the interval's width),
whether the ratio is at least 95% (``yes``: the whole interval; ``no``: none of it; else
``not settled``, more games needed), and whether the board can be drawn by the training family
(:mod:`wholegame.random_boards`: ``held out`` when it cannot), and which solitaire table a
``learned`` player uses there (its shape's own or the pooled one: docs/train.md, "Tables per
board shape").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import write_text_atomically
from shelfie_solver.core.parallel import Interrupted
from shelfie_solver.dice.board import Board, load_board
from shelfie_solver.dice.learned.model_file import default_model, model_named
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.simulate import simulate
from shelfie_solver.dice.strategies import parse_players
from shelfie_solver.dice.wholegame import random_boards
from shelfie_solver.dice.wholegame.solver import state_count


def drawable(board: Board) -> bool:
    """Whether the training family could draw ``board`` (its shape is in the family, its columns
    need different numbers of dice within 1..5, its values are in the family's ranges, and it is
    not a :data:`random_boards.HELD_OUT` layout up to relabelling)."""
    shape = (board.n_shelves, board.n_columns)
    if shape not in random_boards.shapes(DEFAULT_RULES) or len(set(board.columns)) != board.n_columns:
        return False
    if any(not 1 <= n <= random_boards.MAX_NEED for n in board.columns):
        return False
    for row in board.values:
        for n, v in zip(board.columns, row):
            low, high = random_boards.VALUE_RANGES[n]
            if not low <= v <= high:
                return False
    held = {random_boards.canonical(*layout) for layout in random_boards.HELD_OUT}
    return random_boards.canonical(board.columns, board.values) not in held


def table_used(player: str, board: Board) -> str:
    """Which solitaire weights a ``learned`` or ``learned:FILE`` player uses on ``board``: its
    shape's own table (``LearnedModel.for_board``, docs/train.md "Tables per board shape") or the
    pooled one; "—" for another player."""
    if not player.strip().lower().startswith("learned"):
        return "—"
    model = model_named(player) or default_model()
    return f"{board.n_shelves} × {board.n_columns}" if (board.n_shelves, board.n_columns) in model.shapes else "pooled"


def optimum(path: str, cache: Path, tables: Path | None) -> tuple[float, float, float]:
    """(optimum, bound, seconds) of the board at ``path``, from the cache or solved now."""
    board = load_board(path, DEFAULT_RULES)
    key = cache / (Path(path).stem + ".json")
    text = Path(path).read_text()
    if key.is_file():
        try:
            data = json.loads(key.read_text())
        except (OSError, ValueError):
            data = None  # a damaged cache entry: solved again and rewritten
        numbers = [data.get(k) for k in ("optimum", "bound", "seconds")] if isinstance(data, dict) else []
        if (isinstance(data, dict) and data.get("board") == text
                and all(type(v) in (int, float) for v in numbers)):
            return float(numbers[0]), float(numbers[1]), float(numbers[2])
    from shelfie_solver.dice.wholegame.float_solver import solve_float

    start = time.time()
    solution = solve_float(board, DEFAULT_RULES, jobs=1)
    seconds = time.time() - start
    if tables is not None:
        from shelfie_solver.dice.wholegame.binary_table import save_binary

        save_binary(str(tables / (Path(path).stem + ".npy")), board, DEFAULT_RULES, solution.values, solution.bound)
    data = {"board": text, "optimum": solution.optimum, "bound": float(solution.bound), "seconds": seconds}
    write_text_atomically(key, json.dumps(data))
    return solution.optimum, float(solution.bound), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="+", metavar="BOARD.toml", help="board files (docs/formats.md)")
    parser.add_argument("--games", type=int, default=1000, help="solitaire games per board (default: 1000)")
    parser.add_argument("--seed", type=int, default=5, help="root seed of the games (default: 5)")
    parser.add_argument("--player", default="learned", help="strategy, e.g. learned:FILE (default: learned)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for the games (default: 1)")
    parser.add_argument("--cache", default=os.path.join("benchmarks", ".optimum-cache"), metavar="DIR",
                        help="where the float optima are kept as JSON, one per board stem "
                             "(default: benchmarks/.optimum-cache)")
    parser.add_argument("--tables", default=None, metavar="DIR",
                        help="also save each solved board's binary value table DIR/STEM.npy")
    args = parser.parse_args()
    if args.games < 1 or args.jobs < 1:
        parser.error(f"--games and --jobs must be at least 1; got --games {args.games}, --jobs {args.jobs}")
    if args.seed < 0:
        parser.error(f"--seed must be a whole number >= 0; got {args.seed}")
    try:
        run(args)
    except ShelfieError as error:  # a bad board, player or file: one line, as the CLI (exit 2)
        print(f"Error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as error:  # --cache / --tables naming a file, or unwritable
        print(f"Error: {error.filename}: {error.strerror}; expected --cache and --tables to name writable "
              "directories", file=sys.stderr)
        raise SystemExit(2) from None
    except Interrupted as stop:  # Ctrl-C / SIGTERM: one line, 130 / 143
        print(stop, file=sys.stderr)
        raise SystemExit(128 + stop.signum) from None


def run(args: argparse.Namespace) -> None:
    """The benchmark's rows (module docstring) for the parsed options ``args``.

    Raises:
        ShelfieError: a board that cannot be read, an unknown player, an unwritable cache.
    """
    boards = [(path, load_board(path, DEFAULT_RULES)) for path in args.boards]  # all read before any solve
    parse_players(args.player)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    tables = Path(args.tables) if args.tables else None
    if tables is not None:
        tables.mkdir(parents=True, exist_ok=True)
    print(f"player {args.player}, {args.games} games per board, seed {args.seed}\n")
    print("| board | shape | columns need | states | training family | table used | optimum (bound) | mean [95%] | "
          "mean / optimum [95%] | ≥ 95% | solve s | games s |\n|---|---|---|---|---|---|---|---|---|---|---|---|",
          flush=True)
    for path, board in boards:
        best, bound, solve_seconds = optimum(path, cache, tables)
        start = time.time()
        summary, _ = simulate(board, DEFAULT_RULES, [args.player], args.games, args.seed, args.jobs)
        seconds = time.time() - start
        score = summary.seats[0].stats["score"]
        mean = float(score.mean)
        ratio, low, high = mean / best, score.low / best, score.high / best
        family = "drawable" if drawable(board) else "held out"
        print(f"| `{Path(path).name}` | {board.n_shelves} × {board.n_columns} | "
              f"{', '.join(map(str, board.columns))} | {state_count(board, DEFAULT_RULES):,} | {family} | "
              f"{table_used(args.player, board)} | "
              f"{best:.3f} ({bound:.1e}) | {mean:.2f} [{score.low:.2f}, {score.high:.2f}] | "
              f"{100 * ratio:.1f}% [{100 * low:.1f}, {100 * high:.1f}] | {'yes' if low >= 0.95 else '**no**' if high < 0.95 else 'not settled'} | "
              f"{solve_seconds:.0f} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
