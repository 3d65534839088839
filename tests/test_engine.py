"""The exact engine (D6, D7) against brute force, closed forms, a published figure and Monte Carlo.

The brute force here knows nothing of DiceSpace: it enumerates every ordered outcome of every
roll and re-roll and every choice of dice to keep (by die position), with Fractions, and scores
a final roll by the brute-force markings of test_allocate.py and objectives written out from
their definitions (docs/objectives.md).
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.board import Board, Marks, load_board, parse_marks, score
from shelfie_solver.dice.rolls import DiceSpace, parse_dice, space_for
from shelfie_solver.dice.engine.dp import final_values as final_table
from shelfie_solver.dice.engine.dp import solve, solve_turn
from shelfie_solver.dice.objective_names import parse_objective
from shelfie_solver.dice.objectives import CellTarget, MarkCount, Points, Safe, Strategic
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset, load_rules

from conftest import EXAMPLES, small_rules
from test_allocate import brute_markings_by_subsets, random_marks

CLASSIC_FIVE_OF_A_KIND = Fraction(347897, 7558272)  # published: about 4.603%


# --- objectives from their definitions --------------------------------------------------------

def phi(board: Board, marks: Marks, threshold: int) -> Fraction:
    """docs/objectives.md line potential: per line with m marked worth M, a available worth A:
    M + A/2 if m >= T; (m/T)(M + A/2) if m < T <= m+a; else 0."""
    total = Fraction(0)
    for line in board.lines:
        m = sum(1 for c in line if marks.marked >> c & 1)
        a = sum(1 for c in line if marks.is_available(c))
        big_m = sum(board.value(c) for c in line if marks.marked >> c & 1)
        big_a = sum(board.value(c) for c in line if marks.is_available(c))
        if m >= threshold:
            total += big_m + Fraction(big_a, 2)
        elif m + a >= threshold:
            total += Fraction(m, threshold) * (big_m + Fraction(big_a, 2))
    return total


def objective_value(name: str, board: Board, marks: Marks, rules: Ruleset,
                    markings: set[tuple[int, ...]]) -> Fraction:
    """A final roll's worth under its best marking (docs/objectives.md's definitions); a failed
    result (no marking) is worth 0, or for strategic the least costly shelf to give up (D13)."""
    if name == "points":
        before = score(board, marks, rules)
        gains = (Fraction(score(board, marks.with_marked(s), rules) - before) for s in markings)
        return max(gains, default=Fraction(0))
    if name == "marks":
        return Fraction(max((len(s) for s in markings), default=0))
    if name == "safe":
        return Fraction(int(bool(markings)))
    if name.startswith("cell"):
        cell = int(name[4:])
        return Fraction(int(any(cell in s for s in markings)))
    assert name == "strategic"
    t = rules.scoring_threshold
    before = phi(board, marks, t)
    if markings:
        return max(phi(board, marks.with_marked(s), t) - before for s in markings)
    losses = [phi(board, marks.with_eliminated([board.cell(s, c) for c in range(board.n_columns)]), t) - before
              for s in range(board.n_shelves) if marks.shelf_has_available(s)]
    return max(losses, default=Fraction(0))


def make_objective(name: str):
    if name.startswith("cell"):
        return CellTarget(int(name[4:]))
    return {"points": Points(), "marks": MarkCount(), "safe": Safe(), "strategic": Strategic()}[name]


# --- the brute-force turn --------------------------------------------------------------------

class BruteTurn:
    """Every ordered roll, every hold (any subset of dice positions), every ordered re-roll.

    ``value(dice, r)`` is a tuple (objective value, failed-result chance, chance the final dice
    can mark at least 2 items, ... at least k) of a roll (a sorted tuple of side numbers) with
    ``r`` re-rolls left. The hold maximises the value; among exact ties it takes the lower
    failed-result chance, then the hold keeping more dice, then the larger counts in side order
    (the engine's documented tie-break; the later columns depend on it)."""

    def __init__(self, board: Board, marks: Marks, rules: Ruleset, objective: str):
        self.board, self.marks, self.rules, self.objective = board, marks, rules, objective
        self.sides = rules.n_sides
        self.value = cache(self._value)

    def counts(self, dice: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(dice.count(s) for s in range(self.sides))

    def final(self, dice: tuple[int, ...]) -> tuple[Fraction, ...]:
        markings = brute_markings_by_subsets(self.counts(dice), self.board, self.marks, self.rules)
        worth = objective_value(self.objective, self.board, self.marks, self.rules, markings)
        most = max((len(s) for s in markings), default=0)
        at_least = tuple(Fraction(int(most >= j)) for j in range(2, self.rules.combinations_per_turn + 1))
        return (worth, Fraction(int(not markings))) + at_least

    def keep(self, kept: tuple[int, ...], rerolls: int) -> tuple[Fraction, ...]:
        """Keep these dice, re-roll the others (every ordered outcome), then play on; keeping
        every die is stopping (D7)."""
        fresh = self.rules.dice - len(kept)
        if fresh == 0:
            return self.final(kept)
        total = None
        for outcome in product(range(self.sides), repeat=fresh):
            row = self.value(tuple(sorted(kept + outcome)), rerolls - 1)
            total = row if total is None else tuple(a + b for a, b in zip(total, row))
        return tuple(x / self.sides ** fresh for x in total)

    def _value(self, dice: tuple[int, ...], rerolls: int) -> tuple[Fraction, ...]:
        if rerolls == 0:
            return self.final(dice)
        best, best_key = None, None
        for mask in product((0, 1), repeat=len(dice)):
            kept = tuple(d for d, k in zip(dice, mask) if k)
            row = self.keep(kept, rerolls)
            key = (row[0], -row[1], len(kept), self.counts(kept))
            if best_key is None or key > best_key:
                best, best_key = row, key
        return best

    def start(self, rerolls: int) -> tuple[Fraction, ...]:
        """The initial roll (D6, every ordered outcome), then ``rerolls`` re-rolls."""
        return self.keep((), rerolls + 1)


def side_tuple(counts: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for s, n in enumerate(counts) for _ in range(n))


def compare_with_brute_force(board: Board, marks: Marks, rules: Ruleset, objective: str, rerolls: int) -> None:
    """Every roll at every level, every hold, and the start of the turn: engine == brute force,
    in every column (objective, failed-result chance, at least j items)."""
    brute = BruteTurn(board, marks, rules, objective)
    solution = solve_turn(board, marks, rules, make_objective(objective), rerolls)
    space = solution.space
    columns = range(1 + rules.combinations_per_turn)
    for r in range(rerolls + 1):
        for roll in space.rolls:
            expected = brute.value(side_tuple(roll), r)
            got = tuple(solution.roll_value(roll, r, column=q) for q in columns)
            assert got == expected, (objective, roll, r)
        if r >= 1:
            for hold in space.holds:
                expected = brute.keep(side_tuple(hold), r)
                assert tuple(solution.hold_value(hold, r, column=q) for q in columns) == expected
    assert solution.start_values() == brute.start(rerolls)


SMALL_CONFIGS = {
    # 2 dice, 2 faces + Joker, 2 x 2 board (a two-face shelf), threshold 2
    "2d-2f-joker": (replace(small_rules(dice=2, faces=2), scoring_threshold=2),
                    Board("a", (1, 2), ((0,), (0, 1)), ((1, 3), (2, 5)))),
    # 3 dice, 2 faces + Joker, 2 x 3 board, columns 2 1 3
    "3d-2f-joker": (replace(small_rules(dice=3, faces=2), scoring_threshold=2),
                    Board("b", (2, 1, 3), ((0, 1), (1,)), ((2, 1, 6), (3, 1, 4)))),
    # 3 dice, 3 faces, no Joker, 3 x 2 board, threshold 2
    "3d-3f-nojoker": (replace(small_rules(dice=3, faces=3, joker=False, combos=2), scoring_threshold=2),
                      Board("c", (1, 2), ((0,), (1,), (2,)), ((1, 4), (2, 3), (1, 5)))),
    # 3 dice, 2 faces + Joker, two Jokers per group and Jokers alone, at most 2 items
    "3d-2f-jokers-alone": (replace(small_rules(dice=3, faces=2, per_group=2, alone=True, combos=2),
                                   scoring_threshold=2),
                           Board("d", (2, 1), ((0,), (1,), (0, 1)), ((3, 1), (2, 2), (1, 4)))),
}


@pytest.mark.parametrize("objective", ["points", "marks", "safe", "cell1", "strategic"])
@pytest.mark.parametrize("config", sorted(SMALL_CONFIGS))
def test_engine_equals_brute_force_empty_board(config, objective):
    """D6/D7: the engine == brute force over every roll sequence, with 2 re-rolls (levels 0, 1
    and 2 are all compared), on the empty board."""
    rules, board = SMALL_CONFIGS[config]
    compare_with_brute_force(board, Marks.empty(board), rules, objective, rerolls=2)


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["points", "marks", "safe", "cell0", "strategic"])
@pytest.mark.parametrize("config", sorted(SMALL_CONFIGS))
def test_engine_equals_brute_force_random_states(config, objective):
    """As above, in three random board states each (marked and eliminated items, D4, D13)."""
    rules, board = SMALL_CONFIGS[config]
    rng = random.Random(config + objective)
    for _ in range(3):
        marks = random_marks(rng, board)
        if objective == "cell0" and not marks.is_available(0):
            marks = Marks(marks.n_shelves, marks.n_columns, marks.marked & ~1, marks.eliminated & ~1)
        compare_with_brute_force(board, marks, rules, objective, rerolls=rng.choice([1, 2]))


@pytest.mark.slow
def test_engine_equals_brute_force_random_configurations():
    """150 random configurations: 1-4 dice, 1-3 faces, with or without Joker, per_group 0-2,
    Jokers alone or not, D12 on or off, threshold 1-3, random boards (several faces per shelf,
    column needs in any order) and states, every objective, 0-2 re-rolls."""
    from test_allocate import random_board

    rng = random.Random(5)
    for _ in range(150):
        rules = small_rules(dice=rng.randint(1, 4), faces=rng.randint(1, 3), joker=rng.random() < 0.8,
                            combos=rng.randint(1, 3), per_group=rng.choice([0, 1, 2]), alone=rng.random() < 0.3)
        rules = replace(rules, scoring_threshold=rng.randint(1, 3), all_jokers_mark_any=rng.random() < 0.8)
        board = random_board(rng, rules)
        marks = random_marks(rng, board)
        objective = rng.choice(["points", "marks", "safe", "strategic", "cell"])
        if objective == "cell":
            if not marks.available:
                continue
            objective = f"cell{rng.choice(marks.available)}"
        compare_with_brute_force(board, marks, rules, objective, rng.randint(0, 2))


def test_engine_zero_rerolls_is_the_final_roll():
    """D7 with no re-roll left: the value of a roll is its best marking's."""
    rules, board = SMALL_CONFIGS["3d-2f-joker"]
    compare_with_brute_force(board, Marks.empty(board), rules, "strategic", rerolls=0)


def test_engine_failed_result_strategic_brute_force():
    """D13 inside the engine: a state where most rolls fail; the strategic failed value (the
    least costly shelf to give up) enters the expectation exactly."""
    rules, board = SMALL_CONFIGS["3d-3f-nojoker"]
    marks = parse_marks("o./.x/x.", board)
    compare_with_brute_force(board, marks, rules, "strategic", rerolls=2)
    compare_with_brute_force(board, marks, rules, "safe", rerolls=1)


# --- closed forms and a published figure --------------------------------------------------------

def test_one_die_best_of_three_rolls():
    """A closed form: the best expected face of one d6 with two re-rolls is 14/3 (keep 4+ after
    the second roll, 5+ after the first: 3.5 -> 4.25 -> 14/3)."""
    space = DiceSpace(1, 6)
    final = np.array([r.index(1) + 1 for r in space.rolls], dtype=np.int64)  # side i shows i + 1 pips
    solution = solve(space, final, rerolls=2)
    assert solution.start_values()[0] == Fraction(14, 3)
    assert solve(space, final, rerolls=1).start_values()[0] == Fraction(17, 4)
    assert solve(space, final, rerolls=0).start_values()[0] == Fraction(7, 2)


def test_constant_values_survive_the_big_integer_path():
    """Values too large for int64 after scaling switch to exact Python ints: a constant final
    value stays exactly that constant."""
    space = space_for(DEFAULT_RULES)
    big = 2 ** 50 + 1
    solution = solve(space, np.full(len(space.rolls), big, dtype=np.int64), rerolls=2)
    assert solution.start_values()[0] == big
    assert solution.roll_value(space.rolls[17], 2) == big


def test_big_values_take_the_exact_python_int_path():
    """The best-of-three d6 with faces worth 2^60 x pips: far beyond int64 after scaling by 6^3,
    still exactly 2^60 x 14/3, with the same optimal holds as the small case."""
    space = DiceSpace(1, 6)
    pips = np.array([r.index(1) + 1 for r in space.rolls], dtype=object)
    solution = solve(space, pips * 2 ** 60, rerolls=2)
    assert solution.values[0].dtype == object
    assert solution.start_values()[0] == Fraction(14, 3) * 2 ** 60
    small = solve(space, pips.astype(np.int64), rerolls=2)
    assert all((a == b).all() for a, b in zip(solution.policy[1:], small.policy[1:]))


def test_classic_five_of_a_kind():
    """The published figure: 5 dice, 6 faces, no Joker, 2 re-rolls, optimal holds: five of a kind
    with probability 347897/7558272 (about 4.603%); a failed result is its complement."""
    rules = load_rules(EXAMPLES / "rules" / "classic-five-dice.toml")
    board = load_board(EXAMPLES / "boards" / "five-of-a-kind.toml", rules)
    solution = solve_turn(board, Marks.empty(board), rules, parse_objective("cell:r1c1", board))
    assert solution.rerolls == 2
    value, fail = solution.start_values()[:2]
    assert value == CLASSIC_FIVE_OF_A_KIND
    assert fail == 1 - CLASSIC_FIVE_OF_A_KIND
    assert abs(float(value) - 0.04603) < 1e-5


def test_classic_five_dice_small_cases_by_hand():
    """Hand checks in the same configuration: four of a kind with one re-roll left: 1/6;
    with two: 1 - (5/6)^2 = 11/36; a pair with one re-roll left: keep it, (1/6)^3 = 1/216."""
    rules = load_rules(EXAMPLES / "rules" / "classic-five-dice.toml")
    board = load_board(EXAMPLES / "boards" / "five-of-a-kind.toml", rules)
    solution = solve_turn(board, Marks.empty(board), rules, parse_objective("cell:r1c1", board))
    assert solution.roll_value(parse_dice("11112", rules), 1) == Fraction(1, 6)
    assert solution.roll_value(parse_dice("11112", rules), 2) == Fraction(11, 36)
    assert solution.roll_value(parse_dice("11234", rules), 1) == Fraction(1, 216)
    assert solution.roll_value(parse_dice("33333", rules), 0) == 1


# --- D12 in the engine ------------------------------------------------------------------------------

def test_all_jokers_roll_uses_D12(board, rules):
    """D12: at 0 re-rolls the six-Joker roll is worth the best single available item: on the
    mid-game sheet under points, the best of each item's score gain, computed with score()."""
    marks = parse_marks((EXAMPLES / "marks" / "mid-game.txt").read_text(), board)
    solution = solve_turn(board, marks, rules, Points(), rerolls=2)
    jokers = parse_dice("JJJJJJ", rules)
    before = score(board, marks, rules)
    best = max(score(board, marks.with_marked([c]), rules) - before for c in marks.available)
    assert solution.roll_value(jokers, 0) == best
    assert solution.roll_value(jokers, 0, column=1) == 0  # never a failed result
    # one item only: under `marks` six Jokers are worth exactly 1
    assert solve_turn(board, marks, rules, MarkCount(), rerolls=0).roll_value(jokers, 0) == 1


# --- more re-rolls never lower a value ------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), objective=st.sampled_from(["points", "marks", "safe", "strategic", "cell"]))
def test_more_rerolls_never_lower_a_value(board, rules, seed, objective):
    """D7: a re-roll may be declined (keep all dice), so V_{r+1}(roll) >= V_r(roll) for every roll
    and the start of the turn, in random states of the default board."""
    rng = random.Random(seed)
    marks = random_marks(rng, board)
    if objective == "cell":
        if not marks.available:
            return
        target = CellTarget(rng.choice(marks.available))
    else:
        target = make_objective(objective)
    solution = solve_turn(board, marks, rules, target, rerolls=2)
    d = solution.space.denominator
    for r in range(2):
        lower = solution.values[r][:, 0].astype(object) * d
        upper = solution.values[r + 1][:, 0].astype(object)
        assert (upper >= lower).all()
    starts = [solve_turn(board, marks, rules, target, rerolls=r).start_values()[0] for r in range(3)]
    assert starts[0] <= starts[1] <= starts[2]


# --- a seeded Monte Carlo of the optimal policy ----------------------------------------------------

def simulate(solution, final: np.ndarray, rules: Ruleset, n: int, seed: int) -> np.ndarray:
    """Play ``n`` turns with the engine's policy: roll all dice, at each level keep the policy's
    hold and re-roll the rest (numpy Generator from a seed), then read the final roll's worth."""
    rng = np.random.default_rng(seed)
    space = solution.space
    sides, dice = rules.n_sides, rules.dice
    weights = (dice + 1) ** np.arange(sides)
    keys = space.roll_counts @ weights
    order = np.argsort(keys)
    holds = np.array(space.holds, dtype=np.int64)

    def roll(kept: np.ndarray) -> np.ndarray:
        fresh = dice - kept.sum(axis=1)
        faces = rng.integers(0, sides, size=(n, dice))
        active = np.arange(dice)[None, :] < fresh[:, None]
        counts = kept + ((faces[:, :, None] == np.arange(sides)) & active[:, :, None]).sum(axis=1)
        return order[np.searchsorted(keys[order], counts @ weights)]

    index = roll(np.zeros((n, sides), dtype=np.int64))
    for r in range(solution.rerolls, 0, -1):
        index = roll(holds[solution.policy[r][index]])
    return final[index]


@pytest.mark.parametrize("objective", ["points", "cell25", "strategic"])
def test_monte_carlo_agrees_with_the_exact_value(board, rules, objective):
    """A seeded simulation of 40,000 turns under the optimal policy on the mid-game sheet lies
    within a 99.9% interval of the exact values: for the failed-result indicator and the
    cell objective (0/1 outcomes) the exact binomial interval of the exact probability, for the
    other objectives the normal interval (3.29 sample standard errors)."""
    from scipy.stats import binom

    marks = parse_marks((EXAMPLES / "marks" / "mid-game.txt").read_text(), board)
    target = CellTarget(24) if objective == "cell25" else make_objective(objective)
    solution = solve_turn(board, marks, rules, target, rerolls=2)
    table = final_table(board, marks, rules, target)
    exact = solution.start_values()
    n = 40_000
    for column in (0, 1):
        worth = table.columns[:, column] / (table.scale if column == 0 else 1)
        sample = simulate(solution, worth, rules, n, seed=2024 + column)
        if column == 1 or objective == "cell25":
            low, high = binom.interval(0.999, n, float(exact[column]))
            assert low <= sample.sum() <= high, (objective, column, sample.sum(), float(exact[column]) * n)
        else:
            error = 3.29 * sample.std(ddof=1) / np.sqrt(n)
            assert abs(sample.mean() - float(exact[column])) <= error, (objective, sample.mean(), float(exact[column]))
