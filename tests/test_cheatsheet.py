"""Tests of the cheat sheet core (docs/cheatsheet.md): every section's numbers against an
independent computation (closed forms, or brute force over every ordered roll sequence on a small
board and ruleset), the rendering, the committed sheets in docs/cheatsheets/, and whole-or-nothing writes."""

from __future__ import annotations

import csv
import dataclasses
import io
from fractions import Fraction
from functools import cache
from itertools import combinations, product
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shelfie_solver.dice import cheatsheet as cs
from shelfie_solver.dice.cheatsheet import output as sheet_output
from shelfie_solver.dice.board import Board, CellState, Marks, board_from_dict, load_board, parse_marks
from shelfie_solver.dice.rolls import multinomial, space_for
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.objectives import Strategic
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset

from conftest import EXAMPLES, ROOT, small_rules

DOCS_SHEETS = ROOT / "docs" / "cheatsheets"
MID_GAME = "oo.o./o.o../xoxxx/.oo../o...."
# P(a roll of the 6 default dice is neither cat-free-and-not-all-Jokers): per roll, the dice show
# no cat with (5/6)^6, and six Jokers (which mark any item, D12) with (1/6)^6.
NO_CAT_NOT_ALL_JOKERS = Fraction(5**6 - 1, 6**6)


# --- brute force over ordered dice (independent of DiceSpace, allocate and engine) ----------


def small_setup() -> tuple[Ruleset, Board]:
    """3 dice, faces f0 (a) and f1 (b) and a Joker, 2 re-rolls, threshold 2; a 2 x 3 board whose
    second shelf accepts both faces."""
    rules = dataclasses.replace(small_rules(dice=3, faces=2), scoring_threshold=2)
    board = board_from_dict({"name": "small", "columns": [1, 2, 3],
                             "shelves": [{"faces": ["f0"], "values": [1, 2, 4]},
                                         {"faces": ["f0", "f1"], "values": [2, 3, 5]}]}, rules)
    return rules, board


def is_group(dice: list[int], faces: tuple[int, ...], need: int, rules: Ruleset) -> bool:
    """D8 + D11 by definition: exactly ``need`` dice, the non-Jokers all one face of ``faces``,
    at most ``jokers_per_group`` Jokers, not Jokers alone unless allowed."""
    joker = rules.joker_index
    jokers = sum(d == joker for d in dice)
    plain = {d for d in dice if d != joker}
    if len(dice) != need or jokers > rules.jokers_per_group or len(plain) > 1:
        return False
    if not plain:
        return rules.joker_alone
    return plain.pop() in faces


def markable_sets(roll: tuple[int, ...], board: Board, available: frozenset[int],
                  rules: Ruleset) -> list[frozenset[int]]:
    """Every legal marking (D8-D12) of ordered dice, by trying every die-to-group assignment."""
    if rules.joker is not None and rules.all_jokers_mark_any and all(d == rules.joker_index for d in roll):
        return [frozenset([c]) for c in available]  # D12
    found = []
    cells = sorted(available)
    for size in range(1, rules.combinations_per_turn + 1):
        for chosen in combinations(cells, size):
            for assignment in product(range(size + 1), repeat=len(roll)):  # 0 = unused
                groups = [[roll[i] for i, a in enumerate(assignment) if a == k + 1] for k in range(size)]
                if all(is_group(g, board.faces_of(c), board.need(c), rules) for g, c in zip(groups, chosen)):
                    found.append(frozenset(chosen))
                    break
    return found


def phi(board: Board, marked: frozenset[int], available: frozenset[int], threshold: int) -> Fraction:
    """The strategic line potential, straight from docs/objectives.md (points)."""
    total = Fraction(0)
    for line in board.lines:
        m = [c for c in line if c in marked]
        a = [c for c in line if c in available]
        big_m, big_a = sum(board.value(c) for c in m), sum(board.value(c) for c in a)
        if len(m) >= threshold:
            total += big_m + Fraction(big_a, 2)
        elif len(m) + len(a) >= threshold:
            total += Fraction(len(m), threshold) * (big_m + Fraction(big_a, 2))
    return total


def expectimax(final, rules: Ruleset):  # type: ignore[no-untyped-def]
    """``value(roll, r)`` over ordered dice: with ``r`` re-rolls left, the best over every subset of
    dice positions kept of the mean over every outcome of the others (D7)."""
    sides = range(rules.n_sides)

    @cache
    def value(roll: tuple[int, ...], r: int) -> Fraction:
        if r == 0:
            return final(roll)
        return max(kept_value(roll, keep, r) for keep in product((False, True), repeat=len(roll)))

    @cache
    def kept_value(roll: tuple[int, ...], keep: tuple[bool, ...], r: int) -> Fraction:
        free = [i for i, k in enumerate(keep) if not k]
        total = Fraction(0)
        for outcome in product(sides, repeat=len(free)):
            new = list(roll)
            for i, face in zip(free, outcome):
                new[i] = face
            total += value(tuple(new), r - 1)
        return total / rules.n_sides ** len(free)

    return value, kept_value


def fresh(value, rules: Ruleset, r: int) -> Fraction:  # type: ignore[no-untyped-def]
    """Mean over every ordered first roll of ``value(roll, r)``."""
    rolls = list(product(range(rules.n_sides), repeat=rules.dice))
    return sum((value(roll, r) for roll in rolls), Fraction(0)) / len(rolls)


def counts_of(roll: tuple[int, ...], rules: Ruleset) -> tuple[int, ...]:
    return tuple(roll.count(s) for s in range(rules.n_sides))


def ordered(counts: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for s, n in enumerate(counts) for _ in range(n))


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def default_sheet() -> cs.CheatSheet:
    board = load_board(None, DEFAULT_RULES)
    return cs.build_sheet(board, Marks.empty(board), DEFAULT_RULES)


@pytest.fixture(scope="module")
def mid_sheet() -> cs.CheatSheet:
    board = load_board(None, DEFAULT_RULES)
    return cs.build_sheet(board, parse_marks(MID_GAME, board), DEFAULT_RULES)


# --- section 2: set odds -------------------------------------------------------------------


def test_set_of_one_closed_forms(default_sheet: cs.CheatSheet) -> None:
    # D11(b): a Joker never forms a set alone, so "1 cat" needs a cat; holding a cat is final, so
    # each die has 1 + r chances: P = 1 - (5/6)^(6(1 + r)).
    fresh_rows = default_sheet.sets[0].fresh
    for r in range(3):
        assert fresh_rows[0][r] == 1 - Fraction(5, 6) ** (6 * (1 + r))


def test_set_closed_forms_no_reroll(default_sheet: cs.CheatSheet) -> None:
    rows = default_sheet.sets[0].fresh
    # Six of a kind on one roll: six of the face, or five and a Joker (D11a: one Joker per set).
    assert rows[5][0] == Fraction(1 + 6, 6**6)
    # A pair on one roll: two or more of the face, or exactly one and at least one Joker.
    two_or_more = sum(comb(6, k) * 5 ** (6 - k) for k in range(2, 7))
    one_and_joker = 6 * (5**5 - 4**5)
    assert rows[1][0] == Fraction(two_or_more + one_and_joker, 6**6)


def test_mid_turn_closed_forms(default_sheet: cs.CheatSheet) -> None:
    held = {(h.target, h.matching, h.joker, h.rerolls): h for h in default_sheet.sets[0].held}
    # Five held, one die left: it must show the face or a Joker (D11): 2/6 per re-roll.
    assert held[(6, 5, False, 1)].chance == Fraction(1, 3)
    assert held[(6, 5, False, 2)].chance == 1 - Fraction(2, 3) ** 2
    # Four and a Joker held: the last die must show the face (one Joker per set, D11a).
    assert held[(6, 4, True, 1)].chance == Fraction(1, 6)
    assert held[(6, 4, True, 2)].chance == 1 - Fraction(5, 6) ** 2
    # Already made: the chance is 1 and the table says so.
    assert held[(3, 2, True, 1)].made and held[(3, 2, True, 1)].chance == 1
    assert not held[(3, 2, False, 1)].made


def test_all_faces_symmetric_on_a_fair_die(default_sheet: cs.CheatSheet) -> None:
    # D2: every side equally likely, so every item face gets the same figures (checked exactly).
    assert len(default_sheet.sets) == 1
    assert default_sheet.sets[0].faces == tuple(range(DEFAULT_RULES.n_faces))
    assert cs.face_set_odds(DEFAULT_RULES, 4) == cs.face_set_odds(DEFAULT_RULES, 0)


@pytest.mark.parametrize("per_group, alone", [(1, False), (2, True)])
def test_set_odds_brute_force(per_group: int, alone: bool) -> None:
    rules = small_rules(dice=3, faces=2, per_group=per_group, alone=alone)
    entries = cs.set_odds(rules)
    assert sorted(f for e in entries for f in e.faces) == [0, 1]
    for entry in entries:
        face = entry.faces[0]
        held = {(h.target, h.matching, h.joker, h.rerolls): h.chance for h in entry.held}
        for n in range(1, rules.dice + 1):
            def final(roll: tuple[int, ...], n: int = n, face: int = face) -> Fraction:
                return Fraction(any(is_group([roll[i] for i in pick], (face,), n, rules)
                                    for pick in combinations(range(len(roll)), n)))
            value, kept_value = expectimax(final, rules)
            for r in range(rules.rerolls + 1):
                assert entry.fresh[n - 1][r] == fresh(value, rules, r), (face, n, r)
            if n < 2:
                continue
            for matching, joker in cs.held_rows(rules):
                kept = [face] * matching + ([rules.joker_index] if joker else [])
                roll = tuple(kept + [0] * (rules.dice - len(kept)))  # the rest is re-rolled anyway
                keep = tuple(i < len(kept) for i in range(rules.dice))
                for r in range(1, rules.rerolls + 1):
                    assert held[(n, matching, joker, r)] == kept_value(roll, keep, r), (n, matching, joker, r)


# --- section 1: item odds ------------------------------------------------------------------


def test_item_odds_closed_form_default(default_sheet: cs.CheatSheet) -> None:
    # r1c1 (cat, 1 die): marked unless all three rolls show no cat and are not six Jokers (D12);
    # re-rolling every die is the best reply to such a roll.
    assert default_sheet.items[0].chance == 1 - NO_CAT_NOT_ALL_JOKERS**3


def test_item_odds_published_yahtzee_figure() -> None:
    # Five dice, six faces, no Joker, two re-rolls, one item needing five of any face: the
    # chance of five of a kind in a turn, the published 347897/7558272 (about 4.6%).
    from shelfie_solver.dice.rules import load_rules
    rules = load_rules(EXAMPLES / "rules" / "classic-five-dice.toml")
    board = load_board(EXAMPLES / "boards" / "five-of-a-kind.toml", rules)
    (item,) = cs.item_odds(board, Marks.empty(board), rules)
    assert item.chance == Fraction(347897, 7558272)


def test_item_odds_unavailable_not_computed(mid_sheet: cs.CheatSheet) -> None:
    board, marks = mid_sheet.board, mid_sheet.marks
    for item in mid_sheet.items:
        assert item.state == marks.state(item.cell)
        assert (item.chance is None) == (not marks.is_available(item.cell))
    assert mid_sheet.items[board.cell(2, 0)].state is CellState.ELIMINATED
    assert cs.item_cell_text(mid_sheet.items[board.cell(0, 0)]) == "marked"


def test_item_odds_brute_force() -> None:
    rules, board = small_setup()
    marks = Marks(board.n_shelves, board.n_columns, marked=1 << board.cell(0, 0), eliminated=1 << board.cell(1, 1))
    items = cs.item_odds(board, marks, rules)
    available = frozenset(marks.available)
    for item in items:
        if item.cell not in available:
            assert item.chance is None
            continue

        def final(roll: tuple[int, ...], cell: int = item.cell) -> Fraction:
            return Fraction(any(cell in s for s in markable_sets(roll, board, available, rules)))
        value, _ = expectimax(final, rules)
        assert item.chance == fresh(value, rules, rules.rerolls), board.cell_name(item.cell)


# --- section 3: hold rules -----------------------------------------------------------------


def test_pattern_shares_closed_forms(default_sheet: cs.CheatSheet) -> None:
    shares = {r.pattern: r.share for r in default_sheet.all_rules}
    assert sum(shares.values()) == 1
    assert shares[((6,), 0)] == Fraction(5, 6**6)                     # six of one item face
    assert shares[((1, 1, 1, 1, 1), 1)] == Fraction(720, 6**6)        # every side once
    # a pair, three singles and a Joker: pair face 5 ways, singles C(4,3), 6!/2! orders
    assert shares[((2, 1, 1, 1), 1)] == Fraction(5 * 4 * 360, 6**6) == Fraction(25, 162)
    assert len(shares) == 29


def test_rules_shown_cover_ninety_percent_ties_included(default_sheet: cs.CheatSheet) -> None:
    shown, every = default_sheet.rules_of_thumb, default_sheet.all_rules
    assert every[: len(shown)] == shown
    assert default_sheet.coverage >= cs.RULES_COVERAGE
    last = shown[-1].share
    before_last_tier = sum((r.share for r in shown if r.share > last), Fraction(0))
    assert before_last_tier < cs.RULES_COVERAGE
    assert every[len(shown)].share < last
    assert [r.share for r in every] == sorted((r.share for r in every), reverse=True)


def test_roll_choices_brute_force() -> None:
    """Best hold value and margin of every first roll under the strategic objective, against an
    expectimax over ordered dice with markings found by trying every die-to-group assignment and
    the potential computed from its definition (docs/objectives.md, D8-D14, D19)."""
    rules, board = small_setup()
    marks = Marks(board.n_shelves, board.n_columns, marked=1 << board.cell(1, 0))
    marked, available = frozenset([board.cell(1, 0)]), frozenset(marks.available)
    t = rules.scoring_threshold
    before = phi(board, marked, available, t)

    def final(roll: tuple[int, ...]) -> Fraction:
        sets = markable_sets(roll, board, available, rules)
        if sets:
            return max(phi(board, marked | s, available - s, t) for s in sets) - before
        shelves = [s for s in range(board.n_shelves) if available & set(board.lines[s])]
        return max((phi(board, marked, available - set(board.lines[s]), t) for s in shelves), default=before) - before

    _, kept_value = expectimax(final, rules)
    solution = solve_turn(board, marks, rules, Strategic())
    choices = cs.roll_choices(solution, rules)
    assert sum(c.weight for c in choices) == 1
    for choice in choices:
        roll = ordered(choice.roll)
        by_hold: dict[tuple[int, ...], Fraction] = {}
        for keep in product((False, True), repeat=len(roll)):
            hold = counts_of(tuple(d for d, k in zip(roll, keep) if k), rules)
            by_hold[hold] = kept_value(roll, keep, rules.rerolls)
        values = sorted(by_hold.values(), reverse=True)
        assert choice.weight == Fraction(multinomial(choice.roll), rules.n_sides**rules.dice)
        assert choice.value == values[0] == by_hold[choice.hold]
        assert choice.margin == values[0] - values[1]
        assert set(choice.best_holds) == {h for h, v in by_hold.items() if v == values[0]}
        assert choice.all_tied == (values[0] == values[-1])


def test_hold_rules_aggregate_their_rolls() -> None:
    rules, board = small_setup()
    marks = Marks.empty(board)
    shown, every = cs.hold_rules(board, marks, rules)
    choices = cs.roll_choices(solve_turn(board, marks, rules, Strategic()), rules)
    for rule in every:
        mine = [c for c in choices if cs.pattern_of(c.roll, rules) == rule.pattern]
        share = sum((c.weight for c in mine), Fraction(0))
        assert rule.share == share
        assert rule.margin == sum((c.weight * c.margin for c in mine), Fraction(0)) / share
        assert rule.holds == (rule.agree >= cs.RULE_AGREEMENT)  # docs/cheatsheet.md: 80% or no rule
        assert rule.advice == (rule.closest if rule.holds else cs.NO_RULE)
        order = rule.order if cs.ORDER_MARK in rule.closest else None
        if order is not None or rule.order is None:  # words in pattern terms (face rules: below)
            agreeing = [c for c in mine if (cs.ANY_HOLD if c.all_tied else None) == rule.closest
                        or any(cs.describe_hold(c.roll, h, rules, order) == rule.closest for h in c.best_holds)]
            assert rule.agree == sum((c.weight for c in agreeing), Fraction(0)) / share
            assert rule.closest == cs.ANY_HOLD or cs.describe_hold(*rule.example, rules, order) == rule.closest
        example_roll, example_hold = rule.example
        assert example_hold in next(c.best_holds for c in mine if c.roll == example_roll)
    assert sum(r.share for r in every) == 1


def test_describe_hold_names_groups_by_face_order() -> None:
    """docs/cheatsheet.md, "Which dice", hand-worked: of two pairs PP and GG, keeping PP is "one
    pair" and, with a face order, says which; an order preferring game has no words for it."""
    rules = Ruleset()
    p, g, b, a = (rules.face_index(x) for x in ("plant", "game", "book", "award"))
    roll = tuple(2 if f in (p, g) else 1 if f in (b, a) else 0 for f in range(rules.n_sides))
    hold = tuple(2 if f == p else 0 for f in range(rules.n_sides))
    assert cs.describe_hold(roll, hold, rules) == "keep one pair"
    plant_first = (p, g, b, a, rules.face_index("cat"))
    assert cs.describe_hold(roll, hold, rules, plant_first) == \
        "keep one pair (which: faces in order plant, game, book, award, cat)"
    assert cs.describe_hold(roll, hold, rules, (g, p, b, a, rules.face_index("cat"))) is None
    both = tuple(2 if f in (p, g) else 0 for f in range(rules.n_sides))
    assert cs.describe_hold(roll, both, rules, plant_first) == "keep both pairs"  # nothing to choose


def test_shown_rules_hold_or_say_so(default_sheet: cs.CheatSheet) -> None:
    """docs/cheatsheet.md, "Which dice": every rule agrees with the solver on at least 80% of its
    rolls, or says there is no such rule; the rendered row shows the closest words and their
    agreement."""
    markdown = cs.render_markdown(default_sheet)
    for rule in default_sheet.all_rules:
        assert rule.holds == (rule.agree >= Fraction(4, 5))
        if not rule.holds:
            assert rule.advice == cs.NO_RULE
    for rule in default_sheet.rules_of_thumb:
        assert " ".join((rule.advice if rule.holds else f"(closest: {rule.closest})").split()) in " ".join(markdown.split())


def test_face_rule_agreement_by_hand(default_sheet: cs.CheatSheet) -> None:
    """docs/cheatsheet.md, "Which dice": the most common first roll on the empty default board (a
    pair, three singles and a Joker) gets "keep the pair, one single of award and the Joker"; applying that rule by
    hand to each roll of the pattern and checking it against the solver's best holds gives the
    stated agreement (at least 80%)."""
    rules = default_sheet.rules
    rule = next(r for r in default_sheet.all_rules if r.pattern == ((2, 1, 1, 1), 1))
    assert rule.advice == "keep the pair, one single of award and the Joker"
    board = load_board()
    solution = solve_turn(board, Marks.empty(board), rules, Strategic())
    award, joker = rules.face_index("award"), rules.joker_index
    agree = total = Fraction(0)
    for c in cs.roll_choices(solution, rules):
        if cs.pattern_of(c.roll, rules) != rule.pattern:
            continue
        hold = tuple(n if n == 2 or f == joker or (f == award and n == 1) else 0 for f, n in enumerate(c.roll))
        total += c.weight
        agree += c.weight if hold in c.best_holds else 0
    assert agree / total == rule.agree >= Fraction(4, 5)


def test_indifferent_objective_says_any_hold() -> None:
    # One item worth points only on a line of 3 marks (D19): a dead line, so the strategic
    # objective values every roll at 0 and every hold ties.
    rules = small_rules(dice=3, faces=2, rerolls=1)
    board = board_from_dict({"columns": [2], "shelves": [{"faces": ["f0"], "values": [5]}]}, rules)
    _, every = cs.hold_rules(board, Marks.empty(board), rules)
    assert {r.advice for r in every} == {cs.ANY_HOLD}
    assert all(r.margin == 0 and r.agree == 1 for r in every)


def test_no_rerolls_no_hold_rules() -> None:
    rules = small_rules(rerolls=0)
    _, board = small_setup()
    board = board_from_dict({"columns": [1], "shelves": [{"faces": ["f0"], "values": [1]}]}, rules)
    assert cs.hold_rules(board, Marks.empty(board), rules) == ((), ())


@pytest.mark.parametrize("counts, name", [
    ((3, 1, 0, 1, 0, 1), "three of a kind, two singles and a Joker"),
    ((2, 2, 2, 0, 0, 0), "three pairs"),
    ((0, 0, 0, 0, 0, 6), "six Jokers"),
    ((1, 1, 1, 1, 1, 1), "five singles and a Joker"),
    ((4, 2, 0, 0, 0, 0), "four of a kind and a pair"),
])
def test_pattern_names(counts: tuple[int, ...], name: str) -> None:
    assert cs.pattern_name(cs.pattern_of(counts, DEFAULT_RULES)) == name


@pytest.mark.parametrize("roll, hold, words", [
    ("CCCBJP", "CCCJ", "keep the three of a kind and the Joker"),
    ("CCCBJP", "CCJ", "keep two dice of the three of a kind and the Joker"),
    ("CCBBPJ", "CCBJ", "keep one pair, one die of another pair and the Joker"),
    ("CCBBPP", "CCBB", "keep two pairs"),
    ("CCBBPP", "CBP", "keep one die of each pair"),
    ("CBPAGJ", "CB", "keep two singles"),
    ("CBPAJJ", "CBPAJ", "keep all four singles and one Joker"),
    ("CCBPJJ", "CCBPJJ", "stop (keep all dice)"),
    ("CCBPJJ", "", "re-roll all dice"),
])
def test_describe_hold(roll: str, hold: str, words: str) -> None:
    from shelfie_solver.dice.rolls import parse_dice
    assert cs.describe_hold(parse_dice(roll, DEFAULT_RULES), parse_dice(hold, DEFAULT_RULES, count=-1),
                            DEFAULT_RULES) == words


@given(st.permutations(range(5)), st.data())
def test_pattern_terms_ignore_which_face_is_which(perm: list[int], data: st.DataObject) -> None:
    """Invariant: relabelling the item faces keeps a roll's pattern and a hold's words."""
    space = space_for(DEFAULT_RULES)
    roll = data.draw(st.sampled_from(space.rolls))
    hold = data.draw(st.sampled_from(space.holds_of(roll)))

    def relabel(counts: tuple[int, ...]) -> tuple[int, ...]:
        out = [0] * 5 + [counts[5]]
        for face in range(5):
            out[perm[face]] = counts[face]
        return tuple(out)

    assert cs.pattern_of(relabel(roll), DEFAULT_RULES) == cs.pattern_of(roll, DEFAULT_RULES)
    assert cs.describe_hold(relabel(roll), relabel(hold), DEFAULT_RULES) == cs.describe_hold(roll, hold, DEFAULT_RULES)


# --- section 4: failed-result risk ---------------------------------------------------------


def test_sample_states_default_board() -> None:
    board = load_board(None, DEFAULT_RULES)
    states = cs.sample_states(board)
    assert [s.cells for s in states] == [
        tuple(range(5)),                                   # shelf 1
        tuple(board.cell(s, 4) for s in range(5)),         # column 5 needs 5 dice
        tuple(board.cell(s, 0) for s in range(5)),         # column 1 needs 1 die
        tuple(board.cell(s, s) for s in range(5)),         # diagonal
    ]
    for state in states:
        assert state.marks.available == state.cells
        assert state.marks.eliminated == 0


def test_sample_states_deduplicated() -> None:
    board = board_from_dict({"columns": [2], "shelves": [{"faces": ["cat"], "values": [1]}]}, DEFAULT_RULES)
    assert [s.cells for s in cs.sample_states(board)] == [(0,)]


def test_risk_closed_forms(default_sheet: cs.CheatSheet) -> None:
    one_shelf, _, easiest, _ = default_sheet.risks
    # Only the cat shelf: a failed result needs three rolls without a cat that are not six Jokers
    # (D12, D13); with such a first roll, re-rolling everything is best.
    assert one_shelf.risk == NO_CAT_NOT_ALL_JOKERS**3
    assert one_shelf.hold == (0,) * DEFAULT_RULES.n_sides
    assert one_shelf.hold_risk == one_shelf.reroll_risk == NO_CAT_NOT_ALL_JOKERS**2
    assert one_shelf.roll is not None and one_shelf.roll[4] == 0  # the typical failing roll has no cat
    # Every 1-die item open, one per face: any item die marks; six Jokers mark any item (D12).
    assert easiest.risk == 0 and easiest.roll is None


def test_risk_brute_force() -> None:
    rules, board = small_setup()
    for state in cs.sample_states(board):
        sample = cs.risk_sample(board, rules, state)
        available = frozenset(state.cells)

        def final(roll: tuple[int, ...], available: frozenset[int] = available) -> Fraction:
            return Fraction(bool(markable_sets(roll, board, available, rules)))
        value, kept_value = expectimax(final, rules)
        assert sample.risk == 1 - fresh(value, rules, rules.rerolls), state.name
        if sample.roll is None:
            assert all(final(r) == 1 for r in product(range(rules.n_sides), repeat=rules.dice))
            continue
        roll = ordered(sample.roll)
        assert final(roll) == 0
        outcomes = {counts_of(tuple(d for d, k in zip(roll, keep) if k), rules): kept_value(roll, keep, rules.rerolls)
                    for keep in product((False, True), repeat=len(roll))}
        assert 1 - sample.hold_risk == max(outcomes.values()) == outcomes[sample.hold]
        assert 1 - sample.reroll_risk == outcomes[(0,) * rules.n_sides]
        assert sample.ties == sum(v == outcomes[sample.hold] for v in outcomes.values()) - 1


# --- the whole sheet: progress, rendering, committed sheets --------------------------------


def test_progress_counts_every_step() -> None:
    board = load_board(None, DEFAULT_RULES)
    marks = parse_marks(MID_GAME, board)
    calls: list[tuple[int, int]] = []
    cs.generate(board, marks, DEFAULT_RULES, ("csv",), progress=lambda d, t: calls.append((d, t)))
    total = cs.sheet_steps(board, marks, DEFAULT_RULES) + 1
    assert [d for d, _ in calls] == list(range(1, total + 1))
    assert {t for _, t in calls} == {total}


def test_chance_text_never_rounds_to_certainty() -> None:
    assert cs.chance_text(Fraction(0)) == "0%"
    assert cs.chance_text(Fraction(1)) == "100%"
    assert cs.chance_text(Fraction(1, 10**6)) == "<0.01%"
    assert cs.chance_text(1 - Fraction(1, 10**6)) == ">99.99%"
    assert cs.chance_text(Fraction(1, 3)) == "33.33%"


def test_csv_holds_every_number_exactly(default_sheet: cs.CheatSheet) -> None:
    rows = list(csv.DictReader(io.StringIO(cs.render_csv(default_sheet))))
    assert list(rows[0]) == cs.CSV_HEADERS
    items = [r for r in rows if r["section"] == "item_odds"]
    assert [Fraction(r["exact"]) for r in items] == [i.chance for i in default_sheet.items]
    fresh_rows = [Fraction(r["exact"]) for r in rows if r["section"] == "set_odds"]
    assert fresh_rows == [p for chances in default_sheet.sets[0].fresh for p in chances]
    held = [Fraction(r["exact"]) for r in rows if r["section"] == "held_odds"]
    assert held == [h.chance for h in default_sheet.sets[0].held]
    shares = [Fraction(r["exact"]) for r in rows if r["quantity"] == "share of first rolls"]
    assert shares == [r.share for r in default_sheet.all_rules]
    risks = [Fraction(r["exact"]) for r in rows
             if r["section"] == "failed_risk" and r["condition"].endswith("start of turn")]
    assert risks == [s.risk for s in default_sheet.risks]
    for row in rows:
        if row["exact"]:
            assert abs(float(Fraction(row["exact"])) - float(row["decimal"])) < 1e-6


def test_markdown_and_html_show_the_numbers(mid_sheet: cs.CheatSheet) -> None:
    markdown, page = cs.render_markdown(mid_sheet), cs.render_html(mid_sheet)
    for text in (markdown, page):
        for item in mid_sheet.items:
            assert cs.item_cell_text(item) in text
        for rule in mid_sheet.rules_of_thumb:
            assert rule.advice in text
        assert "item-odds.png" in text
    assert "@page { size: A4" in page and "@media print" in page
    assert markdown.startswith("# Cheat sheet: shelfie-solve default\n")


def test_heatmap_png_is_deterministic(mid_sheet: cs.CheatSheet) -> None:
    first, second = cs.render_heatmap(mid_sheet), cs.render_heatmap(mid_sheet)
    assert first.startswith(b"\x89PNG\r\n\x1a\n")
    assert first == second
    assert b"Software" not in first and b"atplotlib" not in first


def _png_pixels(data: bytes) -> np.ndarray:
    import matplotlib.image
    return matplotlib.image.imread(io.BytesIO(data), format="png")


def test_committed_sheets_match_regenerated(tmp_path: Path) -> None:
    """docs/cheatsheets/ holds the default board's sheets: regenerate them and compare; the text
    files byte for byte, the PNG by its pixels (same size, mean difference under 1%) since font
    rendering may differ slightly between matplotlib / FreeType builds."""
    board = load_board(None, DEFAULT_RULES)
    files = cs.generate(board, Marks.empty(board), DEFAULT_RULES, cs.SHEET_FORMATS)
    cs.write_files(files, tmp_path)
    for name in cs.SHEET_NAMES.values():
        assert (tmp_path / name).read_bytes() == (DOCS_SHEETS / name).read_bytes(), (
            f"docs/cheatsheets/{name} is stale; regenerate it (docs/cheatsheet.md)")
    new = _png_pixels((tmp_path / cs.HEATMAP_NAME).read_bytes())
    old = _png_pixels((DOCS_SHEETS / cs.HEATMAP_NAME).read_bytes())
    assert new.shape == old.shape
    assert float(np.abs(new - old).mean()) < 0.01


# --- whole-or-nothing writes ---------------------------------------------------------------


def test_write_files_creates_directories(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    md, png = "cheatsheet.md", "item-odds.png"
    written = cs.write_files({md: b"# Cheat sheet: one", png: b"\x89PNG\r\n\x1a\ntwo"}, target)
    assert written == [target / md, target / png]
    assert (target / md).read_bytes() == b"# Cheat sheet: one"
    assert sorted(p.name for p in target.iterdir()) == [md, png]
    cs.write_files({md: b"# Cheat sheet: three"}, target)  # a sheet written before: replaced whole
    assert (target / md).read_bytes() == b"# Cheat sheet: three"


def test_write_files_rejects_a_file(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("keep")
    with pytest.raises(cs.OutputError, match="is a file"):
        cs.write_files({"x.md": b"1"}, file)
    with pytest.raises(cs.OutputError, match="not a directory"):
        cs.write_files({"x.md": b"1"}, file / "sub")
    assert file.read_text() == "keep"


def test_write_files_rejects_a_directory_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "y.png").mkdir()
    with pytest.raises(cs.OutputError, match="is a directory"):
        cs.write_files({"x.md": b"1", "y.png": b"2"}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["y.png"]


def test_failed_replace_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "new" / "out"

    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sheet_output.os, "replace", failing_replace)
    with pytest.raises(cs.OutputError, match="No space left on device"):
        cs.write_files({"x.md": b"1", "y.png": b"2"}, target)
    assert not (tmp_path / "new").exists()  # temp files and the directories created removed


def test_failed_second_file_leaves_old_files_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "x.md").write_bytes(b"old")
    real_open = open
    opened: list[str] = []

    def open_once(path: str, mode: str = "r") -> object:
        opened.append(str(path))
        if len(opened) > 1:
            raise PermissionError(13, "Permission denied")
        return real_open(path, mode)

    monkeypatch.setattr("shelfie_solver.core.files.open", open_once, raising=False)  # the shared writer
    with pytest.raises(cs.OutputError, match="Permission denied"):
        cs.write_files({"x.md": b"new", "y.png": b"2"}, tmp_path, force=True)  # x.md is no sheet of ours: --force
    assert len(opened) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.md"]  # the first temp file removed too
    assert (tmp_path / "x.md").read_bytes() == b"old"


def test_unwritable_directory_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheet_output.os, "access", lambda path, mode: False)
    with pytest.raises(cs.OutputError, match="not writable"):
        cs.check_output_dir(tmp_path / "sub")


# --- the D12 footnote ----------------------------------------------------------------------


def test_all_jokers_note_where_item_odds_exceed_set_odds(default_sheet: cs.CheatSheet) -> None:
    """Item odds count the all-Jokers roll, which marks any item (D12) but is no set (D11): r1c1
    (one cat) is 1 - ((5^6 - 1)/6^6)^3 against the set's 1 - (5/6)^18, so the sheet says why,
    once, under the fresh-roll set odds, naming the item with the largest gap."""
    set_of_one = default_sheet.sets[0].fresh[0][DEFAULT_RULES.rerolls]
    assert set_of_one == 1 - Fraction(5, 6) ** 18
    r1c1 = default_sheet.items[0].chance
    assert r1c1 is not None and r1c1 - set_of_one == Fraction(5, 6) ** 18 - NO_CAT_NOT_ALL_JOKERS**3 > 0
    gap = cs.all_jokers_gap(default_sheet)
    assert gap is not None and gap[0].chance is not None and gap[0].chance - gap[1] >= r1c1 - set_of_one
    text = cs.render_markdown(default_sheet)
    note = next(line for line in text.splitlines() if line.startswith("Note: item odds"))
    assert text.count("Note: item odds") == 1 and "six Jokers mark any one item (D12)" in note
    assert f"{default_sheet.board.cell_name(gap[0].cell)}, {cs.chance_text(gap[0].chance)} against" in note
    assert text.index("**From a fresh roll") < text.index(note) < text.index("**Holding some")
    assert cs.render_html(default_sheet).count("six Jokers mark any one item (D12)") == 1


@pytest.mark.parametrize("d12", [True, False])
def test_all_jokers_note_only_under_d12(d12: bool) -> None:
    """Without D12 every one-face item's odds equal its set odds (brute-force-checked above), so
    no footnote; with it, the three-Jokers roll of the small ruleset makes the gap."""
    rules, board = small_setup()
    rules = dataclasses.replace(rules, all_jokers_mark_any=d12)
    sheet = cs.build_sheet(board, Marks.empty(board), rules)
    assert (cs.all_jokers_gap(sheet) is not None) == d12
    assert ("three Jokers mark any one item (D12)" in cs.render_markdown(sheet)) == d12


def test_the_markdown_rules_of_thumb_fit_a_printed_page():
    """The hold rules of thumb were one table over 200 characters wide: now a table of the short
    columns and a numbered list of the holds, every line within 100 characters; every row's best
    hold and example still appears (in the list), and the footer names the shipped rules file."""
    text = (DOCS_SHEETS / "cheatsheet.md").read_text()
    section = text.split("## 3. Hold rules of thumb", 1)[1].split("## 4.", 1)[0]
    lines = section.strip().splitlines()[1:]  # after the section note (a paragraph)
    assert lines and max(len(line) for line in lines) <= 100
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| #")]
    holds = [line for line in lines if line[:1].isdigit()]
    assert len(rows) == len(holds) > 0
    assert "example: PPGBAJ: keep PPAJ" in section.replace("\n   ", " ")  # row 1 (a pair, three singles, Joker)
    assert text.rstrip().endswith("rule ids refer to docs/rules.md.") and "RULES.md" not in text
