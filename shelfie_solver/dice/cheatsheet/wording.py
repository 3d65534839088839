"""Holds and roll patterns in words, for the hold rules of thumb (section 3, docs/cheatsheet.md).

A roll's *pattern* (:data:`Pattern`, :func:`pattern_of`) is its sorted face-count signature plus
its Jokers; :func:`pattern_name` says it ("three of a kind, two singles and a Joker") and
:func:`describe_hold` says a hold in the roll's pattern terms ("keep one pair, one die of another
pair and the Joker"; holds: D7, Jokers: D11), optionally naming which groups by a face order
(:data:`ORDER_MARK`). The small helpers (:func:`number_word`, :func:`group_name`, :func:`joined`,
:func:`dice_text`) are shared by every section's wording.
"""

from __future__ import annotations

from typing import overload

from shelfie_solver.dice.rolls import Counts
from shelfie_solver.dice.rules import Ruleset

Pattern = tuple[tuple[int, ...], int]
"""A roll's pattern: its item-face counts sorted in decreasing order (zeros dropped), and its
Jokers, e.g. ``((3, 1, 1), 1)`` = three of a kind, two singles and a Joker."""

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def number_word(n: int) -> str:
    """``n`` in words up to twelve (``no``, ``one``, ...), digits above."""
    return _WORDS[n] if n < len(_WORDS) else str(n)


def group_name(size: int, plural: bool = False) -> str:
    """A group of ``size`` matching dice: ``single``, ``pair``, ``three of a kind`` (``plural``:
    ``singles``, ``pairs``, ``three-of-a-kinds``)."""
    if size == 1:
        return "singles" if plural else "single"
    if size == 2:
        return "pairs" if plural else "pair"
    return f"{number_word(size)}-of-a-kinds" if plural else f"{number_word(size)} of a kind"


def joined(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (``parts`` not empty)."""
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
        parts.append(f"{'a' if size < 3 else ''} {group_name(size)}".strip() if count == 1
                     else f"{number_word(count)} {group_name(size, plural=True)}")
    if jokers:
        parts.append("a Joker" if jokers == 1 else f"{number_word(jokers)} Jokers")
    return joined(parts)


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
    return words if order is None else ordered_words(words, unequal_groups(roll, hold, rules), order, rules)


def unequal_groups(roll: Counts, hold: Counts, rules: Ruleset) -> list[dict[int, int]]:
    """For each group size whose groups ``hold`` keeps unequally: ``{face: dice kept}``."""
    out = []
    for size in set(roll[: rules.n_faces]) - {0}:
        kept = {f: hold[f] for f in range(rules.n_faces) if roll[f] == size}
        if len(set(kept.values())) > 1:
            out.append(kept)
    return out


def ordered_words(words: str, unequal: list[dict[int, int]], order: tuple[int, ...], rules: Ruleset) -> str | None:
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
            every = "both Jokers" if rolled == 2 else f"all {number_word(rolled)} Jokers"
            parts.append("the Joker" if rolled == 1 else every)
        else:
            parts.append(f"{number_word(held)} Joker{'s' if held > 1 else ''}")
    return "keep " + joined(parts)


def _kept_phrase(size: int, kept: int, groups_kept: int, groups_rolled: int, whole_too: bool) -> str:
    """Words for keeping ``kept`` dice from each of ``groups_kept`` of the roll's
    ``groups_rolled`` groups of ``size`` matching dice; ``whole_too``: another group of that
    size is kept whole."""
    if kept == size:
        if groups_kept == groups_rolled:
            if groups_rolled == 1:
                return f"the {group_name(size)}"
            both = "both" if groups_rolled == 2 else f"all {number_word(groups_rolled)}"
            return f"{both} {group_name(size, plural=True)}"
        if size <= 2:
            return f"{number_word(groups_kept)} {group_name(size, plural=groups_kept > 1)}"
        return f"{number_word(groups_kept)} of the {number_word(groups_rolled)} {group_name(size, plural=True)}"
    dice = f"{number_word(kept)} {'die' if kept == 1 else 'dice'}"
    if groups_rolled == 1:
        return f"{dice} of the {group_name(size)}"
    if groups_kept == 1:
        return f"{dice} of {'another' if whole_too else 'one'} {group_name(size)}"
    if groups_kept == groups_rolled:
        return f"{dice} of each {group_name(size)}"
    other = "other " if whole_too else ""
    return f"{dice} of each of {number_word(groups_kept)} {other}{group_name(size, plural=True)}"


#: The words marking a hold that names its groups by a face order.
ORDER_MARK = "faces in order"


def dice_text(n: int) -> str:
    """``1 die``, ``3 dice``."""
    return f"{n} die" if n == 1 else f"{n} dice"
