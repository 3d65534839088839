"""Odds targets: the grammar, immutable target objects, and their indicator over final rolls.

Grammar (whitespace anywhere is ignored; face codes and names are case-insensitive)::

    target      := alternative ( "|" alternative )*      "|" = or
    alternative := term ( "+" term )*                      "+" = and, with disjoint dice
    term        := COUNT FACE                              3C, 3cat: three dice of that face
                 | COUNT "*"                               5*: five dice of any one face
                 | "r" SHELF "c" COLUMN                    r2c4: mark that item (1-based)

``+`` binds tighter than ``|``: ``3C+2B|5*`` is ``(3C and 2B) or 5*``.

Meaning (RULES.md ids). Every term is one *combination* (group, D8) and the terms of an
alternative use disjoint dice (D9):

* ``nF`` — a group of exactly ``n`` dice showing face ``F``; Jokers stand in as in D11 (at most
  ``jokers_per_group`` per group, never a group of Jokers only unless the ruleset allows it).
* ``n*`` — the same for any one item face (each ``*`` term picks its own face).
* ``rXcY`` — a group that marks that available item (D8: the column's number of dice, one face
  the shelf accepts; D11 for Jokers). The items of an alternative are marked in the same turn,
  so there are at most ``combinations_per_turn`` of them (D9).
* D12: when every die shows the Joker and the ruleset lets that mark any one item, an
  alternative of a *single* term is met (the six Jokers act as that one combination); an
  alternative of several terms is not (one item, not three).

A roll meets an alternative when one choice of face per term and one assignment of the dice
gives every term its group. As in :mod:`allocate`, once the faces are chosen this is a flow
problem made of independent stars plus the shared Joker supply, so it has a closed form: with
``d_f`` dice demanded of face ``f``, ``c_f`` showing, ``k_f`` the sum of the Joker caps of the
groups of ``f`` and ``J`` Jokers, the most dice that can be placed is

    progress = sum_f min(c_f, d_f) + min(J, sum_f min(k_f, d_f - min(c_f, d_f)))

and the roll meets the alternative exactly when ``progress == sum_f d_f`` (the allocator's
deficit check). ``progress`` is also what the baseline policy keeps (:meth:`CompiledTarget.fits`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rolls import Counts, DiceSpace
from shelfie_solver.dice.errors import BoardError, RulesError, TargetError
from shelfie_solver.dice.joker import all_jokers_roll, spread_jokers
from shelfie_solver.dice.rules import Ruleset

#: One line describing the grammar, appended to every :class:`TargetError`.
GRAMMAR = ("expected TERM[+TERM...][|TERM[+TERM...]...] where TERM is <count><face> (3C or 3cat), "
           "<count>* (any one face, e.g. 5*) or an item r<shelf>c<column> (r2c4); "
           "e.g. 3C+2B, 4C|4B, r2c4|r2c5")

# ASCII digits only: int() would also read "３" or "٣", which are no counts here.
_ITEM = re.compile(r"r([0-9]+)c([0-9]+)", re.IGNORECASE | re.ASCII)
_COUNT = re.compile(r"[0-9]+", re.ASCII)
#: Most characters of the user's input quoted in an error message; longer input is cut with '…'.
ECHO_LIMIT = 60
#: Most significant digits read as a shelf or column number (no board is that large).
_ITEM_DIGITS = 6


# --- target objects -------------------------------------------------------------------------


@dataclass(frozen=True)
class DiceTerm:
    """``count`` dice of one face: ``face`` is the face's code as the ruleset spells it
    (e.g. ``"C"``), or ``None`` for ``*`` (any one item face)."""

    count: int
    face: str | None

    def __str__(self) -> str:
        return f"{self.count}{self.face if self.face is not None else '*'}"


@dataclass(frozen=True)
class ItemTerm:
    """The item at ``shelf``, ``column`` (both 1-based, as in ``r2c4``)."""

    shelf: int
    column: int

    def __str__(self) -> str:
        return f"r{self.shelf}c{self.column}"


Term = DiceTerm | ItemTerm


@dataclass(frozen=True)
class Alternative:
    """Terms met together, each by its own disjoint group of dice (``+``)."""

    terms: tuple[Term, ...]

    def __str__(self) -> str:
        return "+".join(map(str, self.terms))

    @property
    def items(self) -> tuple[ItemTerm, ...]:
        """The item terms, in order."""
        return tuple(t for t in self.terms if isinstance(t, ItemTerm))


@dataclass(frozen=True)
class Target:
    """A parsed target: met when any alternative is met (``|``).

    ``str(target)`` is the canonical text (codes, no spaces); ``parse_target(str(t), rules) == t``.
    """

    alternatives: tuple[Alternative, ...]

    def __str__(self) -> str:
        return "|".join(map(str, self.alternatives))

    @property
    def has_items(self) -> bool:
        """Whether some term names a board item (then a board and marks are needed)."""
        return any(alt.items for alt in self.alternatives)


# --- parsing ----------------------------------------------------------------------------------


def _cut(text: str) -> str:
    """``text`` cut to :data:`ECHO_LIMIT` characters (ending in '…' when cut), so a huge target
    does not make a huge error message."""
    return text if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT - 1] + "…"


def _quote(text: str) -> str:
    return repr(_cut(text))


def _error(text: str, problem: str) -> TargetError:
    return TargetError(f"bad target {_quote(text)}: {problem}; {GRAMMAR}")


def parse_target(text: str, rules: Ruleset) -> Target:
    """Parse a target (module docstring grammar) against a ruleset's faces and dice.

    Args:
        text: e.g. ``"3C+2B"``, ``"r2c4 | r2c5"``, ``"5*"``, ``"3cat+2book"``.
        rules: names the faces and the number of dice.

    Returns:
        The :class:`Target`, with faces stored as the ruleset's codes.

    Raises:
        TargetError: one line naming the problem and showing the grammar — an empty target or
            term, an unknown face, the Joker as a face, a count of 0 or more than the dice, an
            alternative needing more dice than are rolled, an item named twice in one
            alternative, or more items in one alternative than ``combinations_per_turn`` (D9).
    """
    compact = "".join(text.split())
    if not compact:
        raise _error(text, "the target is empty")
    alternatives = []
    for alt_text in compact.split("|"):
        if not alt_text:
            raise _error(text, "an empty alternative around '|'")
        terms = []
        for term_text in alt_text.split("+"):
            if not term_text:
                raise _error(text, f"an empty term around '+' in {_quote(alt_text)}")
            terms.append(_parse_term(term_text, text, rules))
        alternative = Alternative(tuple(terms))
        _check_alternative(alternative, text, rules)
        alternatives.append(alternative)
    return Target(tuple(alternatives))


def _parse_term(term: str, text: str, rules: Ruleset) -> Term:
    item = _ITEM.fullmatch(term)
    if item:
        if any(len(digits.lstrip("0")) > _ITEM_DIGITS for digits in item.groups()):
            raise _error(text, f"item {_quote(term)} is not on any board")
        shelf, column = int(item.group(1)), int(item.group(2))
        if shelf < 1 or column < 1:
            raise _error(text, f"item {_quote(term)} must count shelves and columns from 1 (r1c1 is the top-left item)")
        return ItemTerm(shelf, column)
    match = _COUNT.match(term)
    if not match:
        raise _error(text, f"{_quote(term)} is neither <count><face>, <count>* nor an item r<shelf>c<column>")
    # The count is every leading digit, unless a digit face code (the classic dice "1".."6")
    # needs the last ones: take the longest count that leaves a face, so "51" is five ones,
    # "12" one two, "100C" a hundred cats (too many) and "003C" three cats.
    digits = match.group()
    width = next((w for w in range(len(digits), 0, -1) if _is_face_or_any(term[w:], rules)), len(digits))
    count_text, rest = term[:width].lstrip("0") or "0", term[width:]
    if not rest:
        raise _error(text, f"{_quote(term)} has a count but no face")
    face = None if rest == "*" else _face_code(rest, rules)
    if rest != "*" and face is None:
        raise _error(text, f"unknown face {_quote(rest)} in {_quote(term)} (faces: {_legend(rules)})")
    if rules.joker is not None and face == rules.joker.code:
        raise _error(text, f"{_quote(term)}: the {rules.joker.name} is not an item face; "
                           f"it only stands in for one inside a group (D11)")
    # Compare the digits' length first: int() of thousands of digits is slow, or refused.
    if len(count_text) > len(str(rules.dice)) or not 1 <= int(count_text) <= rules.dice:
        raise _error(text, f"{_quote(term)} needs {_cut(count_text)} dice; a term needs 1 to {rules.dice} "
                           "(the dice rolled)")
    return DiceTerm(int(count_text), face)


def _is_face_or_any(word: str, rules: Ruleset) -> bool:
    """Whether ``word`` is ``*`` or a side's code or name."""
    return word == "*" or (bool(word) and _face_code(word, rules) is not None)


def _face_code(word: str, rules: Ruleset) -> str | None:
    """The ruleset's code of a side given by code or name (case-insensitive), or ``None``."""
    try:
        return rules.sides[rules.face_index(word)].code
    except RulesError:
        return None


def _legend(rules: Ruleset) -> str:
    return ", ".join(f"{f.code}={f.name}" for f in rules.faces)


def _check_alternative(alternative: Alternative, text: str, rules: Ruleset) -> None:
    dice = sum(t.count for t in alternative.terms if isinstance(t, DiceTerm))
    if dice > rules.dice:
        raise _error(text, f"{_cut(str(alternative))} needs {dice} dice but only {rules.dice} are rolled")
    items = alternative.items
    if len(set(items)) != len(items):
        raise _error(text, f"{_cut(str(alternative))} names an item twice; each item is marked once (D4)")
    if len(items) > rules.combinations_per_turn:
        raise _error(text, f"{_cut(str(alternative))} names {len(items)} items but at most "
                           f"{rules.combinations_per_turn} are marked in one turn (D9)")


def describe(target: Target, rules: Ruleset) -> str:
    """The target in words, e.g. ``3 cat dice + 1 book die, or 4 of any one face`` (dice of a face:
    the face's name needs no plural of its own, whatever a ruleset names it)."""
    def term_words(term: Term) -> str:
        if isinstance(term, ItemTerm):
            return f"item {term}"
        if term.face is None:
            return f"{term.count} of any one face"
        return f"{term.count} {rules.sides[rules.face_index(term.face)].name} {'die' if term.count == 1 else 'dice'}"

    return ", or ".join(" + ".join(map(term_words, alt.terms)) for alt in target.alternatives)


# --- compiled targets: the indicator and the baseline fit over every roll ---------------------


@dataclass(frozen=True)
class Requirement:
    """One term as a group to fill (D8, D11).

    Attributes:
        faces: side numbers the group may show (one for ``nF``, all item faces for ``n*``,
            the shelf's faces for an item).
        size: dice in the group.
        cap: most Jokers in the group (:meth:`Ruleset.joker_cap`, D11).
    """

    faces: tuple[int, ...]
    size: int
    cap: int


@dataclass(frozen=True)
class FaceChoice:
    """One face per requirement of an alternative, aggregated per face.

    Attributes:
        faces: the chosen side number of each requirement, in order.
        demand: ``(n_faces,)`` dice demanded of each item face.
        cap: ``(n_faces,)`` the sum of the Joker caps of the groups of each face.
    """

    faces: tuple[int, ...]
    demand: tuple[int, ...]
    cap: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class FitTable:
    """The baseline's view of every roll (:meth:`CompiledTarget.fits`).

    Attributes:
        meets: ``bool (R,)`` whether the roll meets the target (D8-D12).
        keep: ``int64 (R, n_sides)`` the dice that already fit the best-fitting alternative:
            the whole roll when it meets the target (stop), else the fit.
        alternative: ``int64 (R,)`` the index of that alternative.
    """

    meets: np.ndarray
    keep: np.ndarray
    alternative: np.ndarray


@dataclass(frozen=True, eq=False)
class CompiledTarget:
    """A target resolved against a ruleset (and a board and marks for items).

    Attributes:
        target: the parsed target.
        rules: the ruleset.
        alternatives: per alternative, its requirements in term order.
    """

    target: Target
    rules: Ruleset
    alternatives: tuple[tuple[Requirement, ...], ...]

    def needed(self, alternative: int) -> int:
        """Dice the alternative uses when met (without D12)."""
        return sum(r.size for r in self.alternatives[alternative])

    def choices(self, alternative: int) -> list[FaceChoice]:
        """The distinct (demand, cap) face choices of an alternative, in a fixed order (first
        seen when trying each requirement's faces in side order); duplicates, which arise
        from interchangeable ``*`` terms, are dropped."""
        return self._choices[alternative]

    @cached_property
    def _choices(self) -> list[list[FaceChoice]]:
        n = self.rules.n_faces
        out = []
        for requirements in self.alternatives:
            seen: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {((0,) * n, (0,) * n): ()}
            for req in requirements:
                grown: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
                for (demand, cap), faces in seen.items():
                    for f in req.faces:
                        d, c = list(demand), list(cap)
                        d[f] += req.size
                        c[f] += req.cap
                        grown.setdefault((tuple(d), tuple(c)), faces + (f,))
                seen = grown
            out.append([FaceChoice(faces, d, c) for (d, c), faces in seen.items()])
        return out

    def _all_jokers(self, counts: np.ndarray) -> np.ndarray:
        """``bool (R,)``: D12 applies to the roll (every die a Joker, the ruleset allowing it:
        :func:`joker.all_jokers_roll`)."""
        roll = all_jokers_roll(self.rules)
        if roll is None:
            return np.zeros(len(counts), dtype=bool)
        return np.asarray((counts == np.array(roll, dtype=np.int64)).all(axis=1), dtype=bool)

    def _progress(self, alternative: int, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every roll (rows of ``counts``, ``(R, n_sides)``) and face choice ``s`` of the
        alternative: ``progress (R, S)`` dice placed, ``used (R, S, n_faces)`` face dice placed
        and ``jokers (R, S)`` Jokers placed (module docstring formula)."""
        choices = self.choices(alternative)
        n = self.rules.n_faces
        demand = np.array([c.demand for c in choices], dtype=np.int64).reshape(-1, n)
        cap = np.array([c.cap for c in choices], dtype=np.int64).reshape(-1, n)
        faces = counts[:, None, :n]
        used = np.minimum(faces, demand[None])
        room = np.minimum(cap[None], demand[None] - used).sum(axis=2)
        j = self.rules.joker_index
        available = counts[:, j] if j is not None else np.zeros(len(counts), dtype=np.int64)
        jokers = np.minimum(available[:, None], room)
        return used.sum(axis=2) + jokers, used, jokers

    def meets(self, counts: np.ndarray) -> np.ndarray:
        """``bool (R,)``: which rolls (``int (R, n_sides)`` counts) meet the target (D8-D12)."""
        counts = np.asarray(counts, dtype=np.int64).reshape(-1, self.rules.n_sides)
        result = np.zeros(len(counts), dtype=bool)
        all_jokers = self._all_jokers(counts)
        for a, requirements in enumerate(self.alternatives):
            progress, _, _ = self._progress(a, counts)
            result |= (progress == self.needed(a)).any(axis=1)
            if len(requirements) == 1:
                result |= all_jokers  # D12: six Jokers act as any one combination
        return result

    def indicator(self, space: DiceSpace) -> np.ndarray:
        """``int64 (R,)``: 1 where a final roll of ``space.rolls`` meets the target, else 0."""
        return self.meets(space.roll_counts).astype(np.int64)

    def fits(self, space: DiceSpace) -> FitTable:
        """The baseline policy's hold for every roll: keep the dice that already fit.

        A roll that meets the target is kept whole (stop rolling). Otherwise, for each
        alternative and face choice, the fit is the most dice that can be placed into its
        groups (face dice of the group's face, plus Jokers within each group's cap, D11);
        the baseline keeps the fit with the fewest dice still missing, then the most dice
        placed, then the fewest Jokers, then the first alternative, then the first face choice
        (:meth:`choices` order).
        """
        counts = space.roll_counts
        n = self.rules.n_faces
        meets = self.meets(counts)
        best_key = np.full((len(counts), 4), np.iinfo(np.int64).max, dtype=np.int64)
        keep = np.zeros_like(counts)
        chosen = np.zeros(len(counts), dtype=np.int64)
        j = self.rules.joker_index
        for a in range(len(self.alternatives)):
            progress, used, jokers = self._progress(a, counts)
            # Within one alternative fewer missing dice = more progress; among equals the fewest
            # Jokers, then the first choice (argmin returns the first minimum).
            key = -progress * (self.rules.dice + 1) + jokers
            s = key.argmin(axis=1)
            rows = np.arange(len(counts))
            k = progress[rows, s]
            candidate = np.stack([self.needed(a) - k, -k, jokers[rows, s], np.full_like(k, a)], axis=1)
            better = _lex_less(candidate, best_key)
            best_key[better] = candidate[better]
            chosen[better] = a
            keep[better, :n] = used[rows, s][better]
            if j is not None:
                keep[better, j] = jokers[rows, s][better]
        keep[meets] = counts[meets]
        return FitTable(meets, keep, chosen)

    def groups(self, roll: Counts) -> list[list[str] | None]:
        """For one final roll, per alternative: the dice codes of a group for each term (e.g.
        ``["CCC", "BJ"]``) when the roll meets it, else ``None``. D12 shows all the Jokers."""
        counts = np.array([roll], dtype=np.int64)
        all_jokers = bool(self._all_jokers(counts)[0])
        joker_code = self.rules.joker.code if self.rules.joker else ""
        out: list[list[str] | None] = []
        for a, requirements in enumerate(self.alternatives):
            progress, _, _ = self._progress(a, counts)
            hits = np.flatnonzero(progress[0] == self.needed(a))
            if len(hits):
                out.append(self._spread(requirements, self.choices(a)[hits[0]], roll, joker_code))
            elif len(requirements) == 1 and all_jokers:
                out.append([joker_code * self.rules.dice])
            else:
                out.append(None)
        return out

    def _spread(self, requirements: tuple[Requirement, ...], choice: FaceChoice, roll: Counts,
                joker_code: str) -> list[str]:
        """Jokers to each group as the deficit of its face requires, within its cap (D11)."""
        deficit = {f: max(0, d - roll[f]) for f, d in enumerate(choice.demand) if d}
        spread = spread_jokers(deficit, [(face, req.size) for req, face in zip(requirements, choice.faces)], self.rules)
        return [self.rules.sides[face].code * (req.size - jokers) + joker_code * jokers
                for req, face, jokers in zip(requirements, choice.faces, spread)]


def _lex_less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``bool (R,)``: row-wise lexicographic ``a < b`` for ``(R, K)`` integer arrays."""
    less = np.zeros(len(a), dtype=bool)
    equal = np.ones(len(a), dtype=bool)
    for col in range(a.shape[1]):
        less |= equal & (a[:, col] < b[:, col])
        equal &= a[:, col] == b[:, col]
    return less


def compile_target(target: Target, rules: Ruleset, board: Board | None = None,
                   marks: Marks | None = None) -> CompiledTarget:
    """Resolve a target's faces and items into :class:`Requirement` groups.

    Args:
        target: from :func:`parse_target` with the same ruleset.
        board, marks: needed when the target names items (marks default: all available).

    Raises:
        TargetError: an item target without a board, an item that is not on the board or not
            available (marked or eliminated, D4), or an alternative needing more dice than are
            rolled.
    """
    alternatives = []
    all_faces = tuple(range(rules.n_faces))
    for alt in target.alternatives:
        requirements = []
        for term in alt.terms:
            if isinstance(term, DiceTerm):
                faces = all_faces if term.face is None else (rules.face_index(term.face),)
                requirements.append(Requirement(faces, term.count, rules.joker_cap(term.count)))
            else:
                cell = _item_cell(term, target, board, marks)
                assert board is not None
                need = board.need(cell)
                requirements.append(Requirement(board.faces_of(cell), need, rules.joker_cap(need)))
        dice = sum(r.size for r in requirements)
        if dice > rules.dice:
            raise _error(str(target), f"{_cut(str(alt))} needs {dice} dice but only {rules.dice} are rolled")
        alternatives.append(tuple(requirements))
    return CompiledTarget(target, rules, tuple(alternatives))


def _item_cell(term: ItemTerm, target: Target, board: Board | None, marks: Marks | None) -> int:
    if board is None:
        raise TargetError(f"target {_cut(str(target))} names item {term} but no board is given; pass --board FILE "
                          "(or use the default board with a ruleset whose faces it uses)")
    try:
        cell = board.parse_cell(str(term))
    except BoardError as error:
        raise TargetError(f"target {_cut(str(target))}: {error}") from None
    if marks is not None and not marks.is_available(cell):
        state = marks.state(cell).name.lower()
        raise TargetError(f"target {_cut(str(target))}: item {term} is {state}; only available items can be "
                          "marked (D4); name an available item or change --marks")
    return cell
