"""Dice parsing and the re-roll space (D2, D6, D7), checked against closed forms and a brute
force over every ordered outcome of the re-rolled dice."""

from __future__ import annotations

from collections import Counter
from itertools import product
from math import comb

import numpy as np
import pytest

from shelfie_solver.dice.rolls import DiceSpace, dice_codes, dice_names, multinomial, parse_dice, space_for
from shelfie_solver.dice.errors import DiceError
from shelfie_solver.dice.rules import DEFAULT_RULES

# side numbers of the default ruleset: P G B A C J
P, G, B, A, C, J = range(6)


@pytest.mark.parametrize("text", [
    "CCBJPP", "ccbjpp", "C C B J P P", "C,C,B,J,P,P", "c, c; b j,p p", "PPBCCJ",
    "cat cat book joker plant plant", "Cat, CAT, book, Joker, plant, plant", "cat C book J pp",
])
def test_parse_dice_codes_and_names(text):
    """Codes (any case, spaces/commas) and names parse to the same multiset."""
    assert parse_dice(text, DEFAULT_RULES) == (2, 0, 1, 0, 2, 1)


@pytest.mark.parametrize("text", ["CCBJPX", "cat cat dog joker plant plant", "CCBJP?"])
def test_parse_dice_unknown_face(text):
    with pytest.raises(DiceError, match="unknown face"):
        parse_dice(text, DEFAULT_RULES)


@pytest.mark.parametrize("text", ["CCBJP", "CCBJPPA", "", "cat"])
def test_parse_dice_wrong_count(text):
    with pytest.raises(DiceError, match="expected 6"):
        parse_dice(text, DEFAULT_RULES)


def test_dice_codes_and_names_round_trip():
    counts = (2, 0, 1, 0, 2, 1)
    assert dice_codes(counts, DEFAULT_RULES) == "PPBCCJ"
    assert dice_names(counts, DEFAULT_RULES) == "plant plant book cat cat joker"
    assert parse_dice(dice_codes(counts, DEFAULT_RULES), DEFAULT_RULES) == counts
    assert dice_codes((0,) * 6, DEFAULT_RULES) == ""


def test_default_space_sizes():
    """D2/D6: 6 dice with 6 sides: C(6+6-1, 6) = 462 rolls; holds are the multisets of 0..6
    dice: sum_k C(k+5, 5) = C(12, 6) = 924; denominator 6^6 = 46656."""
    space = space_for(DEFAULT_RULES)
    assert len(space.rolls) == comb(11, 6) == 462
    assert len(space.holds) == sum(comb(k + 5, 5) for k in range(7)) == comb(12, 6) == 924
    assert space.denominator == 6 ** 6 == 46656
    assert len(set(space.rolls)) == 462 and all(sum(r) == 6 for r in space.rolls)
    assert len(set(space.holds)) == 924


@pytest.mark.parametrize("n, s", [(1, 2), (2, 3), (3, 4), (4, 3), (5, 6), (6, 6)])
def test_space_counts_closed_form(n, s):
    """Rolls C(n+s-1, n), holds C(n+s, n), and a roll's multinomials sum to s^n."""
    space = DiceSpace(n, s)
    assert len(space.rolls) == comb(n + s - 1, n)
    assert len(space.holds) == comb(n + s, n)
    assert sum(multinomial(r) for r in space.rolls) == s ** n


@pytest.mark.parametrize("n, s", [(2, 3), (3, 4), (4, 3), (6, 6)])
def test_transition_rows_sum_to_the_denominator(n, s):
    starts, _, weights = DiceSpace(n, s).transitions
    sums = np.add.reduceat(weights, starts)
    assert (sums == s ** n).all()


@pytest.mark.parametrize("n, s", [(2, 3), (3, 4), (4, 3)])
def test_transitions_equal_brute_force(n, s):
    """D7: keeping a hold and re-rolling the rest reaches each roll with probability (ordered
    outcomes of the re-rolled dice reaching it) / s^(n - kept): enumerate them all."""
    space = DiceSpace(n, s)
    starts, columns, weights = space.transitions
    ends = list(starts[1:]) + [len(columns)]
    for h, hold in enumerate(space.holds):
        rerolled = n - sum(hold)
        ways: Counter = Counter()
        for outcome in product(range(s), repeat=rerolled):
            roll = list(hold)
            for side in outcome:
                roll[side] += 1
            ways[tuple(roll)] += 1
        got = {space.rolls[c]: int(w) for c, w in zip(columns[starts[h]:ends[h]], weights[starts[h]:ends[h]])}
        assert got == {roll: k * s ** sum(hold) for roll, k in ways.items()}


def test_holds_of_lists_every_sub_multiset():
    """D7: any subset of the dice may be kept; distinct holds of C C B J P P: 3*2*2*3 = 36."""
    space = space_for(DEFAULT_RULES)
    roll = (2, 0, 1, 0, 2, 1)
    holds = space.holds_of(roll)
    assert len(holds) == len(set(holds)) == 3 * 2 * 2 * 3
    assert holds[0] == roll and holds[-1] == (0,) * 6
    assert all(all(h[i] <= roll[i] for i in range(6)) for h in holds)
    sizes = [sum(h) for h in holds]
    assert sizes == sorted(sizes, reverse=True)


def test_expect_is_the_exact_conditional_expectation():
    """expect(values) = denominator * E[values(next roll) | hold], checked on 'number of cats'."""
    space = DiceSpace(3, 3)
    values = space.roll_counts[:, [2]]  # count of side 2
    expected = space.expect(values)
    for h, hold in enumerate(space.holds):
        # kept side-2 dice plus (3 - kept) fresh dice each showing side 2 with chance 1/3
        exact = hold[2] * 27 + (3 - sum(hold)) * 9
        assert expected[h, 0] == exact
