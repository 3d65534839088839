"""The tile game's data files (T3, T20) and ruleset flags: ours pass the checks, broken ones fail
with one-line messages."""

from __future__ import annotations

import pytest

from shelfie_solver.tile.errors import TileError
from shelfie_solver.tile.rules import (cards_from_dict, default_cards, default_layout, default_ruleset,
                                       layout_from_dict, ruleset_from_dict)


def test_our_layout_counts():
    """T3: 29 / 37 / 45 usable cells with 2 / 3 / 4 players, counted here independently."""
    layout = default_layout()
    assert [sum(layout.usable(n)) for n in (2, 3, 4)] == [29, 37, 45]


def test_our_cards():
    """T20: 12 distinct cards, each 6 distinct cells, one per type."""
    cards = default_cards()
    assert len(cards) == 12 and len({c.cells for c in cards}) == 12
    assert all(len(set(c.cells)) == 6 and all(0 <= x < 30 for x in c.cells) for c in cards)


def test_default_ruleset_flags():
    """The shipped flags follow TILE-RULES.md's assumptions (rulebook refill, pottibot squares)."""
    rules = default_ruleset()
    assert (rules.refill, rules.squares, rules.squares_same_type, rules.common_goals) == ("all", "groups", False, 2)


def test_bad_layout_counts():
    """T3: one usable cell too many is refused."""
    grid = default_layout().to_dict()["grid"]
    grid[0] = "2" + grid[0][1:]
    with pytest.raises(TileError, match="29 / 37 / 45"):
        layout_from_dict({"grid": grid})


@pytest.mark.parametrize("grid, message", [(["222"], "shape"), (["x" * 9] * 9, "unknown layout character")])
def test_bad_layout_shape(grid, message):
    with pytest.raises(TileError, match=message):
        layout_from_dict({"grid": grid})


def _cards() -> list[dict]:
    return [c.to_dict() for c in default_cards()]


def test_bad_cards():
    """T20: two types on one cell, a cell off the shelf, a missing type, duplicate cards, 11 cards."""
    cards = _cards()
    cards[0]["B"] = cards[0]["C"]
    with pytest.raises(TileError, match="share a cell"):
        cards_from_dict({"card": cards})
    cards = _cards()
    cards[3]["P"] = [6, 0]  # the older 0-based form: row 6 is off the shelf
    with pytest.raises(TileError, match="row 1-6"):
        cards_from_dict({"card": cards})
    cards[3]["P"] = "r7c1"  # 1-based: row 7 is off the shelf
    with pytest.raises(TileError, match="row 1-6"):
        cards_from_dict({"card": cards})
    cards = _cards()
    del cards[2]["G"]
    with pytest.raises(TileError, match="G needs a shelf cell"):
        cards_from_dict({"card": cards})
    cards = _cards()
    cards[1] = dict(cards[0], name="copy")
    with pytest.raises(TileError, match="equal"):
        cards_from_dict({"card": cards})
    with pytest.raises(TileError, match="12"):
        cards_from_dict({"card": _cards()[:11]})


@pytest.mark.parametrize("data, message", [({"refill": "sometimes"}, "refill"), ({"colour": 1}, "unknown key"),
                                           ({"common_goals": 3}, "common_goals")])
def test_bad_ruleset(data, message):
    with pytest.raises(TileError, match=message):
        ruleset_from_dict(data)
