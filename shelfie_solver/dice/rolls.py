"""Dice as multisets of faces: parsing, formatting, and the re-roll transitions (D6, D7).

A dice multiset is a tuple of counts, one per side of the ruleset (item faces, then the
Joker). :class:`DiceSpace` indexes every multiset a turn can reach and holds the exact re-roll
transition weights as integers over the common denominator ``sides ** dice``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import product

import numpy as np

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.errors import DiceError, RulesError
from shelfie_solver.dice.rules import Ruleset

Counts = tuple[int, ...]
_SEPARATORS = re.compile(r"[\s,;]+")


def parse_dice(text: str, rules: Ruleset, *, count: int | None = None) -> Counts:
    """Parse dice from one-letter codes (``CCBJPP``, case-insensitive) or face names as whole
    words (``cat cat book joker plant plant``; plurals ``cats``, ``jokers`` name one die each),
    separated by spaces, commas or semicolons (docs/formats.md).

    Args:
        text: the dice as typed.
        rules: the ruleset naming the faces.
        count: the number of dice expected: ``None`` (default) means ``rules.dice``; ``-1``
            accepts any number from 0 to ``rules.dice`` (a partial hold).

    Returns:
        Counts per side, length ``rules.n_sides``.

    Raises:
        DiceError: an unknown word (reported whole) or the wrong number of dice.
    """
    expected = rules.dice if count is None else count
    words = [w for w in _SEPARATORS.split(text.strip()) if w]
    faces: list[int] = []
    for word in words:
        faces.extend(_word_faces(word, rules))
    if expected >= 0 and len(faces) != expected:
        raise DiceError(f"got {len(faces)} dice in {shorten(text)}; expected {expected}, e.g. "
                        f"{_example(rules, expected)} ({_legend(rules)})")
    if len(faces) > rules.dice:
        raise DiceError(f"got {len(faces)} dice in {shorten(text)}; at most {rules.dice} ({_legend(rules)})")
    counts = [0] * rules.n_sides
    for face in faces:
        counts[face] += 1
    return tuple(counts)


def names_faces(word: str, rules: Ruleset) -> bool:
    """Whether one typed word names dice (a face name, a plural, or a run of codes; any count),
    so that a caller can tell a mistyped command from mistyped dice."""
    try:
        _word_faces(word, rules)
    except DiceError:
        return False
    return True


def _word_faces(word: str, rules: Ruleset) -> list[int]:
    """The faces one word names: a face name or code, a plural name (``cats``, ``boxes``), or a
    run of one-letter codes (``CCBJPP``)."""
    names = {face.name.lower(): i for i, face in enumerate(rules.sides)}
    lower = word.lower()
    for candidate in (lower, lower.removesuffix("s"), lower.removesuffix("es")):
        if candidate in names:
            return [names[candidate]]
    faces = []
    for char in word:
        try:
            faces.append(rules.face_index(char))
        except RulesError:
            hint = f"not a face name, and {char!r} is not a face code" if len(word) > 1 else "not a face code"
            raise DiceError(f"unknown face {shorten(word)} ({hint}); expected names "
                            f"({', '.join(f.name for f in rules.sides)}; plurals allowed) or codes "
                            f"({_legend(rules)})") from None
    return faces


def _legend(rules: Ruleset) -> str:
    return ", ".join(f"{f.code}={f.name}" for f in rules.sides)


def _example(rules: Ruleset, n: int) -> str:
    codes = [f.code for f in rules.sides]
    return "".join(codes[i % len(codes)] for i in range(n)) or "''"


def dice_codes(counts: Counts, rules: Ruleset) -> str:
    """One-letter codes in the ruleset's side order, Joker last, e.g. ``PPBCCJ``; ``""`` for none."""
    return "".join(rules.sides[i].code * n for i, n in enumerate(counts))


def not_among(keep: Counts, dice: Counts, rules: Ruleset) -> str:
    """Why ``keep`` is not a part of ``dice`` (counts per side), face by face in the ruleset's
    order: ``the dice PPCCJJ show only 2 P`` (``and 1 J``...); one wording for every refusal of a
    hold (D7). ``""`` when ``keep`` is a part of ``dice``."""
    short = [f"{d} {rules.sides[i].code}" for i, (k, d) in enumerate(zip(keep, dice)) if k > d]
    if not short:
        return ""
    return f"the dice {dice_codes(dice, rules) or 'showing'} show only {' and '.join(short)}"


def dice_names(counts: Counts, rules: Ruleset) -> str:
    """Face names, e.g. ``plant plant cat joker``."""
    return " ".join(rules.sides[i].name for i, n in enumerate(counts) for _ in range(n))


@cache
def multisets(n_sides: int, size: int) -> tuple[Counts, ...]:
    """Every multiset of ``size`` dice over ``n_sides`` sides, in lexicographic order of counts
    (descending), as count tuples. There are C(size + n_sides - 1, size) of them."""
    if n_sides == 1:
        return ((size,),)
    out: list[Counts] = []
    for first in range(size, -1, -1):
        out.extend((first,) + rest for rest in multisets(n_sides - 1, size - first))
    return tuple(out)


def multinomial(counts: Counts) -> int:
    """Number of ordered rolls giving this multiset: ``n! / prod(c_i!)``."""
    result = math.factorial(sum(counts))
    for c in counts:
        result //= math.factorial(c)
    return result


@dataclass(frozen=True, eq=False)
class DiceSpace:
    """Every dice multiset a turn can reach, with exact re-roll transitions (D6, D7).

    Attributes:
        n_dice: dice per roll. n_sides: equally likely sides per die.
        rolls: the full rolls (multisets of ``n_dice``), shape ``(R,)`` list of counts.
        holds: every multiset of 0..n_dice dice (what a player may keep), ``(H,)`` list.
        roll_counts: ``int64 (R, n_sides)`` counts of each roll.
        denominator: ``n_sides ** n_dice``; every transition weight is over it.

    For a hold ``h`` of ``k`` dice the re-roll of ``n_dice - k`` dice reaches roll ``h + o``
    with probability ``multinomial(o) / n_sides ** (n_dice - k)``; it is stored as the integer
    weight ``multinomial(o) * n_sides ** k`` over :attr:`denominator`, so each row sums to it.
    """

    n_dice: int
    n_sides: int

    @cached_property
    def rolls(self) -> list[Counts]:
        return list(multisets(self.n_sides, self.n_dice))

    @cached_property
    def roll_index(self) -> dict[Counts, int]:
        return {r: i for i, r in enumerate(self.rolls)}

    @cached_property
    def holds(self) -> list[Counts]:
        return [h for k in range(self.n_dice, -1, -1) for h in multisets(self.n_sides, k)]

    @cached_property
    def hold_index(self) -> dict[Counts, int]:
        return {h: i for i, h in enumerate(self.holds)}

    @cached_property
    def roll_counts(self) -> np.ndarray:
        return np.array(self.rolls, dtype=np.int64).reshape(len(self.rolls), self.n_sides)

    @cached_property
    def hold_sizes(self) -> np.ndarray:
        return np.array([sum(h) for h in self.holds], dtype=np.int64)

    @property
    def denominator(self) -> int:
        return int(self.n_sides ** self.n_dice)

    @cached_property
    def _tables(self) -> dict[str, np.ndarray]:
        """:attr:`transitions` and :attr:`sub_holds`, from the disk cache when there
        (:mod:`diskcache`, keyed by dice and sides) or built."""
        from shelfie_solver.core.diskcache import all_within, load_or_build, row_starts_fit

        def build() -> dict[str, np.ndarray]:
            starts, columns, weights = self._build_transitions()
            return {"starts": starts, "columns": columns, "weights": weights, "sub_holds": self._build_sub_holds()}

        holds, rolls = len(self.holds), len(self.rolls)

        def check(found: dict[str, np.ndarray]) -> bool:  # every index in range, else rebuilt
            return (row_starts_fit(found["starts"], len(found["columns"]))
                    and all_within(found["columns"], 0, rolls) and all_within(found["sub_holds"], 0, holds + 1))

        return load_or_build("space", f"{self.n_dice} dice, {self.n_sides} sides",
                             {"starts": (holds,), "columns": ("transitions",), "weights": ("transitions",),
                              "sub_holds": (rolls, "sub-holds")}, build, check)

    @cached_property
    def transitions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR arrays ``(row_starts (H,), roll columns (nnz,), int64 weights (nnz,))``.

        Row ``h`` lists the rolls reachable by keeping hold ``h`` and re-rolling the rest;
        weights sum to :attr:`denominator` on every row.
        """
        tables = self._tables
        return tables["starts"], tables["columns"], tables["weights"]

    def _build_transitions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        starts, columns, weights = [], [], []
        hold_arr = np.array(self.holds, dtype=np.int64).reshape(len(self.holds), self.n_sides)
        sizes = hold_arr.sum(axis=1)
        position = 0
        for kept in range(self.n_dice, -1, -1):  # holds are listed by size, largest first
            holds = np.flatnonzero(sizes == kept)
            outcomes = multisets(self.n_sides, self.n_dice - kept)
            ways = np.array([multinomial(o) for o in outcomes], dtype=np.int64) * self.n_sides ** kept
            reached = hold_arr[holds][:, None, :] + np.array(outcomes, dtype=np.int64)[None, :, :]
            columns.append(self._roll_positions(reached.reshape(-1, self.n_sides)))
            weights.append(np.tile(ways, len(holds)))
            starts.append(position + np.arange(len(holds)) * len(outcomes))
            position += len(holds) * len(outcomes)
        return np.concatenate(starts), np.concatenate(columns), np.concatenate(weights)

    def _roll_positions(self, counts: np.ndarray) -> np.ndarray:
        """Indices in :attr:`rolls` of full rolls given as ``(N, n_sides)`` counts."""
        keys = self._keys(counts)
        order = np.argsort(self._roll_keys)
        return order[np.searchsorted(self._roll_keys, keys, sorter=order)]

    def _keys(self, counts: np.ndarray) -> np.ndarray:
        base = self.n_dice + 1
        return counts @ (base ** np.arange(self.n_sides, dtype=np.int64))

    @cached_property
    def _roll_keys(self) -> np.ndarray:
        return self._keys(self.roll_counts)

    @cached_property
    def sub_holds(self) -> np.ndarray:
        """``int64 (R, M)``: for each roll, the indices of its distinct sub-multisets (the holds it
        allows, in :meth:`holds_of` order), padded with ``H = len(holds)`` (one past the last
        hold, so callers append a sentinel row); ``M`` is the largest number of distinct holds
        of a roll."""
        return self._tables["sub_holds"]

    def _build_sub_holds(self) -> np.ndarray:
        # Enumerate each roll's sub-multisets side by side (roll r keeps 0..c_s dice of side s):
        # memory in the number of (roll, sub-hold) pairs, never rolls x holds x sides.
        counts = self.roll_counts
        owner = np.arange(len(self.rolls))
        kept = np.zeros((len(owner), 0), dtype=np.int8)
        for side in range(self.n_sides):
            ways = counts[owner, side] + 1
            starts = np.cumsum(ways) - ways
            value = (np.arange(int(ways.sum())) - np.repeat(starts, ways)).astype(np.int8)
            owner = np.repeat(owner, ways)
            kept = np.concatenate([np.repeat(kept, ways, axis=0), value[:, None]], axis=1)
        base = (self.n_dice + 1) ** np.arange(self.n_sides, dtype=np.int64)
        hold_keys = np.array(self.holds, dtype=np.int64).reshape(len(self.holds), self.n_sides) @ base
        by_key = np.argsort(hold_keys)
        holds = by_key[np.searchsorted(hold_keys, kept.astype(np.int64) @ base, sorter=by_key)]
        order = np.lexsort((holds, owner))  # each roll's holds in hold order
        owner, holds = owner[order], holds[order]
        per_roll = np.bincount(owner, minlength=len(self.rolls))
        slot = np.arange(len(owner)) - np.repeat(np.cumsum(per_roll) - per_roll, per_roll)
        table = np.full((len(self.rolls), int(per_roll.max())), len(self.holds), dtype=np.int64)
        table[owner, slot] = holds
        return table

    def holds_of(self, roll: Counts) -> list[Counts]:
        """Distinct holds a roll allows (every sub-multiset), from keeping all to keeping none."""
        subs = [tuple(s) for s in product(*(range(c, -1, -1) for c in roll))]
        return sorted(subs, key=lambda h: (-sum(h), [-x for x in h]))

    def expect(self, values: np.ndarray) -> np.ndarray:
        """Exact expectation over re-rolls: ``(H, Q)`` integers equal to
        ``denominator * E[values[next roll] | hold]`` for ``values`` of shape ``(R, Q)``.

        ``values`` may be int64 or Python-int ``object`` arrays (used when int64 could overflow).
        """
        starts, columns, weights = self.transitions
        w = weights if values.dtype != object else weights.astype(object)
        # one column at a time: gathering a 1-D column is several times faster than 2-D rows
        return np.stack([np.add.reduceat(w * values[columns, q], starts) for q in range(values.shape[1])], axis=1)


@cache
def dice_space(n_dice: int, n_sides: int) -> DiceSpace:
    """The shared :class:`DiceSpace` for a number of dice and sides (built once per process)."""
    return DiceSpace(n_dice, n_sides)


def space_for(rules: Ruleset) -> DiceSpace:
    """The :class:`DiceSpace` of a ruleset."""
    return dice_space(rules.dice, rules.n_sides)
