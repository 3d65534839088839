"""The tile game's state machine (tile/state.py): legal moves by brute force (T10-T14), turn
order and the end (T23, T24), tie-break (T26), refill (T16), and games saved, loaded and
replayed."""

from __future__ import annotations

import json
from itertools import combinations, permutations

import numpy as np
import pytest

from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.state import (Move, Setup, State, apply_move, apply_refill, deal, draw_refill, legal_moves,
                                        needs_refill, start_state, winner)
from shelfie_solver.tile.game import game_from_dict, game_to_dict, play_game
from shelfie_solver.tile.rules import EMPTY, default_cards, default_layout, default_ruleset, parse_shelf
from shelfie_solver.tile.strategies import TILE_STRATEGIES

RULES, LAYOUT, CARDS = default_ruleset(), default_layout(), default_cards()


def _setup(players: int = 2, first: int = 0) -> Setup:
    return Setup(RULES, LAYOUT, players, CARDS, tuple(range(players)), (3, 9), first)


def _state(setup: Setup, board: tuple[int, ...], shelf_text: str = "...../...../...../...../...../.....") -> State:
    state = start_state(setup)
    shelves = (parse_shelf(shelf_text),) + state.shelves[1:]
    return State(board, state.bag, shelves, state.tokens, state.stacks, None, 0)


def _brute_force_results(board: tuple[int, ...], shelf: tuple[int, ...]) -> set:
    """Every (board, shelf) a turn can produce, from the rules read directly: subsets of 1-3
    tiles, each with a free side (a neighbour off the grid or without a tile, T10), in one row or
    column without gaps (T11), into a column with room (T12, T14) in every order."""
    tiles = [i for i, t in enumerate(board) if t != EMPTY]

    def free(i: int) -> bool:
        r, c = divmod(i, 9)
        return any(not (0 <= rr < 9 and 0 <= cc < 9) or board[rr * 9 + cc] == EMPTY
                   for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))

    results = set()
    for k in (1, 2, 3):
        for pick in combinations([i for i in tiles if free(i)], k):
            rows, cols = {i // 9 for i in pick}, {i % 9 for i in pick}
            straight = (len(rows) == 1 and max(cols) - min(cols) == k - 1) or \
                       (len(cols) == 1 and max(rows) - min(rows) == k - 1)
            if not straight:
                continue
            for column in range(5):
                height = sum(shelf[r * 5 + column] != EMPTY for r in range(6))
                if 6 - height < k:
                    continue
                for order in permutations(pick):
                    new_shelf = list(shelf)
                    for j, cell in enumerate(order):
                        new_shelf[(5 - height - j) * 5 + column] = board[cell]
                    new_board = tuple(EMPTY if i in pick else t for i, t in enumerate(board))
                    results.add((new_board, tuple(new_shelf)))
    return results


@pytest.mark.parametrize("seed, shelf", [(1, "...../...../...../...../...../....."),
                                         (2, "...../C..../CC.../CCC../CCCC./CCCCB"),
                                         (3, "..CBG/TPCBG/FTPCB/GFTPC/BGFTP/CBGFT")])
def test_legal_moves_match_brute_force(seed, shelf):
    """T10-T14: legal_moves gives each reachable (board, shelf) exactly once: orders that differ
    only by swapping same-type tiles are merged; picks limited by the room in a column (T12)."""
    setup = _setup()
    rng = np.random.default_rng(seed)
    board = [EMPTY] * 81
    for cell in setup.usable_cells:
        if rng.random() < 0.8:
            board[cell] = int(rng.integers(3))  # few types: many same-type orders to merge
    state = _state(setup, tuple(board), shelf)
    moves = legal_moves(state)
    results = [apply_move(setup, state, m)[0] for m in moves]
    got = [(s.board, s.shelves[0]) for s in results]
    assert len(set(got)) == len(got)
    assert set(got) == _brute_force_results(state.board, state.shelves[0])


def test_freed_tile_cannot_join_pick():
    """T10: freedom is judged at turn start: in a full 3-long line across the board's middle row,
    the centre tile of a 3x3 block is not free, so a pick through it is illegal; T12: a 2-tile
    pick needs a column with 2 empty cells."""
    setup = _setup()
    board = [EMPTY] * 81
    for r in (3, 4, 5):
        for c in (3, 4, 5):
            board[r * 9 + c] = 0
    state = _state(setup, tuple(board))
    with pytest.raises(TileError, match="free side"):
        apply_move(setup, state, Move((39, 40, 41), 0))
    one_free_row = _state(setup, tuple(board), "...../TPCBG/FTPCB/GFTPC/BGFTP/CBGFT")
    with pytest.raises(TileError, match="T12"):
        apply_move(setup, one_free_row, Move((30, 31), 0))


def test_end_token_and_final_round():
    """T23-T24: filling the shelf takes the end token (+1) and the round finishes with the last
    seat; if the last seat fills, the game ends at once."""
    setup = _setup(players=2, first=0)
    board = [EMPTY] * 81
    board[40] = board[41] = 1  # two books touching
    near_full = ".PCBG/TPCBG/FTPCB/GFTPC/BGFTP/CBGFT"
    state = _state(setup, tuple(board), near_full)
    after, events = apply_move(setup, state, Move((40,), 0))
    assert after.end_token == 0 and not after.over and after.turn == 1
    assert any(type(e).__name__ == "EndToken" for e in events)
    final, events = apply_move(setup, after, Move((41,), 0))
    assert final.over and type(events[-1]).__name__ == "Over"


def test_tie_break_latest_in_turn_order():
    """T26: among tied players the one furthest clockwise from the first player wins."""
    assert winner(_setup(players=3, first=1), (10, 10, 4)) == 0  # order 1, 2, 0: seat 0 is latest
    assert winner(_setup(players=3, first=0), (10, 10, 4)) == 1
    assert winner(_setup(players=2, first=0), (5, 9)) == 1


def test_refill_trigger():
    """T16: refill when no tile touches another (isolated tiles, or an empty board)."""
    board = [EMPTY] * 81
    assert needs_refill(tuple(board))
    board[40] = 0
    board[42] = 1
    assert needs_refill(tuple(board))
    board[41] = 2
    assert not needs_refill(tuple(board))


@pytest.mark.parametrize("method, kept", [("all", False), ("empty", True)])
def test_refill_methods(method, kept):
    """T16 and its flag: 'all' returns the board's tiles to the bag, 'empty' keeps them; every
    usable cell then holds a tile and the tile count is conserved (T2)."""
    from dataclasses import replace

    setup = replace(_setup(), rules=replace(RULES, refill=method))
    rng = np.random.default_rng(5)
    state = start_state(setup)
    state = apply_refill(setup, state, draw_refill(setup, state, rng))
    board = list(state.board)
    for cell in setup.usable_cells[1:]:
        board[cell] = EMPTY
    state = replace(state, board=tuple(board), bag=tuple(b + 0 for b in state.bag))
    total = sum(state.bag) + sum(t != EMPTY for t in state.board)
    event = draw_refill(setup, state, rng)
    assert event.returned is not kept
    new = apply_refill(setup, state, event)
    assert all(new.board[c] != EMPTY for c in setup.usable_cells)
    assert sum(new.bag) + sum(t != EMPTY for t in new.board) == total


def test_games_replay_from_json():
    """A seeded game is reproducible, saves as JSON and replays to the same final state; a
    tampered move is refused."""
    players = [TILE_STRATEGIES["greedy"](), TILE_STRATEGIES["random"](), TILE_STRATEGIES["random"]()]
    game = play_game(RULES, LAYOUT, CARDS, players, 42)
    assert play_game(RULES, LAYOUT, CARDS, players, 42).events == game.events
    data = json.loads(json.dumps(game_to_dict(game)))
    assert game_from_dict(data).state == game.state
    scores = game.over.scores
    assert game.over.winner == max(range(3), key=lambda s: (scores[s], (s - game.setup.first) % 3))
    turn = next(e for e in data["events"] if e["type"] == "turn")
    turn["column"] = 7
    with pytest.raises(TileError):
        game_from_dict(data)


def test_deal_is_seeded():
    """T7-T9 from the generator: same seed, same deal."""
    a = deal(RULES, LAYOUT, CARDS, 4, np.random.default_rng(3))
    b = deal(RULES, LAYOUT, CARDS, 4, np.random.default_rng(3))
    assert a == b and len(a.goals) == 2 and len(set(a.personal)) == 4


def test_moves_keep_gravity_and_tile_count_and_positions_round_trip():
    """Through whole random games (2-4 players): every move keeps shelves free of floating tiles
    (T4), the 132 tiles are all in the bag, on the board or on shelves (T2), and every position
    written as a position file reads back as the same state (docs/tile.md)."""
    from dataclasses import replace

    from shelfie_solver.tile.position import position_from_dict, position_to_dict
    from shelfie_solver.tile.rules import check_shelf

    for players in (2, 3, 4):
        rng = np.random.default_rng(players)
        setup = deal(RULES, LAYOUT, CARDS, players, rng)
        state = start_state(setup)
        state = apply_refill(setup, state, draw_refill(setup, state, rng))
        strategy = TILE_STRATEGIES["random"]()
        while not state.over:
            if players == 2 or state.turns % 5 == 0:
                loaded = position_from_dict(position_to_dict(setup, state), RULES, LAYOUT, CARDS)
                assert replace(loaded.state, turns=state.turns) == state  # a position has no turn count
                assert loaded.setup.goals == setup.goals
            state, _ = apply_move(setup, state, strategy.choose(setup, state, rng))
            for shelf in state.shelves:
                check_shelf(shelf)
            assert sum(state.bag) + sum(t != EMPTY for t in state.board) + \
                sum(t != EMPTY for s in state.shelves for t in s) == 132
            if not state.over and needs_refill(state.board):
                state = apply_refill(setup, state, draw_refill(setup, state, rng))
