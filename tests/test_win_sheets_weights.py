"""benchmarks/win_sheets.py's weighted fit (``fitmix`` with ``SEED:GAMES:PLAY_MODEL@WEIGHT``) and the
3-player file fitted with it (docs/win-chance.md, "The 3-player rows weighted toward their own
play"): every weight 1 is :func:`win_model.fit` itself, and a weight of 2 is the same sample counted
twice (the likelihood of D20 shares summed over samples)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from conftest import EXAMPLES, load_benchmark

from shelfie_solver.dice.learned.win_model import FEATURES, WEIGHT_SCALE, fit, load_win_model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # win_sheets imports win_first


def _samples(count: int, seed: int) -> list:
    """``count`` 3-player samples of phase 3: a few random features per seat (the rest 0) and
    each seat's share of victory drawn from a softmax of fixed strengths (D20: one winner here)."""
    rng = np.random.default_rng(seed)
    out = []
    truth = np.array([0.8, -0.5, 0.3])
    for _ in range(count):
        x = np.zeros((3, len(FEATURES)), dtype=np.int64)
        values = rng.integers(-5, 6, size=(3, 3))
        x[:, [0, 2, 7]] = values * WEIGHT_SCALE
        z = values @ truth
        p = np.exp(z - z.max())
        y = np.zeros(3)
        y[rng.choice(3, p=p / p.sum())] = 1.0
        out.append((3, 3, x, y))
    return out


def test_weights_of_one_are_the_plain_fit_and_two_counts_a_sample_twice():
    win_sheets = load_benchmark("win_sheets")
    samples = _samples(300, 5)
    plain = fit(samples, 0.01).coefficients[3]
    assert np.array_equal(win_sheets.weighted_fit(samples, [1.0] * len(samples), 0.01).coefficients[3], plain)
    twice = fit(samples + samples[:100], 0.01).coefficients[3]
    weighted = win_sheets.weighted_fit(samples, [2.0] * 100 + [1.0] * 200, 0.01).coefficients[3]
    assert not np.array_equal(twice, plain)
    # the same optimum, reached by L-BFGS on sums in another order: equal to a few millionths
    assert np.abs(weighted - twice).max() <= 5 and np.abs(twice - plain).max() > 1000
    # and the fit finds the strengths the outcomes were drawn from (per unit of WEIGHT_SCALE, over COEF_SCALE)
    assert np.allclose(plain[2, [0, 2, 7]] / 1e6, [0.8, -0.5, 0.3], atol=0.15)
    assert not weighted[:2].any() and not twice[:2].any()  # the other phases' rows: too few samples, 0


def test_the_3_player_file_weighted_toward_its_own_play():
    own = load_win_model(EXAMPLES / "win-sheets-3-own.json")
    data = json.loads((EXAMPLES / "win-sheets-3-own.json").read_text("utf-8"))
    assert data["format"] == "shelfie-solve win 4" and own.info["players"] == [3]
    assert [(s["seed"], s["players"], s.get("weight", 1.0)) for s in own.info["sources"]] == [
        (18101, 3, 1.0), (18102, 3, 1.0), (18111, 3, 1.0), (18521, 3, 3.0)]
    third = load_win_model(EXAMPLES / "win-sheets-34-iter3.json")  # the same sets, every weight 1
    assert own.coefficients[3][:, 14:].any() and not np.array_equal(own.coefficients[3], third.coefficients[3])
