"""Printable strategy cheat sheets computed by the solver, click-free (issue 4, docs/cheatsheet.md).

A :class:`CheatSheet` holds four sections, every number an exact :class:`~fractions.Fraction`
from the engine (floats only when rendered):

1. **Item odds** (:func:`item_odds`): per item, the chance of marking it this turn from the start
   of a turn with holds aimed at it (``CellTarget``; D6-D12). Unavailable items (D4) are shown as
   marked / eliminated and not computed.
2. **Set odds** (:func:`set_odds`): the chance of ``n`` matching dice of one face (Joker rules
   D11 applied) after 0..``rerolls`` re-rolls from a fresh roll, and with ``k`` matching dice
   (or ``k - 1`` and a Joker) already held.
3. **Hold rules of thumb** (:func:`hold_rules`): first rolls grouped by pattern, the solver's
   best hold under the default objective (``Strategic``) in pattern terms, and its margin.
4. **Failed-result risk** (:func:`risk_samples`): the chance of a failed result (D13) with safe
   play in sample late-game states derived from the board (:func:`sample_states`).

:func:`sheet_files` renders a sheet as Markdown, HTML (one A4 page) or CSV plus the PNG heatmap
(matplotlib, imported lazily); :func:`write_files` writes them whole or not at all.
"""

from __future__ import annotations

import csv
import html
import io
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import overload

import numpy as np
from tabulate import tabulate

from .allocate import set_indicator
from .board import Board, CellState, Marks, verify_marks_fit
from .dice import Counts, dice_codes, multinomial, space_for
from .engine import TurnSolution, solve, solve_turn
from .errors import ShelfieError
from .files import FileWriteError, replace_all
from .objectives import CellTarget, Safe, Strategic
from .render import decimal, exact, percent
from .rules import Ruleset

#: Output formats of :func:`sheet_files`.
SHEET_FORMATS = ("markdown", "html", "csv")
#: File name of each format's sheet, and of the heatmap written with every format.
SHEET_NAMES = {"markdown": "cheatsheet.md", "html": "cheatsheet.html", "csv": "cheatsheet.csv"}
HEATMAP_NAME = "item-odds.png"
#: Hold rules cover the most common first-roll patterns until at least this share of first
#: rolls is covered (patterns tied with the last one shown are shown too).
RULES_COVERAGE = Fraction(9, 10)

#: ``progress(done, total)``: steps finished out of the total, called after each step.
Progress = Callable[[int, int], None]


class OutputError(ShelfieError):
    """The output directory cannot hold the sheet (a file, unwritable, or a write failed)."""


# --- section 1: item odds ---------------------------------------------------------------------


@dataclass(frozen=True)
class ItemOdds:
    """One item of the heatmap.

    Attributes:
        cell: cell index (``Board.cell_name`` gives ``r<shelf>c<column>``).
        state: available, marked or eliminated (D4).
        chance: probability of marking it this turn with play aimed at it, from the start of a
            turn (first roll and every re-roll, D6/D7); ``None`` when not available.
    """

    cell: int
    state: CellState
    chance: Fraction | None


def item_chance(board: Board, marks: Marks, rules: Ruleset, cell: int) -> Fraction:
    """Chance of marking ``cell`` this turn from the start of a turn, holds aimed at it (D6-D12).

    ``engine.solve_turn(..., CellTarget(cell)).start_values()[0]``; a probability.
    """
    return solve_turn(board, marks, rules, CellTarget(cell)).start_values()[0]


def item_odds(board: Board, marks: Marks, rules: Ruleset,
              step: Callable[[], None] | None = None) -> tuple[ItemOdds, ...]:
    """Every item of the board in cell order, with its chance when available (one solve each).

    ``step`` (optional) is called after each solve, for progress reports.
    """
    out = []
    for cell in range(board.n_cells):
        state = marks.state(cell)
        chance = item_chance(board, marks, rules, cell) if state is CellState.AVAILABLE else None
        if chance is not None and step:
            step()
        out.append(ItemOdds(cell, state, chance))
    return tuple(out)


# --- section 2: set odds ----------------------------------------------------------------------


@dataclass(frozen=True)
class HeldOdds:
    """Chance of a set of ``target`` dice of one face by the end of the turn, mid-turn.

    Attributes:
        target: the set size ``n`` (D8: ``n`` matching dice, D11: or ``n - 1`` and a Joker).
        matching: dice of the face already held.
        joker: whether a Joker is held too (so ``matching + 1`` dice are held).
        rerolls: re-rolls left after the hold (>= 1).
        chance: probability (``TurnSolution.hold_value``), optimal re-rolls after the hold.
        made: the held dice already form the set (then ``chance`` is 1).
    """

    target: int
    matching: int
    joker: bool
    rerolls: int
    chance: Fraction
    made: bool


@dataclass(frozen=True)
class SetOdds:
    """Set odds for one face, or for several faces whose figures are exactly equal.

    Attributes:
        faces: side numbers sharing these figures (all item faces on a fair die, D2).
        fresh: ``fresh[n - 1][r]``: chance of ``n`` matching dice (``n`` = 1..dice) after ``r``
            re-rolls (``r`` = 0..rules.rerolls) from a fresh roll, holds optimal for that set.
        held: the mid-turn chances, for every hold of ``k`` matching dice with or without a
            Joker (``k + joker`` from 1 to dice - 1), target 2..dice, re-rolls 1..rules.rerolls.
    """

    faces: tuple[int, ...]
    fresh: tuple[tuple[Fraction, ...], ...]
    held: tuple[HeldOdds, ...]


def held_rows(rules: Ruleset) -> list[tuple[int, bool]]:
    """The mid-turn holds as ``(matching, joker)``, smallest first: (1, no), (0, Joker),
    (2, no), (1, Joker), ... up to ``dice - 1`` dice held (holding all dice is stopping)."""
    rows = []
    for k in range(1, rules.dice):
        rows.append((k, False))
        if rules.joker is not None:
            rows.append((k - 1, True))
    return rows


def _hold(rules: Ruleset, face: int, matching: int, joker: bool) -> Counts:
    counts = [0] * rules.n_sides
    counts[face] = matching
    if joker:
        assert rules.joker_index is not None
        counts[rules.joker_index] = 1
    return tuple(counts)


def set_solution(rules: Ruleset, face: int, n: int) -> TurnSolution:
    """The turn solved for "``n`` dice of ``face``" (``allocate.set_indicator`` + ``engine.solve``)."""
    space = space_for(rules)
    return solve(space, set_indicator(space, rules, face, n), rules.rerolls)


def fresh_chance(solution: TurnSolution, rerolls: int) -> Fraction:
    """Chance from a fresh roll followed by ``rerolls`` re-rolls (0..solution.rerolls)."""
    return solution.start_values(rerolls)[0]


FaceOdds = tuple[tuple[tuple[Fraction, ...], ...], tuple[HeldOdds, ...]]
"""``(fresh, held)`` of :class:`SetOdds` for one face."""


def face_set_odds(rules: Ruleset, face: int) -> FaceOdds:
    """``(fresh, held)`` of :class:`SetOdds` for one face: one solve per set size."""
    fresh, held = [], []
    joker = rules.joker_index
    for n in range(1, rules.dice + 1):
        solution = set_solution(rules, face, n)
        fresh.append(tuple(fresh_chance(solution, r) for r in range(rules.rerolls + 1)))
        if n < 2:
            continue
        for matching, with_joker in held_rows(rules):
            hold = _hold(rules, face, matching, with_joker)
            usable = min(hold[joker], rules.joker_cap(n)) if joker is not None else 0  # D11
            for r in range(1, rules.rerolls + 1):
                held.append(HeldOdds(n, matching, with_joker, r, solution.hold_value(hold, r), matching + usable >= n))
    return tuple(fresh), tuple(held)


def set_odds(rules: Ruleset, step: Callable[[], None] | None = None) -> tuple[SetOdds, ...]:
    """Set odds of every item face, faces with exactly equal figures merged (in face order).

    On a fair die all item faces are symmetric (D2: each side equally likely; D11's Joker limits
    do not depend on the face), so the default rules give one entry for all faces; this is
    checked exactly, not assumed. ``step`` is called after each face.
    """
    faces_of: dict[FaceOdds, list[int]] = {}
    for face in range(rules.n_faces):
        faces_of.setdefault(face_set_odds(rules, face), []).append(face)
        if step:
            step()
    return tuple(SetOdds(tuple(faces), fresh, held) for (fresh, held), faces in faces_of.items())


# --- section 3: hold rules of thumb --------------------------------------------------------------

Pattern = tuple[tuple[int, ...], int]
"""A roll's pattern: its item-face counts sorted in decreasing order (zeros dropped), and its
Jokers, e.g. ``((3, 1, 1), 1)`` = three of a kind, two singles and a Joker."""

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _word(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else str(n)


def _group_name(size: int, plural: bool = False) -> str:
    if size == 1:
        return "singles" if plural else "single"
    if size == 2:
        return "pairs" if plural else "pair"
    return f"{_word(size)}-of-a-kinds" if plural else f"{_word(size)} of a kind"


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def pattern_of(roll: Counts, rules: Ruleset) -> Pattern:
    """The pattern of a roll (sorted face-count signature plus the Joker count)."""
    jokers = roll[rules.joker_index] if rules.joker_index is not None else 0
    return tuple(sorted((c for c in roll[: rules.n_faces] if c), reverse=True)), jokers


def pattern_name(pattern: Pattern) -> str:
    """Words for a pattern, e.g. ``three of a kind, two singles and a Joker``."""
    sizes, jokers = pattern
    parts = []
    for size in sorted(set(sizes), reverse=True):
        count = sizes.count(size)
        parts.append(f"{'a' if size < 3 else ''} {_group_name(size)}".strip() if count == 1
                     else f"{_word(count)} {_group_name(size, plural=True)}")
    if jokers:
        parts.append("a Joker" if jokers == 1 else f"{_word(jokers)} Jokers")
    return _joined(parts)


@overload
def describe_hold(roll: Counts, hold: Counts, rules: Ruleset) -> str: ...
@overload
def describe_hold(roll: Counts, hold: Counts, rules: Ruleset, order: tuple[int, ...] | None) -> str | None: ...


def describe_hold(roll: Counts, hold: Counts, rules: Ruleset, order: tuple[int, ...] | None = None) -> str | None:
    """A hold in the roll's pattern terms, e.g. ``keep the three of a kind and the Joker`` or
    ``keep one pair, one die of another pair and the Joker``.

    Rolls of one pattern whose best holds get the same words agree on the rule of thumb.

    With a face ``order`` (item face side numbers, preferred first), a hold that keeps the
    roll's groups of one size unequally ("one pair" of two) says which: the preferred faces'
    groups, ``... (which: faces in order plant, cat, ...)``; such a hold that prefers a later
    face over an earlier one has no words in that order (``None``).
    """
    words = _plain_words(roll, hold, rules)
    return words if order is None else _ordered_words(words, _unequal_groups(roll, hold, rules), order, rules)


def _unequal_groups(roll: Counts, hold: Counts, rules: Ruleset) -> list[dict[int, int]]:
    """For each group size whose groups ``hold`` keeps unequally: ``{face: dice kept}``."""
    out = []
    for size in set(roll[: rules.n_faces]) - {0}:
        kept = {f: hold[f] for f in range(rules.n_faces) if roll[f] == size}
        if len(set(kept.values())) > 1:
            out.append(kept)
    return out


def _ordered_words(words: str, unequal: list[dict[int, int]], order: tuple[int, ...], rules: Ruleset) -> str | None:
    """``words`` qualified by a face ``order`` when groups are kept unequally (``None``: the
    hold prefers a later face of the order to an earlier one)."""
    if not unequal:
        return words
    position = {f: i for i, f in enumerate(order)}
    for kept in unequal:
        along = [kept[f] for f in sorted(kept, key=lambda f: position[f])]
        if along != sorted(along, reverse=True):
            return None
    names = ", ".join(rules.sides[f].name for f in order)
    return f"{words} (which: {ORDER_MARK} {names})"


def _plain_words(roll: Counts, hold: Counts, rules: Ruleset) -> str:
    """:func:`describe_hold` without a face order."""
    if hold == roll:
        return "stop (keep all dice)"
    if not any(hold):
        return "re-roll all dice"
    groups_rolled = [c for c in roll[: rules.n_faces] if c]
    kept: dict[tuple[int, int], int] = {}
    for face in range(rules.n_faces):
        if hold[face]:
            key = (roll[face], hold[face])
            kept[key] = kept.get(key, 0) + 1
    parts = []
    for (size, n), groups in sorted(kept.items(), key=lambda item: (-item[0][0], -item[0][1])):
        whole_too = n < size and (size, size) in kept
        parts.append(_kept_phrase(size, n, groups, groups_rolled.count(size), whole_too))
    if rules.joker_index is not None and hold[rules.joker_index]:
        held, rolled = hold[rules.joker_index], roll[rules.joker_index]
        if held == rolled:
            every = "both Jokers" if rolled == 2 else f"all {_word(rolled)} Jokers"
            parts.append("the Joker" if rolled == 1 else every)
        else:
            parts.append(f"{_word(held)} Joker{'s' if held > 1 else ''}")
    return "keep " + _joined(parts)


def _kept_phrase(size: int, kept: int, groups_kept: int, groups_rolled: int, whole_too: bool) -> str:
    """Words for keeping ``kept`` dice from each of ``groups_kept`` of the roll's
    ``groups_rolled`` groups of ``size`` matching dice; ``whole_too``: another group of that
    size is kept whole."""
    if kept == size:
        if groups_kept == groups_rolled:
            if groups_rolled == 1:
                return f"the {_group_name(size)}"
            both = "both" if groups_rolled == 2 else f"all {_word(groups_rolled)}"
            return f"{both} {_group_name(size, plural=True)}"
        if size <= 2:
            return f"{_word(groups_kept)} {_group_name(size, plural=groups_kept > 1)}"
        return f"{_word(groups_kept)} of the {_word(groups_rolled)} {_group_name(size, plural=True)}"
    dice = f"{_word(kept)} {'die' if kept == 1 else 'dice'}"
    if groups_rolled == 1:
        return f"{dice} of the {_group_name(size)}"
    if groups_kept == 1:
        return f"{dice} of {'another' if whole_too else 'one'} {_group_name(size)}"
    if groups_kept == groups_rolled:
        return f"{dice} of each {_group_name(size)}"
    return f"{dice} of each of {_word(groups_kept)} {'other ' if whole_too else ''}{_group_name(size, plural=True)}"


@dataclass(frozen=True)
class RollChoice:
    """The solver's best hold for one first roll (``rules.rerolls`` re-rolls left).

    Attributes:
        roll: the first roll. weight: its probability (D6).
        hold: the engine's chosen hold (``policy``; exact ties broken by the engine's rule).
        value: its value under the objective (potential points for ``Strategic``).
        margin: value minus the best value among the roll's other holds (0 on a tie).
        tied: the roll's other holds with exactly the same value (usually none).
        all_tied: every hold of the roll has the same value (the objective is indifferent).
    """

    roll: Counts
    weight: Fraction
    hold: Counts
    value: Fraction
    margin: Fraction
    tied: tuple[Counts, ...] = ()
    all_tied: bool = False

    @property
    def best_holds(self) -> tuple[Counts, ...]:
        """The chosen hold, then the holds tied with it."""
        return (self.hold,) + self.tied


def roll_choices(solution: TurnSolution, rules: Ruleset) -> list[RollChoice]:
    """Every first roll's best hold and margin, from one solved turn (``solution.rerolls`` >= 1)."""
    space = solution.space
    level = solution.rerolls
    table, policy = solution.hold_values[level], solution.policy[level]
    assert table is not None and policy is not None
    den = solution.denominator(level, 0)
    out = []
    for index, roll in enumerate(space.rolls):
        chosen = int(policy[index])
        best = int(table[chosen, 0])
        others = [(int(table[space.hold_index[h], 0]), h) for h in space.holds_of(roll)
                  if space.hold_index[h] != chosen]
        margin = best - max(v for v, _ in others) if others else 0
        tied = tuple(h for v, h in others if v == best)
        out.append(RollChoice(roll, Fraction(multinomial(roll), space.denominator), space.holds[chosen],
                              Fraction(best, den), Fraction(margin, den), tied, len(tied) == len(others)))
    return out


@dataclass(frozen=True)
class HoldRule:
    """A rule of thumb for one first-roll pattern.

    Attributes:
        pattern: the pattern. share: probability of a first roll of this pattern (exact).
        advice: the best hold in pattern terms (the words most of the pattern's rolls agree on),
            naming which groups by face where the pattern's rolls differ (:func:`_rule`), or
            :data:`NO_RULE`.
        agree: share of the pattern's rolls (by probability) whose best hold, or one exactly tied
            with it, has those words (:attr:`closest`'s share when there is no rule).
        margin: mean (by probability) over the pattern's rolls of how much the best hold beats the
            next best, in the objective's units (potential points).
        example: the pattern's first roll (dice order) whose best hold follows ``advice``, and
            that hold.
        order: the face order ``advice`` names groups by (``None``: it needs none).
        closest: the words most rolls agree on; ``advice`` is :data:`NO_RULE` instead when they
            agree on less than :data:`RULE_AGREEMENT` of the rolls (``agree`` is then theirs).
    """

    pattern: Pattern
    share: Fraction
    advice: str
    agree: Fraction
    margin: Fraction
    example: tuple[Counts, Counts]
    order: tuple[int, ...] | None = None
    closest: str = ""

    @property
    def holds(self) -> bool:
        """Whether the rule agrees with the solver on at least :data:`RULE_AGREEMENT` of its rolls."""
        return self.advice != NO_RULE


def hold_rules(board: Board, marks: Marks, rules: Ruleset) -> tuple[tuple[HoldRule, ...], tuple[HoldRule, ...]]:
    """``(shown, all)``: rules of thumb for every first-roll pattern, most common first, and
    the leading ones covering at least :data:`RULES_COVERAGE` of first rolls (ties included).

    One ``engine.solve_turn(board, marks, rules, Strategic())``; empty when the ruleset has no
    re-rolls (no holds to choose, D7).
    """
    if rules.rerolls < 1:
        return (), ()
    solution = solve_turn(board, marks, rules, Strategic())
    by_pattern: dict[Pattern, list[RollChoice]] = {}
    for choice in roll_choices(solution, rules):
        by_pattern.setdefault(pattern_of(choice.roll, rules), []).append(choice)
    every = sorted((_rule(p, choices, rules, board, marks) for p, choices in by_pattern.items()),
                   key=lambda r: (-r.share, -len(r.pattern[0]), r.pattern))
    shown: list[HoldRule] = []
    covered = Fraction(0)
    for rule in every:
        if covered >= RULES_COVERAGE and rule.share != shown[-1].share:
            break
        shown.append(rule)
        covered += rule.share
    return tuple(shown), tuple(every)


#: The words of a roll whose holds all have exactly the same value (the objective is indifferent).
ANY_HOLD = "any hold (all equal)"


def _choice_words(choice: RollChoice, hold: Counts, rules: Ruleset) -> str:
    """:func:`describe_hold` of one of a roll's best holds (no face order), or :data:`ANY_HOLD`
    when every hold of the roll ties."""
    return ANY_HOLD if choice.all_tied else describe_hold(choice.roll, hold, rules)


def _rule(pattern: Pattern, choices: list[RollChoice], rules: Ruleset, board: Board, marks: Marks) -> HoldRule:
    """Aggregate one pattern's rolls: each roll supports the words of each of its best holds.

    A hold that keeps some of the roll's same-size groups and not others ("one of two pairs")
    names which by a face order (:func:`describe_hold`); every order of the item faces is tried
    (the sheet's own orders first, :func:`_face_orders`) and the one most rolls agree with
    wins. When no words reach :data:`RULE_AGREEMENT`, the rule says so (:data:`NO_RULE`) and
    keeps the closest words.
    """
    share = sum((c.weight for c in choices), Fraction(0))
    margin = sum((c.weight * c.margin for c in choices), Fraction(0)) / share
    best: tuple[Fraction, str, tuple[int, ...] | None, tuple[Counts, Counts]] | None = None
    plain = [[(h, _choice_words(c, h, rules), _unequal_groups(c.roll, h, rules)) for h in reversed(c.best_holds)]
             for c in choices]
    for order in _face_orders(board, marks, rules):
        weight_of: dict[str, Fraction] = {}
        words_of = [{w: h for h, words, unequal in holds
                     if (w := words if c.all_tied else _ordered_words(words, unequal, order, rules)) is not None}
                    for c, holds in zip(choices, plain)]
        for c, found in zip(choices, words_of):
            for w in found:
                weight_of[w] = weight_of.get(w, Fraction(0)) + c.weight
        if not weight_of:
            continue
        advice = min(weight_of, key=lambda w: (-weight_of[w], w))
        agree = weight_of[advice] / share
        if best is None or agree > best[0]:
            example = next((c.roll, words[advice]) for c, words in zip(choices, words_of) if advice in words)
            best = (agree, advice, order if ORDER_MARK in advice else None, example)
        if agree == 1:
            break
    if best is None or best[0] < RULE_AGREEMENT:
        by_face = _face_rule(pattern, choices, rules, share)
        if by_face is not None and (best is None or by_face[0] > best[0]):
            best = by_face
    if best is None:  # every roll's best holds are ambiguous against every order (not seen in practice)
        c = choices[0]
        return HoldRule(pattern, share, NO_RULE, Fraction(0), margin, (c.roll, c.hold), None, "")
    agree, advice, named_by, example = best
    if agree < RULE_AGREEMENT:
        return HoldRule(pattern, share, NO_RULE, agree, margin, example, named_by, advice)
    return HoldRule(pattern, share, advice, agree, margin, example, named_by, advice)


#: One size class of a face rule: ``(dice kept per group, faces allowed (preferred first),
#: most groups kept)``; ``(0, (), 0)`` keeps none of them.
_ClassRule = tuple[int, tuple[int, ...], int]


def _face_rule(pattern: Pattern, choices: list[RollChoice], rules: Ruleset,
               share: Fraction) -> tuple[Fraction, str, tuple[int, ...], tuple[Counts, Counts]] | None:
    """The best *face rule* for a pattern: for each group size, keep ``d`` dice of each of at
    most ``m`` groups whose face is among an allowed list, the list's first faces first, plus a
    number of Jokers (e.g. "keep the pair, one single of award, then plant and the Joker"). The
    faces are ordered by how often the solver keeps them; a roll agrees when the rule's hold is
    one of its best holds. Each group size has its own face order (:func:`_kept_order`).
    Returns ``(agree, words, a restricting class's face order, example)`` or ``None``.
    """
    n = rules.n_faces
    joker = rules.joker_index
    sizes = sorted(set(pattern[0]), reverse=True)
    orders = {size: _kept_order(choices, size, n) for size in sizes}
    positions = {size: {f: i for i, f in enumerate(order)} for size, order in orders.items()}
    tally: dict[tuple[tuple[_ClassRule, ...], int], Fraction] = {}
    example: dict[tuple[tuple[_ClassRule, ...], int], tuple[Counts, Counts]] = {}
    for c in choices:
        seen: set[tuple[tuple[_ClassRule, ...], int]] = set()
        for hold in c.best_holds:
            per_class = [_class_rules(c.roll, hold, size, orders[size], positions[size], n) for size in sizes]
            jokers = hold[joker] if joker is not None else 0
            for combo in product(*per_class):
                key = (tuple(combo), jokers)
                if key not in seen:
                    seen.add(key)
                    tally[key] = tally.get(key, Fraction(0)) + c.weight
                    example.setdefault(key, (c.roll, hold))
    if not tally:
        return None
    key = min(tally, key=lambda k: (-tally[k], _rule_words(k, sizes, pattern, rules)))
    order = next((a for _, a, _ in key[0] if 0 < len(a) < n), orders[sizes[-1]])
    return tally[key] / share, _rule_words(key, sizes, pattern, rules), order, example[key]


def _kept_order(choices: list[RollChoice], size: int, n: int) -> tuple[int, ...]:
    """Item faces by how much of their groups of ``size`` the solver keeps (by probability),
    most first; ties by side number."""
    rate = {f: Fraction(0) for f in range(n)}
    for c in choices:
        for f in range(n):
            if c.roll[f] == size:
                rate[f] += c.weight * Fraction(c.hold[f], size)
    return tuple(sorted(range(n), key=lambda f: (-rate[f], f)))


def _class_rules(roll: Counts, hold: Counts, size: int, order: tuple[int, ...], position: dict[int, int],
                 n: int) -> list[_ClassRule]:
    """Every class rule for the roll's groups of ``size`` that keeps exactly what ``hold`` keeps."""
    groups = sorted((f for f in range(n) if roll[f] == size), key=lambda f: position[f])
    kept = {f: hold[f] for f in groups}
    amounts = {k for k in kept.values() if k}
    if len(amounts) > 1:
        return []
    keeps = sorted(amounts) if amounts else list(range(1, size + 1))  # keeping none fits any d
    chosen = [f for f in groups if kept[f]]
    out: list[_ClassRule] = [] if chosen else [(0, (), 0)]
    for d in keeps:
        for cut in range(1, n + 1):
            allowed = order[:cut]
            eligible = [f for f in groups if f in allowed]
            for most in range(1, len(groups) + 1):
                if eligible[:most] == chosen:
                    out.append((d, allowed, most))
    return out


def _rule_words(key: tuple[tuple[_ClassRule, ...], int], sizes: list[int], pattern: Pattern,
                rules: Ruleset) -> str:
    """Words for a face rule, e.g. ``keep the pair, one single of award, then plant and the Joker``."""
    parts = []
    for size, (d, allowed, most) in zip(sizes, key[0]):
        if not d:
            continue
        count = pattern[0].count(size)
        every = len(allowed) == rules.n_faces and most >= count
        dice = "" if d == size else f"{_word(d)} {'die' if d == 1 else 'dice'} of "
        if every:
            group = f"the {_group_name(size)}" if count == 1 else f"every {_group_name(size)}"
            parts.append(f"{dice}{group}" if not dice else f"{dice}{'each ' + _group_name(size) if count > 1 else group}")
            continue
        names = [rules.sides[f].name for f in allowed]
        if count == 1:  # the only group of its size: keep it when its face is listed
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
            parts.append(f"{dice}the {_group_name(size)} if {listed}")
            continue
        many = "one" if most == 1 else f"up to {_word(most)}"
        parts.append(f"{dice}{many} {_group_name(size, plural=most > 1)} of {', then '.join(names)}")
    jokers, rolled = key[1], pattern[1]
    if jokers:
        parts.append("the Joker" if rolled == 1 else
                     ("both Jokers" if jokers == rolled == 2 else
                      f"all {_word(rolled)} Jokers" if jokers == rolled else
                      f"{_word(jokers)} Joker{'s' if jokers > 1 else ''}"))
    return "keep " + _joined(parts) if parts else "re-roll all dice"


#: A rule of thumb must agree with the solver on at least this share of its pattern's rolls.
RULE_AGREEMENT = Fraction(4, 5)
#: The advice of a pattern whose best holds no rule of thumb describes for RULE_AGREEMENT of rolls.
NO_RULE = "no rule of thumb holds for 80% of these rolls"
#: The words marking a hold that names its groups by a face order.
ORDER_MARK = "faces in order"


def _face_orders(board: Board, marks: Marks, rules: Ruleset) -> list[tuple[int, ...]]:
    """Face orders to try, the sheet's own first: faces whose shelves hold more marks, then more
    available points; then every other permutation (all of them for up to 5 item faces)."""
    from itertools import permutations

    marked, available = marks.bit_arrays()
    weight = {f: (0, 0) for f in range(rules.n_faces)}
    for shelf, faces in enumerate(board.shelf_faces):
        cells = list(board.lines[shelf])
        mark_count = int(sum(marked[c] for c in cells))
        points = int(sum(available[c] * board.value(c) for c in cells))
        for f in faces:
            weight[f] = (weight[f][0] + mark_count, weight[f][1] + points)
    sheet = tuple(sorted(range(rules.n_faces), key=lambda f: (-weight[f][0], -weight[f][1], f)))
    orders = [sheet]
    if rules.n_faces <= 5:
        orders += [p for p in permutations(range(rules.n_faces)) if p != sheet]
    return orders


# --- section 4: failed-result risk ------------------------------------------------------------


@dataclass(frozen=True)
class SampleState:
    """A late-game state derived from the board: ``marks`` has only ``cells`` available."""

    name: str
    cells: tuple[int, ...]
    marks: Marks


def sample_states(board: Board) -> tuple[SampleState, ...]:
    """Up to four deterministic late-game states (docs/cheatsheet.md); every other item marked.

    1. one shelf left: the top shelf's items;
    2. the hardest column left: the column needing the most dice (first such column);
    3. the easiest column left: the column needing the fewest dice;
    4. a diagonal: one item per shelf, shelf ``s`` in column ``s mod columns``.
    States with the same available items as an earlier one are dropped.
    """
    hardest = max(range(board.n_columns), key=lambda c: (board.columns[c], -c))
    easiest = min(range(board.n_columns), key=lambda c: (board.columns[c], c))
    columns = board.lines[board.n_shelves:]
    diagonal = tuple(sorted(board.cell(s, s % board.n_columns) for s in range(board.n_shelves)))
    candidates = [
        ("one shelf left (shelf 1)", board.lines[0]),
        (f"hardest column left (column {hardest + 1}, {_dice(board.columns[hardest])})", columns[hardest]),
        (f"easiest column left (column {easiest + 1}, {_dice(board.columns[easiest])})", columns[easiest]),
        ("diagonal (one item per shelf)", diagonal),
    ]
    out: list[SampleState] = []
    everything = (1 << board.n_cells) - 1
    for name, cells in candidates:
        if any(set(s.cells) == set(cells) for s in out):
            continue
        marked = everything & ~sum(1 << c for c in cells)
        out.append(SampleState(name, cells, Marks(board.n_shelves, board.n_columns, marked, 0)))
    return tuple(out)


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


@dataclass(frozen=True)
class RiskSample:
    """Failed-result risk in one sample state with safe play (``objectives.Safe``, D13).

    Attributes:
        state: the sample state.
        risk: chance of a failed result this turn from the start of a turn (1 - start value).
        roll: a typical first roll that cannot mark anything yet (the most probable such roll,
            first in dice order on ties), or ``None`` when every roll marks an item.
        hold: the hold that minimises the risk for ``roll`` (the engine's choice).
        hold_risk: the risk after that hold; reroll_risk: after re-rolling all dice.
        ties: how many other holds of ``roll`` give exactly the same risk.
    """

    state: SampleState
    risk: Fraction
    roll: Counts | None
    hold: Counts | None
    hold_risk: Fraction | None
    reroll_risk: Fraction | None
    ties: int


def risk_sample(board: Board, rules: Ruleset, state: SampleState) -> RiskSample:
    """Solve one sample state for ``Safe`` and read the start-of-turn risk and a typical hold."""
    solution = solve_turn(board, state.marks, rules, Safe())
    risk = 1 - solution.start_values()[0]
    failing = np.flatnonzero(solution.values[0][:, 0] == 0)
    if rules.rerolls < 1 or len(failing) == 0:
        return RiskSample(state, risk, None, None, None, None, 0)
    space = solution.space
    top = rules.rerolls
    weights = [multinomial(space.rolls[i]) for i in failing]
    index = int(failing[int(np.argmax(weights))])  # argmax: the first of the most probable
    roll = space.rolls[index]
    policy = solution.policy[top]
    assert policy is not None
    hold = space.holds[int(policy[index])]
    safe_after = solution.hold_value(hold, top)
    ties = sum(solution.hold_value(h, top) == safe_after for h in space.holds_of(roll)) - 1
    reroll = 1 - solution.hold_value((0,) * rules.n_sides, top)
    return RiskSample(state, risk, roll, hold, 1 - safe_after, reroll, ties)


def risk_samples(board: Board, rules: Ruleset, step: Callable[[], None] | None = None) -> tuple[RiskSample, ...]:
    """:func:`risk_sample` for every state of :func:`sample_states`."""
    out = []
    for state in sample_states(board):
        out.append(risk_sample(board, rules, state))
        if step:
            step()
    return tuple(out)


# --- the whole sheet --------------------------------------------------------------------------


@dataclass(frozen=True)
class CheatSheet:
    """Every number of a cheat sheet (exact), for one board, board state and ruleset.

    Attributes:
        rules, board, marks: the setup.
        items: section 1, one per cell in cell order.
        sets: section 2, one per group of faces with equal figures.
        rules_of_thumb: section 3, the patterns shown; all_rules: every pattern.
        risks: section 4.
    """

    rules: Ruleset
    board: Board
    marks: Marks
    items: tuple[ItemOdds, ...]
    sets: tuple[SetOdds, ...]
    rules_of_thumb: tuple[HoldRule, ...]
    all_rules: tuple[HoldRule, ...]
    risks: tuple[RiskSample, ...]

    @property
    def coverage(self) -> Fraction:
        """Share of first rolls covered by the rules of thumb shown."""
        return sum((r.share for r in self.rules_of_thumb), Fraction(0))


def sheet_steps(board: Board, marks: Marks, rules: Ruleset) -> int:
    """Number of progress steps :func:`build_sheet` reports (one per solve group)."""
    return len(marks.available) + rules.n_faces + 1 + len(sample_states(board))


def build_sheet(board: Board, marks: Marks, rules: Ruleset, progress: Progress | None = None) -> CheatSheet:
    """Compute every number of the sheet (sections 1-4 of the module docstring).

    Args:
        progress: called as ``progress(done, total)`` after each step (:func:`sheet_steps`).

    Raises:
        MarksError: the marks do not fit the board.
    """
    verify_marks_fit(marks, board)
    total = sheet_steps(board, marks, rules)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    items = item_odds(board, marks, rules, step)
    sets = set_odds(rules, step)
    shown, every = hold_rules(board, marks, rules)
    step()
    risks = risk_samples(board, rules, step)
    return CheatSheet(rules, board, marks, items, sets, shown, every, risks)


# --- rendering helpers ------------------------------------------------------------------------


def _face_names(faces: tuple[int, ...], rules: Ruleset) -> str:
    return _joined([rules.sides[f].name for f in faces])


def set_label(entry: SetOdds, rules: Ruleset) -> str:
    """``any one face`` when an entry covers every item face, else the faces' names."""
    if len(entry.faces) == rules.n_faces and rules.n_faces > 1:
        return "any one face"
    return _face_names(entry.faces, rules)


def held_label(matching: int, joker: bool) -> str:
    """``2 matching``, ``1 matching + Joker``, ``Joker only``."""
    if joker:
        return "Joker only" if matching == 0 else f"{matching} matching + Joker"
    return f"{matching} matching"


def chance_text(value: Fraction) -> str:
    """A probability for display with two decimals, never rounding to a false certainty:
    ``0%`` and ``100%`` only when exact, else at least ``<0.01%`` / at most ``>99.99%``."""
    if value == 0 or value == 1:
        return f"{int(value) * 100}%"
    return percent(value)  # the shared formatter: <0.01% / >99.99% (issue 8 §3)


def _rerolls(n: int) -> str:
    return f"{n} re-roll" if n == 1 else f"{n} re-rolls"


def item_cell_text(item: ItemOdds) -> str:
    """``96.25%``, ``marked`` or ``eliminated``."""
    return chance_text(item.chance) if item.chance is not None else item.state.name.lower()


def shelf_heading(board: Board, rules: Ruleset, shelf: int) -> str:
    """``shelf 1 (cat)``."""
    return f"shelf {shelf + 1} ({board.shelf_label(shelf, rules)})"


def column_heading(board: Board, column: int) -> str:
    """``col 3: 3 dice``."""
    return f"col {column + 1}: {_dice(board.columns[column])}"


def item_table(sheet: CheatSheet, compact: bool = False) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the item odds table (shelves x columns); ``compact`` shortens the
    labels for the printed page (``s1 cat``, ``c3: 3 dice``)."""
    board, rules = sheet.board, sheet.rules
    if compact:
        headers = ["shelf"] + [f"c{c + 1}: {_dice(n)}" for c, n in enumerate(board.columns)]
        labels = [f"s{s + 1} {board.shelf_label(s, rules)}" for s in range(board.n_shelves)]
    else:
        headers = ["shelf \\ column"] + [column_heading(board, c) for c in range(board.n_columns)]
        labels = [shelf_heading(board, rules, s) for s in range(board.n_shelves)]
    rows = [[labels[s]] + [item_cell_text(sheet.items[board.cell(s, c)]) for c in range(board.n_columns)]
            for s in range(board.n_shelves)]
    return headers, rows


def fresh_table(sheet: CheatSheet, entry: SetOdds) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the set odds table from a fresh roll, for one entry."""
    headers = ["matching dice", "no re-roll"] + [f"{_rerolls(r)}" for r in range(1, sheet.rules.rerolls + 1)]
    rows = [[str(n)] + [chance_text(p) for p in chances] for n, chances in enumerate(entry.fresh, start=1)]
    return headers, rows


def held_table(sheet: CheatSheet, entry: SetOdds, rerolls: int,
               compact: bool = False) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the mid-turn table for ``rerolls`` re-rolls left: rows = holds,
    columns = target set sizes 2..dice; ``made`` where the held dice already form the set.
    ``compact`` labels holds ``2``, ``1+J`` and targets by their size only."""
    targets = list(range(2, sheet.rules.dice + 1))
    lookup = {(h.target, h.matching, h.joker): h for h in entry.held if h.rerolls == rerolls}
    if compact:
        headers = ["held \\ set of"] + [str(n) for n in targets]
    else:
        headers = ["holding"] + [f"{n} of a kind" for n in targets]
    rows = []
    for matching, joker in held_rows(sheet.rules):
        label = held_label(matching, joker)
        if compact:
            code = sheet.rules.joker.code if sheet.rules.joker else ""
            label = f"{matching or ''}{'+' if matching and joker else ''}{code if joker else ''}"
        row = [label]
        for n in targets:
            odds = lookup[(n, matching, joker)]
            row.append("made" if odds.made else chance_text(odds.chance))
        rows.append(row)
    return headers, rows


def _margin_text(value: Fraction) -> str:
    return decimal(value, 2)


def _share_text(value: Fraction) -> str:
    return f"{percent(value)} ({value.numerator}/{value.denominator})"


def _agree_text(value: Fraction) -> str:
    return "all" if value == 1 else chance_text(value)


def _advice_text(rule: HoldRule) -> str:
    return rule.advice if rule.holds else f"{rule.advice} (closest: {rule.closest})"


def rules_table(sheet: CheatSheet) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the hold rules of thumb (the section note explains the headers)."""
    rules = sheet.rules
    headers = ["first roll", "share", "best hold", "agree", "margin", "example"]
    rows = [[pattern_name(r.pattern), _share_text(r.share), _advice_text(r), _agree_text(r.agree), _margin_text(r.margin),
             f"{dice_codes(r.example[0], rules)}: keep {dice_codes(r.example[1], rules) or 'nothing'}"]
            for r in sheet.rules_of_thumb]
    return headers, rows


def _hold_text(sample: RiskSample, rules: Ruleset) -> str:
    if sample.hold is None or sample.roll is None:
        return "-"
    words = describe_hold(sample.roll, sample.hold, rules)
    codes = dice_codes(sample.hold, rules)
    text = f"{words} ({codes})" if codes and sample.hold != sample.roll else words
    if sample.ties:
        text += f", tied with {sample.ties} other hold{'s' if sample.ties != 1 else ''}"
    return text


def risk_table(sheet: CheatSheet) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the failed-result risk table (the section note explains the headers)."""
    rules, board = sheet.rules, sheet.board
    headers = ["sample state", "available items", "risk", "failing roll", "best hold", "after it", "re-roll all"]
    rows = []
    for s in sheet.risks:
        rows.append([s.state.name, " ".join(board.cell_name(c) for c in s.state.cells), chance_text(s.risk),
                     dice_codes(s.roll, rules) if s.roll else "none (every roll marks)", _hold_text(s, rules),
                     chance_text(s.hold_risk) if s.hold_risk is not None else "-",
                     chance_text(s.reroll_risk) if s.reroll_risk is not None else "-"])
    return headers, rows


def _setup_lines(sheet: CheatSheet) -> list[str]:
    rules, board = sheet.rules, sheet.board
    joker = f" + {rules.joker.name}" if rules.joker else ""
    faces = ", ".join(f"{f.code}={f.name}" for f in rules.sides)
    state = "empty board" if not (sheet.marks.marked or sheet.marks.eliminated) else f"marks '{sheet.marks}'"
    return [f"Board {board.name!r}, {state}.",
            f"Rules {rules.name!r}: {rules.dice} dice with {rules.n_faces} faces{joker} ({faces}), "
            f"{_rerolls(rules.rerolls)}, up to {rules.combinations_per_turn} combinations per turn."]


def _joker_legend(rules: Ruleset) -> str:
    return f" {rules.joker.code} = Joker." if rules.joker else ""


def _joker_note(rules: Ruleset) -> str:
    """How Jokers count toward a set under the ruleset (D11)."""
    if rules.jokers_per_group == 0:
        return "Jokers do not count toward a set in this ruleset (D11)."
    jokers = "one Joker" if rules.jokers_per_group == 1 else f"up to {rules.jokers_per_group} Jokers"
    alone = "" if rules.joker_alone else ", never Jokers alone, so not in a set of 1"
    return f"A Joker counts as a matching die: {jokers} per set{alone} (D11)."


def all_jokers_gap(sheet: CheatSheet) -> tuple[ItemOdds, Fraction] | None:
    """Where the item odds (section 1) exceed the set odds (section 2, every re-roll) for the
    same face and dice count: the all-Jokers roll marks any one item (D12) but is no set (D11).
    The available item of a one-face shelf with the largest gap and its set chance; ``None``
    when no item's odds differ (D12 off, Jokers alone allowed in a set, or no such item)."""
    rules, board = sheet.rules, sheet.board
    if rules.joker is None or not rules.all_jokers_mark_any:
        return None
    fresh = {face: entry.fresh for entry in sheet.sets for face in entry.faces}
    gaps = []
    for item in sheet.items:
        faces, n = board.faces_of(item.cell), board.need(item.cell)
        if item.chance is None or len(faces) != 1 or faces[0] not in fresh or n > len(fresh[faces[0]]):
            continue
        chance = fresh[faces[0]][n - 1][rules.rerolls]
        if item.chance > chance:
            gaps.append((item.chance - chance, -item.cell, item, chance))
    if not gaps:
        return None
    _, _, item, chance = max(gaps, key=lambda g: g[:2])  # the largest gap; the first cell among equal ones
    return item, chance


def _all_jokers_note(sheet: CheatSheet, entry: SetOdds, gap: tuple[ItemOdds, Fraction] | None) -> str | None:
    """The footnote under ``entry``'s fresh-roll table when an item of its faces has odds above
    them (``gap``: the sheet's :func:`all_jokers_gap`), else ``None``."""
    if gap is None or sheet.board.faces_of(gap[0].cell)[0] not in entry.faces:
        return None
    item, chance = gap
    n, jokers = sheet.board.need(item.cell), _word(sheet.rules.dice)
    assert item.chance is not None
    return (f"Note: item odds (section 1) are a little above these set odds with {_rerolls(sheet.rules.rerolls)} "
            f"(largest gap: {sheet.board.cell_name(item.cell)}, {chance_text(item.chance)} against "
            f"{chance_text(chance)} for {n} matching dice): {jokers} Jokers mark any one item (D12) but are no set "
            "(D11).")


def _section_notes(sheet: CheatSheet) -> dict[str, str]:
    rules = sheet.rules
    faces_note = "Faces with different figures get their own table."
    if len(sheet.sets) == 1 and rules.n_faces > 1:
        faces_note = "All item faces give exactly the same figures (checked), so one table serves every face."
    joker_note = f" {_joker_note(rules)}" if rules.joker else ""
    return {
        "items": "Chance of marking each item this turn, playing every roll and re-roll for that item alone "
                 "(from the start of a turn; D6-D12).",
        "sets": f"Chance of a set of n matching dice of one face, holding optimally for it.{joker_note} {faces_note}",
        "held": "Mid-turn: chance of completing the set by the end of the turn, holding the dice listed and "
                "re-rolling the rest, then holding optimally. 'made': the held dice already form the set.",
        "rules": (f"The solver's best hold for the first roll ({_rerolls(rules.rerolls)} left) under the strategic "
                  f"objective (docs/objectives.md) on this board state, for the most common first-roll patterns "
                  f"({chance_text(sheet.coverage)} of first rolls). share: of first rolls (exact); agree: share of "
                  f"the pattern's rolls whose best hold (or one exactly tied with it) is the one stated; a rule is "
                  f"stated only when it agrees on at least {RULE_AGREEMENT * 100}% of its rolls, naming which "
                  f"groups to keep by face where it must, else the row says so and shows the closest words and "
                  f"their agreement; margin: "
                  f"mean gain of the best hold over the second best, in potential points; example: a roll of the "
                  f"pattern and its best hold."),
        "risk": "risk: chance of a failed result (D13: the dice mark nothing, a shelf is eliminated) this turn, "
                "playing only to avoid it (objective 'safe'), in sample late-game states where every other item is "
                "marked; failing roll: the most probable first roll that marks nothing yet; best hold: the hold "
                "minimising the risk from it; after it / re-roll all: the risk after that hold / after re-rolling "
                "all dice.",
    }


# --- Markdown -----------------------------------------------------------------------------------


def _md_table(headers: list[str], rows: list[list[str]]) -> str:
    return str(tabulate(rows, headers, tablefmt="github", disable_numparse=True))


def render_markdown(sheet: CheatSheet, heatmap: str = HEATMAP_NAME) -> str:
    """The sheet as Markdown for docs/ (the heatmap referenced as ``heatmap``, relative)."""
    notes = _section_notes(sheet)
    rules = sheet.rules
    parts = [f"# Cheat sheet: {sheet.board.name}", " ".join(_setup_lines(sheet))
             + " Every figure is an exact result of the solver, shown rounded.",
             "## 1. Item odds", notes["items"], f"![Item odds heatmap]({heatmap})", _md_table(*item_table(sheet)),
             "## 2. Set odds", notes["sets"]]
    gap = all_jokers_gap(sheet)
    for entry in sheet.sets:
        parts += [f"**From a fresh roll, {set_label(entry, rules)}**", _md_table(*fresh_table(sheet, entry))]
        parts += [note for note in [_all_jokers_note(sheet, entry, gap)] if note]
        if entry.held:
            parts.append(notes["held"])
            for r in range(1, rules.rerolls + 1):
                parts += [f"**Holding some, {set_label(entry, rules)}, {_rerolls(r)} left**",
                          _md_table(*held_table(sheet, entry, r))]
    parts += ["## 3. Hold rules of thumb", notes["rules"]]
    parts.append(_md_table(*rules_table(sheet)) if sheet.rules_of_thumb else "No re-rolls in this ruleset: no holds.")
    parts += ["## 4. Failed-result risk", notes["risk"], _md_table(*risk_table(sheet))]
    parts.append("Generated by `shelfie-solve cheatsheet`; rule ids refer to RULES.md.")
    return "\n\n".join(parts) + "\n"


# --- HTML ---------------------------------------------------------------------------------------

_CSS = """
@page { size: A4; margin: 9mm; }
* { box-sizing: border-box; }
body { font: 6.9pt/1.2 "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #111;
       max-width: 192mm; margin: 4mm auto; }
h1 { font-size: 12pt; margin: 0 0 1mm; }
h2 { font-size: 8.8pt; margin: 2mm 0 0.8mm; border-bottom: 0.4pt solid #888; }
h3 { font-size: 7.4pt; margin: 1.2mm 0 0.5mm; }
p { margin: 0.4mm 0 0.9mm; }
.setup, .note { color: #333; }
.top { display: grid; grid-template-columns: 78mm 1fr; gap: 4mm; align-items: start; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 4mm; }
img.heatmap { width: 78mm; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 0.4pt solid #aaa; padding: 0.2mm 0.9mm; text-align: right; vertical-align: top;
         white-space: nowrap; }
th { background: #eee; font-weight: 600; }
th:first-child, td:first-child, td.text { text-align: left; }
td.text { white-space: normal; }
td.left, th.left { text-align: left; }
footer { margin-top: 1.5mm; color: #555; font-size: 6.6pt; }
@media print { body { margin: 0; max-width: none; } section { break-inside: avoid; } }
""".strip()


def _html_table(headers: list[str], rows: list[list[str]], text_columns: tuple[int, ...] = (),
                left_columns: tuple[int, ...] = ()) -> str:
    """A table; cells stay on one line, right-aligned, except ``text_columns`` (may wrap, left)
    and ``left_columns`` (left-aligned)."""
    head = "".join(f'<th class="left">{html.escape(h)}</th>' if i in text_columns + left_columns
                   else f"<th>{html.escape(h)}</th>" for i, h in enumerate(headers))
    body = []
    for row in rows:
        cells = []
        for i, value in enumerate(row):
            kind = ' class="text"' if i in text_columns else (' class="left"' if i in left_columns else "")
            cells.append(f"<td{kind}>{html.escape(value)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render_html(sheet: CheatSheet, heatmap: str = HEATMAP_NAME) -> str:
    """The sheet as one printable A4 page (``@page size: A4``, print CSS); the heatmap image is
    ``heatmap``, referenced relative to the page (it is written beside it)."""
    notes = _section_notes(sheet)
    rules = sheet.rules
    esc = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>Cheat sheet: {esc(sheet.board.name)}</title>", f"<style>\n{_CSS}\n</style>", "</head>", "<body>",
           f"<h1>Cheat sheet: {esc(sheet.board.name)}</h1>",
           f'<p class="setup">{esc(" ".join(_setup_lines(sheet)))} Every figure is an exact result of the solver, '
           "shown rounded.</p>",
           '<section class="top">',
           f'<div><h2>1. Item odds</h2><img class="heatmap" src="{esc(heatmap)}" alt="Item odds heatmap">'
           f'<p class="note">{esc(notes["items"])}</p></div>',
           "<div>", "<h2>2. Set odds</h2>", f'<p class="note">{esc(notes["sets"])}</p>']
    gap = all_jokers_gap(sheet)
    for entry in sheet.sets:
        out += [f"<h3>From a fresh roll, {esc(set_label(entry, rules))}</h3>", _html_table(*fresh_table(sheet, entry))]
        out += [f'<p class="note">{esc(note)}</p>' for note in [_all_jokers_note(sheet, entry, gap)] if note]
    out += ["<h3>Item odds (section 1) as a table</h3>", _html_table(*item_table(sheet, compact=True)),
            "</div>", "</section>"]
    for entry in sheet.sets:
        if not entry.held:
            continue
        out += ["<section>", f'<p class="note">{esc(notes["held"] + _joker_legend(rules))}</p>', '<div class="pair">']
        for r in range(1, rules.rerolls + 1):
            out += [f"<div><h3>Holding some, {esc(set_label(entry, rules))}, {esc(_rerolls(r))} left</h3>",
                    _html_table(*held_table(sheet, entry, r, compact=True)), "</div>"]
        out += ["</div>", "</section>"]
    out += ["<section>", "<h2>3. Hold rules of thumb</h2>", f'<p class="note">{esc(notes["rules"])}</p>',
            _html_table(*rules_table(sheet), text_columns=(0, 2), left_columns=(5,)) if sheet.rules_of_thumb
            else "<p>No re-rolls in this ruleset: no holds.</p>", "</section>",
            "<section>", "<h2>4. Failed-result risk</h2>", f'<p class="note">{esc(notes["risk"])}</p>',
            _html_table(*risk_table(sheet), text_columns=(0, 1, 4), left_columns=(3,)), "</section>",
            "<footer>Generated by shelfie-solve cheatsheet; rule ids refer to RULES.md.</footer>",
            "</body>", "</html>"]
    return "\n".join(out) + "\n"


# --- CSV ----------------------------------------------------------------------------------------

CSV_HEADERS = ["section", "subject", "condition", "quantity", "exact", "decimal"]


def render_csv(sheet: CheatSheet) -> str:
    """Every number of the sheet, one per row: ``section, subject, condition, quantity, exact
    ("p/q"), decimal``; unavailable items have an empty value and their state as condition."""
    rules, board = sheet.rules, sheet.board
    rows: list[list[str]] = []

    def add(section: str, subject: str, condition: str, quantity: str, value: Fraction | None) -> None:
        rows.append([section, subject, condition, quantity, exact(value) if value is not None else "",
                     f"{float(value):.6f}" if value is not None else ""])

    for item in sheet.items:
        points = board.value(item.cell)
        where = (f"{board.shelf_label(board.shelf_of(item.cell), rules)}, {_dice(board.need(item.cell))}, "
                 f"{points} point{'' if points == 1 else 's'}")
        when = "from the start of a turn" if item.chance is not None else item.state.name.lower()
        condition = f"{where}; {when}"
        add("item_odds", board.cell_name(item.cell), condition, "probability", item.chance)
    for entry in sheet.sets:
        label = set_label(entry, rules)
        for n, chances in enumerate(entry.fresh, start=1):
            for r, p in enumerate(chances):
                add("set_odds", f"{n} of {label}", f"fresh roll + {_rerolls(r)}", "probability", p)
        for h in entry.held:
            add("held_odds", f"{h.target} of {label}", f"holding {held_label(h.matching, h.joker)}, "
                f"{_rerolls(h.rerolls)} left", "probability", h.chance)
    for rule in sheet.all_rules:
        subject = pattern_name(rule.pattern)
        add("hold_rules", subject, "", "share of first rolls", rule.share)
        add("hold_rules", subject, _advice_text(rule), "share of the pattern's rolls agreeing", rule.agree)
        add("hold_rules", subject, _advice_text(rule), "mean margin over next best hold (potential points)", rule.margin)
    for s in sheet.risks:
        cells = " ".join(board.cell_name(c) for c in s.state.cells)
        add("failed_risk", s.state.name, f"available {cells}; start of turn", "probability", s.risk)
        if s.roll is not None:
            first = f"available {cells}; first roll {dice_codes(s.roll, rules)}"
            add("failed_risk", s.state.name, f"{first}, {_hold_text(s, rules)}", "probability", s.hold_risk)
            add("failed_risk", s.state.name, f"{first}, re-roll all dice", "probability", s.reroll_risk)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADERS)
    writer.writerows(rows)
    return out.getvalue()


# --- PNG heatmap ----------------------------------------------------------------------------------


def _face_lines(board: Board, rules: Ruleset, shelf: int) -> str:
    """A shelf's faces for a heatmap label, two per line (``cat/book``)."""
    names = [rules.sides[f].name for f in board.shelf_faces[shelf]]
    return "\n".join("/".join(names[i:i + 2]) for i in range(0, len(names), 2))


#: Heatmap colours of unavailable items (D4): marked items light, eliminated ones darker.
_STATE_COLOURS = {CellState.MARKED: "#e6e6e6", CellState.ELIMINATED: "#b3b3b3"}


def render_heatmap(sheet: CheatSheet) -> bytes:
    """The item odds as a PNG heatmap: chances written in the cells (with the item's points),
    shelves labelled with their faces and columns with their dice counts; unavailable items grey
    with their state. Sized for the printed page (about 86 mm wide for 5 columns, 300 dpi).

    Deterministic for a given matplotlib version: matplotlib's default style, the Agg canvas,
    and no ``Software`` metadata (which would carry the version).
    """
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    board, rules = sheet.board, sheet.rules
    grid = np.full((board.n_shelves, board.n_columns), np.nan)
    for item in sheet.items:
        if item.chance is not None:
            grid[board.shelf_of(item.cell), board.column_of(item.cell)] = float(item.chance)
    with matplotlib.style.context("default"):
        inches = (max(3.0, 1.0 + 0.48 * board.n_columns), max(1.8, 0.75 + 0.42 * board.n_shelves))
        fig = Figure(figsize=inches, dpi=300)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        cmap = matplotlib.colormaps["YlGnBu"].with_extremes(bad="white")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        for item in sheet.items:
            s, c = board.shelf_of(item.cell), board.column_of(item.cell)
            if item.chance is None:
                ax.add_patch(Rectangle((c - 0.5, s - 0.5), 1, 1, facecolor=_STATE_COLOURS[item.state], linewidth=0))
                text, colour, size, weight = item.state.name.lower(), "#333333", 4.6, "normal"
            else:
                text, size, weight = percent(item.chance, 1), 6.6, "bold"  # never a false 100.0%
                colour = "white" if float(item.chance) > 0.6 else "black"
            ax.text(c, s - 0.1, text, ha="center", va="center", fontsize=size, color=colour, fontweight=weight)
            ax.text(c, s + 0.27, f"{board.value(item.cell)} pt", ha="center", va="center", fontsize=4.6, color=colour)
        ax.set_xticks(range(board.n_columns), [f"col {c + 1}\n{_dice(n)}" for c, n in enumerate(board.columns)],
                      fontsize=5.2)
        ax.set_yticks(range(board.n_shelves), [f"shelf {s + 1}\n{_face_lines(board, rules, s)}"
                                               for s in range(board.n_shelves)], fontsize=5.2)
        ax.tick_params(length=0, pad=2)
        ax.set_xticks(np.arange(-0.5, board.n_columns, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, board.n_shelves, 1), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.2)
        ax.tick_params(which="minor", length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title("Chance to mark each item this turn", fontsize=6.6)
        bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.03, format=lambda x, _: f"{x * 100:.0f}%")
        bar.ax.tick_params(labelsize=4.6, length=2, width=0.5)
        bar.outline.set_linewidth(0.5)
        fig.tight_layout(pad=0.3)
        out = io.BytesIO()
        fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


# --- files ------------------------------------------------------------------------------------------


_RENDERERS: dict[str, Callable[[CheatSheet], str]] = {
    "markdown": lambda sheet: render_markdown(sheet),
    "html": lambda sheet: render_html(sheet),
    "csv": render_csv,
}


def sheet_files(sheet: CheatSheet, formats: tuple[str, ...] = ("markdown",)) -> dict[str, bytes]:
    """File name -> content for each of ``formats`` (``markdown``, ``html``, ``csv``; see
    :data:`SHEET_NAMES`), plus the PNG heatmap :data:`HEATMAP_NAME`, which comes with every format.

    Raises:
        OutputError: an unknown format.
    """
    for fmt in formats:
        if fmt not in _RENDERERS:
            raise OutputError(f"unknown cheat sheet format {fmt!r}; expected one of {', '.join(SHEET_FORMATS)}")
    files = {SHEET_NAMES[fmt]: _RENDERERS[fmt](sheet).encode("utf-8") for fmt in formats}
    files[HEATMAP_NAME] = render_heatmap(sheet)
    return files


def generate(board: Board, marks: Marks, rules: Ruleset, formats: tuple[str, ...] = ("markdown",),
             progress: Progress | None = None) -> dict[str, bytes]:
    """Compute a sheet and render it in ``formats`` (:func:`sheet_files`); nothing is written.

    ``progress(done, total)`` counts the steps of :func:`build_sheet`, then the rendering.

    Raises:
        MarksError: the marks do not fit the board. OutputError: an unknown format.
    """
    total = sheet_steps(board, marks, rules) + 1
    relay = (lambda done, _: progress(done, total)) if progress else None
    files = sheet_files(build_sheet(board, marks, rules, relay), formats)
    if progress:
        progress(total, total)
    return files


def check_output_dir(path: str | os.PathLike[str]) -> Path:
    """Check that ``path`` is, or can become, a writable directory; return it as a Path.

    Raises:
        OutputError: it is empty, a file, sits under a file, is not writable, or the operating
            system refuses to look at it (e.g. a name too long).
    """
    if not os.fspath(path):
        raise OutputError("--output is empty; expected a directory path (it is created if missing)")
    target = Path(path)
    try:
        if target.exists() and not target.is_dir():
            raise OutputError(f"--output {path} is a file; expected a directory (it is created if missing)")
        existing = target
        while not existing.exists():
            if existing.parent == existing:
                break
            existing = existing.parent
        if not existing.is_dir():
            raise OutputError(f"--output {path}: {existing} is a file, not a directory; expected a directory path")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise OutputError(f"--output {path}: directory {existing} is not writable; choose a writable directory")
    except OSError as error:
        raise OutputError(f"--output {path}: {error.strerror or error}; expected a writable directory path") from None
    return target


def write_files(files: dict[str, bytes], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write every file into ``out_dir`` (created if missing) whole or not at all.

    Each file goes to a temporary file in ``out_dir`` first; only when every temporary file is
    written are they moved into place with ``os.replace`` (:func:`files.replace_all`). On failure
    the temporary files, and any directory this call created, are removed and nothing else
    changes.

    Returns:
        The paths written, in ``files`` order.
    Raises:
        OutputError: ``out_dir`` is a file or unwritable, a target name is a directory (or another
            non-regular file), or a write failed (one line, naming the path).
    """
    target = check_output_dir(out_dir)
    created = [p for p in [target, *target.parents] if not p.exists()]
    try:
        target.mkdir(parents=True, exist_ok=True)
        replace_all({target / name: data for name, data in files.items()})
    except (OSError, FileWriteError) as error:
        for directory in created:  # deepest first
            try:
                directory.rmdir()
            except OSError:
                pass
        if isinstance(error, FileWriteError):  # names the file and the reason
            raise OutputError(f"--output {out_dir}: {error}") from None
        reason = error.strerror or str(error)
        raise OutputError(f"cannot write the cheat sheet to --output {out_dir}: {reason}") from None
    return [target / name for name in files]
