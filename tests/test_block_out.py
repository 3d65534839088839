"""A marking that leaves every seat still to play in the round without an available item (D15)
ends the game at once (D17: such a sheet has every shelf closed; D18: the round is played out by
seats that can only pass), every score final: with 3 or 4 players ``win`` values it by the exact
share of the win (D20), not by the model. Found on a 1 x 1 board with 4 players, where the advice
showed 48.0% (model) for a marking after which ``play status`` showed the 4-way tie, 25%."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shelfie_solver.dice.allocate import feasibility_arrays
from shelfie_solver.dice.board import Marks, load_board
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values, win_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.sheet_rules import block, completed_lines, markings_block_out, may_block_out

BOARD, RULES = load_board(None, DEFAULT_RULES), DEFAULT_RULES
ALL = (1 << 25) - 1


def cells(*indices: int) -> int:
    return sum(1 << c for c in indices)


def tied_position() -> GameState:
    """3 players, seat 0 first (D5), seat 1 to play, seat 2 after it; the end triggered (D17).
    Seat 0 (played its last turn): shelf 3 (plant 2, 2, 3) items 1-3 marked: 7 points (D19).
    Seat 1: the cat shelf's first four items marked, its last (11 points) available, the rest
    eliminated: marking it completes the shelf, 1 + 2 + 4 + 7 + 11 = 25 points. Seat 2: the game
    shelf marked whole (1 + 2 + 5 + 6 + 11 = 25 points), only the cat shelf's last two items
    available, the rest eliminated: seat 1's marking blocks both (D15), seat 2 can only pass, the
    game is over at 25 - 25 - 7: seat 1's chance is exactly 1/2 (D20). No settled bound gives it
    (seat 2 can still reach 25, not more)."""
    s0 = Marks(5, 5, cells(10, 11, 12), ALL & ~cells(10, 11, 12))
    s1 = Marks(5, 5, cells(0, 1, 2, 3), ALL & ~cells(0, 1, 2, 3, 4))
    s2 = Marks(5, 5, cells(15, 16, 17, 18, 19), ALL & ~cells(15, 16, 17, 18, 19, 3, 4))
    return GameState(BOARD, RULES, (s0, s1, s2), 1, 0, 3 * 6 + 1, True)


def test_the_blocking_marking_is_worth_its_exact_share() -> None:
    state = tied_position()
    objective = win_objective(state)
    arrays = StateArrays(BOARD, RULES, state.marks)
    sets = feasibility_arrays(BOARD, RULES).sets
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    assert [tuple(c for c in row if c >= 0) for row in chosen.cells.tolist()] == [(4,)]
    assert objective.values(arrays, chosen).tolist() == [CHANCE_SCALE // 2]
    assert objective.exact_markings(arrays, chosen).tolist() == [True]
    pytest.importorskip("numba")
    found = objective.compiled_turn_values(arrays)
    whole = compiled_win_values(state)
    assert found is not None and whole is not None
    assert found[0][usable[0]] == whole[0][usable[0]] == CHANCE_SCALE // 2


def test_markings_block_out_equals_the_blocks_marking_by_marking() -> None:
    """markings_block_out against sheet_rules.block applied to each marking of random tables of 3
    players (D15): every later seat without an available item after the blocks; may_block_out
    True wherever some marking does."""
    from test_win_kernel import random_sheet

    rng = np.random.default_rng(16420)
    sets = feasibility_arrays(BOARD, RULES).sets
    found = 0
    for _ in range(300):
        sheets = [random_sheet(rng) for _ in range(3)]
        sheets[1] = Marks(5, 5, sheets[1].marked, sheets[1].eliminated & ~cells(*range(20, 25)) & ~sheets[1].marked)
        if not sheets[1].has_available:
            continue
        later = (2,)
        available = np.append(np.array([sheets[1].is_available(c) for c in range(25)]), True)
        usable = np.flatnonzero(available[sets.cells].all(axis=1))
        got = markings_block_out(BOARD, sheets, 1, later, sets.take(usable))
        expected = []
        for row in sets.cells[usable].tolist():
            marked = sheets[1].with_marked(tuple(c for c in row if c >= 0))
            after, _ = block(BOARD, sheets[:1] + [marked] + sheets[2:], 1, completed_lines(BOARD, marked))
            expected.append(not after[2].has_available)
        assert got.tolist() == expected
        if any(expected):
            found += 1
            assert may_block_out(BOARD, RULES, sheets, 1, later)
    assert found > 0


@pytest.mark.parametrize("players", [3, 4])
def test_a_game_on_a_one_item_board_shows_the_status_right_after(players: int, tmp_path: Path) -> None:
    """On a 1 x 1 board no line reaches 3 items (D19): every score is 0, and the marking of the
    one item blocks it on every later sheet (D15), ending the game in a tie of all (D20): the
    chance shown for every choice is the status right after (the exact share rounded to the
    millionth, CHANCE_SCALE), the game ends tied."""
    from fractions import Fraction

    from test_one_chance import play_by_the_advice

    board = tmp_path / "one.toml"
    board.write_text('name = "one"\ncolumns = [2]\n\n[[shelves]]\nfaces = ["cat"]\nvalues = [1]\n')
    turns = play_by_the_advice(players, 16416, str(board))
    for shown, status, seats in turns:
        assert abs(shown - status) <= Fraction(1, 2 * CHANCE_SCALE)
        assert sum(seats) == 1
    assert turns[-1][2] == [Fraction(1, players)] * players


@pytest.mark.parametrize("players", [3, 4])
def test_compiled_equals_numpy_where_a_marking_blocks_out(players: int) -> None:
    """The compiled paths (WinObjective.compiled_turn_values, compiled_win_values) give the numpy
    path's integers on random tables where some marking leaves every later seat without an
    available item (D15), those markings' exact shares included."""
    pytest.importorskip("numba")
    from test_win_kernel import numpy_values, random_state

    from shelfie_solver.dice.learned.win_model import blocking_out_seats

    rng = np.random.default_rng(16420 + players)
    sets = feasibility_arrays(BOARD, RULES).sets
    found = 0
    for _ in range(400):
        state = random_state(rng, players)
        later = blocking_out_seats(state)
        if not later:
            continue
        objective = win_objective(state)
        expected, usable, shelves = numpy_values(objective, state)
        if not markings_block_out(BOARD, state.sheets, state.active, later, sets.take(usable)).any():
            continue
        found += 1
        got = objective.compiled_turn_values(StateArrays(BOARD, RULES, state.marks))
        whole = compiled_win_values(state)
        assert got is not None and whole is not None
        assert np.array_equal(got[0], expected) and np.array_equal(whole[0], expected)
        assert got[2] == shelves == whole[2]
        if found == 8:
            break
    assert found > 0
