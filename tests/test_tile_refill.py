"""The exact refill expectation (docs/tile.md, T16-T17): the distribution of a refill's boards
(``tile.refill``) equals brute force over the bag's tiles as distinct objects, and the advisor
uses it, exactly, when a refill has few enough boards."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest

from shelfie_solver.tile.advise import rank_moves
from shelfie_solver.tile.denial import next_best
from shelfie_solver.tile.placements import Placements
from shelfie_solver.tile.state import Move, Setup, State, apply_move, start_state
from shelfie_solver.tile.refill import refill_boards, refill_count
from shelfie_solver.tile.rules import EMPTY, default_cards, default_layout, default_ruleset

RULES, LAYOUT, CARDS = default_ruleset(), default_layout(), default_cards()


def _brute_force(cells: list[int], base: list[int], tiles: list[int]) -> dict[tuple[int, ...], Fraction]:
    """T16-T17 by hand: every ordered draw of distinct tile objects is equally likely; when the
    bag is short, every subset of the cells is equally likely too."""
    k = min(len(cells), len(tiles))
    outcomes: Counter[tuple[int, ...]] = Counter()
    for chosen in combinations(cells, k):
        for drawn in permutations(range(len(tiles)), k):
            board = list(base)
            for cell, index in zip(chosen, drawn):
                board[cell] = tiles[index]
            outcomes[tuple(board)] += 1
    total = sum(outcomes.values())
    return {board: Fraction(n, total) for board, n in outcomes.items()}


def _setup(refill: str) -> Setup:
    return Setup(replace(RULES, refill=refill), LAYOUT, 2, CARDS, (0, 1), (2, 6), 0)


@pytest.mark.parametrize("bag, empty", [((2, 1, 1, 0, 0, 0), 3),   # 3 of 4 tiles drawn (T16)
                                         ((1, 1, 0, 0, 0, 0), 3),   # a short bag: 2 tiles on 2 of 3 cells (T17)
                                         ((0, 2, 0, 0, 3, 0), 4)])
def test_refill_distribution_equals_brute_force(bag, empty):
    """``refill = "empty"``: the board's tiles stay and only its empty usable cells are filled."""
    setup = _setup("empty")
    cells = list(setup.usable_cells)
    board = [EMPTY] * 81
    for i, cell in enumerate(cells[empty:]):
        board[cell] = i % 6
    start = start_state(setup)
    state = State(tuple(board), bag, start.shelves, start.tokens, start.stacks, None, 0)
    expected = _brute_force(cells[:empty], board, [t for t, n in enumerate(bag) for _ in range(n)])
    denominator, boards = refill_boards(setup, state)
    assert {b: Fraction(w, denominator) for w, b in boards} == expected
    assert len(boards) == len(expected) == refill_count(setup, state)
    assert sum(w for w, _ in boards) == denominator


def test_refill_count_of_a_full_bag():
    """A full refill of the 29 two-player cells from 22 tiles of each of 6 types (T2, T6): every
    sequence of types but those with 23+ tiles of one type (at most one type can: 46 > 29)."""
    setup = _setup("all")
    too_many = 6 * sum(comb(29, n) * 5 ** (29 - n) for n in range(23, 30))
    assert refill_count(setup, start_state(setup)) == 6 ** 29 - too_many


def test_advise_averages_a_small_refill_exactly():
    """Two cats side by side and one book in the bag (refill = "all", T16: the board's tiles go
    back first). Taking one cat leaves it isolated: the refill lays a cat and a book on 2 of the
    29 cells (T17; 812 boards); taking both leaves the board empty: a book on one of 29 cells. The
    next player (cats at the bottom of two columns) gains 2 points by a third cat on its group
    (T22). Each refill's term is the exact mean of the next player's best gain over the
    brute-force distribution, and the table / JSON say it was exact."""
    setup = _setup("all")
    start = start_state(setup)
    board = [EMPTY] * 81
    board[40] = board[41] = 0
    opponent = [EMPTY] * 30
    opponent[25] = opponent[26] = 0  # two cats side by side at the bottom
    state = State(tuple(board), (0, 1, 0, 0, 0, 0), (start.shelves[0], tuple(opponent)), start.tokens, start.stacks,
                  None, 0)
    ranked = rank_moves(setup, state, samples=5, rng=np.random.default_rng(0))
    after_state, _ = apply_move(setup, state, Move((40,), 0))
    next_player = Placements(setup, after_state, 1)
    cells = list(setup.usable_cells)
    for r in ranked:
        assert r.refill and r.outlook is not None and r.outlook.exact
        left = [t if i not in r.move.cells else EMPTY for i, t in enumerate(board)]
        tiles = [t for t in left if t != EMPTY] + [1]
        expected = sum(p * next_best(next_player, b)
                       for b, p in _brute_force(cells, [EMPTY] * 81, tiles).items())
        assert r.outlook.mean == expected
        assert r.outlook.samples == (812 if len(r.move.cells) == 1 else 29)
        assert r.parts["denial"] == -r.outlook.mean / 8
        # by hand: a lone cat always has a free side (T10) and makes the group of 3 (2 points =
        # 8 quarters, T22); a lone book joins nothing
        assert r.outlook.mean == (8 if len(r.move.cells) == 1 else 0)


POSITION = """players = 2
turn = 1
goals = [2, 6]
personal = "1"
board = ["----.----", "----.----", "---...---", "--.....--", "....CC...", "--.....--", "---...---",
         "----.----", "----.----"]
bag = { C = 0, B = 1, G = 0, F = 0, T = 0, P = 0 }
[[shelf]]
rows = [".....", ".....", ".....", ".....", ".....", "....."]
[[shelf]]
rows = [".....", ".....", ".....", ".....", ".....", "CC..."]
"""


def test_cli_says_which_refills_are_exact(tmp_path):
    """``tile advise``: the table's refill column and the JSON's ``refill_outlook.method`` say
    whether a refill's term is exact (default) or sampled (``--exact-boards 0``)."""
    import json

    from click.testing import CliRunner

    from shelfie_solver.cli import main

    path = tmp_path / "position.toml"
    path.write_text(POSITION)
    result = CliRunner().invoke(main, ["tile", "advise", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    outlooks = [m["refill_outlook"] for m in json.loads(result.stdout)["moves"]]
    assert {o["method"] for o in outlooks} == {"exact"} and {o["boards"] for o in outlooks} == {812, 29}
    assert {o["next_player_gain"] for o in outlooks} == {"2/1", "0/1"}
    table = CliRunner().invoke(main, ["tile", "advise", str(path)]).stdout
    assert "exact" in table and "exact over all 29 boards" in table
    sampled = CliRunner().invoke(main, ["tile", "advise", str(path), "--exact-boards", "0", "--samples", "7",
                                        "--format", "json"])
    assert {m["refill_outlook"]["method"] for m in json.loads(sampled.stdout)["moves"]} == {"sampled"}
    assert "7 samples" in CliRunner().invoke(main, ["tile", "advise", str(path), "--exact-boards", "0",
                                                    "--samples", "7"]).stdout
