"""The target grammar and the target indicator (D8-D12), against brute force over every
assignment of each die to a group."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations, product

import numpy as np
import pytest
from conftest import EXAMPLES, small_rules
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.allocate import find_groups_flow, legal_markings, set_indicator
from shelfie_solver.dice.board import Board, Marks, parse_marks
from shelfie_solver.dice.rolls import dice_space, space_for
from shelfie_solver.dice.errors import TargetError
from shelfie_solver.dice.rules import load_rules
from shelfie_solver.dice.targets import (
    GRAMMAR,
    Alternative,
    DiceTerm,
    ItemTerm,
    Target,
    compile_target,
    describe,
    parse_target,
)

CLASSIC = load_rules(EXAMPLES / "rules" / "classic-five-dice.toml")


# --- an independent brute force: every assignment of each die to a group -------------------------


def groups_of(alternative: Alternative, rules, board: Board | None) -> list[tuple[frozenset[int], int]]:
    """(allowed side numbers, size) of each term, read straight from the target objects."""
    out = []
    for term in alternative.terms:
        if isinstance(term, ItemTerm):
            out.append((frozenset(board.shelf_faces[term.shelf - 1]), board.columns[term.column - 1]))
        elif term.face is None:
            out.append((frozenset(range(rules.n_faces)), term.count))
        else:
            out.append((frozenset([rules.face_index(term.face)]), term.count))
    return out


def group_ok(dice: list[int], allowed: frozenset[int], size: int, rules, partial: bool = False) -> bool:
    """D8 and D11 for one group: exactly ``size`` dice (at most, for a partial group), one allowed
    face, at most jokers_per_group Jokers (D11a), and at least one non-Joker die among ``size``
    unless joker_alone (D11b; a partial group must leave room for it)."""
    joker = rules.joker_index
    jokers = sum(1 for d in dice if d == joker)
    faces = {d for d in dice if d != joker}
    if (len(dice) > size) if partial else (len(dice) != size):
        return False
    if jokers > rules.jokers_per_group or len(faces) > 1 or not faces <= allowed:
        return False
    return rules.joker_alone or jokers < size


def assignments(roll: tuple[int, ...], n_groups: int):
    """Every map of die -> group index (n_groups = unused)."""
    return product(range(n_groups + 1), repeat=len(roll))


def exact_assignment_exists(roll: tuple[int, ...], spec: list[tuple[frozenset[int], int]], rules) -> bool:
    """Depth-first over every assignment of each die to a group or to "unused", skipping only
    assignments that overfill a group or leave too few dice to fill the rest."""
    contents: list[list[int]] = [[] for _ in spec]

    def search(i: int, missing: int) -> bool:
        if missing > len(roll) - i:
            return False
        if i == len(roll):
            return all(group_ok(contents[g], *spec[g], rules) for g in range(len(spec)))
        for g, (_, size) in enumerate(spec):
            if len(contents[g]) < size:
                contents[g].append(roll[i])
                found = search(i + 1, missing - 1)
                contents[g].pop()
                if found:
                    return True
        return search(i + 1, missing)

    return search(0, sum(size for _, size in spec))


def brute_meets(target: Target, roll: tuple[int, ...], rules, board: Board | None = None) -> bool:
    """Whether the ordered roll meets the target: some alternative has an assignment giving every
    group exactly its dice (D8-D11), or D12 for a single-term alternative."""
    joker = rules.joker_index
    for alt in target.alternatives:
        spec = groups_of(alt, rules, board)
        if len(spec) == 1 and joker is not None and rules.all_jokers_mark_any and all(d == joker for d in roll):
            return True
        if exact_assignment_exists(roll, spec, rules):
            return True
    return False


def brute_best_fit(target: Target, roll: tuple[int, ...], rules, board: Board | None = None) -> tuple[int, int]:
    """(fewest dice still missing, most dice placed) over every alternative and every partial
    assignment of dice to groups."""
    best = None
    for alt in target.alternatives:
        spec = groups_of(alt, rules, board)
        needed = sum(size for _, size in spec)
        for assign in assignments(roll, len(spec)):
            if all(group_ok([d for d, g in zip(roll, assign) if g == i], *spec[i], rules, partial=True)
                   for i in range(len(spec))):
                placed = sum(1 for g in assign if g < len(spec))
                if best is None or (needed - placed, -placed) < (best[0], -best[1]):
                    best = (needed - placed, placed)
    return best


def ordered(counts: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(side for side, n in enumerate(counts) for _ in range(n))


TINY_BOARD = Board("tiny", columns=(1, 2, 3), shelf_faces=((0,), (1,), (0, 1)),
                   values=((1, 2, 3), (1, 2, 3), (2, 3, 4)))

SMALL_CASES = [
    # (rules, target text, board)
    (small_rules(dice=4, faces=2), "2a", None),
    (small_rules(dice=4, faces=2), "3a|3b", None),
    (small_rules(dice=4, faces=2), "2a+2b", None),
    (small_rules(dice=4, faces=2), "2*+2*", None),
    (small_rules(dice=4, faces=2), "1*+1*+2*", None),
    (small_rules(dice=4, faces=2), "4*", None),
    (small_rules(dice=4, faces=2, per_group=2), "3a+1b|4b", None),
    (small_rules(dice=4, faces=2, alone=True), "1a+2b", None),
    (small_rules(dice=4, faces=3, joker=False), "2a+2*", None),
    (small_rules(dice=4, faces=2), "r1c1+r2c3", TINY_BOARD),
    (small_rules(dice=4, faces=2), "r3c3|r2c2+r1c1", TINY_BOARD),
    (small_rules(dice=4, faces=2), "r3c2+2*", TINY_BOARD),
    (small_rules(dice=5, faces=2), "r3c2+r3c3", TINY_BOARD),
]


@pytest.mark.parametrize(("rules", "text", "board"), SMALL_CASES)
def test_indicator_equals_brute_force_over_assignments(rules, text, board):
    """D8-D12: the closed form equals trying every die -> group assignment, on every roll."""
    target = parse_target(text, rules)
    compiled = compile_target(target, rules, board, Marks.empty(board) if board else None)
    space = space_for(rules)
    got = compiled.indicator(space)
    want = [int(brute_meets(target, ordered(r), rules, board)) for r in space.rolls]
    assert got.tolist() == want


@pytest.mark.parametrize(("rules", "text", "board"), SMALL_CASES)
def test_baseline_keeps_a_best_partial_fit(rules, text, board):
    """The baseline keeps the whole roll when it meets the target, else a sub-multiset of the
    roll that is a partial fit with the fewest missing dice (brute force over assignments)."""
    target = parse_target(text, rules)
    compiled = compile_target(target, rules, board, Marks.empty(board) if board else None)
    space = space_for(rules)
    fits = compiled.fits(space)
    for roll, keep, meets in zip(space.rolls, fits.keep.tolist(), fits.meets):
        assert all(k <= r for k, r in zip(keep, roll))
        if meets:
            assert tuple(keep) == roll
            continue
        missing, placed = brute_best_fit(target, ordered(roll), rules, board)
        assert sum(keep) == placed
        # the kept dice themselves are a partial fit of that quality
        assert brute_best_fit(target, ordered(tuple(keep)), rules, board) == (missing, placed)


def test_nf_matches_allocator_set_indicator(rules):
    """nF without D12 is the allocator's set_indicator (D11); D12 adds the all-Jokers roll."""
    space = space_for(rules)
    all_jokers = space.roll_index[(0, 0, 0, 0, 0, 6)]
    no_d12 = replace(rules, all_jokers_mark_any=False)
    for face in range(rules.n_faces):
        for n in range(1, rules.dice + 1):
            text = f"{n}{rules.faces[face].code}"
            want = set_indicator(space, rules, face, n)
            assert compile_target(parse_target(text, no_d12), no_d12).indicator(space).tolist() == want.tolist()
            with_d12 = compile_target(parse_target(text, rules), rules).indicator(space)
            want[all_jokers] = 1
            assert with_d12.tolist() == want.tolist()


def test_items_match_the_allocator_on_the_default_board(rules, board):
    """Item targets agree with legal_markings (D8-D12) on every roll, in a mid-game state."""
    marks = parse_marks((EXAMPLES / "marks" / "mid-game.txt").read_text(), board)
    available = marks.available
    space = space_for(rules)
    # every available item alone, and every pair and triple of available items in columns 1-3
    # whose dice fit in one roll (D9)
    picks = [(c,) for c in available]
    low = [c for c in available if board.need(c) <= 3]
    picks += [cells for k in (2, 3) for cells in combinations(low, k)
              if sum(board.need(c) for c in cells) <= rules.dice]
    markable = [{m.cells for m in legal_markings(r, board, marks, rules)} for r in space.rolls]
    for cells in picks:
        text = "+".join(board.cell_name(c) for c in cells)
        got = compile_target(parse_target(text, rules), rules, board, marks).indicator(space)
        assert got.tolist() == [int(cells in sets) for sets in markable], text


def test_items_match_max_flow_on_a_board_with_mixed_faces(rules):
    """Shelves accepting several faces: the target equals the networkx max-flow allocator."""
    board = Board("mixed", columns=(3, 1, 2), shelf_faces=((0, 4), (1,), (2, 3, 4)),
                  values=((1, 2, 3),) * 3)
    space = space_for(rules)
    all_jokers = space.roll_index[(0, 0, 0, 0, 0, 6)]
    sample = sorted(set(range(0, len(space.rolls), 3)) | {all_jokers})  # every 3rd roll keeps it fast
    for cells in [(0,), (0, 6), (2, 8, 5), (1, 7)]:
        text = "+".join(board.cell_name(c) for c in cells)
        got = compile_target(parse_target(text, rules), rules, board, Marks.empty(board)).indicator(space)
        want = [int(find_groups_flow(space.rolls[i], cells, board, rules) is not None) for i in sample]
        want[sample.index(all_jokers)] = int(len(cells) == 1)  # D12: one item, not several
        assert got[sample].tolist() == want


def test_d12_six_jokers_meet_a_single_combination_only(rules, board):
    """D12: six Jokers mark any one item, so they meet 3C or r1c5 but not 3C+2B; D11(b) alone
    would forbid Jokers-only groups."""
    jokers = (0, 0, 0, 0, 0, 6)

    def meets(text, r=rules):
        return bool(compile_target(parse_target(text, r), r, board, Marks.empty(board)).meets(np.array([jokers]))[0])

    assert meets("3C") and meets("r1c5") and meets("1P") and meets("6*")
    assert not meets("3C+2B") and not meets("r1c1+r1c2")
    assert meets("3C+2B|r2c2")
    off = replace(rules, all_jokers_mark_any=False)
    assert not meets("3C", off)


def test_d11_joker_limits(rules):
    """D11(a) at most one Joker per group; D11(b) never a group of Jokers only."""
    def meets(text, dice, r=rules):
        from shelfie_solver.dice.rolls import parse_dice
        counts = np.array([parse_dice(dice, r)])
        return bool(compile_target(parse_target(text, r), r).meets(counts)[0])

    assert meets("3C", "CCJPPP")
    assert not meets("3C", "CJJPPP")                     # (a): two Jokers in one group
    assert meets("3C+2B", "CCJBJP")                      # one Joker in each group
    assert meets("3C+2B", "CCJJBP")                      # CCJ + BJ uses both Jokers
    assert not meets("3C+2B", "CJJJBP")
    assert not meets("1C", "JPPGGB")                     # (b): a 1-die group never a Joker
    assert meets("2*", "PJGBAA")
    two = replace(rules, jokers_per_group=2)
    assert meets("3C", "CJJPPP", two)
    alone = replace(rules, joker_alone=True)
    assert meets("1C", "JPPGGB", alone)


# --- grammar ------------------------------------------------------------------------------------


def test_parse_examples(rules):
    assert parse_target("3C+2B", rules) == Target((Alternative((DiceTerm(3, "C"), DiceTerm(2, "B"))),))
    assert parse_target(" 3 cat + 2 Book ", rules) == parse_target("3c+2b", rules) == parse_target("3C+2B", rules)
    assert parse_target("r2c4|r2c5", rules) == Target((Alternative((ItemTerm(2, 4),)), Alternative((ItemTerm(2, 5),))))
    assert parse_target("R2C4 + r3c1", rules).alternatives[0].terms == (ItemTerm(2, 4), ItemTerm(3, 1))
    assert parse_target("5*", rules) == Target((Alternative((DiceTerm(5, None),)),))


def test_plus_binds_tighter_than_or(rules):
    target = parse_target("3C+2B|5*|r1c1+1P", rules)
    assert [len(a.terms) for a in target.alternatives] == [2, 1, 2]
    assert str(target) == "3C+2B|5*|r1c1+1P"
    assert describe(target, rules) == "3 cat dice + 2 book dice, or 5 of any one face, or item r1c1 + 1 plant die"


def test_digit_face_codes_of_the_classic_dice():
    """The classic dice use codes 1-6: the count is read so that a face remains."""
    assert parse_target("51", CLASSIC) == parse_target("5one", CLASSIC)
    assert parse_target("51", CLASSIC).alternatives[0].terms == (DiceTerm(5, "1"),)
    assert parse_target("3 6+26", CLASSIC).alternatives[0].terms == (DiceTerm(3, "6"), DiceTerm(2, "6"))


def test_the_count_is_every_leading_digit(rules):
    """"100C" is a hundred cats (too many dice), not one "00C"; leading zeros are still digits."""
    for text, count in [("100C", "100"), ("12C", "12"), ("0007C", "7"), ("9" * 20 + "C", "9" * 20)]:
        with pytest.raises(TargetError, match=f"needs {count} dice; a term needs 1 to 6") as info:
            parse_target(text, rules)
        assert GRAMMAR in str(info.value)
    assert parse_target("003C", rules) == parse_target("3C", rules)
    assert parse_target("06*", rules) == parse_target("6*", rules)
    with pytest.raises(TargetError, match="needs 7777.*… dice"):
        parse_target("7" * 5000 + "C", rules)  # no int() of 5000 digits (Python refuses over 4300)
    assert parse_target("15", CLASSIC) == parse_target("1five", CLASSIC)  # digit codes still take the last digit


@pytest.mark.parametrize("text", ["３C", "٣C", "r２c4", "r2c٤", "２*"])
def test_only_ascii_digits_count(rules, text):
    with pytest.raises(TargetError, match="is neither"):
        parse_target(text, rules)


@pytest.mark.parametrize("text", ["X" * 5000, "3C+" * 2000, "r" + "9" * 5000 + "c1", "3C|" + "4B+" * 3000 + "1P"])
def test_long_targets_are_echoed_shortened(rules, text):
    with pytest.raises(TargetError) as info:
        parse_target(text, rules)
    message = str(info.value)
    assert "\n" not in message and "…" in message
    assert len(message) < 3 * 60 + len(GRAMMAR) + 200


BAD_TARGETS = ["", "   ", "|", "3C|", "|3C", "3C||4B", "+", "3C+", "+3C", "3C++2B", "C", "*", "3", "0C", "7C",
               "3X", "3J", "3joker", "3C&2B", "3C,2B", "4C+3B", "r0c1", "r1c0", "r2", "rc", "r2c", "c4", "r2c4+r2c4",
               "r1c1+r1c2+r1c3+r1c4", "3C+2B+2P", "123C", "-1C", "3.5C", "3C 2B", "(3C)", "3**", "2*3"]


@pytest.mark.parametrize("text", BAD_TARGETS)
def test_malformed_targets_are_one_line_errors(rules, text):
    with pytest.raises(TargetError) as info:
        parse_target(text, rules)
    message = str(info.value)
    assert "\n" not in message and GRAMMAR in message


@pytest.mark.parametrize(("text", "problem"), [("r6c1", "not on the board"), ("r1c1", "marked"),
                                               ("r3c1", "eliminated"), ("r1c5+r2c5", "needs 10 dice")])
def test_items_must_be_on_the_board_and_available(rules, board, text, problem):
    marks = parse_marks("o..../...../x..../...../.....", board)
    with pytest.raises(TargetError, match=problem):
        compile_target(parse_target(text, rules), rules, board, marks)


def test_item_target_needs_a_board(rules):
    with pytest.raises(TargetError, match="no board"):
        compile_target(parse_target("r1c1", rules), rules)


# --- round trip ----------------------------------------------------------------------------------


def dice_terms(rules):
    faces = [f.code for f in rules.faces] + [None]
    return st.builds(DiceTerm, st.integers(1, rules.dice), st.sampled_from(faces))


def targets(rules, items: bool = True):
    term = st.one_of(dice_terms(rules), st.builds(ItemTerm, st.integers(1, 9), st.integers(1, 9))) if items \
        else dice_terms(rules)
    alt = st.lists(term, min_size=1, max_size=3).filter(
        lambda ts: sum(t.count for t in ts if isinstance(t, DiceTerm)) <= rules.dice
        and len({t for t in ts if isinstance(t, ItemTerm)}) == sum(isinstance(t, ItemTerm) for t in ts))
    return st.builds(Target, st.lists(alt.map(lambda ts: Alternative(tuple(ts))), min_size=1, max_size=4).map(tuple))


@settings(max_examples=100, deadline=None)
@given(target=targets(small_rules(dice=6, faces=5)), data=st.data())
def test_round_trip_parse_of_str(target, data):
    """parse(str(target)) == target, also with random spacing and letter case."""
    rules = small_rules(dice=6, faces=5)
    text = str(target)
    assert parse_target(text, rules) == target
    noisy = "".join(c.upper() if data.draw(st.booleans()) else c for c in text)
    noisy = noisy.replace("+", data.draw(st.sampled_from(["+", " + ", "+ "]))).replace("|", " | ")
    assert parse_target(noisy, rules) == target


@settings(max_examples=100, deadline=None)
@given(target=targets(CLASSIC, items=False))
def test_round_trip_with_digit_codes(target):
    assert parse_target(str(target), CLASSIC) == target


def test_compiled_indicator_shape_and_dtype(rules):
    space = dice_space(rules.dice, rules.n_sides)
    ind = compile_target(parse_target("2*+2*", rules), rules).indicator(space)
    assert ind.dtype == np.int64 and ind.shape == (len(space.rolls),)
    # two pairs, or a pair plus a single with a Joker (D11); one pair alone is not enough
    assert ind[space.roll_index[(2, 2, 1, 1, 0, 0)]] == 1 and ind[space.roll_index[(2, 1, 1, 1, 0, 1)]] == 1
    assert ind[space.roll_index[(1, 1, 1, 1, 2, 0)]] == 0 and ind[space.roll_index[(1, 1, 1, 1, 1, 1)]] == 0


def test_combinations_of_items_are_limited_per_turn(rules):
    """D9: at most combinations_per_turn items in one alternative (here 3)."""
    cells = [f"r{s}c1" for s in range(1, 5)]
    for k in range(1, 5):
        text = "+".join(cells[:k])
        if k <= 3:
            parse_target(text, rules)
        else:
            with pytest.raises(TargetError, match="D9"):
                parse_target(text, rules)
