"""Which inputs do trees on top of the shipped 2-player win model need? An offline gate
(docs/win-chance.md, "Which inputs the trees need"): LightGBM trees with ``benchmarks/win_trees.py``'s
settings (its ``PARAMS``, monotone constraints on the spec's own columns, both perspectives, the
shipped format-4 logit as init score, early stopping on 20% of the fit games, by game) on four
input sets, each fitted on the games of ``--train-seed`` and scored on those of ``--test-seed``
(held out) by the Brier score of the mover's share of victory (D20), paired against the shipped
model on the same positions (SE over games; ``benchmarks/win_features.py``'s docstring: the
difference estimates the difference of mean squared errors against the true chance).

Positions: :func:`win_nonlinear.load` (``win_features.positions``: ``win`` self-play by the
shipped data/win.json, game ``g`` from ``SeedSequence(seed).spawn(games)[g]``, every position
after a turn that the model values, the player who just played first), generated in blocks of
games (``--block``; game ``g`` is the same child whatever the count spawned) and cached.

Input sets, per seat ``i`` of the position (``j`` the other):
  A  the spec's ``u_i = [x_i, x_j, phase]`` (:func:`win_trees.tree_inputs`; raw design integers);
  B  A + both sheets' cells (D3, D4; after the turn, its blocks applied, D15): per seat 25 cells as
     two 0/1 columns each (marked, available), ``i``'s then ``j``'s (100 columns);
  C  B + line points (D19): per seat and line (5 shelves, 5 columns) the points of its marked items
     and of its available items (40 columns);
  D  A + (b) of ``win_nonlinear.inputs`` from seat ``i``'s side (everything: both sheets, line
     totals, engineered blocking threats D15, items and dice to the trigger D17, the race, ...);
  D0 (a control) D's inputs fitted from scratch, without the shipped logit (init score 0).
The monotone constraints apply to the A part only (the spec's ``OWN`` columns of ``x_i``, +1, and
of ``x_j``, -1). A measurement, not a test; LightGBM is the ``bench`` extra.

Run: ``python benchmarks/win_tree_inputs.py [--train-seed 18061 --train-games 6000]
[--test-seed 18062 --test-games 2000] [--sets A,B,C,D] [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import win_nonlinear  # noqa: E402
import win_trees  # noqa: E402
from win_features import position_row  # noqa: E402


def block_positions(seed: int, start: int, stop: int, cache: str) -> dict[str, np.ndarray]:
    """:func:`win_nonlinear.load`'s arrays of games ``start`` to ``stop - 1`` of ``seed`` (game ``g``
    from ``SeedSequence(seed).spawn(stop)[g]``, as ``win_features.positions``), cached."""
    path = Path(cache) / f"tree-inputs-2p-seed{seed}-games{start}-{stop}.npz"
    if path.exists():
        with np.load(path) as data:
            return {k: data[k] for k in win_nonlinear.KEYS}
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import valued_positions
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import strategy_named

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    seat = strategy_named("win")
    rows = []
    for g, game_seed in enumerate(np.random.SeedSequence(seed).spawn(stop)[start:], start=start):
        rows += [position_row(g, v) for v in valued_positions(play_seeded(board, rules, [seat] * 2, game_seed))]
    out = {k: np.array([r[k] for r in rows]) for k in win_nonlinear.KEYS if k != "lines"}
    out["lines"] = np.array([[np.stack(t) for t in r["lines"]] for r in rows])  # (N, 2, 4, L)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(temp, **out)
    temp.replace(path)
    return out


def positions(seed: int, games: int, block: int, cache: str) -> dict[str, np.ndarray]:
    """Every block of ``games`` games of ``seed`` (:func:`block_positions`) concatenated."""
    parts = []
    for start in range(0, games, block):
        tic = time.process_time()
        parts.append(block_positions(seed, start, min(games, start + block), cache))
        print(f"  seed {seed} games {start}-{min(games, start + block) - 1}: {len(parts[-1]['y'])} positions "
              f"({time.process_time() - tic:.0f} CPU s)", flush=True)
    return {k: np.concatenate([p[k] for p in parts]) for k in win_nonlinear.KEYS}


# ------------------------------------------------------------------------------------------- inputs


def swapped(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The positions from the other seat's side (2 players): every per-seat array's seats swapped,
    ``first`` negated (D5: one of the two played first in the round), the rest as is."""
    out = dict(data)
    for key in ("seats", "x", "y", "lines", "cells"):
        out[key] = data[key][:, ::-1]
    out["first"] = ~data["first"].astype(bool)
    return out


def names_b() -> list[str]:
    """The names of ``win_nonlinear.inputs(data, "b")``'s columns, in its order (2 players)."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.learned.win_model import FEATURES, SEAT_COLUMNS, SHEET_FEATURES
    from shelfie_solver.dice.rules import DEFAULT_RULES

    board = load_board(None, DEFAULT_RULES)
    cells = [f"s{s}c{c}" for s in range(board.n_shelves) for c in range(board.n_columns)]
    lines = [f"shelf {s}" for s in range(board.n_shelves)] + [f"column {c}" for c in range(board.n_columns)]
    engineered = ["closed", "short", "items to trigger", "dice to trigger", "open shelf items", "open shelf points",
                  "lines one short", "alive lines", "alive points", "completable", "threat1 lines", "threat1 items",
                  "threat1 points", "threat2 lines", "threat2 items", "threat2 points", "marked", "lines no avail"]
    who = ("own", "other")
    out = [f"b {w} {f}" for w in who for f in FEATURES[:13]] + ["b phase", "b round"]
    out += [f"b {w} {c}" for w in who for c in SEAT_COLUMNS + SHEET_FEATURES]  # the raw seat columns
    out += [f"b {w} {c} {k}" for w in who for k in ("marked", "avail") for c in cells]
    out += [f"b {w} {ln} {k}" for w in who for k in ("m", "a", "m pts", "a pts") for ln in lines]
    out += [f"b {w} {e}" for w in who for e in engineered] + [f"b race {e}" for e in engineered]
    return out + ["b lead P", "b lead score", "b first", "b ended", "b ended after"]


def input_set(data: dict[str, np.ndarray], kind: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``float (N, K)`` twice, the inputs ``kind`` (A-D of the module docstring) of the mover
    (seat 0) and of the other seat, and the columns' names."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.learned.win_model import FEATURES
    from shelfie_solver.dice.rules import DEFAULT_RULES

    u0, u1 = win_trees.tree_inputs(data["phase"], data["x"])
    sides, names = [[u0.astype(float)], [u1.astype(float)]], [f"own {f}" for f in FEATURES]
    names += [f"other {f}" for f in FEATURES] + ["phase"]
    board = load_board(None, DEFAULT_RULES)
    cells = [f"s{s}c{c}" for s in range(board.n_shelves) for c in range(board.n_columns)]
    lines = [f"shelf {s}" for s in range(board.n_shelves)] + [f"column {c}" for c in range(board.n_columns)]
    n = len(data["y"])
    if kind in ("B", "C"):
        c = data["cells"].astype(float)  # (N, 2, 2, C): per seat marked, available (D4)
        sides[0].append(c.reshape(n, -1))
        sides[1].append(c[:, ::-1].reshape(n, -1))
        names += [f"{w} {cell} {k}" for w in ("own", "other") for k in ("marked", "avail") for cell in cells]
    if kind == "C":
        points = data["lines"][:, :, 2:4].astype(float)  # (N, 2, 2, L): marked points, available points (D19)
        sides[0].append(points.reshape(n, -1))
        sides[1].append(points[:, ::-1].reshape(n, -1))
        names += [f"{w} {ln} {k}" for w in ("own", "other") for k in ("m pts", "a pts") for ln in lines]
    if kind == "D":
        sides[0].append(win_nonlinear.inputs(data, "b"))
        sides[1].append(win_nonlinear.inputs(swapped(data), "b"))
        names += names_b()
    if kind not in ("A", "B", "C", "D"):
        raise ValueError(f"unknown input set {kind!r}")
    x0, x1 = np.concatenate(sides[0], axis=1), np.concatenate(sides[1], axis=1)
    assert x0.shape[1] == len(names), (x0.shape, len(names))
    return x0, x1, names


# ------------------------------------------------------------------------------------------------ fit


def shipped_gap(data: dict[str, np.ndarray]) -> np.ndarray:
    """``float (N,)``: the mover's logit ``(z_0 - z_1) / (COEF_SCALE * WEIGHT_SCALE)`` under the
    shipped data/win.json's 2-player coefficients (the monotone projection included)."""
    assert np.array_equal(win_trees.rounds_of(data["x"]), data["round"])
    coefficients, block = win_trees.file_parts(win_trees.SHIPPED)
    assert block is None, "the shipped model has no trees"
    out: np.ndarray = win_trees.linear_gaps(coefficients, data["phase"], data["x"], data["round"]) / win_trees.scale()
    return out


def fit_set(train: dict[str, np.ndarray], test: dict[str, np.ndarray], kind: str,
            learning_rate: float) -> tuple[np.ndarray, dict[str, Any]]:
    """Trees on the inputs ``kind`` on top of the shipped logit, as ``win_trees.fit`` (its
    ``PARAMS``, both perspectives as rows with soft labels, init score, monotone constraints on the
    A part, early stopping on 20% of the fit games, numpy seed 0, by game; not refitted): the
    mover's chance at every test position, ``sigmoid(gap + (g(u_0) - g(u_1)) / 2)`` (the spec's
    antisymmetric use), and what was found."""
    import lightgbm as lgb

    from shelfie_solver.dice.learned.win_model import FEATURES

    F = len(FEATURES)
    scratch = kind.endswith("0")  # "D0": the inputs of D fitted from scratch (init score 0), a control
    kind = kind.rstrip("0")
    a0, a1, names = input_set(train, kind)
    gap = shipped_gap(train) * (not scratch)
    u = np.concatenate([a0, a1])
    label = np.concatenate([train["y"][:, 0], train["y"][:, 1]])
    init, games2 = np.concatenate([gap, -gap]), np.concatenate([train["game"], train["game"]])
    offset = int(train["game"].max()) + 1
    held = np.random.default_rng(0).permutation(offset)[: offset // 5]
    valid = np.isin(games2, held)
    monotone = win_trees.monotone_vector(F) + [0] * (u.shape[1] - (2 * F + 1))
    params = {**win_trees.PARAMS, "monotone_constraints": monotone, "learning_rate": learning_rate}
    tic = time.process_time()
    fitted = lgb.Dataset(u[~valid], label[~valid], init_score=init[~valid], feature_name=[f"c{i}" for i in range(len(names))],
                         free_raw_data=False)
    check = lgb.Dataset(u[valid], label[valid], init_score=init[valid], reference=fitted)
    booster = lgb.train(params, fitted, win_trees.MAX_ROUNDS, valid_sets=[check],
                        callbacks=[lgb.early_stopping(win_trees.PATIENCE, verbose=False)])
    best = booster.best_iteration or booster.num_trees()
    b0, b1, _ = input_set(test, kind)
    g0 = booster.predict(b0, num_iteration=best, raw_score=True)
    g1 = booster.predict(b1, num_iteration=best, raw_score=True)
    chance = 1 / (1 + np.exp(-(shipped_gap(test) * (not scratch) + (g0 - g1) / 2)))
    gain = booster.feature_importance("gain", iteration=best)
    order = np.argsort(-gain)[:15]
    top = [(names[i], float(gain[i] / gain.sum())) for i in order if gain[i] > 0]
    return chance, {"iterations": int(best), "inputs": len(names), "rows": int(len(u)), "cpu": time.process_time() - tic,
                    "top": top}


def fit(args: argparse.Namespace) -> None:
    start = time.process_time()
    test = seeds_positions(args.test_seed, args.test_games, args.block, args.cache)
    train = seeds_positions(args.train_seed, args.train_games, args.block, args.cache)
    print(f"fit: {len(train['y'])} positions of {args.train_games} games per seed ({args.train_seed}); held out: "
          f"{len(test['y'])} positions of {args.test_games} games per seed ({args.test_seed}); "
          f"{time.process_time() - start:.0f} CPU s so far", flush=True)
    y, games = test["y"][:, 0], test["game"]
    base = (1 / (1 + np.exp(-shipped_gap(test))) - y) ** 2
    print(f"shipped: held-out Brier {base.mean():.5f}", flush=True)
    rows = []
    for kind in args.sets.split(","):
        chance, info = fit_set(train, test, kind, args.learning_rate)
        d = (chance - y) ** 2 - base
        se = win_nonlinear.se_by_game(d, games)
        mse = args.shipped_rms ** 2 + d.mean()
        rms = math.sqrt(max(mse, 0.0)) * 100
        rows.append((kind, info, d.mean(), se, rms, d))
        print(f"  {kind}: {info['inputs']} inputs, {info['iterations']} iterations, Brier minus shipped "
              f"{d.mean() * 1e4:+.1f}e-4 (SE {se * 1e4:.1f}), implied RMS {rms:.2f} points "
              f"({info['cpu']:.0f} CPU s)", flush=True)
        print("    top gain: " + "; ".join(f"{n} {g:.3f}" for n, g in info["top"]), flush=True)
    first = rows[0][5]  # the differences of the other sets from the first one's (paired)
    print(f"| inputs | columns per row | iterations | held-out Brier minus shipped (1e-4) | SE (over games) "
          f"| minus {rows[0][0]}'s (1e-4) | SE | implied RMS vs truth (points; shipped {args.shipped_rms * 100:.1f}) "
          "| CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, info, dm, se, rms, d in rows:
        print(f"| {kind} | {info['inputs']} | {info['iterations']} | {dm * 1e4:+.1f} | {se * 1e4:.1f} "
              f"| {(d - first).mean() * 1e4:+.1f} | {win_nonlinear.se_by_game(d - first, games) * 1e4:.1f} "
              f"| {rms:.2f} | {info['cpu']:.0f} |")
    print(f"{time.process_time() - start:.0f} CPU s in all")


def seeds_positions(seeds: str, games: int, block: int, cache: str) -> dict[str, np.ndarray]:
    """:func:`positions` of ``games`` games of each seed of the comma-separated ``seeds``, the game
    numbers of each later seed shifted past the earlier ones' (games stay distinct)."""
    parts = []
    for k, seed in enumerate(int(v) for v in seeds.split(",")):
        part = positions(seed, games, block, cache)
        part["game"] = part["game"] + k * games
        parts.append(part)
    return {key: np.concatenate([p[key] for p in parts]) for key in win_nonlinear.KEYS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("positions", "fit"))
    parser.add_argument("--train-seed", default="18061", help="seeds of the fit games, comma-separated")
    parser.add_argument("--train-games", type=int, default=6000)
    parser.add_argument("--test-seed", default="18062", help="seeds of the held-out games, comma-separated")
    parser.add_argument("--test-games", type=int, default=2000)
    parser.add_argument("--block", type=int, default=250)
    parser.add_argument("--sets", default="A,B,C,D")
    parser.add_argument("--cache", default="/tmp/treegate")
    parser.add_argument("--learning-rate", type=float, default=win_trees.PARAMS["learning_rate"])
    parser.add_argument("--shipped-rms", type=float, default=0.081, help="the shipped model's RMS vs truth")
    args = parser.parse_args()
    os.chdir(win_trees.ROOT)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.command == "positions":
        seeds_positions(args.test_seed, args.test_games, args.block, args.cache)
        seeds_positions(args.train_seed, args.train_games, args.block, args.cache)
        return
    fit(args)


if __name__ == "__main__":
    main()
