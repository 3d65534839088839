"""The ruleset: dice, faces, re-rolls, Joker limits, scoring threshold and end trigger.

Defaults are ../shared/RULES.md (D2, D7, D9, D11, D12, D17, D19); a TOML file can change every
one of them, so variants such as "5 dice, 4 item faces plus a wild" are data, not code.

TOML form (every key optional; ``faces`` replaces the whole list when given)::

    name = "five-dice variant"
    dice = 5                    # D2
    rerolls = 2                 # D7
    combinations_per_turn = 3   # D9
    scoring_threshold = 3       # D19
    end_trigger_shelves = 2     # D17
    faces = [ {name = "plant", code = "P"}, {name = "cat", code = "C"} ]
    [joker]                     # D11, D12; `joker = false` for dice without a Joker
    name = "joker"
    code = "J"
    per_group = 1               # D11(a)
    alone = false               # D11(b)
    all_jokers_mark_any = true  # D12
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from shelfie_solver.core.errors import shorten
from shelfie_solver.dice.errors import RulesError
from shelfie_solver.core.inputs import load_toml

#: Characters that the marks, dice and target grammars reserve, so no face code may use them.
RESERVED_CODES = frozenset("./ox*+|,;#:")
#: A face name: one word of letters, digits, ``_`` or ``-``, starting with a letter.
_FACE_NAME = re.compile(r"^[^\W\d_][\w-]*$")
_ITEM_LIKE = re.compile(r"^r\d+c\d+$", re.IGNORECASE)
#: The exact engine keeps a table of every roll x every hold; beyond this many pairs it would
#: take minutes and gigabytes, so such rulesets are refused with a clear message.
MAX_ROLL_HOLD_PAIRS = 30_000_000
MAX_THRESHOLD = 100


@dataclass(frozen=True)
class Face:
    """One die face: ``name`` (e.g. ``"cat"``) and a one-character ``code`` (e.g. ``"C"``)."""

    name: str
    code: str


@dataclass(frozen=True)
class Ruleset:
    """Immutable game rules (RULES.md ids in brackets).

    Attributes:
        name: a label for output.
        dice: number of dice rolled each turn (D2: 6).
        faces: the item faces, in display order (D2: plant, game, book, award, cat).
        joker: the wild face, or ``None`` for dice without one (D2: one Joker per die).
        rerolls: optional re-rolls per turn (D7: 2).
        combinations_per_turn: most items marked in one turn (D9: 3); a larger number than
            ``dice`` is stored as ``dice`` (each combination needs a die).
        jokers_per_group: most Jokers in one combination (D11a: 1).
        joker_alone: whether a combination may consist of Jokers only (D11b: no).
        all_jokers_mark_any: all dice Jokers marks any one available item (D12: yes).
        scoring_threshold: marks a line needs before it scores (D19: 3).
        end_trigger_shelves: shelves without available items that trigger the end (D17: 2).

    Each die has ``len(faces) + (1 if joker else 0)`` equally likely sides.
    """

    name: str = "My Shelfie: The Dice Game (docs/rules.md, D1-D20)"
    dice: int = 6
    faces: tuple[Face, ...] = (
        Face("plant", "P"),
        Face("game", "G"),
        Face("book", "B"),
        Face("award", "A"),
        Face("cat", "C"),
    )
    joker: Face | None = Face("joker", "J")
    rerolls: int = 2
    combinations_per_turn: int = 3
    jokers_per_group: int = 1
    joker_alone: bool = False
    all_jokers_mark_any: bool = True
    scoring_threshold: int = 3
    end_trigger_shelves: int = 2

    def __post_init__(self) -> None:
        verify_ruleset(self)
        # Each combination needs a die (D9), so more combinations than dice mean "no limit":
        # store the limit that binds, which keeps every table of item sets as small as it can be.
        object.__setattr__(self, "combinations_per_turn", min(self.combinations_per_turn, self.dice))

    def __hash__(self) -> int:  # rulesets key process-wide caches: hash the fields once
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in fields(self)))

    @cached_property
    def sides(self) -> tuple[Face, ...]:
        """The die's sides: the item faces, then the Joker (if any). Index = side number."""
        return self.faces + ((self.joker,) if self.joker else ())

    @property
    def n_faces(self) -> int:
        """Number of item faces (Jokers excluded)."""
        return len(self.faces)

    @property
    def n_sides(self) -> int:
        """Number of equally likely sides of one die."""
        return len(self.sides)

    @property
    def joker_index(self) -> int | None:
        """Side number of the Joker, or ``None``."""
        return self.n_faces if self.joker else None

    def face_index(self, word: str) -> int:
        """Side number of a face given by name or code, case-insensitive.

        Raises:
            RulesError: the word is not a face of this ruleset.
        """
        index = self._face_lookup.get(word.strip().lower())
        if index is None:
            known = ", ".join(f"{f.name} ({f.code})" for f in self.sides)
            raise RulesError(f"unknown face {shorten(word)}; expected one of {known}")
        return index

    @cached_property
    def _face_lookup(self) -> dict[str, int]:
        lookup: dict[str, int] = {}
        for i, face in enumerate(self.sides):
            lookup[face.name.lower()] = i
            lookup[face.code.lower()] = i
        return lookup

    def joker_cap(self, group_size: int) -> int:
        """Most Jokers a combination of ``group_size`` dice may hold (D11a and D11b)."""
        if self.joker is None:
            return 0
        alone_cap = group_size if self.joker_alone else group_size - 1
        return max(0, min(self.jokers_per_group, alone_cap))


def verify_ruleset(rules: Ruleset) -> None:
    """Check a ruleset's values; raise :class:`RulesError` naming the first bad one."""
    positive = {"dice": rules.dice, "combinations_per_turn": rules.combinations_per_turn,
                "scoring_threshold": rules.scoring_threshold,
                "end_trigger_shelves": rules.end_trigger_shelves}
    for key, value in positive.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise RulesError(f"rules: {key} must be a whole number >= 1, got {value!r}")
    if rules.dice > 12:
        raise RulesError(f"rules: dice must be at most 12, got {rules.dice}")
    if rules.scoring_threshold > MAX_THRESHOLD:
        raise RulesError(f"rules: scoring_threshold must be at most {MAX_THRESHOLD}, got {rules.scoring_threshold}")
    if not isinstance(rules.rerolls, int) or isinstance(rules.rerolls, bool) or not 0 <= rules.rerolls <= 5:
        raise RulesError(f"rules: rerolls must be a whole number from 0 to 5, got {rules.rerolls!r}")
    if not isinstance(rules.jokers_per_group, int) or rules.jokers_per_group < 0:
        raise RulesError(f"rules: joker per_group must be a whole number >= 0, got {rules.jokers_per_group!r}")
    if not rules.faces:
        raise RulesError("rules: faces must list at least one face, e.g. faces = [{name = \"cat\", code = \"C\"}]")
    sides = len(rules.faces) + (1 if rules.joker else 0)
    if sides > 12:
        raise RulesError("rules: a die may have at most 12 sides (faces plus Joker)")
    pairs = math.comb(rules.dice + sides - 1, rules.dice) * math.comb(rules.dice + sides, rules.dice)
    if pairs > MAX_ROLL_HOLD_PAIRS:
        raise RulesError(f"rules: {rules.dice} dice with {sides} sides are too many for the exact engine "
                         f"({pairs:,} roll x hold pairs, at most {MAX_ROLL_HOLD_PAIRS:,}); use fewer dice or faces")
    seen: set[str] = set()
    for face in rules.faces + ((rules.joker,) if rules.joker else ()):
        if len(face.code) != 1 or face.code in RESERVED_CODES or face.code.isspace() or face.code.lower() in "ox":
            raise RulesError(f"rules: face {face.name!r} needs a one-character code that is not a space "
                             f"nor one of . / o x * + | , ; # :  (got {face.code!r})")
        if not _FACE_NAME.match(face.name) or _ITEM_LIKE.match(face.name):
            raise RulesError(f"rules: face name {face.name!r} must be one word of letters, digits, _ or -, "
                             "starting with a letter (and not an item name like r1c1)")
        for word in (face.name.lower(), face.code.lower()):
            if word in seen:
                raise RulesError(f"rules: face name or code {word!r} is used twice; each must be unique")
            seen.add(word)


_INT_KEYS = ("dice", "rerolls", "combinations_per_turn", "scoring_threshold", "end_trigger_shelves")
_TOP_KEYS = frozenset(_INT_KEYS + ("name", "faces", "joker"))
_JOKER_KEYS = frozenset(("name", "code", "per_group", "alone", "all_jokers_mark_any"))


def rules_from_dict(data: dict[str, Any], source: str = "rules") -> Ruleset:
    """Build a :class:`Ruleset` from parsed TOML; missing keys take the RULES.md defaults.

    Raises:
        RulesError: an unknown key, a value of the wrong type or an impossible value.
    """
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a table of rules keys, got {type(data).__name__}")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise RulesError(f"{source}: unknown key {unknown[0]!r}; expected keys: {', '.join(sorted(_TOP_KEYS))}")
    kwargs: dict[str, Any] = {}
    kwargs["name"] = _expect(data.get("name", Path(source).stem), str, "name", source)
    for key in _INT_KEYS:
        if key in data:
            kwargs[key] = _expect(data[key], int, key, source)
    if "faces" in data:
        kwargs["faces"] = tuple(_face_from(item, source) for item in _expect(data["faces"], list, "faces", source))
    if "joker" in data:
        _apply_joker(data["joker"], kwargs, source)
    try:
        return Ruleset(**kwargs)
    except RulesError as error:
        raise RulesError(f"{source}: {error}".replace(f"{source}: rules: ", f"{source}: ")) from None


def rules_to_dict(rules: Ruleset) -> dict[str, Any]:
    """A ruleset as the dictionary :func:`rules_from_dict` reads (the TOML keys)."""
    out: dict[str, Any] = {
        "name": rules.name, "dice": rules.dice, "rerolls": rules.rerolls,
        "combinations_per_turn": rules.combinations_per_turn, "scoring_threshold": rules.scoring_threshold,
        "end_trigger_shelves": rules.end_trigger_shelves,
        "faces": [{"name": f.name, "code": f.code} for f in rules.faces],
    }
    if rules.joker is None:
        out["joker"] = False
    else:
        out["joker"] = {"name": rules.joker.name, "code": rules.joker.code, "per_group": rules.jokers_per_group,
                        "alone": rules.joker_alone, "all_jokers_mark_any": rules.all_jokers_mark_any}
    return out



def _apply_joker(joker: Any, kwargs: dict[str, Any], source: str) -> None:
    if joker is False:
        kwargs["joker"] = None
        return
    table = _expect(joker, dict, "joker", source)
    unknown = sorted(set(table) - _JOKER_KEYS)
    if unknown:
        raise RulesError(f"{source}: unknown joker key {unknown[0]!r}; expected: {', '.join(sorted(_JOKER_KEYS))}")
    kwargs["joker"] = Face(_expect(table.get("name", "joker"), str, "joker.name", source),
                           _expect(table.get("code", "J"), str, "joker.code", source))
    if "per_group" in table:
        kwargs["jokers_per_group"] = _expect(table["per_group"], int, "joker.per_group", source)
    if "alone" in table:
        kwargs["joker_alone"] = _expect(table["alone"], bool, "joker.alone", source)
    if "all_jokers_mark_any" in table:
        kwargs["all_jokers_mark_any"] = _expect(table["all_jokers_mark_any"], bool,
                                                "joker.all_jokers_mark_any", source)


def _face_from(item: Any, source: str) -> Face:
    if not isinstance(item, dict) or set(item) != {"name", "code"}:
        raise RulesError(f"{source}: each face must be a table {{name = \"cat\", code = \"C\"}}, got {item!r}")
    return Face(_expect(item["name"], str, "face name", source), _expect(item["code"], str, "face code", source))


def _expect(value: Any, kind: type, key: str, source: str) -> Any:
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        kinds = {int: "whole number", bool: "true or false", str: "string", list: "list", dict: "table"}
        raise RulesError(f"{source}: {key} must be a {kinds.get(kind, kind.__name__)}, got {value!r}")
    return value


def load_rules(path: str | Path | None = None) -> Ruleset:
    """Load a ruleset from a TOML file, or return the RULES.md defaults when ``path`` is None.

    Raises:
        RulesError: the file cannot be read, is not TOML, or holds bad values.
    """
    if path is None:
        return DEFAULT_RULES
    return rules_from_dict(load_toml(path, RulesError, "examples/rules/five-dice.toml"), source=str(path))


#: The rules of RULES.md (D1-D20).
DEFAULT_RULES = Ruleset()
