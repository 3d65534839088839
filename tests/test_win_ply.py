"""The experimental ``win-ply`` strategy (docs/win-chance.md, "One ply deeper"): its marking is
the brute-force re-ranking of the top K markings of ``win`` (advise's ranking) by 1 - the
opponent's start value after each (the numpy one-turn engine under ``win``), and simulate plays it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.advise.advice import rank_markings
from shelfie_solver.dice.board import parse_marks
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.game.events import GameState, legal_sets
from shelfie_solver.dice.objective_names import advice_objective
from shelfie_solver.dice.sheet_rules import block, completed_lines, ending_seats
from shelfie_solver.dice.strategies import STRATEGIES, WinPlyStrategy, WinStrategy

RNG = np.random.default_rng(0)


def _after(state: GameState, cells: tuple[int, ...]) -> GameState:
    """The opponent's turn after the active seat 0 marks ``cells`` (D15 blocks; the end not triggered)."""
    board = state.board
    mine = state.marks.with_marked(cells)
    lines = sorted({board.shelf_of(c) for c in cells} | {board.n_shelves + board.column_of(c) for c in cells})
    sheets, _ = block(board, (mine, state.sheets[1]), 0, completed_lines(board, mine, lines))
    assert not ending_seats(board, state.rules, sheets)
    return GameState(board, state.rules, sheets, 1, state.first, state.turn + 1, False)


def test_win_ply_marks_the_brute_force_reranking(board, rules, format_three):
    """Turn 5 (round 3) of a two-player game, seat 0 to mark a roll of five plants and a joker:
    the top 3 of advise's ranking under ``win``, each valued 1 - the opponent's start value
    (:func:`dp.solve_turn`, numpy, under ``win`` at the opponent's turn); the best of those is
    win-ply's marking, and it is not ``win``'s (the model's first; format-3 coefficients)."""
    me = parse_marks("o.o../oo.../...../...../o..o.", board)
    other = parse_marks("oo.../...o./o..../...../oo...", board)
    state = GameState(board, rules, (me, other), 0, 0, 4, False)
    dice = (5, 0, 0, 0, 0, 1)
    options = rank_markings(dice, board, me, rules, advice_objective("win", state))
    top = options[:3]
    deeper = []
    for option in top:
        assert not option.exact
        after = _after(state, tuple(option.marking.cells))
        start = solve_turn(board, after.marks, rules, advice_objective("win", after)).start_values()[0]
        deeper.append((1 - start, tuple(option.marking.cells)))
    best = max(deeper, key=lambda v: v[0])  # max keeps the first of equal values: the model's order
    legal = legal_sets(dice, board, me, rules)
    ply = WinPlyStrategy(exact_alone=False, top=3)
    assert ply.choose_marking(state, dice, legal, RNG) == best[1]
    assert best[1] != tuple(options[0].marking.cells)
    assert WinStrategy(exact_alone=False).choose_marking(state, dice, legal, RNG) == tuple(options[0].marking.cells)
    # one candidate: win's marking; the numpy path's start value is the compiled one
    assert WinPlyStrategy(exact_alone=False, top=1).choose_marking(state, dice, legal, RNG) == tuple(options[0].marking.cells)
    after = _after(state, best[1])
    assert WinPlyStrategy(kernel="numpy").start_value(after) == ply.start_value(after) == 1 - best[0]
    assert isinstance(best[0], Fraction)


def test_simulate_plays_win_ply():
    assert STRATEGIES["win-ply"] is WinPlyStrategy
    result = CliRunner().invoke(main, ["simulate", "--players", "win-ply,learned", "--games", "2", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "win-ply" in result.output
    bad = CliRunner().invoke(main, ["simulate", "--players", "win-plyy,learned", "--games", "2", "--seed", "5"])
    assert bad.exit_code == 2 and "unknown strategy" in bad.output and "Traceback" not in bad.output
