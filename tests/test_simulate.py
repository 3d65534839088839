"""Simulation statistics (exact, closed forms) and determinism by seed across --jobs."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from shelfie_solver.game import game_to_json, play_seeded
from shelfie_solver.simulate import (
    GameResult,
    SeatResult,
    SimulationError,
    _chunks,
    estimate,
    simulate,
    summarise,
)
from shelfie_solver.strategies import StrategyError, strategy_named


def test_estimate_closed_form():
    e = estimate([1, 2, 3, 4])
    assert e.mean == Fraction(5, 2)
    assert e.variance == Fraction(5, 3)  # (2.25 + 0.25 + 0.25 + 2.25) / 3
    assert e.half_width == pytest.approx(1.96 * math.sqrt(5 / 3 / 4))
    assert (e.low, e.high) == pytest.approx((2.5 - e.half_width, 2.5 + e.half_width))
    rare = estimate([1] + [0] * 99)  # the normal interval would dip below 0: clipped
    assert rare.low == 0 and rare.high == pytest.approx(0.01 + 1.96 * math.sqrt(Fraction(1, 100) / 100))
    one = estimate([Fraction(1, 2)])
    assert (one.mean, one.variance, one.half_width) == (Fraction(1, 2), 0, 0)
    with pytest.raises(SimulationError):
        estimate([])


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
