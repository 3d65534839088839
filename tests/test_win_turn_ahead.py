"""The win model's feature "a turn ahead" (learned.win_model.FEATURES; D5, D18: a seat that has
played one more turn than the seats still to play in this round; with two players, the player
who just played played first in the round): the compiled path equals the numpy path with it on
and off, the shipped 2-player model reads it in the direction of the data (docs/win-chance.md,
"Who played first in the round"), and a file of the former format (13 features) still loads and
gives its figures. And win_fit.valued_positions' sheets after a turn carry its blocks (D15)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from shelfie_solver.dice.board import load_board, parse_marks
from shelfie_solver.dice.game.events import Block, Game, GameOver, GameState, Mark, Roll, Start
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_fit import valued_positions
from shelfie_solver.dice.learned.win_model import (
    CHANCE_SCALE,
    COEF_SCALE,
    FEATURES,
    ROWS,
    WinModel,
    all_chances,
    compiled_win_values,
    default_win_model,
    design,
    load_win_model,
    model_from_dict,
    model_text,
    seats_to_play,
    strength_numerators,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES

BOARD, RULES = load_board(None, DEFAULT_RULES), DEFAULT_RULES
ROOT = Path(__file__).resolve().parent.parent
W = WEIGHT_SCALE
AHEAD = FEATURES.index("a turn ahead")


def test_seats_to_play_follows_the_order_of_play() -> None:
    """D5, D18: with 3 seats and seat 2 first, the order is 2, 0, 1; after seat 2's turn two seats
    still play this round, after seat 0's one, after seat 1's (the last) none."""
    sheets = (parse_marks("...../...../...../...../.....", BOARD),) * 3
    for active, turn, left in ((2, 3, 2), (0, 4, 1), (1, 5, 0)):
        assert seats_to_play(GameState(BOARD, RULES, sheets, active, 2, turn, False)) == left


def random_sheet(rng: np.random.Generator) -> object:
    from shelfie_solver.dice.board import Marks

    share = rng.dirichlet((1.0, 0.4, 1.0))
    state = rng.choice(3, size=BOARD.n_cells, p=share)
    bits = 1 << np.arange(BOARD.n_cells, dtype=object)
    return Marks(BOARD.n_shelves, BOARD.n_columns, int((bits * (state == 1)).sum()), int((bits * (state == 2)).sum()))


def ahead_model(rng: np.random.Generator) -> WinModel:
    """The shipped coefficients with a large "a turn ahead" coefficient of either sign per row."""
    shipped = default_win_model()
    tables = {}
    for n, table in shipped.coefficients.items():
        table = table.copy()
        table[:, AHEAD] = rng.integers(-900_000, 900_000, size=len(ROWS))
        tables[n] = table
    return WinModel(tables)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_equals_numpy_with_the_feature_on_and_off(players: int) -> None:
    """The objective's compiled values (learned.kernel._win_front), those from the sheets' bit masks
    (_win_turn) and the numpy reference (WinObjective.values, shelf_values) agree on random tables
    where the player is first in the round (a turn ahead), in the middle and last (nobody ahead)."""
    pytest.importorskip("numba")
    from shelfie_solver.dice.allocate import feasibility_arrays

    rng = np.random.default_rng(14111 + players)
    model = ahead_model(rng)
    sets = feasibility_arrays(BOARD, RULES).sets
    for i in range(12 * players):
        sheets = tuple(random_sheet(rng) for _ in range(players))
        active = int(rng.integers(players))
        while not sheets[active].available:  # type: ignore[attr-defined]
            sheets = sheets[:active] + (random_sheet(rng),) + sheets[active + 1:]
        place = i % players  # every place in the round in turn: first, ..., last
        first = (active - place) % players
        state = GameState(BOARD, RULES, sheets, active, first, players * int(rng.integers(0, 10)) + place,
                          bool(rng.integers(2)))
        assert seats_to_play(state) == players - 1 - place
        objective = win_objective(state, model)
        arrays = StateArrays(BOARD, RULES, state.marks)
        usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
        expected = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
        expected[usable] = objective.values(arrays, sets.take(usable))
        found = objective.compiled_turn_values(arrays)
        whole = compiled_win_values(state, model)
        assert found is not None and whole is not None
        for worth, used, shelves in (found, whole):
            assert np.array_equal(np.flatnonzero(used[:-1]), usable)
            assert np.array_equal(worth, expected)
            assert shelves == objective.shelf_values(arrays)


def test_the_feature_moves_the_figure_by_its_coefficient() -> None:
    """Two seats, the same sheets after seat 0's turn, seat 0 first in the round (seat 1 still to
    play) or second (the round closed): seat 0's strength moves by exactly the coefficient times
    WEIGHT_SCALE and seat 1's not at all, so the chance is the logistic of the level gap minus the
    coefficient (closed form)."""
    c = default_win_model().for_players(2)
    seats = np.array([[[61 * W + 17, 22, 2, 0], [55 * W, 30, 3, 1]]], dtype=np.int64)
    for phase in ROWS:
        ph = np.array([phase])
        z = strength_numerators(c, ph, design(ph, seats, 6, to_play=0), 6)[0]
        za = strength_numerators(c, ph, design(ph, seats, 6, to_play=1), 6)[0]
        coefficient = int(c[ROWS.index(phase), AHEAD])
        assert int(za[0]) == int(z[0]) + coefficient * W and int(za[1]) == int(z[1])
        ahead = all_chances(c, ph, design(ph, seats, 6, to_play=1), 6)[0]
        gap = (int(z[1]) - int(z[0])) / (COEF_SCALE * W) - coefficient / COEF_SCALE
        assert int(ahead[0]) == round(CHANCE_SCALE / (1 + math.exp(gap)))


def two_player_state(first: int) -> GameState:
    """Seat 0 to play on the same hand-made sheets, round 5, first in the round (``first`` 0) or
    second (``first`` 1)."""
    mine = parse_marks("oo.o./o.o../xoo../.o.../o....", BOARD)
    theirs = parse_marks("o.o../oo.../..oo./...../.o...", BOARD)
    turn = 2 * 4 + (0 - first) % 2
    return GameState(BOARD, RULES, (mine, theirs), 0, first, turn, False)


def test_the_first_player_is_shown_less_than_on_level_turns() -> None:
    """The direction of the data (docs/win-chance.md: the first player wins 60% of win's games, and
    a model blind to the order of play overrated the first player after its turn): after the
    first player's turn, with the other still to play this round (D5, D18), the mover's chance of
    any marking is below its chance of the same marking on the same sheets after the second
    player's turn, in every row of the shipped 2-player model."""
    c = default_win_model().for_players(2)
    fitted = [row for row in range(len(ROWS)) if c[row].any()]  # phase 0 of two players: all exact, not fitted
    assert len(fitted) >= 2 and (c[fitted, AHEAD] < 0).all()
    values = _values_by_order(None)
    assert len(values[0]) > 10
    assert (values[0] < values[1]).all()


def test_a_former_file_loads_and_gives_its_figures() -> None:
    """examples/win-own-play.json (format 2, 13 features: the 2-player coefficients shipped before
    the feature) loads with "a turn ahead" at 0, so its chances do not depend on the order of play;
    they are the closed form of its own 13 coefficients (the logistic of the strength difference,
    at a lead well inside the monotone clamp); written again, it is a file of this format whose
    coefficients after the 13th are 0."""
    path = ROOT / "examples" / "win-own-play.json"
    raw = json.loads(path.read_text("utf-8"))
    assert raw["format"] == "shelfie-solve win 2" and len(raw["features"]) == 13
    old = load_win_model(path)
    assert (old.for_players(2)[:, AHEAD] == 0).all()
    row = raw["coefficients"]["2"][ROWS.index(3)]
    r = 8
    # seat 0: P 60, score 20, 3 shelves short, just played; seat 1: P 50, score 25, 2 short, next
    x0 = [60 * W, 60 * W * r, 20 * W, 20 * W * r, 0, 0, 0, 0, 0, 0, 0, 10 * W, 10 * W * r]
    x1 = [50 * W, 50 * W * r, 25 * W, 25 * W * r, 0, 0, 0, W, W * r, 0, 0, -10 * W, -10 * W * r]
    gap = sum(a * (u - v) for a, u, v in zip(row, x0, x1)) / (COEF_SCALE * W)
    seats = np.array([[[60 * W, 20, 3, 0], [50 * W, 25, 2, 1]]], dtype=np.int64)
    for to_play in (0, 1):
        got = all_chances(old.for_players(2), np.array([3]), design(np.array([3]), seats, r, to_play=to_play), r)[0]
        assert int(got[0]) == round(CHANCE_SCALE / (1 + math.exp(-gap)))
    again = json.loads(model_text(old))
    assert again["format"] == "shelfie-solve win 4" and again["features"] == list(FEATURES)
    assert all(line[:13] == before and not any(line[13:])
               for n, table in again["coefficients"].items() for line, before in zip(table, raw["coefficients"][n]))
    assert model_from_dict(again, "again.json").for_players(2).tolist() == old.for_players(2).tolist()


def test_a_former_file_plays_as_before() -> None:
    """The same two positions (seat 0 first or second in the round) under the former file: equal
    chances, marking by marking (the order of play is not among its features)."""
    values = _values_by_order(load_win_model(ROOT / "examples" / "win-own-play.json"))
    assert np.array_equal(values[0], values[1])


def _values_by_order(model: WinModel | None) -> list[np.ndarray]:
    """The win objective's value of every marking the position allows, with seat 0 first in the
    round and then second (:func:`two_player_state`), under ``model`` (``None``: the shipped one)."""
    from shelfie_solver.dice.allocate import feasibility_arrays

    sets = feasibility_arrays(BOARD, RULES).sets
    values = []
    for first in (0, 1):
        state = two_player_state(first)
        arrays = StateArrays(BOARD, RULES, state.marks)
        usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
        values.append(win_objective(state, model).values(arrays, sets.take(usable)))
    return values


def test_valued_positions_apply_the_turn_s_blocks() -> None:
    """A hand-made game: seat 0 marks the last item of its top shelf (D8), completing it, so seat 1
    eliminates its available items there (D15: its marked item stays); seat 1 then marks one item
    and the game is recorded over. The position after seat 0's turn has seat 1's sheet with the
    shelf blocked, as the next turn starts from."""
    mine = "oooo./...../...../...../....."
    theirs = "o..../.o.../...../...../....."
    blocked = parse_marks("oxxxx/.o.../...../...../.....", BOARD)  # by hand: D15 on the top shelf
    top = BOARD.cell(0, 4)
    events = (Start(2, 0, (mine, theirs)),
              Roll(0, (1, 1, 1, 1, 1, 1), RULES.rerolls),
              Mark(0, (top,)),
              Block(0, 1, 0, tuple(BOARD.cell(0, c) for c in range(1, 5))),
              Roll(1, (1, 1, 1, 1, 1, 1), RULES.rerolls),
              Mark(1, (BOARD.cell(2, 0),)),
              GameOver(1, (20, 5), (20, 0), (0, 5), (0,)))
    game = Game(BOARD, RULES, ("win", "win"), events, ())
    found = list(valued_positions(game))
    assert [v.before.active for v in found] == [0]  # the last turn ends the game: its chance is exact
    v = found[0]
    assert v.after[0] == parse_marks("ooooo/...../...../...../.....", BOARD)
    assert v.after[1] == blocked
    assert game.played_turns()[1][0].sheets[1] == blocked  # what the next turn starts from
    assert v.order == [0, 1] and v.y.tolist() == [1.0, 0.0]


def test_the_order_of_play_is_not_read_by_a_model_at_zero() -> None:
    """The feature's coefficient at 0 (a former file, or a fit without it): the strengths are those
    of the 13 features alone, whatever the place in the round (D5)."""
    rng = np.random.default_rng(14121)
    c = rng.integers(-60_000, 60_000, size=(len(ROWS), len(FEATURES))).astype(np.int64)
    c[:, AHEAD] = 0
    for n in (2, 3, 4):
        seats = np.stack([rng.integers(0, 120, size=(50, n)) * W, rng.integers(0, 60, size=(50, n)),
                          rng.integers(0, 3, size=(50, n)), np.tile(np.arange(n), (50, 1))], axis=-1)
        ph = np.full(50, 3)
        base = all_chances(c, ph, design(ph, seats, 4, to_play=0), 4)
        for to_play in range(1, n):
            assert np.array_equal(all_chances(c, ph, design(ph, seats, 4, to_play=to_play), 4), base)

