"""``review``: the solver reviewing its own play loses 0 on every decision; losses are never
negative; weaker strategies lose more (the loss per turn ranks random > greedy > threshold >
solver over a few short 4-player games)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from shelfie_solver.game import game_to_dict, play_seeded
from shelfie_solver.review import review
from shelfie_solver.strategies import strategy_named
from shelfie_solver.table import table_from_dict

NAMES = ("random", "greedy", "threshold", "solver")


@pytest.fixture(scope="module")
def reviews(board, rules):
    """Every seat's review over 3 seeded games of random, greedy, threshold, solver."""
    out = {name: [] for name in NAMES}
    for seed in range(3):
        game = play_seeded(board, rules, [strategy_named(n) for n in NAMES], seed)
        table = table_from_dict(game_to_dict(game))
        for seat, name in enumerate(NAMES):
            out[name].append(review(table, seat))
    return out


def test_solver_loses_nothing(reviews):
    decisions = [d for r in reviews["solver"] for d in r.decisions]
    assert decisions and all(d.loss == 0 for d in decisions)
    assert {d.kind for d in decisions} >= {"hold", "mark"}


def test_losses_are_exact_and_never_negative(reviews):
    for name in NAMES:
        for r in reviews[name]:
            for d in r.decisions:
                assert isinstance(d.loss, Fraction) and d.loss >= 0
                assert d.best_value >= d.chosen_value


def test_weaker_play_loses_more(reviews):
    per_turn = {name: sum((r.total_loss for r in rs), Fraction(0)) / sum(r.turns for r in rs)
                for name, rs in reviews.items()}
    per_decision = {name: sum((r.total_loss for r in rs), Fraction(0)) / sum(len(r.decisions) for r in rs)
                    for name, rs in reviews.items()}
    assert per_turn["random"] > per_turn["greedy"] > per_turn["threshold"] > per_turn["solver"] == 0
    assert min(per_decision["random"], per_decision["greedy"]) > per_decision["threshold"] > 0


def test_greedy_stops_at_once_and_its_stop_is_a_hold_decision(reviews):
    holds = [d for r in reviews["greedy"] for d in r.decisions if d.kind == "hold"]
    assert holds and all(d.chosen.endswith("(stop)") and d.rerolls_left == 2 for d in holds)
