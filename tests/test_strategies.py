"""Strategies: each decision checked against an independent reference (brute force over
allocate.legal_markings with board.score, advise's rankings), plus the solver's margin over
random play in a seeded run."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.advise.advice import failed_options, rank_holds, rank_markings
from shelfie_solver.dice.allocate import find_groups, legal_markings
from shelfie_solver.dice.board import Marks, parse_marks, score
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.dice.game.events import GameState, legal_sets
from shelfie_solver.dice.objectives import Strategic
from shelfie_solver.dice.simulate import simulate
from shelfie_solver.dice.strategies import (
    STRATEGIES,
    GreedyStrategy,
    RandomStrategy,
    SolverStrategy,
    StrategyError,
    ThresholdStrategy,
    parse_players,
    strategy_named,
)

RNG = np.random.default_rng(0)


def state_of(board, rules, marks: Marks, others: tuple[Marks, ...] = ()) -> GameState:
    return GameState(board, rules, (marks,) + others, 0, 0, 0, False)


sheets = st.tuples(st.integers(0, 2**25 - 1), st.integers(0, 2**25 - 1)).map(
    lambda me: Marks(5, 5, me[0], me[1] & ~me[0]))
rolls = st.integers(0, 461)


@settings(max_examples=80, deadline=None)
@given(marks=sheets, roll=rolls)
def test_greedy_marks_the_most_points_now(board, rules, marks, roll):
    """Brute force: the greedy marking gains the most points (D19), then has the most items."""
    dice = space_for(rules).rolls[roll]
    found = legal_markings(dice, board, marks, rules)
    if not found:
        return
    before = score(board, marks, rules)
    gains = {m.cells: score(board, marks.with_marked(m.cells), rules) - before for m in found}
    best = max(gains.values())
    most = max(len(c) for c, g in gains.items() if g == best)
    chosen = GreedyStrategy().choose_marking(state_of(board, rules, marks), dice,
                                             legal_sets(dice, board, marks, rules), RNG)
    assert gains[chosen] == best and len(chosen) == most


def test_greedy_stops_at_once_and_gives_up_the_cheapest_shelf(board, rules):
    marks = parse_marks("xx.../xx.../xx.../xx.../xx...", board)
    dice = parse_dice("PGBACJ", rules)
    greedy = GreedyStrategy()
    assert greedy.choose_hold(state_of(board, rules, marks), dice, 2, RNG) == dice
    # available points: shelf 1 4+7+11=22, shelf 2 20, shelf 3 22, shelf 4 22, shelf 5 21
    assert greedy.choose_shelf(state_of(board, rules, marks), dice, (0, 1, 2, 3, 4), RNG) == 1


@settings(max_examples=25, deadline=None)
@given(marks=sheets, roll=rolls)
def test_solver_marking_is_advise_first_choice(board, rules, marks, roll):
    dice = space_for(rules).rolls[roll]
    ranked = rank_markings(dice, board, marks, rules, Strategic())
    if not ranked:
        return
    chosen = SolverStrategy().choose_marking(state_of(board, rules, marks), dice,
                                             legal_sets(dice, board, marks, rules), RNG)
    assert chosen == ranked[0].marking.cells


@pytest.mark.parametrize("marks_text", ["...../...../...../...../.....", "oo.../...../x..../.o.../....."])
@pytest.mark.parametrize("dice_text", ["CCBJPP", "PGBACJ", "AAAAGG"])
@pytest.mark.parametrize("left", [1, 2])
def test_solver_hold_is_advise_best_hold(board, rules, marks_text, dice_text, left):
    marks = parse_marks(marks_text, board)
    dice = parse_dice(dice_text, rules)
    best = rank_holds(dice, board, marks, rules, Strategic(), left)[0]
    assert SolverStrategy().choose_hold(state_of(board, rules, marks), dice, left, RNG) == best.keep


def test_solver_gives_up_advise_first_shelf_and_caches(board, rules):
    marks = parse_marks("xxooo/xx.../xx.../xxo../xx...", board)
    solver = SolverStrategy(cache_size=1)
    shelf = solver.choose_shelf(state_of(board, rules, marks), parse_dice("PGBACJ", rules), (1, 2, 3, 4), RNG)
    assert shelf == failed_options(board, marks, rules)[0].shelf
    state = state_of(board, rules, Marks.empty(board))
    solver.choose_hold(state, parse_dice("CCBJPP", rules), 2, RNG)
    solver.choose_hold(state, parse_dice("CCBJPP", rules), 1, RNG)
    assert (solver.solved, solver.hits) == (1, 1)
    solver.choose_hold(state_of(board, rules, marks), parse_dice("CCBJPP", rules), 1, RNG)
    solver.choose_hold(state, parse_dice("CCBJPP", rules), 1, RNG)  # evicted (cache_size 1)
    assert solver.solved == 3


def test_threshold_stops_when_a_line_reaches_the_threshold(board, rules):
    """Book shelf with 2 marks: BBB marks r2c3 (3 books), shelf 2 scores 1+3+4 = 8 now: stop.
    Best marking by hand: r2c3 + r3c1 + r5c1 scores 8 + column 1 (r2c1 1, r3c1 2, r5c1 2) = 13 now
    (r4c1 instead of either would give 12): 3 * 13 + focus 28 = 67."""
    marks = parse_marks("...../oo.../...../...../.....", board)
    dice = parse_dice("BBBPGA", rules)
    strategy = ThresholdStrategy()
    state = state_of(board, rules, marks)
    assert strategy.choose_hold(state, dice, 2, RNG) == dice
    assert strategy.choose_marking(state, dice, legal_sets(dice, board, marks, rules), RNG) == (7, 10, 20)


@settings(max_examples=80, deadline=None)
@given(marks=sheets, roll=rolls)
def test_threshold_keeps_a_markable_combination_before_gambling(board, rules, marks, roll):
    """Rulebook tip: whenever the roll can mark something, the dice kept still can."""
    dice = space_for(rules).rolls[roll]
    keep = ThresholdStrategy().choose_hold(state_of(board, rules, marks), dice, 2, RNG)
    assert all(k <= d for k, d in zip(keep, dice))
    if legal_markings(dice, board, marks, rules):
        assert any(find_groups(keep, (c,), board, rules) for c in marks.available) or keep == dice


@settings(max_examples=40, deadline=None)
@given(marks=sheets, roll=rolls, seed=st.integers(0, 1000))
def test_random_plays_legal_moves_reproducibly(board, rules, marks, roll, seed):
    dice = space_for(rules).rolls[roll]
    state = state_of(board, rules, marks)
    strategy = RandomStrategy()
    keep = strategy.choose_hold(state, dice, 2, np.random.default_rng(seed))
    assert keep in space_for(rules).holds_of(dice)
    assert keep == strategy.choose_hold(state, dice, 2, np.random.default_rng(seed))
    legal = legal_sets(dice, board, marks, rules)
    if len(legal):
        assert strategy.choose_marking(state, dice, legal, np.random.default_rng(seed)) in legal.all_cells()


def test_solver_beats_random_by_a_wide_margin(board, rules):
    """Seeded run: the solver wins nearly every game and scores far more (random play scores
    about half as much)."""
    summary, _ = simulate(board, rules, ["solver", "random"], games=16, seed=1, jobs=1)
    solver = summary.seats[0].stats
    assert summary.leader == 0
    assert solver["win"].mean >= 0.85
    margin = summary.margins[0].score
    assert margin.mean >= 25 and margin.low > 15


def test_names():
    assert set(STRATEGIES) == {"random", "greedy", "threshold", "solver", "learned", "win", "win-model", "win-ply"}
    assert parse_players(" Solver, greedy ") == ("solver", "greedy")
    assert strategy_named("solver") is strategy_named("solver")  # one instance: the cache persists
    with pytest.raises(StrategyError, match="unknown strategy"):
        parse_players("solver,smart")
    with pytest.raises(StrategyError, match=re.escape("2 to 4 players (D1), or 1 for solitaire (this tool's "
                                                      "extension), got 0")):
        parse_players("")
    with pytest.raises(StrategyError, match=r"2 to 4 players \(D1\), or 1 for solitaire .*got 5"):
        parse_players("random," * 5)
    for text in ["greedy,,greedy", "greedy,", ",greedy", "solver, ,greedy"]:
        with pytest.raises(StrategyError, match="empty entry.*comma-separated strategies"):
            parse_players(text)
