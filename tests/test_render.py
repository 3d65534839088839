"""Display helpers: exact rounding (floats only for display, never for deciding a digit)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from shelfie_solver.core.report import exact, one_in, percent, rounded


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


def test_exact_cell_keeps_short_fractions_and_points_long_ones_to_json() -> None:
    """A value-table objective's values have denominators of hundreds of digits: the table cell
    names the length instead, the short ones stay exact (the fraction itself, counted by hand)."""
    from fractions import Fraction

    from shelfie_solver.dice.advise.report import EXACT_CELL_WIDTH, exact_cell

    assert exact_cell(Fraction(3338761, 139968)) == "3338761/139968"
    long = Fraction(1, 3 ** 200)  # 1/ followed by the 96 digits of 3^200
    assert exact_cell(long) == f"({2 + len(str(3 ** 200))} characters: --format json)"
    assert len(str(3 ** 200)) == 96
    edge = Fraction(1, 10 ** (EXACT_CELL_WIDTH - 3))  # "1/1" + zeros: exactly the width
    assert exact_cell(edge) == str(edge)


def test_objective_notes_explain_file_objectives_like_their_kind() -> None:
    """``learned:FILE`` is explained as ``learned`` and ``table:FILE`` gets its own line."""
    from shelfie_solver.dice.advise.report import objective_notes

    assert objective_notes("learned:mine.json") == objective_notes("learned") != []
    assert "solve-game" in objective_notes("table:t.json")[0]
    assert objective_notes("points") == []
