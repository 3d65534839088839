"""The ``learned`` objective (shelfie_solver/dice/learned/objective.py): integer values worked by
hand on tiny weight vectors, the game context, the parameter file, and a legal game by its strategy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shelfie_solver.dice.board import Marks, item_sets, parse_marks
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.model_file import (FEATURE_NAMES, LearnedModel, ModelError, N_FEATURES, WEIGHT_SCALE,
                                                    default_model, model_from_dict)
from shelfie_solver.dice.learned.objective import (Learned, VALUE_SCALE, game_objective, solitaire_objective,
                                                   state_objective)
from shelfie_solver.dice.objective_names import parse_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.strategies import LearnedStrategy, strategy_named
from shelfie_solver.dice.learned.model_file import model_text

CONSTANT = FEATURE_NAMES.index("constant")
SHELF_SCORING_A = FEATURE_NAMES.index("shelf: scoring A")


def weights(**by_phase: dict[int, float]) -> np.ndarray:
    """``(3, F)`` integer weights over WEIGHT_SCALE from {phase: {feature: points}}."""
    table = np.zeros((3, N_FEATURES), dtype=np.int64)
    for phase, entries in by_phase.items():
        for feature, points in entries.items():
            table[int(phase[1:]) - 1, feature] = round(points * WEIGHT_SCALE)
    return table


def marking_value(board, rules, marks: Marks, objective, cells: tuple[int, ...]) -> int:
    sets = item_sets(board, rules.combinations_per_turn)
    index = next(i for i in range(len(sets.sizes)) if tuple(c for c in sets.cells[i] if c >= 0) == cells)
    return int(objective.values(StateArrays(board, rules, marks), sets.take(np.array([index])))[0])


def test_far_phase_value_by_hand(board, rules):
    # Shelf 1 (values 1 2 4 7 11) has r1c1, r1c2 marked; marking r1c3 makes it a scoring line
    # (D19: 3 marks): score 1+2+4 = 7, available points 7+11 = 18. No shelf closes: phase 3.
    # F = 0.5 * 18 (shelf scoring A) + 2 (constant); before F = 2 (no scoring line).
    # V change = (7 + 9 + 2) - (0 + 2) = 16 points = 256 sixteenths.
    objective = Learned(weights(p3={SHELF_SCORING_A: 0.5, CONSTANT: 2}), np.zeros(10, dtype=bool))
    marks = parse_marks("oo.../...../...../...../.....", board)
    assert objective.scale(rules) == VALUE_SCALE == 16
    assert marking_value(board, rules, marks, objective, (board.cell(0, 2),)) == 256


def test_closing_the_trigger_shelf_ends_the_future(board, rules):
    # Shelf 5 eliminated (closed); shelf 1 has 4 marks, r1c5 available. Before: one closed
    # shelf, so phase 2 (near): V = 14 (shelf 1 scores 1+2+4+7) + 3 (phase-2 constant) = 17.
    # Marking r1c5 closes a 2nd shelf (D17): phase 0, F = 0, V = 25 (1+2+4+7+11).
    objective = Learned(weights(p2={CONSTANT: 3}, p3={CONSTANT: 100}), np.zeros(10, dtype=bool))
    marks = parse_marks("oooo./...../...../...../xxxxx", board)
    assert marking_value(board, rules, marks, objective, (board.cell(0, 4),)) == (25 - 17) * 16


def test_values_round_half_up_once(board, rules):
    # A constant of 1/3 point in phase 3 only: 33333/100000 * 16 = 5.333 -> 5 sixteenths. The
    # marking of r1c1 changes nothing else (value 0); a failed result closes a shelf (D13), so
    # the sheet is one shelf short of the trigger (D17, phase 2, no constant): it loses the 5.
    objective = Learned(weights(p3={CONSTANT: 0.33333}), np.zeros(10, dtype=bool))
    marks = Marks.empty(board)
    assert objective.before(StateArrays(board, rules, marks)) == 5
    assert marking_value(board, rules, marks, objective, (board.cell(0, 0),)) == 0
    assert objective.failed_value(StateArrays(board, rules, marks)) == -5


def test_failed_result_gives_up_the_cheapest_shelf(board, rules):
    # With only "shelf: scoring A" weighted (the same in phases 2 and 3), giving up shelf 2 (no
    # marks) costs nothing while giving up shelf 1 (scoring, 7+11 points available at 0.5) costs
    # 9 points (D13).
    objective = Learned(weights(p2={SHELF_SCORING_A: 0.5}, p3={SHELF_SCORING_A: 0.5}), np.zeros(10, dtype=bool))
    marks = parse_marks("ooo../...../...../...../.....", board)
    options = dict(objective.shelf_values(StateArrays(board, rules, marks)))
    assert options[0] == -9 * 16 and options[1] == 0
    assert objective.failed_value(StateArrays(board, rules, marks)) == 0


def test_game_context_opponent_sums(board, rules):
    # Two players, seat 0 to play first: the opponent (empty sheet, score 0) still plays this
    # round if seat 0 ends the game, so its end-of-game value uses phase 1.
    table = weights(p1={CONSTANT: 1}, p2={CONSTANT: 2}, p3={CONSTANT: 4})
    model = LearnedModel({2: table})
    sheets = (Marks.empty(board), Marks.empty(board))
    objective = game_objective(board, rules, sheets, 0, 0, False, model)
    assert objective.opponent_sums == (WEIGHT_SCALE, 2 * WEIGHT_SCALE, 4 * WEIGHT_SCALE)
    assert objective.opponents == 1 and objective.opponent_distance == 2
    # Seat 1 plays last in the round: if it ends the game, nobody plays again (phase 0).
    later = game_objective(board, rules, sheets, 1, 0, False, model)
    assert later.opponent_sums[0] == 0
    state = GameState(board, rules, sheets, 1, 0, 1, False)
    assert state_objective(state, model).opponent_sums == later.opponent_sums


def test_model_file_round_trip_and_errors():
    model = LearnedModel({1: np.arange(3 * N_FEATURES, dtype=np.int64).reshape(3, N_FEATURES)}, {"trained": {"note": "x"}})
    again = model_from_dict(json.loads(model_text(model)))
    assert np.array_equal(again.weights[1], model.weights[1]) and again.info == {"trained": {"note": "x"}}
    assert np.array_equal(again.for_players(3), model.weights[1])  # nearest count fitted
    with pytest.raises(ModelError, match="not a learned-parameter file"):
        model_from_dict({"format": "other"})
    bad = json.loads(model_text(model))
    bad["weights"]["1"]["2"] = [1, 2]
    with pytest.raises(ModelError, match="whole numbers"):
        model_from_dict(bad)


def test_shipped_parameters_load(board):
    model = default_model()
    assert set(model.weights) == {1, 2, 3, 4}
    assert all(w.shape == (3, N_FEATURES) for w in model.weights.values())
    assert parse_objective("learned", board).name == "learned"
    assert solitaire_objective(board).opponents == 0


def test_learned_strategy_plays_legal_games(board, rules):
    # play_seeded runs every decision through the engine's legality checks (D7-D14).
    game = play_seeded(board, rules, [LearnedStrategy(), strategy_named("solver")], 4)
    assert len(game.scores) == 2 and game.over.rounds >= 1
    assert strategy_named("learned").name == "learned"


def test_fast_values_equal_weights_times_features(board, rules):
    # future_values (coefficients gathered per line status) against the plain dot product of the
    # weights with feature_vector, on random weights, sheets and threats.
    from shelfie_solver.dice.learned.objective import feature_vector, future_values, threats

    rng = np.random.default_rng(7)
    for _ in range(30):
        w = rng.integers(-10**6, 10**6, size=(3, N_FEATURES))
        sheets = tuple(Marks.empty(board).with_marked(tuple(int(c) for c in rng.choice(25, rng.integers(0, 12),
                                                                                          replace=False)))
                       for _ in range(2))
        marks = sheets[0]
        closed = tuple(c for c in board.lines[4] if marks.is_available(c))
        if rng.integers(2) and closed:
            marks = marks.with_eliminated(closed)
        threat = threats(board, rules, (marks, sheets[1]), 0)
        near = bool(rng.integers(2))
        m, a, mp, ap = StateArrays(board, rules, marks).line_totals
        context = rng.integers(0, 30, size=3)
        features = feature_vector(board, rules, marks, threat, near, context)
        for phase in (1, 2, 3):
            fast = future_values(w, board, 3, m, a, mp, ap, threat, np.array(near), np.array(phase), context)
            assert int(fast) == int(w[phase - 1] @ features)


def test_prior_weights_are_the_strategic_potential(board, rules):
    # prior_weights times the features = Phi - score, Phi from objectives.potential (over 2T).
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.learned.objective import feature_vector, prior_weights
    from shelfie_solver.dice.objectives import potential

    rng = np.random.default_rng(3)
    w = prior_weights(rules.scoring_threshold)
    for _ in range(20):
        marks = Marks.empty(board).with_marked(tuple(int(c) for c in rng.choice(25, rng.integers(0, 15),
                                                                                 replace=False)))
        shelf = int(rng.integers(5))
        marks = marks.with_eliminated(tuple(c for c in board.lines[shelf] if marks.is_available(c)))
        x = feature_vector(board, rules, marks, np.zeros(10, dtype=bool), False, np.zeros(3, dtype=np.int64))
        expected = potential(StateArrays(board, rules, marks)) - 6 * score(board, marks, rules)
        assert round(6 * float(w @ x)) == expected


def test_fit_by_hand():
    # 999 samples whose only non-zero feature is the constant, each 10 points still to come.
    # Ridge 1 toward the prior (0 for the constant): (999 + 1) w = 9990 + 0 -> w = 9.99 points.
    # With opponents the line features are not fitted: they keep the prior (Phi's shape).
    from shelfie_solver.dice.learned.objective import prior_weights
    from shelfie_solver.dice.learned.fitting import RIDGE, Sums, basis, fit
    from shelfie_solver.dice.learned.train import free_features

    assert RIDGE == 1.0
    sums = Sums.zero()
    sums.xtx[CONSTANT, CONSTANT] = 999
    sums.xty[CONSTANT] = 9990
    sums.count, sums.yy = 999, 99900
    prior = prior_weights(3)
    w, rmse = fit(sums, prior, basis(free_features(2)))
    assert w[CONSTANT] == 999_000
    assert np.array_equal(w[:CONSTANT - 2], np.rint(prior[:CONSTANT - 2] * WEIGHT_SCALE).astype(np.int64))
    assert rmse == pytest.approx(0.01, abs=1e-6)
    assert free_features(1).all() and not free_features(3)[SHELF_SCORING_A]


def test_advise_with_the_learned_objective():
    # The no-context form through the CLI: exact values as p/q like every objective.
    from fractions import Fraction

    from click.testing import CliRunner

    from shelfie_solver.cli import main

    result = CliRunner().invoke(main, ["advise", "--dice", "CCCBBJ", "--marks", "oo.o./o.o../xoxxx/.oo../o....",
                                       "--objective", "learned", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["objective"] == "learned"
    assert Fraction(data["value"]) == Fraction(data["holds"][0]["value"])


def test_expected_final_score_headline_stays_within_what_the_sheet_can_reach(tmp_path):
    """`advise --objective learned` alone: the headline's expected final score is learned's
    estimate, but never above the sheet with every available item marked nor below the score now
    (D19), a fitted value can stray beyond both on a board unlike its training boards."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main
    from pathlib import Path

    from shelfie_solver.dice.learned.model_file import FEATURE_NAMES, LearnedModel, WEIGHT_SCALE, default_model
    from shelfie_solver.dice.learned.model_file import model_text

    small = str(Path(__file__).resolve().parents[1] / "examples" / "boards" / "small.toml")

    def headline(*args: str) -> str:
        done = CliRunner().invoke(main, ["advise", "--dice", "PPBCCJ", "--board", small, *args])
        assert done.exit_code == 0, done.output
        return " ".join(done.stdout.split())  # the headline may be wrapped at 80 columns

    # small.toml's nine items are worth 21 points; each is on one shelf and one column, so a full
    # sheet scores 42 (D19). A constant of +300 points still to come is above it ...
    weights = default_model().weights[1].copy()
    weights[:, FEATURE_NAMES.index("constant")] = 300 * WEIGHT_SCALE
    high = tmp_path / "high.json"
    high.write_text(model_text(LearnedModel({1: weights})))
    assert "Expected final score at most 42 points (every available item marked;" in headline(
        "--objective", f"learned:{high}")
    # ... and -300 below the score now (0 on an empty sheet)
    weights[:, FEATURE_NAMES.index("constant")] = -300 * WEIGHT_SCALE
    low = tmp_path / "low.json"
    low.write_text(model_text(LearnedModel({1: weights})))
    assert "Expected final score at least 0 points (the score now;" in headline("--objective", f"learned:{low}")
    # within the bounds the estimate itself is shown (the default board: a full sheet is 252)
    done = CliRunner().invoke(main, ["advise", "--dice", "PPBCCJ", "--objective", "learned"])
    assert "(learned: score now 0 + points still to come)" in " ".join(done.stdout.split())
