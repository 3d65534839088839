"""Exact odds (D6, D7): against a brute force over every roll sequence, an independent dice
library (icepool), closed forms and published figures; the simulation check; invariants."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache
from itertools import combinations, product

import pytest
from conftest import EXAMPLES, small_rules
from hypothesis import given, settings
from test_targets import TINY_BOARD, brute_meets, ordered, targets

from shelfie_solver.dice.board import Marks, load_board
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.errors import DiceError
from shelfie_solver.dice.odds import odds, sample_turns, solve_target
from shelfie_solver.dice.rules import load_rules
from shelfie_solver.dice.targets import compile_target, parse_target

CLASSIC = load_rules(EXAMPLES / "rules" / "classic-five-dice.toml")
CLASSIC_FIVE_OF_A_KIND = Fraction(347897, 7558272)  # published: five of a kind within three rolls


# --- brute force over every roll sequence (ordered outcomes, Fractions) ---------------------------


class BruteForce:
    """Optimal play by recursion over ordered outcomes and every hold (sub-multiset of the dice
    showing), with exact Fractions; independent of DiceSpace and the engine."""

    def __init__(self, meets, n_dice: int, n_sides: int):
        self.meets, self.n_dice, self.n_sides = meets, n_dice, n_sides
        self.value = cache(self._value)
        self.hold_value = cache(self._hold_value)

    def _value(self, roll: tuple[int, ...], rerolls: int) -> Fraction:
        """Chance from a sorted roll with ``rerolls`` left, best hold at each step."""
        if rerolls == 0:
            return Fraction(int(self.meets(roll)))
        holds = {tuple(sorted(c)) for k in range(len(roll) + 1) for c in combinations(roll, k)}
        return max(self.hold_value(h, rerolls) for h in holds)

    def _hold_value(self, hold: tuple[int, ...], rerolls: int) -> Fraction:
        """Chance after keeping ``hold`` and re-rolling the rest (``rerolls`` >= 1 left); keeping
        every die is stopping (D7)."""
        free = self.n_dice - len(hold)
        if free == 0:
            return Fraction(int(self.meets(hold)))
        outcomes = list(product(range(self.n_sides), repeat=free))
        return sum((self.value(tuple(sorted(hold + o)), rerolls - 1) for o in outcomes), Fraction(0)) / len(outcomes)

    def start(self, rerolls: int) -> Fraction:
        """From the start of a turn: the initial roll, then ``rerolls`` re-rolls."""
        return self.hold_value((), rerolls + 1)


def policy_value(meets, keep, n_dice: int, n_sides: int):
    """``value(sorted roll, rerolls)``: the chance under a fixed hold rule
    ``keep(sorted roll) -> sorted hold``, by recursion over ordered outcomes."""
    @cache
    def value(roll: tuple[int, ...], rerolls: int) -> Fraction:
        if rerolls == 0:
            return Fraction(int(meets(roll)))
        hold = keep(roll)
        outcomes = list(product(range(n_sides), repeat=n_dice - len(hold)))
        return sum((value(tuple(sorted(hold + o)), rerolls - 1) for o in outcomes), Fraction(0)) / len(outcomes)

    return value


CASES = [
    (small_rules(dice=3, faces=2), "2a", None),
    (small_rules(dice=3, faces=2, rerolls=3), "3*", None),
    (small_rules(dice=4, faces=3), "2a+2b", None),
    (small_rules(dice=4, faces=3), "4a|3b", None),
    (small_rules(dice=4, faces=3), "2*+1*", None),
    (small_rules(dice=4, faces=3, per_group=2), "3c+1a", None),
    (small_rules(dice=4, faces=2, joker=False, rerolls=3), "4*", None),
    (small_rules(dice=4, faces=2), "r3c2+r1c1|r2c3", TINY_BOARD),
    (small_rules(dice=4, faces=2), "r3c3", TINY_BOARD),
]


@pytest.mark.parametrize(("rules", "text", "board"), CASES)
def test_optimal_chances_equal_brute_force(rules, text, board):
    """Every roll, every hold, every level and the start of a turn equal the brute force."""
    target = parse_target(text, rules)
    meets = lambda roll: brute_meets(target, roll, rules, board)  # noqa: E731
    brute = BruteForce(meets, rules.dice, rules.n_sides)
    solution = solve_target(compile_target(target, rules, board, Marks.empty(board) if board else None), rules.rerolls)
    space = solution.space
    for r in range(rules.rerolls + 1):
        assert solution.start_chance(r) == brute.start(r)
        for roll in space.rolls:
            assert solution.roll_chance(roll, r) == brute.value(ordered(roll), r)
    top = rules.rerolls
    for roll in space.rolls[::3]:
        result = odds(target, rules, board, Marks.empty(board) if board else None, roll, top)
        for hold in result.holds:
            assert hold.probability == brute.hold_value(ordered(hold.keep), top)


@pytest.mark.parametrize(("rules", "text", "board"), CASES)
def test_baseline_policy_evaluation_equals_brute_force(rules, text, board):
    """The baseline's exact chance is the recursion over ordered outcomes of its own holds."""
    target = parse_target(text, rules)
    meets = lambda roll: brute_meets(target, roll, rules, board)  # noqa: E731
    solution = solve_target(compile_target(target, rules, board, Marks.empty(board) if board else None), rules.rerolls)

    def keep(roll: tuple[int, ...]) -> tuple[int, ...]:
        counts = tuple(roll.count(s) for s in range(rules.n_sides))
        return ordered(solution.baseline_keep(counts))

    value = policy_value(cache(meets), keep, rules.dice, rules.n_sides)
    initial = list(product(range(rules.n_sides), repeat=rules.dice))
    for r in range(rules.rerolls + 1):
        for roll in solution.space.rolls:
            assert solution.roll_chance(roll, r, baseline=True) == value(ordered(roll), r)
        start = sum((value(tuple(sorted(o)), r) for o in initial), Fraction(0)) / len(initial)
        assert solution.start_chance(r, baseline=True) == start


# --- published figures and closed forms ----------------------------------------------------------


def test_classic_five_of_a_kind_within_three_rolls():
    """Classic five dice, 6 faces, no Joker, 2 re-rolls: 347897/7558272 under optimal holds."""
    result = odds(parse_target("5*", CLASSIC), CLASSIC)
    assert result.probability == CLASSIC_FIVE_OF_A_KIND
    assert result.by_rerolls[0][0] == Fraction(6, 6**5)  # one roll: 6 of the 7776 rolls


def test_classic_keep_the_most_common_face_is_the_markov_chain_figure():
    """The baseline for 5* keeps the most common face: the textbook Markov-chain strategy, whose
    value is the same published 347897/7558272."""
    assert odds(parse_target("5*", CLASSIC), CLASSIC).baseline == CLASSIC_FIVE_OF_A_KIND


def test_at_least_one_cat_in_one_roll(rules):
    """One roll of 6 dice: P(a cat) = 1 - (5/6)^6 (a 1-die group never takes a Joker, D11b);
    D12 adds the all-Jokers roll, (1/6)^6."""
    no_d12 = replace(rules, all_jokers_mark_any=False)
    assert odds(parse_target("1C", no_d12), no_d12, rerolls=0).probability == 1 - Fraction(5, 6) ** 6
    with_d12 = odds(parse_target("1C", rules), rules, rerolls=0).probability
    assert with_d12 == 1 - Fraction(5, 6) ** 6 + Fraction(1, 6) ** 6


def test_hand_worked_hold(rules):
    """Keeping BCCJ for 3C+2B: any C, B or Joker among the two re-rolled dice completes it
    (CCC+BJ, CCJ+BB, CCJ+BJ), so each re-roll fails with (1/2)^2: 1 - (1/4)^2 = 15/16."""
    result = odds(parse_target("3C+2B", rules), rules, dice=parse_dice("CCBJPP", rules))
    best = result.holds[0]
    assert best.keep == parse_dice("BCCJ", rules, count=-1) and best.probability == Fraction(15, 16)
    assert result.probability == Fraction(15, 16)


icepool = pytest.importorskip("icepool")


def icepool_chance(rules, predicate) -> Fraction:
    """P(predicate(sorted faces)) for one roll of all the dice, computed by icepool."""
    die = icepool.Die(list(range(rules.n_sides)))
    outcome = die.pool(rules.dice).expand().map(lambda faces: bool(predicate(tuple(faces))), star=False)
    return Fraction(outcome.probability(True))


def test_no_rerolls_against_icepool_with_hand_predicates(rules):
    """Closed-form predicates (D11: at most one Joker per group; D12 for a single combination)."""
    P, G, B, A, C, J = range(6)

    def three_cats(f):
        return f.count(C) + min(f.count(J), 1) >= 3 or f.count(J) == 6

    def three_cats_two_books(f):
        c_def, b_def = max(0, 3 - f.count(C)), max(0, 2 - f.count(B))
        return c_def <= 1 and b_def <= 1 and c_def + b_def <= f.count(J)

    def five_of_a_face(f):
        return any(f.count(x) + min(f.count(J), 1) >= 5 for x in (P, G, B, A, C)) or f.count(J) == 6

    for text, predicate in [("3C", three_cats), ("3C+2B", three_cats_two_books), ("5*", five_of_a_face)]:
        assert odds(parse_target(text, rules), rules, rerolls=0).probability == icepool_chance(rules, predicate)


@pytest.mark.parametrize("text", ["2*+2*", "4C|4B", "1P+1G+1B", "r2c4|r2c5", "r1c2+r4c3", "r5c1+3*"])
def test_no_rerolls_against_icepool_with_brute_force_predicate(rules, board, text):
    """icepool enumerates the rolls and their chances; the brute force over assignments decides."""
    target = parse_target(text, rules)
    want = icepool_chance(rules, lambda faces: brute_meets(target, faces, rules, board))
    assert odds(target, rules, board, Marks.empty(board), rerolls=0).probability == want


def test_no_rerolls_against_icepool_on_the_five_dice_variant():
    rules = load_rules(EXAMPLES / "rules" / "five-dice.toml")
    board = load_board(EXAMPLES / "boards" / "five-dice.toml", rules)
    for text in ["3C+2B", "r3c4|r1c5", "2*+2*"]:
        target = parse_target(text, rules)
        want = icepool_chance(rules, lambda faces, t=target: brute_meets(t, faces, rules, board))
        assert odds(target, rules, board, Marks.empty(board), rerolls=0).probability == want


# --- invariants ------------------------------------------------------------------------------------

INVARIANT_RULES = small_rules(dice=4, faces=3, rerolls=3)


@settings(max_examples=40, deadline=None)
@given(target=targets(INVARIANT_RULES, items=False))
def test_more_rerolls_never_lower_a_chance(target):
    """V_{r+1} >= V_r on every roll and at the start (keeping everything is allowed, D7), and the
    optimal chance is never below the baseline's."""
    solution = solve_target(compile_target(target, INVARIANT_RULES), INVARIANT_RULES.rerolls)
    denominator = space_for(INVARIANT_RULES).denominator  # level r is over denominator**r
    for r in range(INVARIANT_RULES.rerolls):
        assert solution.start_chance(r + 1) >= solution.start_chance(r)
        assert (solution.optimal.values[r + 1] >= solution.optimal.values[r] * denominator).all()
    for r in range(INVARIANT_RULES.rerolls + 1):
        assert solution.start_chance(r) >= solution.start_chance(r, baseline=True)
        assert (solution.optimal.values[r][:, 0] >= solution.baseline_values[r]).all()


def test_holds_are_ranked_with_shared_ties(rules):
    dice = parse_dice("CCBBPA", rules)
    result = odds(parse_target("4C|4B", rules), rules, dice=dice)
    space = space_for(rules)
    assert sorted(h.keep for h in result.holds) == sorted(space.holds_of(dice))
    chances = [h.probability for h in result.holds]
    assert chances == sorted(chances, reverse=True) and chances[0] == result.probability
    # CC and BB are symmetric: an exact tie, one shared rank
    by_keep = {h.keep: h for h in result.holds}
    cc, bb = parse_dice("CC", rules, count=-1), parse_dice("BB", rules, count=-1)
    assert by_keep[cc].probability == by_keep[bb].probability and by_keep[cc].rank == by_keep[bb].rank
    for before, after in zip(result.holds, result.holds[1:]):
        assert after.rank == (before.rank if after.probability == before.probability else result.holds.index(after) + 1)


def test_final_dice_chance_is_zero_or_one(rules):
    target = parse_target("3C+2B", rules)
    assert odds(target, rules, dice=parse_dice("CCCBJP", rules), rerolls=0).probability == 1
    assert odds(target, rules, dice=parse_dice("CCPPGA", rules), rerolls=0).probability == 0
    assert odds(target, rules, dice=parse_dice("CCCBJP", rules), rerolls=0).groups == (["CCC", "BJ"],)


def test_bad_arguments(rules):
    target = parse_target("3C", rules)
    with pytest.raises(DiceError, match="re-rolls"):
        odds(target, rules, rerolls=3)
    with pytest.raises(DiceError, match="all 6 dice"):
        odds(target, rules, dice=(1, 1, 0, 0, 0, 0))


# --- simulation check -------------------------------------------------------------------------------


def test_simulation_agrees_with_the_exact_chance(rules):
    solution = solve_target(compile_target(parse_target("3C+2B", rules), rules), 2)
    check = sample_turns(solution, 20_000, seed=11, rerolls=2)
    assert check.exact == solution.start_chance(2)
    assert check.low <= float(check.estimate) <= check.high
    assert check.inside
    # a looser, seed-free statement too: within 5 standard errors
    p = float(check.exact)
    assert abs(float(check.estimate) - p) < 5 * (p * (1 - p) / check.turns) ** 0.5


def test_simulation_from_dice_and_fewer_rerolls(rules):
    dice = parse_dice("CCBJPP", rules)
    solution = solve_target(compile_target(parse_target("4C|4B", rules), rules), 2)
    check = sample_turns(solution, 20_000, seed=3, rerolls=1, dice=dice)
    assert check.exact == solution.roll_chance(dice, 1) and check.inside


def test_simulation_is_reproducible(rules):
    solution = solve_target(compile_target(parse_target("5*", rules), rules), 2)
    a = sample_turns(solution, 5_000, seed=42, rerolls=2)
    b = sample_turns(solution, 5_000, seed=42, rerolls=2)
    assert a == b
    with pytest.raises(ShelfieError):
        sample_turns(solution, 0, seed=1, rerolls=2)


def test_simulation_of_a_certain_target_hits_every_time():
    """1* with 3 dice over 2 faces + Joker: every roll shows a face or is all Jokers (D12), so the
    chance is 1; without D12 only three all-Joker rolls in a row fail: 1 - (1/27)^3."""
    rules = small_rules(dice=3, faces=2)
    solution = solve_target(compile_target(parse_target("1*", rules), rules), 2)
    assert solution.start_chance(2) == 1
    assert sample_turns(solution, 1_000, seed=0, rerolls=2).hits == 1_000
    no_d12 = replace(rules, all_jokers_mark_any=False)
    solution = solve_target(compile_target(parse_target("1*", no_d12), no_d12), 2)
    assert solution.start_chance(2) == 1 - Fraction(1, 27) ** 3
