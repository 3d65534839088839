"""The Joker's two rules on final dice: standing in inside one combination (D11) and the
all-Jokers roll (D12), in one place for the allocator, the odds targets and the cheat sheet.

* D11: a Joker stands in for a die of a combination's face, at most ``jokers_per_group`` of
  them per combination and never a combination of Jokers only unless the ruleset allows it
  (the cap is :meth:`Ruleset.joker_cap`). :func:`holds_combination` applies it to one face,
  :func:`spread_jokers` to several combinations met together.
* D12: when every die shows the Joker and the ruleset lets that mark any one available item
  (``all_jokers_mark_any``), that roll (:func:`all_jokers_roll`, :func:`is_all_jokers`) marks
  one item of the player's choice; it is still no combination (D11), so it meets no set of
  ``n`` dice and no target of several terms.

docs/rules.md and docs/engine.md describe both rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import overload

import numpy as np

from shelfie_solver.dice.rolls import Counts
from shelfie_solver.dice.rules import Ruleset


@overload
def holds_combination(matching: int, jokers: int, size: int, rules: Ruleset) -> bool: ...


@overload
def holds_combination(matching: np.ndarray, jokers: np.ndarray, size: int, rules: Ruleset) -> np.ndarray: ...


def holds_combination(matching: int | np.ndarray, jokers: int | np.ndarray, size: int,
                      rules: Ruleset) -> bool | np.ndarray:
    """Whether ``matching`` dice showing one item face plus ``jokers`` Jokers hold a combination
    of ``size`` dice of that face (D8, D11: at most :meth:`Ruleset.joker_cap` Jokers stand in).
    D12 is not applied (:func:`is_all_jokers`).

    Args:
        matching, jokers: dice counts, Python ints or int64 arrays of one shape (elementwise).
        size: dice in the combination (``n``).

    Returns:
        A ``bool`` for ints, a ``bool`` array of the inputs' shape for arrays.
    """
    cap = rules.joker_cap(size)
    usable = np.minimum(jokers, cap) if isinstance(jokers, np.ndarray) else min(jokers, cap)
    result: bool | np.ndarray = matching + usable >= size
    return result


def spread_jokers(deficit: Mapping[int, int], groups: Iterable[tuple[int, int]], rules: Ruleset) -> list[int]:
    """The Jokers standing in within each combination of a feasible choice (D11), in order: each
    combination ``(face, size)`` takes as many as its face still lacks, within its cap.

    Args:
        deficit: per item face, the dice its combinations demand beyond those showing it (only
            the faces of ``groups`` are read); the Jokers rolled cover the sum.
        groups: each combination's face (side number) and size, in order.

    Returns:
        Jokers per combination; with the dice of its face they fill it.
    """
    left = dict(deficit)
    spread = []
    for face, size in groups:
        used = min(left[face], rules.joker_cap(size))
        left[face] -= used
        spread.append(used)
    return spread


def all_jokers_roll(rules: Ruleset) -> Counts | None:
    """The roll D12 applies to, every die showing the Joker, as counts per side (length
    ``rules.n_sides``); ``None`` when the ruleset has no Joker or the all-Jokers roll marks no
    item there (``all_jokers_mark_any`` off)."""
    joker = rules.joker_index
    if joker is None or not rules.all_jokers_mark_any:
        return None
    return tuple(rules.dice if i == joker else 0 for i in range(rules.n_sides))


def is_all_jokers(counts: Counts, rules: Ruleset) -> bool:
    """Whether D12 applies: every die shows the Joker and the ruleset lets that mark any item."""
    return tuple(counts) == all_jokers_roll(rules)
