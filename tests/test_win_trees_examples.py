"""The fitted trees files of docs/win-chance.md, "Both sheets: trees on the line states":
examples/win-trees-2.json (two rounds of games), examples/win-trees-2-fast.json (the same games,
fewer trees; data/win.json's 2-player rows and trees since 2026-12-07) and
examples/win-trees-2-iter1.json (the first round), and examples/win-td-2-l0.json and -l7.json
(fitted to the one-ply values, "Fitted on its own one-ply values") load as format 5 with trees for 2 players only,
keep data/win.json's 2-player coefficients and the 3- and 4-player rows of their time
(examples/win-first-34.json), and their trees add to a position's strengths what a plain walk of the file's own
lists gives (an evaluation written here from the spec, independent of learned.win_trees)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shelfie_solver.dice.learned.win_model import (
    DEFAULT_WIN_PATH,
    FEATURES,
    default_win_model,
    float_chances,
    load_win_model,
    strength_numerators,
)

from conftest import EXAMPLES, walk_trees as walk

FILES = ("win-trees-2.json", "win-trees-2-iter1.json", "win-trees-2-fast.json",
         "win-td-2-l0.json", "win-td-2-l7.json")  # the last two: "Fitted on its own one-ply values"


@pytest.mark.parametrize("name", FILES)
def test_the_trees_files_load_and_keep_the_shipped_coefficients(name):
    path = EXAMPLES / name
    data = json.loads(path.read_text("utf-8"))
    assert data["format"] == "shelfie-solve win 5"
    assert set(data["trees"]) == {"2"}
    model = load_win_model(path)
    shipped, then = default_win_model(), load_win_model(EXAMPLES / "win-first-34.json")
    assert np.array_equal(model.coefficients[2], shipped.coefficients[2])
    for n in (3, 4):
        assert np.array_equal(model.coefficients[n], then.coefficients[n])
    assert model.trees_for(2) is not None
    assert model.trees_for(3) is None and model.trees_for(4) is None
    fitted = data["trees"]["2"]["fitted"]
    assert fitted["positions"] == sum(s["positions"] for s in fitted["sources"])


def test_the_shipped_trees_are_the_fast_file_s():
    """data/win.json's 2-player trees are examples/win-trees-2-fast.json's, node for node (14 trees;
    docs/win-chance.md, "Both sheets: trees on the line states")."""
    shipped = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))["trees"]["2"]
    fast = json.loads((EXAMPLES / "win-trees-2-fast.json").read_text("utf-8"))["trees"]["2"]
    keys = ("feature", "threshold", "left", "right", "value", "roots")
    assert {k: shipped[k] for k in keys} == {k: fast[k] for k in keys} and len(fast["roots"]) == 14


@pytest.mark.parametrize("name", FILES)
def test_the_trees_add_the_file_lists_leaves(name):
    """At random design rows (2 seats; within design's integer ranges, the sheet counts small), the
    strengths with the trees minus without are each seat's walk of the file's lists at
    ``u_i = [x_i, x_j, phase]``; the chances of the two seats add up to 1."""
    path = EXAMPLES / name
    block = json.loads(path.read_text("utf-8"))["trees"]["2"]
    model = load_win_model(path)
    trees, c = model.trees_for(2), model.for_players(2)
    rng = np.random.default_rng(18050)
    k, f = 64, len(FEATURES)
    x = np.zeros((k, 2, f), dtype=np.int64)
    w, r = 100_000, 6
    x[..., 0] = rng.integers(0, 60, size=(k, 2)) * w
    x[..., 1] = x[..., 0] * r
    x[..., 2] = rng.integers(0, 40, size=(k, 2)) * w
    x[..., 3] = x[..., 2] * r
    x[:, 1, 7], x[:, 1, 8] = w, w * r  # the other seat plays next
    lead = x[:, 0, 0] - x[:, 1, 0]
    x[:, 0, 11] = lead * abs(lead) // (10 * w)
    x[:, 1, 11] = -x[:, 0, 11]
    x[..., 12] = x[..., 11] * r
    x[..., 14:] = rng.integers(0, 3, size=(k, 2, f - 14)) * w
    phase = rng.choice([0, 2, 3], size=k)
    plain = strength_numerators(c, phase, x, r)
    with_trees = strength_numerators(c, phase, x, r, trees=trees)
    for i in range(k):
        for seat in (0, 1):
            u = [*x[i, seat].tolist(), *x[i, 1 - seat].tolist(), int(phase[i])]
            assert int(with_trees[i, seat]) - int(plain[i, seat]) == walk(block, u)
    assert (with_trees != plain).any()
    p = float_chances(c, phase, x, r, trees=trees)
    assert np.allclose(p.sum(axis=1), 1, atol=2e-6)
