"""benchmarks/chance_diagnosis.py's other constructions of the shown chances and
benchmarks/chance_calibration.py's remembered roller's view (docs/win-chance.md, "Calibration with
3 and 4 players: round 3 and where the gaps come from"): values worked by hand (D20 shares)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import load_benchmark

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # chance_calibration's own imports


def _dump(exact_second: bool = False) -> dict[str, np.ndarray]:
    """Two 3-player positions, three rows each (mover, roller, other); the second exact or not."""
    return {
        "players": np.array([3] * 6),
        "role": np.array([0, 1, 2, 1, 0, 2]),
        "shown": np.array([0.4, 0.35, 0.25, 0.2, 0.5, 0.3]),
        "model": np.array([0.9, 0.3, 0.1, 0.2, 0.7, 0.2]),
        "own": np.array([math.nan, 0.35, math.nan, 0.2, math.nan, math.nan]),
        "exact": np.array([False, False, False, exact_second, exact_second, exact_second]),
    }


def test_proportional_and_half_worked_by_hand() -> None:
    """Position 1: the mover 0.4 leaves 0.6, shared 0.3 : 0.1 -> 0.45 and 0.15 (proportional);
    half: the roller (0.35 + 0.45) / 2 = 0.4, the other 1 - 0.4 - 0.4 = 0.2. Position 2 (seats
    roller, mover, other): 0.5 left, shared 0.2 : 0.2 -> 0.25 each; half: roller (0.2 + 0.25) / 2
    = 0.225, the other 0.275. The mover's figure is the shown one in every construction."""
    bench = load_benchmark("chance_diagnosis")
    out = bench.constructions(_dump(), 3)
    assert out["shown"] == pytest.approx([0.4, 0.35, 0.25, 0.2, 0.5, 0.3])
    assert out["proportional"] == pytest.approx([0.4, 0.45, 0.15, 0.25, 0.5, 0.25])
    assert out["half"] == pytest.approx([0.4, 0.4, 0.2, 0.225, 0.5, 0.275])


def test_exact_positions_keep_the_shown_figures() -> None:
    bench = load_benchmark("chance_diagnosis")
    out = bench.constructions(_dump(exact_second=True), 3)
    assert out["proportional"][3:] == pytest.approx([0.2, 0.5, 0.3])
    assert out["half"][3:] == pytest.approx([0.2, 0.5, 0.3])


def test_deciles_of_a_hand_made_sample() -> None:
    """Four figures in the 20-30% decile (mean 0.25) won once in four: no gap; one of 0.95 lost."""
    bench = load_benchmark("chance_diagnosis")
    shown = np.array([0.2, 0.25, 0.25, 0.3 - 1e-9, 0.95])
    won = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
    table = bench.deciles(shown, won, np.arange(5), 50)
    assert [(k, c) for k, c, *_ in table] == [(2, 4), (9, 1)]
    assert table[0][2] == pytest.approx(0.25) and table[0][3] == pytest.approx(0.25)
    assert table[1][3] == 0.0
    assert bench.norm_sf(0.0) == pytest.approx(0.5)
    assert bench.norm_sf(1.959963984540054) == pytest.approx(0.025)


def test_the_roller_s_view_is_computed_once_per_state() -> None:
    calls: list[object] = []

    def seat_chances(state, dice=None, rerolls_left=0):  # type: ignore[no-untyped-def]
        calls.append((state, dice, rerolls_left))
        return [len(calls)]

    module = SimpleNamespace(seat_chances=seat_chances)
    load_benchmark("chance_calibration")._memo_seat_chances(module)
    one, two = object(), object()
    assert module.seat_chances(one) == [1] and module.seat_chances(one) == [1]
    assert module.seat_chances(two) == [2]
    assert module.seat_chances(two, dice=(1, 2), rerolls_left=1) == [3]  # not remembered
    assert len(calls) == 3
