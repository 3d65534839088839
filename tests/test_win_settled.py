"""A terminal after which the mover's game is over and its final score stays below another
seat's final score is an exact 0 (above every other seat's reach: an exact 1), under ``win``
and ``win-model`` (win_chance.settled_bounds, settled_shares, decided_objective; the model's
numpy and compiled paths; play status and play advise; D13, D17-D20, docs/win-chance.md)."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.allocate import feasibility_arrays, legal_markings
from shelfie_solver.dice.board import Marks, load_board, score
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_model import (
    CHANCE_SCALE,
    compiled_win_values,
    win_objective,
)
from shelfie_solver.dice.objective_names import advice_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.win_chance import settled_bounds

BOARD, RULES = load_board(None, DEFAULT_RULES), DEFAULT_RULES


def sheet(marked: int, eliminated: int) -> Marks:
    return Marks(BOARD.n_shelves, BOARD.n_columns, marked, eliminated)


#: The breaker's position (simulate --players learned,learned,learned --games 1 --seed 3, then
#: play undo 6): round 9, the end triggered (D17); seat 2 (0-based) to play, seat 1 (111, two
#: closed shelves) has played its last turn, seat 0 still plays after seat 2 (D18).
SHEETS = (sheet(12292278, 4459585), sheet(12430574, 4329489), sheet(7517423, 67600))
STATE = GameState(BOARD, RULES, SHEETS, active=2, first=1, turn=25, end_triggered=True)


def every_marking(state: GameState) -> dict[tuple[int, ...], int]:
    """Brute force: every legal marking (D8-D12) of every final roll, its items in cell order,
    with the mover's score after it (D19)."""
    out = {}
    for roll in space_for(RULES).rolls:
        for marking in legal_markings(roll, BOARD, state.marks, RULES):
            cells = tuple(sorted(marking.cells))
            out[cells] = score(BOARD, state.marks.with_marked(cells), RULES)
    return out


def every_final_score(state: GameState) -> set[int]:
    """The mover's final scores of :func:`every_marking`, and its score as it is for a failed
    result (D13)."""
    return set(every_marking(state).values()) | {score(BOARD, state.marks, RULES)}


def legal_rows(state: GameState) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`allocate.feasibility_arrays`' item sets that some final roll can mark
    (:func:`every_marking`), and the mover's score after each."""
    sets = feasibility_arrays(BOARD, RULES).sets
    found = every_marking(state)
    rows, finals = [], []
    for i, row in enumerate(sets.cells.tolist()):
        cells = tuple(c for c in row if c >= 0)
        if cells in found:
            rows.append(i)
            finals.append(found[cells])
    return np.array(rows), np.array(finals)


def test_the_position_is_as_the_breaker_saw_it() -> None:
    assert [score(BOARD, s, RULES) for s in SHEETS] == [76, 111, 78]
    assert STATE.plays_later_this_round(0) and not STATE.plays_later_this_round(1)


def test_a_last_turn_that_cannot_reach_a_final_score_is_an_exact_zero() -> None:
    """Every final score of seat 2's last turn is below seat 1's final 111 (brute force), so its
    chance is exactly 0 whatever it does: the advice objective is exact and worth 0 at the start
    of the turn, and the model's objective values every marking and shelf exactly 0, flagged exact."""
    finals = every_final_score(STATE)
    assert max(finals) < 111  # (110: the breaker's figure)
    assert settled_bounds(STATE)[0] == 111
    objective = advice_objective("win", STATE)
    assert getattr(objective, "win_chance_exact", None) is True
    assert solve_turn(BOARD, STATE.marks, RULES, objective).start_values()[0] == 0
    model = win_objective(STATE)
    arrays = StateArrays(BOARD, RULES, STATE.marks)
    rows, _ = legal_rows(STATE)
    chosen = feasibility_arrays(BOARD, RULES).sets.take(rows)
    assert len(rows) > 0
    assert (model.values(arrays, chosen) == 0).all()
    assert model.exact_markings(arrays, chosen).all()
    assert all(value == 0 for _, value in model.shelf_values(arrays))
    assert model.exact_shelves(arrays) == set(dict(model.shelf_values(arrays)))


def lowered(state: GameState, seat: int, target: int) -> GameState:
    """``state`` with ``seat``'s marked items taken back one by one (cell order) until its score is
    at most ``target`` (the items made available again)."""
    marks = state.sheets[seat]
    for cell in range(BOARD.n_cells):
        if score(BOARD, marks, RULES) <= target:
            break
        if marks.marked >> cell & 1:
            marks = sheet(marks.marked & ~(1 << cell), marks.eliminated)
    sheets = list(state.sheets)
    sheets[seat] = marks
    return replace(state, sheets=tuple(sheets))


@pytest.mark.parametrize("target", [95, 100])
def test_some_markings_settle_and_the_compiled_path_agrees(target: int) -> None:
    """Seat 1's final score inside seat 2's reach: the markings whose final score is below it are
    exactly 0 and flagged exact, the others the model's (1 to CHANCE_SCALE - 1, not exact); the
    compiled values (learned.kernel._win_turn, _win_front) equal the numpy path's."""
    pytest.importorskip("numba")
    state = lowered(STATE, 1, target)
    other = score(BOARD, state.sheets[1], RULES)
    assert other in set(range(79, 111)) and min(every_final_score(state)) < other <= max(every_final_score(state))
    model = win_objective(state)
    arrays = StateArrays(BOARD, RULES, state.marks)
    sets = feasibility_arrays(BOARD, RULES).sets
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    values = model.values(arrays, chosen)
    finals = np.array([score(BOARD, state.marks.with_marked(tuple(c for c in row if c >= 0)), RULES)
                       for row in chosen.cells.tolist()])  # (every usable set; the legal ones too)
    assert set(legal_rows(state)[1].tolist()) <= set(finals.tolist())
    below = finals < other
    # seat 0 plays once more (D18): above its one-turn reach (brute force, D8-D13, D19) on its
    # sheet after the marking's blocks (D15: they take its available items) and the final score
    # of seat 1, seat 2 wins alone (D20)
    from shelfie_solver.dice.sheet_rules import block, completed_lines

    reaches: dict[Marks, int] = {}

    def seat0_after(row: list[int]) -> Marks:
        mine = state.marks.with_marked(tuple(c for c in row if c >= 0))
        new = tuple(line for line in completed_lines(BOARD, mine) if line not in completed_lines(BOARD, state.marks))
        return block(BOARD, (state.sheets[0], state.sheets[1], mine), 2, new)[0][0] if new else state.sheets[0]

    def reach_after(row: list[int]) -> int:
        seat0 = seat0_after(row)
        if seat0 not in reaches:
            reaches[seat0] = max([score(BOARD, seat0, RULES)] + [score(BOARD, seat0.with_marked(m.cells), RULES)
                                                                for roll in space_for(RULES).rolls
                                                                for m in legal_markings(roll, BOARD, seat0, RULES)])
        return reaches[seat0]

    rows = chosen.cells.tolist()
    above = finals > np.array([max(other, reach_after(row)) for row in rows])
    middle = ~below & ~above
    assert below.any() and middle.any()
    assert (values[below] == 0).all() and (values[above] == CHANCE_SCALE).all()
    # above seat 1's final score, seat 1 has lost (D20): seat 2 and seat 0, who plays next and
    # last (D18), are the two contenders left, seat 2's chance 1 minus seat 0's exact last-turn
    # chance against its final score on its sheet after the marking's blocks (D15;
    # win_chance.two_contender_chances), in the model's millionths
    from shelfie_solver.dice.win_chance import opponent_chance

    two = middle & (finals > other)
    assert two.any()
    for i in np.flatnonzero(two).tolist():
        chance = 1 - opponent_chance(BOARD, RULES, seat0_after(rows[i]), (int(finals[i]),))
        assert values[i] == (chance * 2 * CHANCE_SCALE + 1) // 2
    rest = middle & ~two
    assert (values[rest] > 0).all() and (values[rest] < CHANCE_SCALE).all()
    assert np.array_equal(model.exact_markings(arrays, chosen), below | above | two)
    worth = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
    worth[usable] = values
    for found in (compiled_win_values(state), model.compiled_turn_values(arrays)):
        assert found is not None
        assert np.array_equal(found[0], worth)
        assert found[2] == model.shelf_values(arrays)


def test_a_last_turn_above_every_reach_is_an_exact_one() -> None:
    """The mirror case: the mover's score now above every other seat's reach (the final seat's
    score, the other's score with every available item marked, D19) is an exact 1."""
    low = lowered(STATE, 1, 60)  # seat 1 has played its last turn: its score is final (D18)
    seat0 = low.sheets[0]  # still to play, with one available item left that keeps it below 78
    full = (1 << BOARD.n_cells) - 1
    keep = next(c for c in seat0.available
                if score(BOARD, sheet(seat0.marked | 1 << c, full & ~(seat0.marked | 1 << c)), RULES) < 78)
    sheets = (sheet(seat0.marked, full & ~seat0.marked & ~(1 << keep)), *low.sheets[1:])
    low = replace(low, sheets=sheets)
    assert sheets[0].available == (keep,) and low.plays_later_this_round(0)
    assert score(BOARD, sheets[1], RULES) < 78
    # seat 0 still plays, but its reach is below the mover's score now: it has lost (lost_seats),
    # its turn changes no share, so the mover's is a last turn against the scores now (D18, D20)
    assert type(advice_objective("win", low)).__name__ == "LastTurnWin"
    objective = advice_objective("win", low)
    assert getattr(objective, "win_chance_exact", None) is True
    assert solve_turn(BOARD, low.marks, RULES, objective).start_values()[0] == 1
    model = win_objective(low)
    arrays = StateArrays(BOARD, RULES, low.marks)
    assert all(value == CHANCE_SCALE for _, value in model.shelf_values(arrays))


def test_play_status_and_advise_show_the_exact_zero(tmp_path: Path) -> None:
    """play status and play advise on the breaker's game (simulate seed 3, undo 6): seat 3 at 0%
    (exact), the hold advice decided; the seat still to play keeps a model figure (its score is
    not final: D18)."""
    path = tmp_path / "s.json"
    runner = CliRunner()
    made = runner.invoke(main, ["simulate", "--players", "learned,learned,learned", "--games", "1", "--seed", "3",
                                "--save", str(path)])
    assert made.exit_code == 0, made.output
    assert runner.invoke(main, ["play", "undo", str(path), "6"]).exit_code == 0
    status = runner.invoke(main, ["play", "status", str(path), "--format", "json"])
    assert status.exit_code == 0, status.output
    seats = json.loads(status.output)["sheets"]
    text = runner.invoke(main, ["play", "status", str(path)]).output
    assert "0% (exact)" in text and "33.7%" not in text
    advice = runner.invoke(main, ["play", "advise", str(path), "--format", "json"])
    assert advice.exit_code == 0, advice.output
    data = json.loads(advice.output)
    assert data["win_chance_exact"] is True and Fraction(data["win_chance"]) == 0
    assert all(Fraction(h["win_chance"]) == 0 and h["win_chance_exact"] for h in data["holds"])
    words = runner.invoke(main, ["play", "advise", str(path)]).output
    assert "you can no longer win" in words and "(model)" not in words
    assert seats[2]["win_chance_exact"] is True and Fraction(seats[2]["win_chance"]) == 0
    assert seats[0]["win_chance_exact"] is False and seats[1]["win_chance_exact"] is False


def test_the_settling_rule_hand_worked() -> None:
    """win_chance.settled_shares with low 10 and high 20: a terminal that ends the mover's game
    below 10 is lost (0), above 20 won alone (1; D19, D20); a terminal after which the mover
    plays again is not settled (-1; high is the others' reach once the round is played out,
    D18), nor are 10 (a tie may stay) and 20 (may be tied)."""
    from shelfie_solver.dice.win_chance import settled_shares

    final = np.array([5, 5, 10, 11, 20, 20, 21, 21])
    over = np.array([True, False, True, True, True, False, False, True])
    assert settled_shares(final, over, 10, 20).tolist() == [0, -1, -1, -1, -1, -1, -1, 1]


def test_another_seats_score_now_settles_a_final_score_below_it() -> None:
    """Seat 1's final score lowered to at most 60 and seat 2's score to at most 55: seat 0 (76,
    still to play after seat 2, D18) now bounds seat 2's last turn from below, since a score never
    falls (D13 and D15 keep marked items, D19): low is 76, not seat 1's final score. Every marking
    of seat 2's whose final score is below 76 (brute force) is exactly 0, flagged exact, on the
    numpy path."""
    state = lowered(lowered(STATE, 1, 60), 2, 55)
    assert score(BOARD, state.sheets[1], RULES) <= 60 and score(BOARD, state.sheets[0], RULES) == 76
    assert settled_bounds(state)[0] == 76
    model = win_objective(state)
    arrays = StateArrays(BOARD, RULES, state.marks)
    rows, finals = legal_rows(state)
    values = model.values(arrays, feasibility_arrays(BOARD, RULES).sets.take(rows))
    below = finals < 76
    assert below.any()
    assert (values[below] == 0).all()
    assert model.exact_markings(arrays, feasibility_arrays(BOARD, RULES).sets.take(rows[below])).all()
