"""A synthetic format-5 win-model file (docs/win-chance.md, "Both sheets: trees in integers (format
5)"): the shipped coefficients plus a seeded block of random 2-player trees that satisfies the
load's monotone rule (learned.win_trees: at a split on a seat's own P column every left leaf is at
most every right leaf, on the other seat's the reverse), for measuring the trees' evaluation
speed (docs/performance.md, "Rollouts") and for tests. Not a fitted model: its figures mean
nothing.

    python benchmarks/win_trees_synthetic.py OUT.json [--trees 300] [--leaves 15] [--seed 18009]

Each tree grows by splitting a random leaf until it has ``--leaves`` leaves (so depths vary as a
leaf-wise learner's do); a split reads a random input among the seat's and the other seat's
P, P x r, score, lead curve and its x r, near flags, the phase and the sheet-state columns, at a
threshold drawn from that input's usual range; leaf values are random (about 0.05 of strength),
then each right subtree of a monotone split is shifted so the rule holds (a shift keeps the
subtree's own splits valid).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from shelfie_solver.core.files import write_text_atomically
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_model import (
    COEF_SCALE,
    FEATURES,
    WinModel,
    default_win_model,
    model_from_dict,
    model_text,
)
from shelfie_solver.dice.learned.win_trees import OWN_COLUMNS

#: The seed of the file measured in docs/performance.md (from the seeds allotted to this work).
SEED = 18009


def _threshold(rng: np.random.Generator, feature: int, width: int) -> int:
    """A threshold in the usual range of input ``feature`` of ``u`` (``width`` F)."""
    w = WEIGHT_SCALE
    if feature == 2 * width:  # the phase: 0, 2, 3
        return int(rng.choice([0, 2]))
    f = feature % width
    r = int(rng.integers(1, 16))
    if f in (0, 2):  # P, score: points
        return int(rng.integers(0, 90 * w))
    if f in (1, 3):  # x r
        return int(rng.integers(0, 90 * w)) * r
    if f in (11, 12):  # lead x |lead| / 10 (and x r): leads within 40 points
        lead = int(rng.integers(-40 * w, 40 * w))
        return (lead * abs(lead)) // (10 * w) * (r if f == 12 else 1)
    if f in (5, 6):  # F times a flag
        return int(rng.integers(0, 40 * w))
    return int(rng.integers(0, 6)) * w  # flags and sheet-state counts (times w)


def synthetic_block(seed: int, trees: int, leaves: int, width: int = len(FEATURES)) -> dict[str, Any]:
    """A format-5 ``"trees"`` block (``{"feature": [...], ..., "roots": [...]}``) of ``trees``
    random trees of ``leaves`` leaves each over inputs of ``2 * width + 1`` (module docstring),
    deterministic in ``seed``."""
    rng = np.random.default_rng(seed)
    readable = [f for f in range(width) if f in (0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13) or f >= 14]
    inputs = readable + [width + f for f in readable] + [2 * width]
    weights = np.array([6.0 if f % width in OWN_COLUMNS and f < 2 * width else 1.0 for f in inputs])
    weights /= weights.sum()
    feature: list[int] = []
    threshold: list[int] = []
    left: list[int] = []
    right: list[int] = []
    value: list[int] = []
    roots: list[int] = []
    unit = COEF_SCALE * WEIGHT_SCALE
    for _ in range(trees):
        # grow one tree as a nested list: a leaf is [value], an internal node [f, t, left, right]
        shape: list[Any] = [[0]]
        open_leaves = [shape[0]]
        while len(open_leaves) < leaves:
            leaf = open_leaves.pop(int(rng.integers(len(open_leaves))))
            f = int(rng.choice(inputs, p=weights))
            a, b = [0], [0]
            leaf[:] = [f, _threshold(rng, f, width), a, b]
            open_leaves += [a, b]
        def fill(node: list[Any]) -> tuple[int, int]:
            if len(node) == 1:
                node[0] = int(rng.normal(0, 0.05) * unit / 2)
                return node[0], node[0]
            f = node[0]
            lo_a, hi_a = fill(node[2])
            lo_b, hi_b = fill(node[3])
            shift = 0
            if f < width and f in OWN_COLUMNS and hi_a > lo_b:
                shift = hi_a - lo_b
            elif width <= f < 2 * width and f - width in OWN_COLUMNS and lo_a < hi_b:
                shift = lo_a - hi_b
            if shift:
                move(node[3], shift)
                lo_b, hi_b = lo_b + shift, hi_b + shift
            return min(lo_a, lo_b), max(hi_a, hi_b)

        def move(node: list[Any], shift: int) -> None:
            if len(node) == 1:
                node[0] += shift
            else:
                move(node[2], shift)
                move(node[3], shift)

        fill(shape[0])
        # flatten, parents before children (preorder)
        roots.append(len(feature))
        stack = [(shape[0], -1, 0)]
        while stack:
            node, parent, side = stack.pop()
            index = len(feature)
            if parent >= 0:
                (left if side == 0 else right)[parent] = index
            if len(node) == 1:
                feature.append(-1)
                threshold.append(0)
                value.append(node[0])
            else:
                feature.append(node[0])
                threshold.append(node[1])
                value.append(0)
                stack.append((node[3], index, 1))
                stack.append((node[2], index, 0))
            left.append(-1)
            right.append(-1)
    return {"feature": feature, "threshold": threshold, "left": left, "right": right, "value": value,
            "roots": roots, "fitted": {"synthetic": f"benchmarks/win_trees_synthetic.py --seed {seed} "
                                                    f"--trees {trees} --leaves {leaves}"}}


def synthetic_model(seed: int = SEED, trees: int = 300, leaves: int = 15) -> WinModel:
    """The shipped model with :func:`synthetic_block`'s trees (read back through the file's
    checks, :func:`win_model.model_from_dict`)."""
    data = default_win_model().to_dict()
    data["format"] = "shelfie-solve win 5"
    data["trees"] = {"2": synthetic_block(seed, trees, leaves)}
    return model_from_dict(data, "synthetic")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--leaves", type=int, default=15)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    write_text_atomically(args.output, model_text(synthetic_model(args.seed, args.trees, args.leaves)))
    print(f"wrote {args.output}: {args.trees} trees of {args.leaves} leaves, seed {args.seed}")


if __name__ == "__main__":
    main()
