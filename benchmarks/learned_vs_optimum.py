"""`learned` solitaire against the float optimum on boards of every shape (docs/strategies.md).

    python benchmarks/learned_vs_optimum.py [BOARD.toml ...] [--games N] [--seed S]
        [--player learned|learned:FILE] [--jobs J] [--cache DIR] [--tables DIR]
        [--family K [--family-seed S] [--family-dir DIR] [--family-shapes SxC,...]]
        [--family-threes K [--family-seed S] [--family-dir DIR]]

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

**The held-out family** (``--family K``, docs/strategies.md "`learned` on a held-out family"):
K boards drawn with ``--family-seed`` (default 2027) after the solitaire weights were frozen, of
the shapes the exact budget excludes or nearly excludes (:data:`FAMILY_SHAPES`: 3 x 6, 1.0
million states, within the default budget of 2.4 million; 4 x 5 and 5 x 4, about 4.7-4.8
million, over it; ``--family-shapes 4x5,5x4`` draws only the shapes given, e.g. only those
over the budget), taken in turn; board ``i`` has a column needing 4 or 5 dice when ``i`` is even, else every
column needs 1-3 (needs drawn with repetition, D3), one item face per shelf, values from
:data:`random_boards.VALUE_RANGES`; never a :data:`random_boards.HELD_OUT` board nor an earlier
one, up to relabelling. Each is written to ``--family-dir`` (default ``benchmarks/.family``) as
``family-I.toml`` so ``solve-game`` can be run on it. Its row is printed as the others' with
``--player learned``'s two figures (:func:`family_row`): what advice plays there (the exact
optimum within the budget, :mod:`wholegame.exact_cache`; over it on a 4 x 5 or 5 x 4 board the
board's own table, :mod:`learned.own_cache`; else the fitted weights) and the fitted
weights themselves (``learned:FILE`` of the shipped file, never the exact table), each as a
share of the optimum, and whether the fitted weights' whole interval is at 97% or more. With a
``--player`` other than ``learned`` (e.g. ``learned:FILE``, a variant of the weights), the
family's boards get the plain rows of that player, as the boards named on the command line.

**The threes family** (``--family-threes K``, instead of ``--family``; docs/strategies.md "Two 5s
beside 3s"): the first K 5 x 4 and first K 4 x 5 boards of repeated 3s beside 4-5s
(``model_file.needs_threes``) among 1000 boards of the held-out family of ``--family-seed`` drawn
4 x 5, 4 x 5, 5 x 4, 5 x 4 in turn (:func:`threes_family`), written and measured as above.

**The light-five family** (``--family-light-five K``, instead of ``--family``; docs/strategies.md
"A table for a 5 beside 1s"): the first K 4 x 5 boards of a 5 beside 1s
(``model_file.needs_light_five``) among 1000 4 x 5 boards of the held-out family of
``--family-seed`` (:func:`light_five_family`), written and measured as above.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.core.files import write_text_atomically
from shelfie_solver.core.parallel import Interrupted
from shelfie_solver.dice.board import Board, board_to_dict, load_board
from shelfie_solver.dice.learned.model_file import (
    default_model,
    model_named,
    needs_heavy,
    needs_light_five,
    needs_many_dice,
    needs_threes,
)
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
    """Which solitaire weights a ``learned`` or ``learned:FILE`` player uses on ``board``: the
    table of its shape's boards of repeated 3s beside 4-5s (``LearnedModel.threes``,
    ``model_file.needs_threes``), the table of its shape's boards of heavy needs (``LearnedModel.heavy``, ``model_file.needs_heavy``),
    the table of its shape's boards of a 5 beside 1s (``LearnedModel.light_five``,
    ``model_file.needs_light_five``),
    the table of its shape's boards whose columns need many dice (``LearnedModel.many``,
    ``model_file.needs_many_dice``), its
    shape's own table (``LearnedModel.for_board``, docs/train.md "Tables per board shape") or the
    pooled one; for the shipped ``learned`` on a board that gets its own table
    (``learned.own_cache.applies``: fitted on first use and played in solitaire there), that
    table; "—" for another player."""
    if not player.strip().lower().startswith("learned"):
        return "—"
    if player.strip().lower() == "learned":
        from shelfie_solver.dice.learned.own_cache import applies

        if applies(board, DEFAULT_RULES):
            return f"{board.n_shelves} × {board.n_columns}, the board's own table"
    model = model_named(player) or default_model()
    shape = (board.n_shelves, board.n_columns)
    if shape in model.threes and needs_threes(board):
        return f"{board.n_shelves} × {board.n_columns}, threes"
    if shape in model.heavy and needs_heavy(board):
        return f"{board.n_shelves} × {board.n_columns}, heavy"
    if shape in model.light_five and needs_light_five(board):
        return f"{board.n_shelves} × {board.n_columns}, light five"
    if shape in model.many and needs_many_dice(board):
        return f"{board.n_shelves} × {board.n_columns}, many dice"
    return f"{board.n_shelves} × {board.n_columns}" if shape in model.shapes else "pooled"


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


#: Shapes of the held-out family, taken in turn: just within the default exact budget (3 x 6)
#: and over it (4 x 5, 5 x 4).
FAMILY_SHAPES = ((3, 6), (4, 5), (5, 4))


def family_board(rng: np.random.Generator, shape: tuple[int, int], many: bool, name: str) -> Board:
    """One board of the held-out family (module docstring) of ``shape``: with a column needing 4
    or 5 dice when ``many``, else every column needing 1-3 (:func:`random_boards.spread_board`,
    the draw of the spread training family too)."""
    return random_boards.spread_board(rng, DEFAULT_RULES, shape, many, name)


def held_out_family(seed: int, count: int,
                    shapes: tuple[tuple[int, int], ...] = FAMILY_SHAPES) -> list[Board]:
    """``count`` boards of the held-out family (module docstring), board ``i`` from child ``i`` of
    ``SeedSequence(seed)``, of shape ``shapes[i % len(shapes)]`` (shelves, columns) (drawn again
    from the same generator while it repeats a :data:`random_boards.HELD_OUT` board or an earlier
    one, up to relabelling)."""
    seen = {random_boards.canonical(*layout) for layout in random_boards.HELD_OUT}
    out = []
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(count)):
        rng = np.random.default_rng(child)
        while True:
            board = family_board(rng, shapes[i % len(shapes)], i % 2 == 0, f"family {i + 1}")
            key = random_boards.canonical(board.columns, board.values)
            if key not in seen:
                break
        seen.add(key)
        out.append(board)
    return out


#: The family :func:`threes_family` picks its boards from: 4 x 5 and 5 x 4 in equal numbers.
THREES_FAMILY_SHAPES = ((4, 5), (4, 5), (5, 4), (5, 4))
#: How many boards of the held-out family :func:`threes_family` looks through.
THREES_FAMILY_POOL = 1000


def threes_family(seed: int, per_shape: int) -> list[Board]:
    """The held-out family's boards of repeated 3s beside 4-5s (``--family-threes K``,
    docs/strategies.md "A table for repeated 3s beside 4-5s" and "Two 5s beside 3s"): the first
    ``per_shape`` 5 x 4 and the first ``per_shape`` 4 x 5 boards of that kind
    (:func:`model_file.needs_threes`, D3) among ``held_out_family(seed, THREES_FAMILY_POOL,
    THREES_FAMILY_SHAPES)``, in the order 5 x 4, 4 x 5, 5 x 4, ... (fewer when the pool holds
    fewer; about 1 board in 60 is of the kind)."""
    pool = [b for b in held_out_family(seed, THREES_FAMILY_POOL, THREES_FAMILY_SHAPES) if needs_threes(b)]
    five = [b for b in pool if b.n_shelves == 5][:per_shape]
    four = [b for b in pool if b.n_shelves == 4][:per_shape]
    return [b for pair in zip(five, four) for b in pair] + five[len(four):] + four[len(five):]


#: How many 4 x 5 boards of the held-out family :func:`light_five_family` looks through.
LIGHT_FIVE_FAMILY_POOL = 1000


def light_five_family(seed: int, count: int) -> list[Board]:
    """The held-out family's 4 x 5 boards of a 5 beside 1s (``--family-light-five K``,
    docs/strategies.md "A table for a 5 beside 1s"): the first ``count`` boards of that kind
    (:func:`model_file.needs_light_five`, D3) among ``held_out_family(seed, LIGHT_FIVE_FAMILY_POOL,
    ((4, 5),))`` (fewer when the pool holds fewer), the way the validation boards of family 4242
    were picked (there from a pool of 4 x 5 and 5 x 4 boards, its 4 x 5 ones)."""
    pool = held_out_family(seed, LIGHT_FIVE_FAMILY_POOL, ((4, 5),))
    return [b for b in pool if needs_light_five(b)][:count]


def write_family(boards: list[Board], folder: Path) -> list[str]:
    """Each board as ``folder/family-I.toml`` (the board file format, docs/formats.md), written
    whole; the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, board in enumerate(boards, 1):
        data = board_to_dict(board, DEFAULT_RULES)
        lines = [f"name = {json.dumps(data['name'])}", f"columns = {data['columns']}"]
        for shelf in data["shelves"]:
            lines += ["", "[[shelves]]", f"faces = {json.dumps(shelf['faces'])}", f"values = {shelf['values']}"]
        path = folder / f"family-{i}.toml"
        write_text_atomically(path, "\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def family_shapes(text: str) -> tuple[tuple[int, int], ...]:
    """``"4x5,5x4"`` -> ``((4, 5), (5, 4))``: ``--family-shapes`` (shelves x columns, 2-7 each).

    Raises:
        argparse.ArgumentTypeError: another form.
    """
    try:
        shapes = tuple((int(a), int(b)) for a, b in (part.strip().lower().split("x") for part in text.split(",")))
    except ValueError:
        shapes = ()
    if not shapes or any(not (2 <= n <= 7 and 2 <= m <= 7) for n, m in shapes):
        raise argparse.ArgumentTypeError(f"expected shapes such as 4x5,5x4 (shelves x columns, 2-7 each); got {text!r}")
    return shapes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="*", metavar="BOARD.toml", help="board files (docs/formats.md)")
    parser.add_argument("--family", type=int, default=0, metavar="K",
                        help="also draw K boards of the held-out family (module docstring; default: none)")
    parser.add_argument("--family-threes", type=int, default=0, metavar="K",
                        help="instead of --family, draw the held-out family's first K 5x4 and first K 4x5 boards of "
                             "repeated 3s beside 4-5s (threes_family; default: none)")
    parser.add_argument("--family-light-five", type=int, default=0, metavar="K",
                        help="instead of --family, draw the held-out family's first K 4x5 boards of a 5 beside 1s "
                             "(light_five_family; default: none)")
    parser.add_argument("--family-seed", type=int, default=2027, metavar="S",
                        help="seed of the held-out family (default: 2027)")
    parser.add_argument("--family-dir", default=os.path.join("benchmarks", ".family"), metavar="DIR",
                        help="where the family's boards are written (default: benchmarks/.family)")
    parser.add_argument("--family-shapes", type=family_shapes, default=FAMILY_SHAPES, metavar="SxC,...",
                        help="the family's board shapes, taken in turn (default: 3x6,4x5,5x4)")
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
    if min(args.seed, args.family_seed, args.family, args.family_threes, args.family_light_five) < 0:
        parser.error(f"--seed, --family-seed, --family, --family-threes and --family-light-five must be whole "
                     f"numbers >= 0; got --seed {args.seed}, --family-seed {args.family_seed}, --family {args.family}, "
                     f"--family-threes {args.family_threes}, --family-light-five {args.family_light_five}")
    if sum(1 for k in (args.family, args.family_threes, args.family_light_five) if k) > 1:
        parser.error("--family, --family-threes and --family-light-five all write --family-dir's family-I.toml; "
                     "expected one of them")
    if not args.boards and not args.family and not args.family_threes and not args.family_light_five:
        parser.error("no boards: give BOARD.toml files, --family K, --family-threes K, --family-light-five K, or both")
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
    if args.family or args.family_threes or args.family_light_five:
        family = (held_out_family(args.family_seed, args.family, args.family_shapes) if args.family
                  else threes_family(args.family_seed, args.family_threes) if args.family_threes
                  else light_five_family(args.family_seed, args.family_light_five))
        args.boards = [*args.boards, *write_family(family, Path(args.family_dir))]
    boards = [(path, load_board(path, DEFAULT_RULES)) for path in args.boards]  # all read before any solve
    parse_players(args.player)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    tables = Path(args.tables) if args.tables else None
    if tables is not None:
        tables.mkdir(parents=True, exist_ok=True)
    print(f"player {args.player}, {args.games} games per board, seed {args.seed}"
          + (f"; held-out family of {args.family}, --family-seed {args.family_seed}" if args.family else "")
          + (f"; held-out threes family of {args.family_threes} a shape, --family-seed {args.family_seed}"
             if args.family_threes else "")
          + (f"; held-out light-five family of {args.family_light_five}, --family-seed {args.family_seed}"
             if args.family_light_five else "") + "\n")
    if (args.family or args.family_threes or args.family_light_five) and args.player.strip().lower() == "learned":
        run_family(args, cache, tables)
        return
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


def run_family(args: argparse.Namespace, cache: Path, tables: Path | None) -> None:
    """The rows of every board with what advice plays there (:func:`family_row`)."""
    print("| board | shape | columns need | states | advice plays | optimum (bound) | as advice plays: mean [95%] | "
          "% of optimum [95%] | fitted weights: mean [95%] | % of optimum [95%] | fitted ≥ 97% | solve s | games s |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for path in args.boards:
        print(family_row(path, args, cache, tables), flush=True)


def family_row(path: str, args: argparse.Namespace, cache: Path, tables: Path | None) -> str:
    """One board's row: the optimum (the exact cache's table within the budget, else the float
    solve, :func:`optimum`), the games of ``learned`` as ``simulate`` plays it and, within the
    budget or on a board that gets its own table (``learned.own_cache.applies``: then ``learned``
    plays that table, fitted on first use), of the fitted weights (``learned:FILE`` of the shipped
    file) too."""
    from shelfie_solver.dice.design import fitted_name
    from shelfie_solver.dice.wholegame import exact_cache

    board = load_board(path, DEFAULT_RULES)
    route = exact_cache.route(board, DEFAULT_RULES)
    start = time.time()
    table = exact_cache.solution_for(board, DEFAULT_RULES) if route.exact else None
    if table is not None:
        best, bound, solve_seconds = float(table.optimum), table.error_bound, time.time() - start
        plays = f"exact optimum ({route.states:,} ≤ {route.budget:,} states)"
    else:
        best, bound, solve_seconds = optimum(path, cache, tables)
        plays = "learned (" + (route.reason.split(" (")[0] if route.reason else "not exact") + ")"
    from shelfie_solver.dice.learned.own_cache import applies

    own = table is None and applies(board, DEFAULT_RULES)  # advice plays the board's own table (own_cache)
    if own:
        plays = "learned, its own table (" + (route.reason.split(" (")[0] if route.reason else "not exact") + ")"
    start = time.time()
    cells = []
    players = ["learned", fitted_name()] if table is not None or own else [fitted_name()]
    for player in players:
        summary, _ = simulate(board, DEFAULT_RULES, [player], args.games, args.seed, args.jobs)
        score = summary.seats[0].stats["score"]
        cells.append((float(score.mean), score.low, score.high))
    if table is None and not own:
        cells.insert(0, cells[0])  # advice plays the fitted weights
    seconds = time.time() - start
    (m1, l1, h1), (m2, l2, h2) = cells
    verdict = "yes" if l2 / best >= 0.97 else "**no**" if h2 / best < 0.97 else "not settled"
    return (f"| `{Path(path).name}` | {board.n_shelves} × {board.n_columns} | {', '.join(map(str, board.columns))} | "
            f"{route.states:,} | {plays} | {best:.3f} ({bound:.1e}) | {m1:.2f} [{l1:.2f}, {h1:.2f}] | "
            f"{100 * m1 / best:.1f}% [{100 * l1 / best:.1f}, {100 * h1 / best:.1f}] | {m2:.2f} [{l2:.2f}, {h2:.2f}] | "
            f"{100 * m2 / best:.1f}% [{100 * l2 / best:.1f}, {100 * h2 / best:.1f}] | {verdict} | "
            f"{solve_seconds:.0f} | {seconds:.0f} |")


if __name__ == "__main__":
    main()
