"""The ``learned`` objective's parameter file (docs/train.md): what a weight vector is (one
weight per feature of :data:`FEATURE_NAMES`, per phase of :data:`PHASES`, integers over
:data:`WEIGHT_SCALE`), the file's format (:data:`MODEL_FORMAT`, :meth:`LearnedModel.to_dict`,
:func:`model_from_dict`) and its loading (:func:`load_model`, the shipped
:func:`default_model`, the ``learned:FILE`` names of :func:`model_named`). The features
themselves and the objective are :mod:`learned.objective`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.core.files import json_kind
from shelfie_solver.dice.board import Board

#: Weights are integers over this scale (per point of F).
WEIGHT_SCALE = 100_000
#: Line kinds: 0 = shelf, n = column needing n dice (clipped to 1..6).
KINDS = 7
LINE_FEATURES = ("scoring A", "scoring a") + tuple(
    f"live need {j} {what}" for j in (1, 2, 3) for what in ("M", "A", "1", "a"))
GLOBAL_FEATURES = ("threatened A", "threatened M", "constant", "own sheet near trigger", "round",
                   "opponents' marked items", "opponents' available items")
#: The last three global features describe the table, not the sheet (:func:`table_context`).
N_CONTEXT = 3
FEATURE_NAMES = tuple(f"{'shelf' if k == 0 else f'column {k}'}: {name}"
                      for k in range(KINDS) for name in LINE_FEATURES) + GLOBAL_FEATURES
N_FEATURES = len(FEATURE_NAMES)
#: ``bool (N_FEATURES,)``: the features measured in points (a line's ``M`` or ``A``, the threatened
#: points); the others count items, lines or rounds, so their weights are points per unit (read
#: relative to a board's value scale by the win model, :func:`win_model.in_board_points`).
POINT_FEATURES = np.array([name.endswith((" A", " M")) for name in FEATURE_NAMES])
PHASES = (1, 2, 3)
#: The ``format`` key of a parameter file.
MODEL_FORMAT = "shelfie-solve learned 1"
#: A learned-parameter file, as recognised before it is replaced (:func:`files.check_overwrite`).
MODEL_KIND = json_kind("a learned-parameter file", MODEL_FORMAT)
#: Largest weight magnitude a parameter file may hold (over :data:`WEIGHT_SCALE`: 335 points per
#: unit of a feature; the shipped file's largest is 4,918,013). The objective computes in int64,
#: and this bound keeps every intermediate below 2**63 on any accepted board. With a board of at
#: most 7 x 7 items worth at most 10,000 each (dice/board.py) every cell is on one shelf and one
#: column, so the line points summed over all lines are at most 980,000; per line at most
#: ``M + A + 1 + a <= points + 8`` feeds the line features, and the globals add the threatened
#: points twice (1,960,000), the round (``advise --round`` at most 1,000), the opponents' items
#: (2 x 147) and 2. So ``|F| <= MAX_WEIGHT * 2,941,518`` and a sheet's
#: ``|P| = |WEIGHT_SCALE * score + F| <= B = 100,000 * 490,000 + MAX_WEIGHT * 2,941,518``, about
#: 9.9e13. The largest product is the win-chance shape's ``WIN_SCALE * VALUE_SCALE * gap`` with
#: ``|gap| <= 4 B`` (an opponent's ``P`` plus a blocking change of at most ``2 B``):
#: ``16,000 * 4 * B`` is about 6.3e18, below 2**63 (9.2e18).
MAX_WEIGHT = 1 << 25


class ModelError(ShelfieError):
    """A learned-parameter file that is missing, malformed or of the wrong shape."""


@dataclass(frozen=True, eq=False)
class LearnedModel:
    """Fitted weights of ``F`` (module docstring).

    Attributes:
        weights: players (1-4) -> ``int64 (3, N_FEATURES)``, rows phases 1, 2, 3, integers over
            :data:`WEIGHT_SCALE`.
        info: how they were made (seed, games, iterations, board), for the record.
        shapes: solitaire weights per board shape ``(shelves, columns)`` -> ``int64 (3,
            N_FEATURES)`` (``train --solitaire-shapes``, docs/train.md): a solitaire game on a
            board of such a shape uses them instead of ``weights[1]`` (:meth:`for_board`).
        many: solitaire weights per board shape for the boards of that shape whose columns need
            many dice (:func:`needs_many_dice`, D3; ``train --solitaire-spread``, docs/train.md):
            used before :attr:`shapes` on such a board.
        heavy: solitaire weights per board shape for the boards of that shape whose columns need
            dice as the heavy family's (:func:`needs_heavy`, D3; ``train --solitaire-heavy``,
            docs/train.md): used before :attr:`many` and :attr:`shapes` on such a board.
        threes: solitaire weights per board shape for the boards of that shape whose columns
            repeat 3s beside 4-5s (:func:`needs_threes`, D3; ``train --solitaire-threes``,
            docs/train.md): used before :attr:`heavy`, :attr:`many` and :attr:`shapes` on such a
            board.
        light_five: solitaire weights per board shape for the boards of that shape with **a 5
            beside 1s** (:func:`needs_light_five`, D3; ``train --solitaire-light-five``,
            docs/train.md): used before :attr:`many` and :attr:`shapes` on such a board (after
            :attr:`threes` and :attr:`heavy`, whose boards are never of this kind).
    """

    weights: dict[int, np.ndarray]
    info: dict[str, Any] = field(default_factory=dict)
    shapes: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    many: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    heavy: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    threes: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    light_five: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)

    def verify_players(self, players: int, name: str) -> None:
        """Refuse a game of ``players`` seats that this file has no weights for (``train
        --players``); ``name`` is how the user named it (``learned:FILE``).

        Raises:
            ModelError: no weights for ``players``.
        """
        if players not in self.weights:
            fitted = ", ".join(str(n) for n in sorted(self.weights))
            raise ModelError(f"{shorten(name.strip())} has weights for {fitted} player(s), not for a game of "
                             f"{players}; fit them with 'shelfie-solve train --players {players}' (docs/train.md)")

    def for_players(self, players: int) -> np.ndarray:
        """``(3, N_FEATURES)`` weights for ``players`` seats (the nearest count fitted; the
        command-line entry points refuse a missing count first: :meth:`verify_players`)."""
        best = min(self.weights, key=lambda n: (abs(n - players), n))
        return self.weights[best]

    def for_board(self, players: int, board: Board) -> np.ndarray:
        """``(3, N_FEATURES)`` weights for a game of ``players`` seats on ``board``: in solitaire
        the table fitted to boards of its shape (shelves x columns) when the file has one
        (:attr:`shapes`; on a board whose columns need many dice, :func:`needs_many_dice`, the
        table of :attr:`many` first, and before it, on a board of heavy needs,
        :func:`needs_heavy`, the table of :attr:`heavy`, and before that, on a board of repeated 3s
        beside 4-5s, :func:`needs_threes`, the table of :attr:`threes`; on a board of a 5 beside
        1s, :func:`needs_light_five`, the table of :attr:`light_five` after those two and before
        the many-dice one), else :meth:`for_players`. The order, first that applies:
        :attr:`threes`, :attr:`heavy`, :attr:`light_five`, :attr:`many`, :attr:`shapes`
        (docs/formats.md)."""
        kind = self.table_kind(players, board)
        if kind == "players":
            return self.for_players(players)
        tables: dict[tuple[int, int], np.ndarray] = getattr(self, kind)
        return tables[(board.n_shelves, board.n_columns)]

    def table_kind(self, players: int, board: Board) -> str:
        """Which table :meth:`for_board` gives: the name of the attribute holding it
        (``"threes"``, ``"heavy"``, ``"light_five"``, ``"many"``, ``"shapes"``, D3 by the board's
        column needs and shape, in that order), or ``"players"`` (:meth:`for_players`)."""
        if players == 1:
            shape = (board.n_shelves, board.n_columns)
            for kind, applies in (("threes", needs_threes), ("heavy", needs_heavy), ("light_five", needs_light_five),
                                  ("many", needs_many_dice)):
                if shape in getattr(self, kind) and applies(board):
                    return kind
            if shape in self.shapes:
                return "shapes"
        return "players"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what :func:`model_from_dict` reads)."""
        shapes = {SHAPES_KEY: {shape_key(shape): _phase_rows(w) for shape, w in sorted(self.shapes.items())}}
        many = {MANY_KEY: {shape_key(shape): _phase_rows(w) for shape, w in sorted(self.many.items())}}
        heavy = {HEAVY_KEY: {shape_key(shape): _phase_rows(w) for shape, w in sorted(self.heavy.items())}}
        threes = {THREES_KEY: {shape_key(shape): _phase_rows(w) for shape, w in sorted(self.threes.items())}}
        light_five = {LIGHT_FIVE_KEY: {shape_key(shape): _phase_rows(w)
                                       for shape, w in sorted(self.light_five.items())}}
        return {"format": MODEL_FORMAT, "weight_scale": WEIGHT_SCALE, "features": list(FEATURE_NAMES),
                **self.info,
                "weights": {str(n): _phase_rows(w) for n, w in sorted(self.weights.items())},
                **(shapes if self.shapes else {}), **(many if self.many else {}),
                **(heavy if self.heavy else {}), **(threes if self.threes else {}),
                **(light_five if self.light_five else {})}


#: The parameter file's key of :attr:`LearnedModel.shapes`: ``{"SxC": {phase: [weights]}}``.
SHAPES_KEY = "solitaire_shapes"
#: The parameter file's key of :attr:`LearnedModel.many`, of the same form as :data:`SHAPES_KEY`'s.
MANY_KEY = "solitaire_many_dice"
#: The parameter file's key of :attr:`LearnedModel.heavy`, of the same form as :data:`SHAPES_KEY`'s.
HEAVY_KEY = "solitaire_heavy"
#: The parameter file's key of :attr:`LearnedModel.threes`, of the same form as :data:`SHAPES_KEY`'s.
THREES_KEY = "solitaire_threes"
#: The parameter file's key of :attr:`LearnedModel.light_five`, of the same form as :data:`SHAPES_KEY`'s.
LIGHT_FIVE_KEY = "solitaire_light_five"
#: A column needing at least so many dice (D3) makes a board use :attr:`LearnedModel.many`.
MANY_DICE = 4
#: So do columns needing on average at least so many dice (D3): chosen on the validation family
#: 4242 and diagnosis boards of seed 777, where the many-dice table gained up to 7 points a game on
#: boards of three 3-dice columns and lost on those of mean need 2.25 or less (docs/strategies.md,
#: "Boards over the budget whose columns need many dice on average").
MANY_MEAN_NEED = Fraction(12, 5)
#: A heavy board (:func:`needs_heavy`) has at least this share of its columns needing 4-5 dice (D3).
HEAVY_SHARE = Fraction(1, 2)
#: ... or every column of it needs at least so many dice (D3) and at least :data:`THREES_SHARE` of
#: its columns need 4-5: the boards of repeated 3-dice columns beside 4-5s (docs/strategies.md,
#: "Boards of repeated 3s beside 4-5s").
THREES_MIN_NEED = 3
#: The share of columns needing 4-5 dice (D3) that makes a board of :data:`THREES_MIN_NEED` heavy.
THREES_SHARE = Fraction(1, 4)


def needs_many_dice(board: Board) -> bool:
    """Whether a solitaire game on ``board`` plays :attr:`LearnedModel.many` (where its shape has
    such a table): some column needs at least :data:`MANY_DICE` dice, or the columns need on
    average at least :data:`MANY_MEAN_NEED` dice (D3; compared exactly). A board of no column: no."""
    columns = board.columns
    if not columns:
        return False
    return max(columns) >= MANY_DICE or Fraction(sum(columns), len(columns)) >= MANY_MEAN_NEED


def needs_heavy(board: Board) -> bool:
    """Whether a solitaire game on ``board`` plays :attr:`LearnedModel.heavy` (where its shape has
    such a table), D3, compared exactly; a board of no column: no. Either

    - its column needs are of the heavy family's kind (:func:`wholegame.random_boards.is_heavy`: at
      least 3 dice a column on average and at least two columns needing 4-5 dice), the family that
      table is fitted to, **and** at least :data:`HEAVY_SHARE` of its columns need 4 or 5 dice (3 of
      5, 2 of 4). Chosen on the validation family 4242 (docs/strategies.md, "Boards of heavy
      needs"): on 4 x 5 boards with only two such columns the heavy table lost 3.1 points a game over
      7 boards, with three or more it gained on 9 of 10; or
    - every column needs at least :data:`THREES_MIN_NEED` dice and at least :data:`THREES_SHARE` of
      them 4 or 5 (5 x 4 needing 3, 3, 3, 5; 4 x 5 needing 3, 4, 3, 3, 5; not 4 x 5 needing 3, 3,
      3, 5, 3, one of five). Chosen on boards of family 4242 of repeated 3s (docs/strategies.md,
      "Boards of repeated 3s beside 4-5s"): there the heavy table gained 11.3 points a game over 8
      boards, and lost with a column needing 1-2 dice or with one column of 4-5 in five.
    """
    from shelfie_solver.dice.wholegame.random_boards import HARD_NEEDS, is_heavy

    columns = board.columns
    if not columns:
        return False
    many = Fraction(sum(1 for n in columns if n in HARD_NEEDS), len(columns))
    return ((is_heavy(columns) and many >= HEAVY_SHARE)
            or (min(columns) >= THREES_MIN_NEED and many >= THREES_SHARE))


def needs_threes(board: Board) -> bool:
    """Whether a solitaire game on ``board`` plays :attr:`LearnedModel.threes` (where its shape has
    such a table), D3: its column needs are of the threes family's kind
    (:func:`wholegame.random_boards.is_threes`, the family that table is fitted to: **repeated 3s
    beside 4-5s**, no column needing fewer than 3 dice, a quarter or more but under half of the
    columns needing 4-5; 5 x 4 needing 5, 3, 3, 3; 4 x 5 needing 3, 3, 4, 4, 3; not 3, 3, 4, 4 nor
    3, 3, 3, 3, 5). Every such board is one of the second arm of :func:`needs_heavy` and of no
    first arm's (under half of 4-5), so a file without a threes table plays the heavy table there,
    and every board of the first arm keeps it. Chosen on the validation family 4242
    (docs/strategies.md, "A table for repeated 3s beside 4-5s")."""
    from shelfie_solver.dice.wholegame.random_boards import is_threes

    return is_threes(board.columns)


def needs_light_five(board: Board) -> bool:
    """Whether a solitaire game on ``board`` plays :attr:`LearnedModel.light_five` (where its shape
    has such a table), D3: its column needs are of the light-five family's kind
    (:func:`wholegame.random_boards.is_light_five`, the family that table is fitted to: **a 5
    beside 1s**, exactly one column needing 5 dice, no other needing 4-5, two or more needing 1;
    4 x 5 needing 5, 1, 1, 1, 2 or 1, 3, 3, 1, 5; not 5, 1, 4, 1, 3 nor 5, 5, 1, 1, 2 nor 5, 1,
    2, 2, 3). Every such board needs many dice (:func:`needs_many_dice`: a column of 5) and is of
    neither :func:`needs_heavy` (one column of 4-5, columns of 1) nor :func:`needs_threes` (columns
    of 1), so a file without that table plays the many-dice table there, and the threes and heavy
    tables' boards keep theirs. Chosen on the validation family 4242 and diagnosis seed 9603
    (docs/strategies.md, "Two 5s beside 3s", its lead, and "A table for a 5 beside 1s")."""
    from shelfie_solver.dice.wholegame.random_boards import is_light_five

    return is_light_five(board.columns)


#: Every top-level key of a parameter file (``trained``, how the weights were made,
#: :data:`SHAPES_KEY`, :data:`MANY_KEY`, :data:`HEAVY_KEY`, :data:`THREES_KEY` and
#: :data:`LIGHT_FIVE_KEY` optional); any other is refused.
MODEL_KEYS = ("format", "weight_scale", "features", "trained", "weights", SHAPES_KEY, MANY_KEY, HEAVY_KEY,
              THREES_KEY, LIGHT_FIVE_KEY)


def shape_key(shape: tuple[int, int]) -> str:
    """``(5, 3)`` -> ``"5x3"``: a board shape (shelves x columns) as the parameter file names it."""
    return f"{shape[0]}x{shape[1]}"


def _phase_rows(table: np.ndarray) -> dict[str, list[int]]:
    return {str(p): [int(x) for x in table[i]] for i, p in enumerate(PHASES)}


def check_weights(model: LearnedModel, source: str) -> None:
    """Refuse weights beyond :data:`MAX_WEIGHT` (the objective's int64 bound), e.g. a fit gone
    wild on an odd board, before they are written to a file that ``learned:FILE`` would refuse.

    Raises:
        ModelError: a weight beyond the bound (one line naming ``source``).
    """
    tables = [*model.weights.values(), *model.shapes.values(), *model.many.values(), *model.heavy.values(),
              *model.threes.values(), *model.light_five.values()]
    worst = max((int(np.abs(w).max()) for w in tables), default=0)
    if worst > MAX_WEIGHT:
        raise ModelError(f"{source}: a weight of {worst:,} is beyond ±{MAX_WEIGHT:,} (the objective computes in "
                         "int64 and would overflow); fit with more games or on another board")


def model_from_dict(data: Any, source: str = "parameters") -> LearnedModel:
    """Read a model written by :meth:`LearnedModel.to_dict`.

    Raises:
        ModelError: wrong format, scale, feature list or weight shape.
    """
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        raise ModelError(f"{source}: not a learned-parameter file (expected \"format\": \"{MODEL_FORMAT}\")")
    if data.get("weight_scale") != WEIGHT_SCALE or data.get("features") != list(FEATURE_NAMES):
        raise ModelError(f"{source}: made for another feature set or scale; retrain with 'shelfie-solve train'")
    try:
        weights = {players_key(players): _phase_table(rows, source) for players, rows in data["weights"].items()}
    except ModelError:
        raise
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError):
        raise ModelError(f"{source}: weights must map players 1-4 to phases {PHASES} of "
                         f"{N_FEATURES} whole numbers") from None
    if not weights:
        raise ModelError(f"{source}: no weights")
    shapes = _shape_tables(data.get(SHAPES_KEY, {}), source)
    many = _shape_tables(data.get(MANY_KEY, {}), source, MANY_KEY)
    heavy = _shape_tables(data.get(HEAVY_KEY, {}), source, HEAVY_KEY)
    threes = _shape_tables(data.get(THREES_KEY, {}), source, THREES_KEY)
    light_five = _shape_tables(data.get(LIGHT_FIVE_KEY, {}), source, LIGHT_FIVE_KEY)
    unknown = sorted(set(data) - set(MODEL_KEYS))
    if unknown:  # a misspelt "solitaire_shapez" would be ignored silently
        raise ModelError(f"{source}: unknown key {shorten(unknown[0])}; expected only {', '.join(MODEL_KEYS)} "
                         "(docs/formats.md)")
    return LearnedModel(weights, {"trained": data["trained"]} if "trained" in data else {}, shapes, many, heavy,
                        threes, light_five)


def players_key(text: str, counts: range = range(1, 5)) -> int:
    """The number of players a model file's key names, only in its canonical form (``"2"``, not
    ``"02"``, ``"+2"`` or ``" 2 "``, which would replace ``"2"`` silently), one of ``counts``
    (the learned file's and the win-model file's reader, :func:`learned.win_model.model_from_dict`).

    Raises:
        ValueError: not a canonical key of a count of ``counts``. TypeError: not a string.
    """
    players = int(text)
    if players not in counts or text != str(players):
        raise ValueError("bad players")
    return players


def _phase_table(rows: Any, source: str) -> np.ndarray:
    """``int64 (3, N_FEATURES)`` from ``{phase: [weights]}``.

    Raises:
        ModelError: a weight beyond :data:`MAX_WEIGHT`. ValueError, KeyError, TypeError: bad shape.
    """
    if set(rows) != {str(p) for p in PHASES}:  # a phase of junk would be ignored silently
        raise ValueError("not the phases")
    raw = [rows[str(p)] for p in PHASES]
    if not all(type(w) is int for row in raw for w in row):  # numpy would cut 0.5 to 0 silently
        raise ValueError("not whole numbers")
    if any(abs(w) > MAX_WEIGHT for row in raw for w in row):
        raise ModelError(f"{source}: a weight beyond ±{MAX_WEIGHT:,} (the objective computes in int64 and "
                         f"would overflow); expected weights as shelfie-solve train writes them")
    table = np.array(raw, dtype=np.int64)
    if table.shape != (len(PHASES), N_FEATURES):
        raise ValueError("bad shape")
    return table


def _shape_tables(data: Any, source: str, key_name: str = SHAPES_KEY) -> dict[tuple[int, int], np.ndarray]:
    """:attr:`LearnedModel.shapes` from the file's :data:`SHAPES_KEY` entry (or
    :attr:`LearnedModel.many` from ``key_name`` :data:`MANY_KEY`'s, :attr:`LearnedModel.heavy` from
    :data:`HEAVY_KEY`'s, :attr:`LearnedModel.threes` from :data:`THREES_KEY`'s, :attr:`LearnedModel.light_five` from
    :data:`LIGHT_FIVE_KEY`'s).

    Raises:
        ModelError: not ``{"SxC": {phase: [weights]}}`` with 1-7 shelves and columns (D3).
    """
    shapes = {}
    try:
        for key, rows in data.items():
            shelves, columns = (int(part) for part in key.split("x"))
            if not (1 <= shelves <= 7 and 1 <= columns <= 7) or key != shape_key((shelves, columns)):
                raise ValueError("bad shape")
            shapes[(shelves, columns)] = _phase_table(rows, source)
    except ModelError:
        raise
    except (KeyError, ValueError, TypeError, AttributeError, OverflowError):
        raise ModelError(f"{source}: \"{key_name}\" must map board shapes such as \"2x5\" (shelves x columns) to "
                         f"phases {PHASES} of {N_FEATURES} whole numbers") from None
    return shapes


#: The shipped parameters (``shelfie-solve train`` writes files of this form).
DEFAULT_MODEL_PATH = Path(__file__).parent.parent / "data" / "learned.json"


@cache
def default_model() -> LearnedModel:
    """The parameters shipped in the package (data/learned.json)."""
    return load_model(DEFAULT_MODEL_PATH)


#: Largest parameter file read (the shipped one is about 33 kB).
MAX_MODEL_BYTES = 1 << 20

#: The objective / strategy name prefix of parameters from a file: ``learned:FILE``.
FILE_PREFIX = "learned:"


def load_model(path: str | Path) -> LearnedModel:
    """Read a parameter file (a regular file of at most :data:`MAX_MODEL_BYTES`, read by
    :func:`inputs.read_json`).

    Raises:
        ModelError: unreadable, not JSON, too large, or not a parameter file.
    """
    from shelfie_solver.core.inputs import read_json

    # a key given twice (a table read as the last one silently) is refused by the reader
    data = read_json(path, ModelError, MAX_MODEL_BYTES, "a learned-parameter file written by shelfie-solve train")
    return model_from_dict(data, str(path))


@cache
def _model_at(path: str) -> LearnedModel:
    return load_model(path)


def model_named(name: str) -> LearnedModel | None:
    """The parameters an objective or strategy name asks for: ``None`` (the shipped ones) for
    ``learned``, the file's for ``learned:FILE`` (read once per process). The one parser of
    the ``learned:FILE`` convention (like ``table:FILE`` and ``exact:FILE``, docs/train.md).

    Raises:
        ModelError: ``learned:`` with no file, or a bad file (:func:`load_model`).
    """
    text = name.strip()
    if not text.lower().startswith(FILE_PREFIX):
        return None
    path = text[len(FILE_PREFIX):].strip()
    if not path:
        raise ModelError("no parameter file named; expected learned:FILE with a file written by "
                         "'shelfie-solve train --output FILE'")
    return _model_at(path)


def model_text(model: LearnedModel) -> str:
    """The parameter file's text (JSON, one line per player count or board shape and phase)."""
    import json  # (start-up: advise reads no JSON)

    data = model.to_dict()
    tables = {key: data.pop(key) for key in ("weights", SHAPES_KEY, MANY_KEY, HEAVY_KEY, THREES_KEY, LIGHT_FIVE_KEY)
              if key in data}
    head = json.dumps(data, indent=1)[:-2]
    blocks = []
    for key, entries in tables.items():
        rows = []
        for name, phases in entries.items():
            inner = ",\n".join(f'   "{p}": {json.dumps(w)}' for p, w in phases.items())
            rows.append(f'  "{name}": {{\n{inner}\n  }}')
        blocks.append(f' "{key}": {{\n' + ",\n".join(rows) + "\n }")
    return head + ",\n" + ",\n".join(blocks) + "\n}\n"
