"""The tile advisor's evaluation (docs/tile.md): the incremental immediate gain equals a full
recomputation of the score (T21, T22, T18, T23), and the ranking's basic promises hold."""

from __future__ import annotations

from fractions import Fraction
from dataclasses import replace
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.tile.advise import rank_moves
from shelfie_solver.tile.placements import Placements, full_value
from shelfie_solver.tile.state import apply_move, apply_refill, draw_refill, legal_moves, needs_refill, start_state
from shelfie_solver.tile.state import Setup, total_score
from shelfie_solver.tile.rules import default_cards, default_layout, default_ruleset
from shelfie_solver.tile.strategies import TILE_STRATEGIES

RULES, LAYOUT, CARDS = default_ruleset(), default_layout(), default_cards()


def _positions(seed: int, turns: int):
    """Positions of a random game after each turn (seeds 0-5 cover goals 1-12, 2 per setup)."""
    rng = np.random.default_rng(seed)
    goals = (1 + 2 * seed % 12, 2 + 2 * seed % 12)
    setup = Setup(RULES, LAYOUT, 2, CARDS, (seed % 12, (seed + 1) % 12), tuple(sorted(goals)), 0)
    state = start_state(setup)
    state = apply_refill(setup, state, draw_refill(setup, state, rng))
    strategy = TILE_STRATEGIES["random"]()
    for _ in range(turns):
        yield setup, state
        state, _ = apply_move(setup, state, strategy.choose(setup, state, rng))
        if state.over:
            return
        if needs_refill(state.board):
            state = apply_refill(setup, state, draw_refill(setup, state, rng))


def test_immediate_gain_is_the_score_change():
    """For placements (column, 1-3 types; a ninth of the triples) in many positions, the incremental
    evaluation (every term) equals the whole shelf's recomputed before and after (T21, T22); the
    immediate gain of a legal move equals T25 after minus T25 before."""
    checked = 0
    triples = [t for i, t in enumerate(product(range(6), repeat=3)) if i % 9 == 0]
    for seed in range(6):  # goals 1-12 all appear
        for index, (setup, state) in enumerate(_positions(seed, 40)):
            if index % 3:
                continue
            seat = state.turn
            placements = Placements(setup, state, seat)
            gains = Placements(setup, state, seat)  # the immediate gain alone, without the potentials
            before = total_score(setup, state, seat)
            for k in (1, 2, 3):
                for column, types in product(range(5), product(range(6), repeat=k) if k < 3 else triples):
                    if placements.room[column] < k:
                        continue
                    full = full_value(placements, column, types)
                    assert placements.value(column, types) == full
                    assert gains.immediate(column, types) == full[0]
                    checked += 1
            move = legal_moves(state)[0]
            after, _ = apply_move(setup, state, move)
            assert Fraction(placements.value(move.column, move.types(state.board))[0], 4) == \
                total_score(setup, after, seat) - before
    assert checked > 2_000


def test_rank_moves_lists_every_legal_move_best_first():
    setup, state = next(_positions(3, 1))
    ranked = rank_moves(setup, state)
    assert len(ranked) == len(legal_moves(state))
    assert [r.value for r in ranked] == sorted((r.value for r in ranked), reverse=True)
    assert all(r.value == sum(r.parts.values()) for r in ranked)
    assert ranked[0].rank == 1


def test_refill_outlook_when_every_draw_is_a_cat():
    """A move that leaves only isolated tiles triggers a refill (T16); with only cats in the bag
    every refilled board is cats only (on a random 20-21 of the 29 cells, T17), whose best next
    move is 3 cats in a line stacked (a group of 3: 2 points, T22; the next player's card hidden)
    or, without such a line, 0: the sampled mean is 2 points times the share of boards with a
    line, and the denial term minus half of it."""
    from shelfie_solver.tile.state import State, start_state
    from shelfie_solver.tile.rules import EMPTY

    setup = Setup(RULES, LAYOUT, 2, CARDS, (0, -1), (2, 6), 0)  # goals that 3 tiles cannot meet
    board = [EMPTY] * 81
    board[40] = board[41] = 0
    start = start_state(setup)
    state = State(tuple(board), (20, 0, 0, 0, 0, 0), start.shelves, start.tokens, start.stacks, None, 0)
    ranked = rank_moves(setup, state, samples=20, rng=np.random.default_rng(1))
    assert all(r.refill for r in ranked if len(r.move.cells) == 1)
    for r in ranked:
        if r.refill:
            assert r.outlook is not None and r.outlook.samples == 20
            assert (r.outlook.mean * 20) % 8 == 0 and 6 <= r.outlook.mean <= 8  # quarters: k/20 of 2 points
            assert r.parts["denial"] == -r.outlook.mean / 8
            assert r.outlook.low <= r.outlook.mean <= r.outlook.high
    assert rank_moves(setup, state)[0].outlook is None  # no samples: refills count 0


@pytest.mark.parametrize("kept_for_turn", [False, True])
def test_next_best_after_a_pick_equals_a_fresh_enumeration(kept_for_turn):
    """The denial term's shortcut (picks of the current board that avoid the taken cells, plus
    picks through newly freed tiles, T10) equals enumerating the next player's picks on the
    board after the pick, for every pick of many positions, with the best gains from the
    immediate gains or from the placement sums."""
    from shelfie_solver.tile.denial import NextBest, next_best
    from shelfie_solver.tile.state import legal_picks
    from shelfie_solver.tile.rules import EMPTY

    checked = 0
    for seed in (1, 2, 3):
        for index, (setup, state) in enumerate(_positions(seed, 40)):
            if index % 2:
                continue
            opponent = Placements(setup, state, (state.turn + 1) % 2)
            shortcut = NextBest(opponent, state.board, kept_for_turn)
            for pick in legal_picks(state.board, state.shelves[state.turn]):
                after = tuple(EMPTY if i in pick else t for i, t in enumerate(state.board))
                assert shortcut.after(pick) == next_best(opponent, after)
                checked += 1
    assert checked > 500


@pytest.mark.parametrize("rules", [RULES, replace(RULES, squares="loose", squares_same_type=True)])
def test_goal_shortcuts_equal_the_predicates(rules):
    """The placement's goal check (``Placements.holds_after``: only what the placement changes,
    T18-T19) equals the predicate on the whole shelf after it, for every goal but T-CG3/T-CG4
    (counted from groups, covered above), on random shelves of few types (so patterns are common),
    including goals that already hold before the placement; with the default T-CG1 reading and
    with the loose, same-type one (TILE-RULES.md flags)."""
    from shelfie_solver.tile.state import State, start_state
    from shelfie_solver.tile.state import place_tiles
    from shelfie_solver.tile.rules import COLUMNS, EMPTY, ROWS
    from shelfie_solver.tile.shelf import goal_holds

    rng = np.random.default_rng(7)
    checked = held = 0
    for index in range(300):
        kinds = rng.choice(6, size=int(rng.integers(1, 7)), replace=False)
        heights = rng.integers(0, ROWS + 1, size=COLUMNS)
        if index % 3 == 0:  # staircases (T-CG12) with one column 0-3 tiles short
            heights = np.arange(COLUMNS)[::int(rng.choice([1, -1]))] + int(rng.integers(1, 3))
            heights[int(rng.integers(COLUMNS))] -= int(rng.integers(0, 4))
            heights = np.clip(heights, 0, ROWS)
        rainbow = index % 3 == 1  # columns of 6 types, rows of 5 (T-CG2, T-CG6), nearly full
        offsets = rng.permutation(6)
        if rainbow:
            heights = rng.integers(ROWS - 3, ROWS + 1, size=COLUMNS)
        cells = [EMPTY] * (ROWS * COLUMNS)
        for c in range(COLUMNS):
            for r in range(ROWS - int(heights[c]), ROWS):
                cells[r * COLUMNS + c] = int((r + offsets[c]) % 6) if rainbow else int(rng.choice(kinds))
        shelf = tuple(cells)
        for pair in ((1, 2), (5, 6), (7, 8), (9, 10), (11, 12)):
            setup = Setup(rules, LAYOUT, 2, CARDS, (0, 1), pair, 0)
            start = start_state(setup)
            state = State(start.board, start.bag, (shelf, start.shelves[1]), start.tokens, start.stacks, None, 0)
            placements = Placements(setup, state, 0)
            for column in range(COLUMNS):
                for k in range(1, min(3, placements.room[column]) + 1):
                    types = tuple(int(t) for t in rng.choice(6 if rainbow else kinds, size=k))
                    room = list(placements.room)
                    room[column] -= k
                    after = place_tiles(shelf, column, types)
                    for goal in pair:
                        expected = goal_holds(goal, after, rules)
                        held += expected
                        assert placements.holds_after(goal, column, types, room) == expected, (goal, shelf, types)
                        # the count filters: a goal the placement completes is live, for this column
                        assert not expected or goal in [g for _, g in placements.live_columns()[column]]
                        checked += 1
    assert checked > 5_000 and held > 200


def test_best_immediate_is_the_best_placement():
    """``best_immediate`` (the next player's best gain of a pick's types; inline for distinct
    types when no goal is within reach) equals the best whole-shelf recomputation (T25) over
    every column with room (T12) and every order (T14)."""
    from shelfie_solver.tile.gains import type_orders

    checked = 0
    for seed in range(6):
        for index, (setup, state) in enumerate(_positions(seed, 40)):
            if index % 4:
                continue
            placements = Placements(setup, state, state.turn)
            for types in [t for i, t in enumerate(product(range(6), repeat=3)) if i % 5 == 0] + [(1,), (2, 4)]:
                columns = [c for c in range(5) if placements.room[c] >= len(types)]
                if columns:
                    expected = max(full_value(placements, c, order)[0]
                                   for c in columns for order in type_orders(tuple(sorted(types))))
                    assert placements.best_immediate(types) == expected
                    checked += 1
    assert checked > 500


def test_runs_gain_is_the_whole_shelf_gain():
    """``_runs_gain`` (group and personal points of repeated types, from runs of one type, T19,
    T21, T22; with the goals within reach, their tokens, T18) equals the whole-shelf
    recomputation's immediate gain less the goals' tokens and the end token (T23), for every
    order of repeated types in every column with room."""
    from shelfie_solver.tile.gains import QUARTER

    positions = [item for seed in range(6) for item in list(_positions(seed, 40))[::3]]
    repeated = [t for t in product(range(6), repeat=3) if len(set(t)) < 3] + [(t, t) for t in range(6)]
    checked = 0
    for setup, state in positions:
        placements = Placements(setup, state, state.turn)
        cases = [(c, order) for order in repeated for c in range(5) if placements.room[c] >= len(order)]
        for column, order in cases:
            immediate, _, _, _, goals, end = full_value(placements, column, order)
            tokens = sum(state.stacks[setup.goals.index(goal)][0] for goal in goals)
            assert placements._runs_gain(column, order) == immediate - QUARTER * (tokens + end)
            live = placements.live_columns()[column]
            assert placements._runs_gain(column, order, live) == immediate - QUARTER * end
            checked += 1
    assert checked > 5000


def test_best_moves_are_the_first_ranked():
    """The strategies' pruned search (``best_moves``: bound and prune on the denial term, greedy
    on each pick's best gain) returns exactly the moves ``rank_moves`` ranks first (every exact
    tie, in legal-move order), for the advisor and for greedy (immediate gain only, T25)."""
    from shelfie_solver.tile.advise import best_moves

    checked = 0
    for seed in range(6):
        for setup, state in _positions(seed, 40):
            ranked = rank_moves(setup, state)
            order = {move: i for i, move in enumerate(legal_moves(state))}
            expected = sorted((r.move for r in ranked if r.rank == 1), key=order.__getitem__)
            assert best_moves(setup, state) == expected
            gains = {r.move: r.parts["immediate"] for r in ranked}
            top = max(gains.values())
            assert best_moves(setup, state, immediate_only=True) == [m for m in order if gains[m] == top]
            checked += 1
    assert checked > 150


def _sums_reference(placements, key):
    """:meth:`Placements.sums` from whole-shelf recomputations (:func:`full_value`)."""
    from shelfie_solver.tile.gains import type_orders

    out = []
    for column in range(5):
        if placements.room[column] >= len(key):
            for types in type_orders(key):
                immediate, groups, personal, tempo, goals, _ = full_value(placements, column, types)
                out.append((column, types, immediate + groups + personal + tempo, goals, immediate))
    return out


def _check_sums(placements, keys) -> int:
    checked = 0
    for key in keys:
        expected = _sums_reference(placements, key)
        if expected:
            assert placements.sums(key) == expected
            assert placements.best_from_sums(key) == max(item[4] for item in expected)
            checked += 1
    return checked


def test_placement_sums_equal_the_whole_shelf():
    """``sums`` (every placement of a multiset of types: the evaluation without race and denial,
    its goals and its immediate gain; tile by tile for distinct types where no goal is within
    reach, T19, T21, T22) and ``best_from_sums`` equal whole-shelf recomputations (T18, T21-T23,
    T25) for every column with room (T12) and order (T14), with a known and a hidden card."""
    keys = sorted({tuple(sorted(t)) for k in (1, 2, 3) for t in product(range(6), repeat=k)})
    checked = 0
    for seed in range(6):
        for index, (setup, state) in enumerate(_positions(seed, 40)):
            if index % 5:
                continue
            checked += _check_sums(Placements(setup, state, state.turn), keys[index % 3::3])
            hidden = replace(setup, personal=tuple(-1 if s != state.turn else p for s, p in enumerate(setup.personal)))
            checked += _check_sums(Placements(hidden, state, (state.turn + 1) % 2), keys[(index + 1) % 3::3])
    assert checked > 1000


@settings(max_examples=150, deadline=None)
@given(heights=st.lists(st.integers(0, 6), min_size=5, max_size=5), data=st.data(),
       goals=st.lists(st.integers(1, 12), min_size=2, max_size=2, unique=True), card=st.integers(-1, 11),
       key=st.lists(st.integers(0, 5), min_size=1, max_size=3))
def test_placement_sums_on_any_shelf(heights, data, goals, card, key):
    """``sums`` equals the whole-shelf recomputation on shelves of any column heights (T4) and
    types, any two common goals (T7) and a known or hidden card (T20)."""
    from shelfie_solver.tile.rules import EMPTY

    shelf = [EMPTY] * 30
    for column, height in enumerate(heights):
        for row in range(6 - height, 6):
            shelf[row * 5 + column] = data.draw(st.integers(0, 5))
    setup = Setup(RULES, LAYOUT, 2, CARDS, (card, 3), tuple(sorted(goals)), 0)
    state = start_state(setup)
    state = replace(state, shelves=(tuple(shelf), state.shelves[1]), turn=0)
    fits = any(6 - height >= len(key) for height in heights)  # T12: a column with room
    assert _check_sums(Placements(setup, state, 0), [tuple(sorted(key))]) == fits
