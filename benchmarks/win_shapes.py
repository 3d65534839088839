"""The win model's rows for boards of other shapes than 5 x 5 (data/win.json's ``"other_shapes"``,
format 3's 14 features, no line states, no trees), fitted on self-play games of random boards of
many shapes instead of the default board only (docs/win-chance.md, "Off the fitted board's shape",
"Fitted on boards of many shapes"). A measurement, not a test.

``boards``: the fit's boards, ``--boards`` of them from ``--seed`` (:func:`draw_boards`): shape
``SHAPES[i % 15]`` (2-5 shelves x 2-5 columns, never 5 x 5, whose boards read the line states),
drawn in turn like ``random_boards.board_of_shape`` (different needs, increasing), and like
``random_boards.spread_board`` with and without a column of 4-5 dice (needs repeated), never one of
``examples/boards/*.toml`` nor a ``random_boards.HELD_OUT`` board up to relabelling (the boards the
model is measured on stay out of the fit).

``collect``: the positions (:func:`win_fit.game_positions`) of ``--games`` self-play games per board
and number of players (``--players``, default 2) of each source of ``--sources`` (``win`` by the
model file named, which on these boards plays its other-shapes rows, or ``learned``), game ``g`` of
board ``i`` from ``SeedSequence(seed).spawn(2)[1]`` spawned by source, players, board and game; with
``$SHELFIE_SOLVE_EXACT2_BUDGET`` 0 (the model everywhere, never the exact two-player table); cached
per source and players in ``--cache``. ``--points-exponent E`` (e.g. ``3/4``): every seat's points read
over the board's :func:`win_model.size_factor` at ``E`` (:func:`win_fit.game_positions`), as a block
with ``"points_exponent": E`` reads them (docs/win-chance.md "In the board's own points"); ``fit``
with the same option reads those positions.

``fit``: the format-3 coefficients of ``--players`` fitted (:func:`win_model.fit`, ``columns`` the 14
of :data:`win_model.FORMER_FEATURES`, ridge ``--ridge``, default ``OWN_PLAY_RIDGE``) to the cached
positions of ``--sources``, the other counts 0 (even chances); written as a format-3 file to
``--output``.

``versus``: the pre-registered comparison: for each board of ``--boards-list`` (names in
examples/boards), ``shelfie-solve simulate --players win,learned[,learned...] --games N --seed S
--jobs 1 --board B`` with ``--win-model CANDIDATE`` and without (the shipped data/win.json), both
with ``$SHELFIE_SOLVE_EXACT2_BUDGET=0`` (the same games on these boards, over the exact budget: only
the budget check's enumeration is skipped); ``win``'s share of victory (ties shared, D20) per game
from ``--save``, paired by game index (same seed: same dice streams): per board both rates with
their 95% intervals and the paired difference, pooled over the boards the difference with its 95%
interval over games, the CPU seconds.

``dev`` (:func:`dev`): a development check on fresh random boards of the test boards' shapes, the
test boards untouched. ``heldout`` (:func:`heldout`): the log loss and Brier score of files' rows at
the positions of games on those boards. ``pool``: per-game differences saved by ``versus --diffs``,
pooled over runs. The runs and figures: docs/win-chance.md, "Fitted on boards of many shapes".

Run: ``python benchmarks/win_shapes.py boards|collect|fit|versus|dev|heldout|pool [options]``, e.g.
``python benchmarks/win_shapes.py collect --seed 18538 --boards 240 --games 12 --sources
win:shelfie_solver/dice/data/win.json,learned --players 2``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
#: Shapes of the fit's boards (shelves, columns): every one of 2-5 x 2-5 but the default 5 x 5.
SHAPES = tuple((s, c) for s in range(2, 6) for c in range(2, 6) if (s, c) != (5, 5))
#: The boards of the pre-registered 2-player comparison (over the exact budget).
TEST_BOARDS = ("small-4x3", "held-out-3x5", "held-out-4x4-1245", "held-out-4x5", "held-out-5x4-2345", "small-5x3")
#: Those of 3 and 4 players.
TEST_BOARDS_34 = ("small-4x3", "held-out-4x5", "held-out-3x5")


def test_layouts() -> list[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]]:
    """(dice per column, values per shelf) of every board of examples/boards (some of other rules'
    faces, so read as TOML, not as boards of the default rules)."""
    import tomllib

    out = []
    for path in sorted((ROOT / "examples" / "boards").glob("*.toml")):
        data = tomllib.loads(path.read_text("utf-8"))
        out.append((tuple(data["columns"]), tuple(tuple(shelf["values"]) for shelf in data["shelves"])))
    return out


def draw_boards(seed: int, count: int, shapes: tuple[tuple[int, int], ...] = SHAPES,
                exclude: tuple[Any, ...] = ()) -> list[Any]:
    """``count`` boards (module docstring), board ``i`` from child ``i`` of
    ``SeedSequence(seed).spawn(2)[0]``, drawn again from the same generator while it is a test
    board, a HELD_OUT board or an earlier one up to relabelling."""
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.wholegame.random_boards import HELD_OUT, board_of_shape, canonical, spread_board

    rules = DEFAULT_RULES
    items = [i for i in range(len(rules.faces)) if i != rules.joker_index]
    seen = ({canonical(*layout) for layout in HELD_OUT} | {canonical(*test) for test in test_layouts()}
            | {canonical(b.columns, b.values) for b in exclude})
    out = []
    for i, child in enumerate(np.random.SeedSequence(seed).spawn(2)[0].spawn(count)):
        rng = np.random.default_rng(child)
        shape = shapes[i % len(shapes)]
        kind = (i // len(shapes)) % 3
        while True:
            name = f"shapes {i + 1}"
            if kind == 0:
                board = board_of_shape(rng, items, name, shape)
            else:
                board = spread_board(rng, rules, shape, kind == 1, name)
            key = canonical(board.columns, board.values)
            if key not in seen:
                break
        seen.add(key)
        out.append(board)
    return out


def parse_sources(text: str, games: int) -> list[tuple[str, str, int]]:
    """``win:FILE@12,learned@6`` -> ``[("win", FILE, 12), ("learned", "", 6)]`` (games per board,
    default ``games``)."""
    out = []
    for part in text.split(","):
        part, _, count = part.partition("@")
        kind, _, path = part.partition(":")
        if kind not in ("win", "learned") or (kind == "win") != bool(path):
            raise SystemExit(f"bad source {part!r}: win:FILE or learned")
        out.append((kind, path, int(count) if count else games))
    return out


#: The child of the games' seed each kind of source plays from.
SOURCE_STREAM = {"learned": 0, "win": 1}


def cache_path(args: argparse.Namespace, source: tuple[str, str, int], n: int) -> Path:
    tag = "learned" if source[0] == "learned" else "win-" + Path(source[1]).stem
    sized = f"-e{args.points_exponent.replace('/', '_')}" if args.points_exponent != "0" else ""
    return Path(args.cache) / f"shapes-{args.seed}-{args.boards}-{source[2]}-{tag}-{n}p{sized}.pkl"


def collect(args: argparse.Namespace) -> None:
    os.environ["SHELFIE_SOLVE_EXACT2_BUDGET"] = "0"
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import game_positions, self_play_seat
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.rules import DEFAULT_RULES

    start = time.process_time()
    boards = draw_boards(args.seed, args.boards)
    games_root = np.random.SeedSequence(args.seed).spawn(2)[1]
    by_kind = games_root.spawn(len(SOURCE_STREAM))
    for source in parse_sources(args.sources, args.games):
        per_count = by_kind[SOURCE_STREAM[source[0]]].spawn(5)
        for n in args.players:
            path = cache_path(args, source, n)
            if path.exists():
                print(f"{path} kept", flush=True)
                continue
            seat = (self_play_seat("learned") if source[0] == "learned"
                    else self_play_seat("win", load_win_model(ROOT / source[1])))
            samples = []
            for i, (board, child) in enumerate(zip(boards, per_count[n].spawn(len(boards)))):
                for seed in child.spawn(source[2]):
                    samples += game_positions(play_seeded(board, DEFAULT_RULES, [seat] * n, seed),
                                              points_exponent=Fraction(args.points_exponent))
                if (i + 1) % 20 == 0:
                    print(f"  {source[0]} {source[1]} {n}p: {i + 1} boards, {len(samples)} positions, "
                          f"{time.process_time() - start:.0f} CPU s", flush=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            temp = path.with_suffix(".tmp")
            temp.write_bytes(pickle.dumps(samples))
            temp.replace(path)
            print(f"{path}: {len(samples)} positions, {time.process_time() - start:.0f} CPU s", flush=True)


def format_three_text(coefficients: dict[int, np.ndarray], info: dict[str, Any]) -> str:
    """A format-3 win-model file (docs/formats.md) of ``coefficients`` (players -> (3, >= 14))."""
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, COEF_SCALE, FORMER_FEATURES, FORMER_FORMAT, ROWS

    head = {"format": FORMER_FORMAT, "coef_scale": COEF_SCALE, "chance_scale": CHANCE_SCALE, "rows": list(ROWS),
            "features": list(FORMER_FEATURES), **info}
    text = json.dumps(head, indent=1)[:-2]
    rows = ",\n  ".join(f'"{n}": [' + ", ".join(json.dumps(r[:len(FORMER_FEATURES)]) for r in c.tolist()) + "]"
                        for n, c in sorted(coefficients.items()))
    return f'{text},\n "coefficients": {{\n  {rows}\n }}\n}}\n'


def fit_file(args: argparse.Namespace) -> None:
    from shelfie_solver.dice.learned.win_fit import EVEN, OWN_PLAY_RIDGE
    from shelfie_solver.dice.learned.win_model import FORMER_FEATURES, fit, load_win_model

    start = time.process_time()
    ridge = OWN_PLAY_RIDGE if args.ridge is None else args.ridge
    samples, records = [], []
    for source in parse_sources(args.sources, args.games):
        for n in args.players:
            part = pickle.loads(cache_path(args, source, n).read_bytes())
            samples += part
            records.append({"players": n, "played_by": "learned (the strategy)" if source[0] == "learned"
                            else source[1], "games_per_board": source[2], "positions": len(part)})
    model = fit(samples, ridge, len(FORMER_FEATURES))
    tables = {n: model.coefficients.get(n, EVEN.coefficients[n]).copy() for n in EVEN.coefficients}
    info = {"seed": args.seed, "boards": args.boards, "games": sum(r["games_per_board"] for r in records) * args.boards,
            "players": list(args.players), "positions": len(samples), "strategy": "win", "ridge": ridge,
            "sources": records, **({"points_exponent": args.points_exponent} if args.points_exponent != "0" else {}),
            "board": (f"{args.boards} random boards of 15 shapes, 2-5 shelves x 2-5 columns but 5 x 5 "
                      f"(benchmarks/win_shapes.py boards --seed {args.seed})")}
    temp = Path(args.output + ".tmp")
    temp.write_text(format_three_text(tables, info), "utf-8")
    temp.replace(args.output)
    load_win_model(args.output)  # read back as any file is
    print(f"{args.output}: {len(samples)} positions; {time.process_time() - start:.0f} CPU s")
    for n in args.players:
        print(n, "players:")
        print(np.array(tables[n][:, :len(FORMER_FEATURES)]))


def list_boards(args: argparse.Namespace) -> None:
    from collections import Counter

    boards = draw_boards(args.seed, args.boards)
    for b in boards[:args.show]:
        print(b.name, (b.n_shelves, b.n_columns), b.columns, b.values)
    print(Counter((b.n_shelves, b.n_columns) for b in boards))


def shares(save: Path) -> list[float]:
    """Seat 0's share of victory (D20: ties shared) in each game of a ``--save`` file, by game index."""
    out: dict[int, float] = {}
    for line in save.read_text("utf-8").splitlines():
        game = json.loads(line)
        over = next(e for e in reversed(game["events"]) if e["event"] == "over")
        out[int(game["game"])] = 1.0 / len(over["winners"]) if 0 in over["winners"] else 0.0
    return [out[g] for g in sorted(out)]


def run_simulate(board: str, players: int, games: int, seed: int, model: str | None) -> tuple[list[float], float]:
    """Seat 0's (``win``'s) shares of one ``simulate`` run, and its CPU seconds."""
    env = {**os.environ, "SHELFIE_SOLVE_EXACT2_BUDGET": "0", "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        save = Path(tmp) / "games.jsonl"
        command = ["shelfie-solve", "simulate", "--players", ",".join(["win"] + ["learned"] * (players - 1)),
                   "--games", str(games), "--seed", str(seed), "--jobs", "1",
                   "--board", str(ROOT / "examples" / "boards" / f"{board}.toml"), "--save", str(save),
                   "--format", "json"]
        if model:
            command += ["--win-model", str(Path(model).resolve())]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir())
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return shares(save), (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def wilson(mean: float, n: int) -> tuple[float, float]:
    z = 1.959964
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def diff_interval(d: np.ndarray) -> tuple[float, float, float]:
    mean = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(len(d)))
    return mean, mean - 1.959964 * se, mean + 1.959964 * se


def versus(args: argparse.Namespace) -> None:
    boards = args.boards_list.split(",")
    pooled_new, pooled_old = [], []
    cpu = 0.0
    print(f"{args.players[0]} players, {args.games} games a board, seed {args.seed}; candidate {args.candidate}")
    for board in boards:
        new, c1 = run_simulate(board, args.players[0], args.games, args.seed, args.candidate)
        old, c2 = run_simulate(board, args.players[0], args.games, args.seed, args.baseline or None)
        cpu += c1 + c2
        a, b = np.array(new), np.array(old)
        m, lo, hi = diff_interval(a - b)
        ln, hn = wilson(float(a.mean()), len(a))
        lo_, ho = wilson(float(b.mean()), len(b))
        print(f"{board:20s} candidate {100 * a.mean():5.1f}% [{100 * ln:.1f}, {100 * hn:.1f}]  "
              f"shipped {100 * b.mean():5.1f}% [{100 * lo_:.1f}, {100 * ho:.1f}]  "
              f"difference {100 * m:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]  ({c1:.0f} + {c2:.0f} CPU s)", flush=True)
        pooled_new += new
        pooled_old += old
    a, b = np.array(pooled_new), np.array(pooled_old)
    if args.diffs:
        np.save(args.diffs, a - b)
    m, lo, hi = diff_interval(a - b)
    print(f"{'pooled':20s} candidate {100 * a.mean():5.1f}%  shipped {100 * b.mean():5.1f}%  "
          f"difference {100 * m:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}] over {len(a)} games; {cpu:.0f} CPU s")


def dev(args: argparse.Namespace) -> None:
    """``dev``: the candidate against data/win.json on ``--boards`` fresh random boards of the six
    test boards' shapes from ``--seed`` (none of the fit's ``--fit-seed`` boards, none of
    examples/boards), ``--games`` 2-player games a board of ``win`` (seat 0, by each model in turn;
    given explicitly, so never the exact table) against ``learned``, paired by game (the same seed):
    a development check that leaves the test boards untouched."""
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import self_play_seat
    from shelfie_solver.dice.learned.win_model import default_win_model, load_win_model
    from shelfie_solver.dice.rules import DEFAULT_RULES

    start = time.process_time()
    shapes = ((4, 3), (3, 5), (4, 4), (4, 5), (5, 4), (5, 3))
    boards = draw_boards(args.seed, args.boards, shapes, tuple(draw_boards(args.fit_seed, args.fit_boards)))
    candidate = self_play_seat("win", load_win_model(args.candidate))
    shipped = self_play_seat("win", default_win_model())
    learned = self_play_seat("learned")
    diffs, new_all = [], []
    for i, (board, child) in enumerate(zip(boards, np.random.SeedSequence(args.seed).spawn(3)[2].spawn(len(boards)))):
        for seed in child.spawn(args.games):
            new, old = (play_seeded(board, DEFAULT_RULES, [seat, learned], seed) for seat in (candidate, shipped))
            a, b = (1.0 / len(g.winners) if 0 in g.winners else 0.0 for g in (new, old))
            diffs.append(a - b)
            new_all.append(a)
    m, lo, hi = diff_interval(np.array(diffs))
    print(f"{len(boards)} boards x {args.games} games: candidate {100 * np.mean(new_all):.1f}%, shipped "
          f"{100 * (np.mean(new_all) - m):.1f}%, difference {100 * m:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]; "
          f"{time.process_time() - start:.0f} CPU s")


def heldout(args: argparse.Namespace) -> None:
    """``heldout``: the positions of ``--games`` games a board of each of ``--sources`` on the
    ``dev`` boards (``--seed``, ``--boards``; ``--players``), and the mean log loss and Brier score
    of every seat's share (D20) under the format-3 rows of each file of ``--files`` (comma-separated;
    a file with ``"other_shapes"``: those rows), the chances the softmax of the rows' strengths
    (floats, for the comparison)."""
    os.environ["SHELFIE_SOLVE_EXACT2_BUDGET"] = "0"
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import game_positions, self_play_seat
    from shelfie_solver.dice.learned.win_model import (COEF_SCALE, FORMER_FEATURES, WEIGHT_SCALE, ROWS,
                                                       load_win_model)
    from shelfie_solver.dice.rules import DEFAULT_RULES

    shapes = ((4, 3), (3, 5), (4, 4), (4, 5), (5, 4), (5, 3))
    boards = draw_boards(args.seed, args.boards, shapes, tuple(draw_boards(args.fit_seed, args.fit_boards)))
    root = np.random.SeedSequence(args.seed).spawn(4)[3]
    samples = []
    for k, source in enumerate(parse_sources(args.sources, args.games)):
        seat = (self_play_seat("learned") if source[0] == "learned"
                else self_play_seat("win", load_win_model(ROOT / source[1])))
        for n in args.players:
            for board, child in zip(boards, root.spawn(8)[2 * k + n - 2].spawn(len(boards))):
                for seed in child.spawn(source[2]):
                    samples += game_positions(play_seeded(board, DEFAULT_RULES, [seat] * n, seed))
    for path in args.files.split(","):
        model = load_win_model(ROOT / path)
        model = model.other_shapes or model
        for n in args.players:
            chosen = [s for s in samples if s[0] == n]
            loss, brier = [], []
            for _, phase, x, y in chosen:
                c = model.coefficients[n][ROWS.index(phase), :len(FORMER_FEATURES)] / COEF_SCALE
                z = (x[:, :len(FORMER_FEATURES)] / WEIGHT_SCALE) @ c
                p = np.exp(z - z.max())
                p /= p.sum()
                loss.append(-float((y * np.log(np.maximum(p, 1e-12))).sum()))
                brier.append(float(((p - y) ** 2).sum()))
            print(f"{path}: {n} players, {len(chosen)} positions: log loss {np.mean(loss):.4f} "
                  f"(SE {np.std(loss) / math.sqrt(len(loss)):.4f}), Brier {np.mean(brier):.4f}")


def pool(args: argparse.Namespace) -> None:
    """``pool``: the per-game differences saved by ``versus --diffs`` of the files of ``--files``,
    pooled: their mean with its 95% interval over games."""
    d = np.concatenate([np.load(path) for path in args.files.split(",")])
    m, lo, hi = diff_interval(d)
    print(f"pooled over {len(d)} games: difference {100 * m:+.2f} [{100 * lo:+.2f}, {100 * hi:+.2f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("boards", "collect", "fit", "versus", "dev", "heldout", "pool"))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--boards", type=int, default=240)
    parser.add_argument("--games", type=int, default=12, help="collect/fit: games per board; versus: per board")
    parser.add_argument("--players", type=lambda t: tuple(int(x) for x in t.split(",")), default=(2,))
    parser.add_argument("--sources", default="win:shelfie_solver/dice/data/win.json,learned")
    parser.add_argument("--cache", default="/tmp/win-shapes")
    parser.add_argument("--ridge", type=float, default=None)
    parser.add_argument("--output", default="examples/win-other-shapes.json")
    parser.add_argument("--candidate", default="")
    parser.add_argument("--baseline", default="", help="versus: the file compared with (default the shipped one)")
    parser.add_argument("--boards-list", default=",".join(TEST_BOARDS))
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--diffs", default="", help="versus: an .npy file for the per-game differences (pool)")
    parser.add_argument("--files", default="", help="heldout: the model files compared, comma-separated")
    parser.add_argument("--points-exponent", default="0",
                        help="collect/fit: read every seat's points over the board's size factor at this exponent "
                             "(win_model.size_factor; \"3/4\"; default 0: as they are)")
    parser.add_argument("--fit-seed", type=int, default=18538, help="dev: the fit's boards' seed (left out)")
    parser.add_argument("--fit-boards", type=int, default=480, help="dev: the fit's boards' count (left out)")
    args = parser.parse_args()
    os.chdir(ROOT)
    {"boards": list_boards, "collect": collect, "fit": fit_file, "versus": versus, "dev": dev, "heldout": heldout, "pool": pool}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
