"""Display helpers: exact rounding (floats only for display, never for deciding a digit)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from shelfie_solver.render import exact, one_in, percent, rounded


@pytest.mark.parametrize("value, places, text", [
    (Fraction(1773, 20), 1, "88.7"),      # 88.65: a float prints 88.6
    (Fraction(12345, 1000), 2, "12.35"),  # 12.345: a float prints 12.35 or 12.34 by luck
    (Fraction(1, 3), 4, "0.3333"),
    (Fraction(2, 3), 0, "1"),
    (Fraction(-1, 8), 2, "-0.13"),
    (Fraction(-1, 1000), 2, "0.00"),      # no "-0.00"
    (Fraction(0), 2, "0.00"),
    (7, 0, "7"),
])
def test_rounded_half_away_from_zero(value, places, text):
    assert rounded(value, places) == text


def test_percent_exact_and_one_in():
    assert percent(Fraction(1773, 2000), 1) == "88.7%"
    assert percent(Fraction(347897, 7558272)) == "4.60%"
    assert exact(Fraction(6, 3)) == "2/1" and exact(0) == "0/1"
    assert one_in(Fraction(1, 4)) == "1 in 4" and one_in(Fraction(0)) == "never"
