"""The joint win model (learned/win_model.py): every seat's chance is one softmax of per-seat
strengths (D20), integers under the model, the seats summing to one; the fit recovers known
coefficients; old files are refused with a clear message."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_model import (CHANCE_SCALE, COEF_SCALE, FEATURES, ROWS, WinModelError,
                                                   all_chances, chances, design, fit_row, load_win_model,
                                                   model_from_dict)

W = WEIGHT_SCALE


def test_design_by_hand():
    """Two seats after seat 0's turn in round 4: seat 0 expects 90 points (60 now), one shelf short
    of the trigger; seat 1 expects 80 (50 now), two short, plays next (D5, D17)."""
    seats = np.array([[[90 * W, 60, 1, 0], [80 * W, 50, 2, 1]]], dtype=np.int64)
    x = design(np.array([3]), seats, 4, to_play=0)  # seat 0 played second: the round is closed, level
    assert x.shape == (1, 2, len(FEATURES))
    none = [0] * 42  # no line-state counts given: the sheet features are 0 (format 4)
    assert x[0, 0].tolist() == [90 * W, 360 * W, 60 * W, 240 * W, W, 0, 30 * W, 0, 0, 0, 0, 10 * W, 40 * W, 0] + none
    # seat 1: another seat (0) is near, so its 30 points to come are at risk; 10 points behind: -10 x 10 / 10
    assert x[0, 1].tolist() == [80 * W, 320 * W, 50 * W, 200 * W, 0, 30 * W, 0, W, 4 * W, 0, 0, -10 * W, -40 * W, 0] \
        + none
    # seat 0 played first (seat 1 still to play in round 4, D5, D18): seat 0 is a turn ahead, alone
    ahead = design(np.array([3]), seats, 4, to_play=1)
    assert ahead[0, 0].tolist() == x[0, 0].tolist()[:13] + [W] + none
    assert ahead[0, 1].tolist() == x[0, 1].tolist()


def test_two_seats_are_a_logistic_of_the_difference():
    """With two seats the softmax is sigma(z0 - z1), z = c . x / (COEF_SCALE W) (closed form),
    kept within 1 to CHANCE_SCALE - 1 (an estimate is never a certainty, docs/play.md)."""
    rng = np.random.default_rng(3)
    c = rng.integers(-50_000, 50_000, size=(len(ROWS), len(FEATURES)))
    c[:, [0, 1, 5, 6, 11, 12]] = np.abs(c[:, [0, 1, 5, 6, 11, 12]])  # monotone: no projection (monotone_columns)
    x = rng.integers(-200 * W, 200 * W, size=(40, 2, len(FEATURES)))
    phase = rng.choice(ROWS, size=40)
    got = chances(c, phase, x, 4)
    for k in range(40):
        row = ROWS.index(int(phase[k]))
        z = [sum(int(c[row, f]) * int(x[k, i, f]) for f in range(len(FEATURES))) for i in (0, 1)]
        d = (z[0] - z[1]) / (COEF_SCALE * W)
        want = round(CHANCE_SCALE / (1 + math.exp(-max(min(d, 60), -60))))
        assert got[k] == min(max(want, 1), CHANCE_SCALE - 1)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_seats_sum_to_one(seats):
    rng = np.random.default_rng(seats)
    c = rng.integers(-30_000, 30_000, size=(len(ROWS), len(FEATURES)))
    x = rng.integers(-150 * W, 150 * W, size=(50, seats, len(FEATURES)))
    got = all_chances(c, rng.choice(ROWS, size=50), x, 6)
    assert np.all(np.abs(got.sum(axis=1) - CHANCE_SCALE) <= seats)
    assert np.all((got >= 1) & (got <= CHANCE_SCALE - 1))


def test_wide_products_are_exact():
    """Products beyond int64 go through Python integers: the same chances as small ones scaled
    so that the strengths' differences are equal."""
    c = np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64)
    c[:, 0] = 10 ** 6  # one unit per point of P
    small = np.zeros((1, 2, len(FEATURES)), dtype=np.int64)
    small[0, :, 0] = [3 * W, 2 * W]
    big = small.copy()
    big[0, :, 0] += 10 ** 15  # the same gap, products beyond 2^62
    phase = np.array([3])
    assert chances(c, phase, big, 5)[0] == chances(c, phase, small, 5)[0] == round(CHANCE_SCALE / (1 + math.exp(-1)))


def test_the_fit_recovers_known_coefficients():
    """Outcomes drawn from a known softmax over 3 seats: the maximum-likelihood fit finds its
    coefficients (within sampling error) — the fit does not read the generator."""
    rng = np.random.default_rng(7)
    n, k = 3, 20_000
    x = np.zeros((k, n, len(FEATURES)), dtype=np.int64)
    x[:, :, 0] = rng.integers(0, 100, size=(k, n)) * W  # P in points
    x[:, :, 7] = (np.arange(n) == 1) * W  # seat 1 plays next
    truth = np.zeros(len(FEATURES))
    truth[0], truth[7] = 0.08, 0.5
    z = x.astype(float) / W @ truth
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    winner = np.array([rng.choice(n, p=row) for row in p])
    y = np.eye(n)[winner]
    w = fit_row(x, y, ridge=0.0)
    assert abs(w[0] - 0.08) < 0.005 and abs(w[7] - 0.5) < 0.08
    assert np.all(np.abs(np.delete(w, [0, 7])) < 1e-6)  # features that are all zero stay 0


def test_format_one_is_refused_clearly(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "shelfie-solve win 1", "coef_scale": COEF_SCALE,
                                "coefficients": {"2": [[0] * 6] * 3}}))
    with pytest.raises(WinModelError, match="format 1.*train --win-model"):
        load_win_model(path)
    with pytest.raises(WinModelError, match="56 whole numbers"):
        model_from_dict({"format": "shelfie-solve win 4", "coef_scale": COEF_SCALE, "chance_scale": CHANCE_SCALE,
                         "rows": list(ROWS), "features": list(FEATURES),
                         "coefficients": {"2": [[0] * 6] * 3}}, "x.json")
    with pytest.raises(WinModelError, match="'shelfie-solve win 3'.*14 whole numbers"):  # the format before
        model_from_dict({"format": "shelfie-solve win 3", "coef_scale": COEF_SCALE, "chance_scale": CHANCE_SCALE,
                         "rows": list(ROWS), "features": list(FEATURES[:14]),
                         "coefficients": {"2": [[0] * 6] * 3}}, "x.json")
    with pytest.raises(WinModelError, match="'shelfie-solve win 2'.*13 whole numbers"):  # the former format
        model_from_dict({"format": "shelfie-solve win 2", "coef_scale": COEF_SCALE, "chance_scale": CHANCE_SCALE,
                         "rows": list(ROWS), "features": list(FEATURES[:13]),
                         "coefficients": {"2": [[0] * 6] * 3}}, "x.json")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_design_matches_the_per_seat_definition(n):
    """The lead over the best other seat and "another seat near" (D17), computed seat by seat over
    the others, agree with design's vectorised form, ties for the top included."""
    rng = np.random.default_rng(n)
    k = 300
    seats = np.stack([rng.integers(0, 5, size=(k, n)) * 7 * W, rng.integers(0, 50, size=(k, n)),
                      rng.integers(-1, 4, size=(k, n)), np.tile(np.arange(n), (k, 1))], axis=-1)
    to_play = n - 2  # the player who just played is second in the round
    x = design(np.full(k, 3), seats, 5, to_play=to_play)
    p, near = seats[..., 0], (seats[..., 2] == 1)
    for row in range(k):
        for i in range(n):
            others = [j for j in range(n) if j != i]
            lead = int(p[row, i]) - max(int(p[row, j]) for j in others)
            assert x[row, i, 11] == (lead * abs(lead)) // (10 * W) and x[row, i, 12] == x[row, i, 11] * 5
            future = int(p[row, i]) - int(seats[row, i, 1]) * W
            assert x[row, i, 5] == future * any(near[row, j] for j in others)
            # the player (turns until it plays 0) is second in the round: it and the first player,
            # i turns after it (i = n - 1), have played once more than the seats between (D5, D18)
            assert x[row, i, 13] == (W if to_play > 0 and i in (0, n - 1) else 0)
