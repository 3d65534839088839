"""benchmarks/win_features.py's candidates (docs/win-chance.md, "What the 13 features miss") on a
hand-made position: the numbers the diagnosis adds to the 13 features of ``win_model.design``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import load_benchmark

from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE


def _lines(available: list[int]) -> tuple[np.ndarray, ...]:
    """One seat's line totals (marked count, available count, marked points, available points) over
    5 shelves and 5 columns: ``available`` per shelf, 5 minus it marked, points 2 per item."""
    a = np.array(available + [3] * 5)
    m = 5 - a
    return m, a, 2 * m, 2 * a


def _position() -> dict:
    # seat 0 (just played): P 60 points, score 20, 1 shelf short of the trigger (D17), shelves
    # open 0, 2, 5, 1, 3 items; seat 1: P 50, score 30, 2 shelves short, shelves open 4, 4, 3, 5, 2
    seats = np.array([[60 * WEIGHT_SCALE, 20, 1, 0], [50 * WEIGHT_SCALE, 30, 2, 1]], dtype=np.int64)
    return {"seats": seats, "x": np.zeros((2, 13), dtype=np.int64), "shelves": 5,
            "lines": [_lines([0, 2, 5, 1, 3]), _lines([4, 4, 3, 5, 2])]}


def test_the_candidates_of_a_hand_made_position():
    bench = load_benchmark("win_features")
    r = _position()
    names = ("d", "dmin x L", "L / sqrt(1 + dmin)", "d - min other d", "items to the trigger", "tmin x L",
             "open items", "available points", "lines one short")
    got = bench.candidates([r], names)[0, :, 13:]
    # leads: seat 0 +10, seat 1 -10; dmin 1; items to the trigger: seat 0 its 1 shelf nearest to
    # closing (1 item), seat 1 its 2 nearest (2 + 3 = 5), so tmin 1; open items 11 and 18;
    # available points twice that; lines with one item left: seat 0 its shelf of 1, seat 1 none
    want = np.array([[1, 10, 10 / math.sqrt(2), -1, 1, 10, 11, 22, 1],
                     [2, -10, -10 / math.sqrt(2), 1, 5, -10, 18, 36, 0]], dtype=float)
    assert got == pytest.approx(want)


def test_an_unknown_candidate_is_refused():
    bench = load_benchmark("win_features")
    with pytest.raises(ValueError, match="unknown candidate"):
        bench.candidates([_position()], ("no such thing",))
