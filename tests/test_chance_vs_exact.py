"""The positions benchmarks/chance_vs_exact.py measures (docs/win-chance.md, "Against exact
two-player values and rollouts"): the turns at which each table state can be reached, against a
turn-by-turn walk from the start, and the game states built from table keys, against the table
itself on the last turns where the chance shown is exact (D17, D18, D20)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import load_benchmark

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame.two_player import (
    FIRST,
    LAST,
    outcomes,
    setup_for,
    solve_two_player,
)

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    return load_benchmark('chance_vs_exact')


@pytest.fixture(scope="module")
def solved():
    board = load_board(str(ROOT / "examples" / "boards" / "tiny-2x3.toml"), DEFAULT_RULES)
    setup = setup_for(board, DEFAULT_RULES)
    return setup, solve_two_player(board, DEFAULT_RULES)


@pytest.mark.slow
def test_turns_played_match_a_turn_by_turn_walk(solved):
    setup, solution = solved
    bench = _bench()
    masks = bench.turns_played(setup, solution)
    walked = np.zeros(len(solution.keys), dtype=np.int64)
    frontier, turn = np.array([0], dtype=np.int64), 0
    while len(frontier):
        walked[np.searchsorted(solution.keys, frontier)] |= 1 << turn
        out = outcomes(setup, frontier)
        nxt = np.concatenate([out.set_next.ravel(), out.shelf_next.ravel()])
        frontier, turn = np.unique(nxt[nxt >= 0]), turn + 1
    assert (masks == walked).all()
    assert (masks != 0).all()  # every table state is reachable
    # seat 0 opens every round (D5): it moves after an even number of turns, seat 1 after an odd one
    phase = solution.keys & 3
    even = masks & int(sum(1 << t for t in range(0, 64, 2)))
    assert ((even == masks) == (phase == FIRST)).all()


@pytest.mark.slow
def test_game_states_of_the_last_turn_agree_with_the_table(solved, monkeypatch):
    from shelfie_solver.dice.play.chances import seat_chances
    from shelfie_solver.dice.wholegame.exact2_cache import BUDGET_ENV

    monkeypatch.setenv(BUDGET_ENV, "0")  # the last-turn path of win_chance, not the cached two-player table

    setup, solution = solved
    bench = _bench()
    pairs = [(i, t) for i, t in bench.positions(setup, solution) if int(solution.keys[i]) & 3 == LAST]
    rng = np.random.default_rng(5)
    for at in rng.choice(len(pairs), 40, replace=False):
        index, turn = pairs[at]
        state = bench.game_state(setup.board, setup.rules, int(solution.keys[index]), turn)
        chance, exact = seat_chances(state)[state.active]
        # the last turn's chance is exact (win_chance.LastTurnWin), the table's within its bound
        assert exact and abs(float(chance) - solution.values[index]) <= float(solution.bound) + 1e-15
