"""Simulation statistics (exact, closed forms) and determinism by seed across --jobs."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.game.record import game_to_json
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.core.stats import DIFFERENCE, PROPORTION, SimulationError, estimate
from shelfie_solver.core.tournament import _chunks
from shelfie_solver.dice.simulate import (
    GameResult,
    SeatResult,
    simulate,
    summarise,
)
from shelfie_solver.dice.strategies import StrategyError, strategy_named


T975_3 = 3.182446305284263  # Student t, 3 degrees of freedom, 97.5% (published tables: 3.182)
Z975 = 1.959963984540054


def test_estimate_closed_form():
    e = estimate([1, 2, 3, 4])
    assert e.mean == Fraction(5, 2)
    assert e.variance == Fraction(5, 3)  # (2.25 + 0.25 + 0.25 + 2.25) / 3
    assert e.half_width == pytest.approx(T975_3 * math.sqrt(5 / 3 / 4))
    assert (e.low, e.high) == pytest.approx((1, 4))  # clipped to the range of the values seen
    wide = estimate([10, 12, 14, 16] * 4)
    assert wide.high - wide.low == pytest.approx(2 * wide.half_width)
    one = estimate([Fraction(1, 2)])
    assert (one.mean, one.variance) == (Fraction(1, 2), 0)
    assert math.isnan(one.low) and math.isnan(one.high)  # one game: no interval
    with pytest.raises(SimulationError):
        estimate([])
    with pytest.raises(SimulationError):
        estimate([2], PROPORTION)


def test_win_rate_interval_is_wilson():
    """20 wins in 20 games is not [100%, 100%]; Wilson's closed form at p = 1 is
    [n / (n + z^2), 1], at p = 0 it is [0, z^2 / (n + z^2)]."""
    all_won = estimate([1] * 20, PROPORTION)
    assert all_won.low == pytest.approx(20 / (20 + Z975**2)) and all_won.high == 1
    assert 0.83 < all_won.low < 0.84
    none_won = estimate([0] * 20, PROPORTION)
    assert none_won.low == 0 and none_won.high == pytest.approx(Z975**2 / (20 + Z975**2))
    one = estimate([1], PROPORTION)
    assert one.low == pytest.approx(1 / (1 + Z975**2))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.data())
def test_wilson_matches_scipy_for_whole_wins(n, data):
    """Property: for 0/1 wins our interval is scipy's Wilson interval (an independent
    implementation), it holds the mean and never has zero width."""
    from scipy.stats import binomtest

    k = data.draw(st.integers(0, n))
    e = estimate([1] * k + [0] * (n - k), PROPORTION)
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (e.low, e.high) == pytest.approx((ci.low, ci.high), abs=1e-9)
    assert e.low <= float(e.mean) <= e.high and e.high - e.low > 0


def test_difference_interval_maps_wilson_to_minus_one_one():
    """A paired win-rate difference in [-1, 1]: Wilson on (d + 1) / 2, mapped back."""
    e = estimate([1] * 20, DIFFERENCE)
    assert e.high == 1 and e.low == pytest.approx(2 * 20 / (20 + Z975**2) - 1)


def test_shared_wins_keep_an_honest_interval():
    """D20 ties count 1/k; the interval still contains the mean and is not zero-width."""
    e = estimate([Fraction(1, 2)] * 30, PROPORTION)
    assert e.low < 0.5 < e.high


def seat(win, score):
    return SeatResult(Fraction(win), score, score, 0, 0, 0, 0)


def test_summary_of_hand_made_games():
    """Ties share the win (D20): seat 0 wins game 1, game 2 is a 2-way tie -> 3/4 and 1/4."""
    half = Fraction(1, 2)
    games = [GameResult(8, (seat(1, 30), seat(0, 10))), GameResult(6, (seat(half, 20), seat(half, 20)))]
    summary = summarise(games, ("solver", "greedy"), seed=7)
    assert summary.seats[0].stats["win"].mean == Fraction(3, 4)
    assert summary.seats[1].stats["win"].mean == Fraction(1, 4)
    assert summary.rounds.mean == 7
    assert summary.leader == 0
    assert summary.margins[0].score.mean == 10  # (20 + 0) / 2
    assert summary.margins[0].win.mean == Fraction(1, 2)


def test_same_seed_same_results_whatever_the_jobs(board, rules):
    players = ["solver", "random", "threshold"]
    one, lines_one = simulate(board, rules, players, 7, seed=42, jobs=1, save=True)
    two, lines_two = simulate(board, rules, players, 7, seed=42, jobs=2, save=True)
    assert one == two
    assert lines_one == lines_two


def test_game_i_is_played_from_the_i_th_spawned_seed(board, rules):
    _, lines = simulate(board, rules, ["greedy", "random"], 3, seed=9, jobs=1, save=True)
    children = np.random.SeedSequence(9).spawn(3)
    strategies = [strategy_named("greedy"), strategy_named("random")]
    assert lines == [game_to_json(play_seeded(board, rules, strategies, children[i]), game=i, seed=9)
                     for i in range(3)]


def test_progress_and_fresh_seed(board, rules):
    seen = []
    summary, lines = simulate(board, rules, ["greedy"], 30, jobs=1, progress=seen.append)
    assert sum(seen) == 30 and lines == []
    assert summary.seed > 0 and summary.games == 30
    again, _ = simulate(board, rules, ["greedy"], 30, seed=summary.seed, jobs=1)
    assert again == summary  # the reported seed repeats the run


def test_bad_settings(board, rules):
    with pytest.raises(SimulationError, match="games"):
        simulate(board, rules, ["greedy"], 0)
    with pytest.raises(SimulationError, match="jobs"):
        simulate(board, rules, ["greedy"], 1, jobs=0)
    with pytest.raises(StrategyError):
        simulate(board, rules, ["greedy"] * 5, 1)


@pytest.mark.parametrize("games,jobs", [(1, 1), (7, 2), (100, 2), (1000, 8), (26, 1)])
def test_chunks_cover_every_game_once(games, jobs):
    chunks = _chunks(games, jobs)
    assert [i for lo, hi in chunks for i in range(lo, hi)] == list(range(games))


def test_the_same_value_in_every_game_has_no_zero_width_interval():
    """Forty games that all scored 17 gave the t interval [17, 17], which claims the mean known
    exactly. There is no t interval then (NaN, as for one game); what the games show is that
    another value is rare: at 95%, in at most z^2 / (n + z^2) of games (Wilson's upper end at none
    seen, the closed form of the win rate's interval at 0 wins; the rule of three's 3/n is close)."""
    from shelfie_solver.core.stats import no_interval_words

    same = estimate([17] * 40)
    assert same.unanimous and same.variance == 0
    assert math.isnan(same.low) and math.isnan(same.high) and math.isnan(same.half_width)
    bound = Z975**2 / (40 + Z975**2)
    assert same.others_at_most == pytest.approx(bound) and 3 / 40 < bound < 4 / 40
    assert no_interval_words(same) == f"all 17; others <= {bound * 100:.1f}%" == "all 17; others <= 8.8%"
    assert no_interval_words(estimate([Fraction(1, 2)])) == "one game: no interval"
    assert not estimate([1]).unanimous and not estimate([17, 18]).unanimous
    assert not estimate([1] * 20, PROPORTION).unanimous  # win rates keep their Wilson interval
    assert estimate([Fraction(5, 2)] * 3).others_at_most == pytest.approx(Z975**2 / (3 + Z975**2))
