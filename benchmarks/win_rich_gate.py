"""Which per-seat sheet features give the 2-player win model most of the linear gain of
``benchmarks/win_nonlinear.py``'s inputs (b), in the model's own form (per-seat strengths, shared
coefficients, softmax: antisymmetric with two players)? An offline gate (docs/win-chance.md, "The
sheets' line states"), on the cached positions of ``win_nonlinear.py`` (``--cache``: its
``win-positions-2p-seed{S}-games{G}.npz``), fitted by :func:`win_model.fit_row` (ridge
``OWN_PLAY_RIDGE``, one row per phase) on the fit seed and scored on the held-out seeds (Brier of
the mover's share, D20; paired differences, SE over games). A measurement, not a test.

Run: ``python benchmarks/win_rich_gate.py --cache DIR [--train 10301:12000] [--test 10302:2000,10303:2000]``.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np


def load(cache: str, spec: str) -> dict[str, np.ndarray]:
    seed, games = spec.split(":")
    with np.load(Path(cache) / f"win-positions-2p-seed{seed}-games{games}.npz") as data:
        return {k: data[k] for k in data.files}


def base14(d: dict[str, np.ndarray]) -> np.ndarray:
    """``float (N, 2, 14)``: the 13 features and "a turn ahead" (the mover's flag) in points."""
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE

    x = d["x"][..., :13].astype(float) / WEIGHT_SCALE
    ahead = np.zeros(x.shape[:2] + (1,))
    ahead[:, 0, 0] = d["first"]
    return np.concatenate([x, ahead], axis=-1)


#: The per-seat engineered features (:func:`engineered`), in order.
ENGINEERED = ("closed shelves", "shelves short", "items to the trigger", "dice to the trigger",
              "open shelf items", "open shelf points / 10", "lines one short", "lines alive",
              "alive points / 10", "lines completable", "threat1 lines", "threat1 other items",
              "threat1 other points / 10", "threat2 lines", "threat2 other items", "threat2 other points / 10",
              "marked items", "lines dead-empty")


def engineered(d: dict[str, np.ndarray]) -> np.ndarray:
    """``float (N, 2, E)``: :data:`ENGINEERED` per seat (as win_nonlinear's inputs (b))."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.sheet_rules import end_trigger_shelves

    board = load_board(None, DEFAULT_RULES)
    k, trigger = board.n_shelves, end_trigger_shelves(board, DEFAULT_RULES)
    lines = d["lines"].astype(float)
    m, a, mp, ap = (lines[:, :, i] for i in range(4))
    cells = d["cells"].astype(float)
    dice = np.array([board.columns[c] for s in range(k) for c in range(board.n_columns)], dtype=float)
    shelf_of = np.repeat(np.arange(k), board.n_columns)
    avail = cells[:, :, 1]
    shelf_items = a[..., :k]
    shelf_dice = np.stack([(avail * dice * (shelf_of == s)).sum(axis=-1) for s in range(k)], axis=-1)
    closed = (shelf_items == 0).sum(axis=-1)
    short = np.clip(trigger - closed, 0, None)

    def nearest(per_shelf: np.ndarray) -> np.ndarray:
        ranked = np.sort(np.where(shelf_items > 0, per_shelf, np.inf), axis=-1)
        take = np.arange(k)[None, None, :] < short[..., None]
        return np.where(take, np.where(np.isfinite(ranked), ranked, 0), 0).sum(axis=-1)

    alive = m + a >= DEFAULT_RULES.scoring_threshold
    completable = (m + a == 5) & (a > 0)
    other = m[:, ::-1], a[:, ::-1], ap[:, ::-1]

    def threat(left: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        at = completable & (a == left)
        return at.sum(-1), (at * other[1]).sum(-1), (at * other[2]).sum(-1) / 10

    cols = [closed, short, nearest(shelf_items), nearest(shelf_dice), a[..., :k].sum(-1), ap[..., :k].sum(-1) / 10,
            (a == 1).sum(-1), alive.sum(-1), (alive * (mp + ap)).sum(-1) / 10, completable.sum(-1), *threat(1),
            *threat(2), m.sum(-1), ((a == 0) & (m < DEFAULT_RULES.scoring_threshold)).sum(-1)]
    return np.stack(cols, axis=-1).astype(float)


def line_totals(d: dict[str, np.ndarray]) -> np.ndarray:
    lines = d["lines"].astype(float) / np.array([1, 1, 10, 10])[None, None, :, None]
    return lines.reshape(lines.shape[0], 2, -1)


def cell_bits(d: dict[str, np.ndarray]) -> np.ndarray:
    c = d["cells"].astype(float)
    return c.reshape(c.shape[0], 2, -1)


def line_states(d: dict[str, np.ndarray]) -> np.ndarray:
    """Per line, one-hot of (marked count, available count) capped: counts of lines per state."""
    lines = d["lines"]
    m, a = lines[:, :, 0], lines[:, :, 1]
    cols = []
    for mm in range(6):
        for aa in range(6 - mm):
            cols.append(((m == mm) & (a == aa)).sum(-1))
    return np.stack(cols, axis=-1).astype(float)


def line_states_split(d: dict[str, np.ndarray]) -> np.ndarray:
    """:func:`line_states` of the shelves and of the columns apart."""
    lines = d["lines"]
    m, a = lines[:, :, 0], lines[:, :, 1]
    cols = []
    for part in (slice(0, 5), slice(5, 10)):
        for mm in range(6):
            for aa in range(6 - mm):
                cols.append(((m[..., part] == mm) & (a[..., part] == aa)).sum(-1))
    return np.stack(cols, axis=-1).astype(float)


GROUPS = {
    "14+states2": ("states2",),
    "14+states2+eng": ("states2", "eng"),
    "14": (),
    "14+eng": ("eng",),
    "14+lines": ("lines",),
    "14+states": ("states",),
    "14+eng+states": ("eng", "states"),
    "14+eng+lines": ("eng", "lines"),
    "14+eng+lines+cells": ("eng", "lines", "cells"),
}
MAKERS = {"eng": engineered, "lines": line_totals, "cells": cell_bits, "states": line_states, "states2": line_states_split}


def design(d: dict[str, np.ndarray], parts: tuple[str, ...]) -> np.ndarray:
    return np.concatenate([base14(d)] + [MAKERS[p](d) for p in parts], axis=-1)


def fitted(train: dict[str, np.ndarray], tests: list[dict[str, np.ndarray]], parts: tuple[str, ...],
           ridge: float) -> list[np.ndarray]:
    from scipy.special import softmax

    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
    from shelfie_solver.dice.learned.win_model import fit_row

    xa = design(train, parts)
    xs = [design(t, parts) for t in tests]
    out = [np.full(len(t["y"]), 0.5) for t in tests]
    for phase in (0, 2, 3):
        a = train["phase"] == phase
        if a.sum() < 20:
            continue
        w = fit_row(xa[a] * WEIGHT_SCALE, train["y"][a], ridge)
        for x, t, o in zip(xs, tests, out):
            b = t["phase"] == phase
            o[b] = softmax(x[b] @ w, axis=1)[:, 0]
    return out


def se_by_game(diff: np.ndarray, games: np.ndarray) -> float:
    per_game, count = np.bincount(games, weights=diff), np.bincount(games)
    return float(math.sqrt(len(count)) * per_game.std() / count.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", required=True)
    parser.add_argument("--train", default="10301:12000")
    parser.add_argument("--test", default="10302:2000,10303:2000")
    parser.add_argument("--groups", default=",".join(GROUPS))
    parser.add_argument("--ridge", type=float, default=None)
    args = parser.parse_args()
    from shelfie_solver.dice.learned.win_fit import OWN_PLAY_RIDGE

    ridge = OWN_PLAY_RIDGE if args.ridge is None else args.ridge
    start = time.process_time()
    train = load(args.cache, args.train)
    tests = [load(args.cache, s) for s in args.test.split(",")]
    results = {}
    for name in args.groups.split(","):
        tic = time.process_time()
        results[name] = [(p - t["y"][:, 0]) ** 2 for p, t in zip(fitted(train, tests, GROUPS[name], ridge), tests)]
        print(f"{name}: " + ", ".join(f"{r.mean():.5f}" for r in results[name])
              + f" ({time.process_time() - tic:.0f} CPU s)", flush=True)
    ref = results[next(iter(results))]
    print(f"| inputs (per seat, antisymmetric) | " + " | ".join(
        f"{s}: Brier | minus {next(iter(results))} (1e-4) | SE" for s in args.test.split(",")) + " |")
    for name, scores in results.items():
        cells = []
        for s, r, t in zip(scores, ref, tests):
            cells += [f"{s.mean():.5f}", f"{(s - r).mean() * 1e4:+.1f}", f"{se_by_game(s - r, t['game']) * 1e4:.1f}"]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"{time.process_time() - start:.0f} CPU s")


if __name__ == "__main__":
    main()
