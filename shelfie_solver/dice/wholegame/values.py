"""Exact solitaire value tables in use: saved and loaded (JSON), as the objective ``table:FILE``,
as the strategy ``exact:FILE``, and to charge each decision of a played game its exact loss
(:func:`decision_losses`). The tables come from :func:`solver.solve_game` (docs/solve-game.md).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks, parse_marks
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.wholegame.binary_table import header_path, is_binary, open_binary
from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.wholegame.solver import MAX_TABLE_BYTES
from shelfie_solver.dice.wholegame.solver import (ExactError, GameSolution, SuccessorValues, decode_values, encode_values, fingerprint,
                    check_range, check_states, read_solver_json, same_setup, state_count)
from shelfie_solver.core.files import json_kind, replace_checked
from shelfie_solver.dice.game.events import Fail, Game, GameState, Hold, LegalMarkings, Mark, Roll, Start
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import Ruleset

#: The ``format`` key of a saved value table.
TABLE_FORMAT = "shelfie-solve value table 1"
#: A saved value table, as recognised before it is replaced (:func:`files.check_overwrite`).
TABLE_KIND = json_kind("an exact value table", TABLE_FORMAT)


def table_to_json(solution: GameSolution) -> str:
    """The value table as JSON: ``format``, ``board``, ``rules``, ``states``, ``optimum`` ("p/q"),
    ``optimum_float`` (display only) and ``values`` ``{marks text: "p/q"}``."""
    return json.dumps({"format": TABLE_FORMAT, **fingerprint(solution.board, solution.rules),
                       "states": len(solution.values), "optimum": _fraction_text(solution.optimum),
                       "optimum_float": float(solution.optimum),
                       "values": encode_values(solution.values, solution.board)})


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def save_table(path: str, solution: GameSolution, force: bool = False) -> None:
    """Write the value table to ``path`` whole or not at all (:mod:`files`), never over a file of
    another kind unless ``force`` (:func:`files.check_overwrite`).

    Raises:
        FileWriteError: the file cannot be written, or holds another kind of file.
        ExactError: the table is larger than :data:`solver.MAX_TABLE_BYTES`, which no reader
            would open (a ``--max-states`` far above the default): nothing is written.
    """
    text = table_to_json(solution) + "\n"
    if len(text) > MAX_TABLE_BYTES:  # ASCII JSON: characters are bytes
        raise ExactError(f"the value table would be {len(text):,} bytes, more than the {MAX_TABLE_BYTES:,} a value "
                         f"table may hold (no command could read it); nothing written to {path}")
    replace_checked({path: (text.encode(), TABLE_KIND)}, force)


_TABLES: dict[tuple[str, float, int], GameSolution] = {}


def load_table(path: str) -> GameSolution:
    """Read a value table saved by :func:`save_table` (cached per file and modification time),
    or open a binary one (``T.npy``, :mod:`binary_table`: memory-mapped, values read as asked).

    Raises:
        ExactError: unreadable, not a value table, or malformed.
    """
    from shelfie_solver.dice.game.record import cached_board, cached_rules  # the saved-game readers of board and rules

    if not path:
        raise ExactError("no value table file named; expected table:FILE or exact:FILE with the file "
                         "shelfie-solve solve-game --save wrote")
    try:
        stat = os.stat(path)
    except OSError as error:
        raise ExactError(f"cannot read value table {path}: {error.strerror or error}") from None
    cache_key = (os.path.realpath(path), stat.st_mtime, stat.st_size)
    if is_binary(path):  # its header T.json too: a new header is a new table
        try:
            head = os.stat(header_path(path))
            cache_key = (f"{cache_key[0]}\n{head.st_mtime}", stat.st_mtime, stat.st_size + head.st_size)
        except OSError:
            pass  # open_binary says why it cannot be read
    if cache_key in _TABLES:
        return _TABLES[cache_key]
    if is_binary(path):  # T.npy with its header T.json: a memory map, read state by state
        board, rules, mapped, _ = open_binary(path)
        _TABLES[cache_key] = GameSolution(board, rules, mapped)
        return _TABLES[cache_key]
    data = read_solver_json(path, "value table")
    if data.get("format") != TABLE_FORMAT:
        raise ExactError(f"{path} is not a value table: expected \"format\": \"{TABLE_FORMAT}\" "
                         "(written by shelfie-solve solve-game --save)")
    try:
        rules = cached_rules(json.dumps(data["rules"], sort_keys=True))
        board = cached_board(json.dumps(data["board"], sort_keys=True), rules)
    except KeyError as error:
        raise ExactError(f"value table {path}: missing key {error}") from None
    except ShelfieError as error:
        raise ExactError(f"value table {path}: {error}") from None
    values = decode_values(data.get("values"), board, f"value table {path}")
    if len(values) != state_count(board, rules):  # closed form first: a foreign 5 x 5 board is not enumerated
        raise ExactError(f"value table {path} holds {len(values):,} states, expected {state_count(board, rules):,}")
    check_states(values, board, rules, range(board.n_cells), f"value table {path}")
    check_range(values, board, rules, f"value table {path}")
    solution = GameSolution(board, rules, values)
    _TABLES[cache_key] = solution
    return solution


def table_for(path: str, board: Board, rules: Ruleset) -> GameSolution:
    """:func:`load_table`, checked to be for ``board`` and ``rules``.

    Raises:
        ExactError: as :func:`load_table`, or the table is for another board or ruleset.
    """
    solution = load_table(path)
    if not same_setup(fingerprint(solution.board, solution.rules), fingerprint(board, rules)):
        raise ExactError(f"value table {path} was solved for board {solution.board.name!r} and rules "
                         f"{solution.rules.name!r}, not this board and ruleset; pass the same --board and --rules")
    return solution


# --- the table as an objective and as a strategy ---------------------------------------------


@dataclass(frozen=True, eq=False)
class TableObjective:
    """Objective ``table:FILE``: a marking is worth ``V(after) - V(before)`` in points, ``V`` the
    exact solitaire value table (a failed result: the best shelf to give up, D13). Optimising a
    turn for it is optimal solitaire play. Integers over the table's common denominator."""

    table: GameSolution
    name: str = "table"

    @cached_property
    def _denominator(self) -> int:
        given = getattr(self.table.values, "common_denominator", None)  # a binary table's 2^K, from its header
        if isinstance(given, int):
            return given
        return math.lcm(1, *(v.denominator for v in self.table.values.values()))

    def scale(self, rules: Ruleset) -> int:
        return self._denominator

    def _successors(self, state: StateArrays) -> SuccessorValues:
        return SuccessorValues(self.table.board, self.table.rules, state.marks, self.table.value)

    def _base(self, state: StateArrays) -> Fraction:
        return self.table.value(state.marks)

    def values(self, state: StateArrays, sets: ItemSets) -> np.ndarray:
        successors, base, d = self._successors(state), self._base(state), self._denominator
        out = []
        for row in sets.cells:
            bits = sum(1 << int(c) for c in row if c >= 0)
            after = Marks(state.marks.n_shelves, state.marks.n_columns, state.marks.marked | bits,
                          state.marks.eliminated)
            out.append(int((successors.worth(after) - base) * d))
        return np.array(out, dtype=object)

    def failed_value(self, state: StateArrays) -> int:
        best = max(self._successors(state).shelf_values.values())
        return int((best - self._base(state)) * self._denominator)


def table_objective(path: str, board: Board) -> TableObjective:
    """The objective ``table:FILE`` for ``board`` (its layout, faces and values must be the
    table's; the ruleset is the caller's to match).

    Raises:
        ObjectiveError: the table cannot be read or is for another board.
    """
    from shelfie_solver.dice.errors import ObjectiveError

    try:
        table = load_table(path)
    except ExactError as error:
        raise ObjectiveError(f"objective table:{path}: {error}") from None
    mine, theirs = table.board, board
    if (mine.columns, mine.shelf_faces, mine.values) != (theirs.columns, theirs.shelf_faces, theirs.values):
        raise ObjectiveError(f"objective table:{path}: the table is for board {mine.name!r}, not {theirs.name!r}; "
                             "pass the table's --board")
    return TableObjective(table)


class ExactStrategy:
    """Optimal solitaire play from a value table (strategy ``exact:FILE``): the holds of
    :meth:`GameSolution.turn`, the marking with the highest ``V(after)`` (ties: the first legal
    marking), the shelf with the highest ``V(after)`` (ties: the first shelf). Solitaire only:
    with several players blocking (D15) leads to sheets outside the table, so the first
    decision raises :class:`ExactError`."""

    def __init__(self, path: str):
        self.name = f"exact:{path}"
        self.path = path

    def _table(self, state: GameState) -> GameSolution:
        if state.players != 1:
            raise ExactError(f"strategy {self.name} plays solitaire games only (one player, the value table's "
                             f"game), not {state.players} players")
        return table_for(self.path, state.board, state.rules)

    def choose_hold(self, state: GameState, dice: tuple[int, ...], rerolls_left: int,
                    rng: np.random.Generator) -> tuple[int, ...]:
        policy = self._table(state).turn(state.marks).policy[rerolls_left]
        assert policy is not None
        space = space_for(state.rules)
        return space.holds[int(policy[space.roll_index[dice]])]

    def choose_marking(self, state: GameState, dice: tuple[int, ...], legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        table = self._table(state)
        worth = SuccessorValues(state.board, state.rules, state.marks, table.value).worth
        options = [worth(state.marks.with_marked(legal.cells(i))) for i in range(len(legal))]
        return legal.cells(options.index(max(options)))

    def choose_shelf(self, state: GameState, dice: tuple[int, ...], shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        table = self._table(state)
        values = SuccessorValues(state.board, state.rules, state.marks, table.value).shelf_values
        return max(shelves, key=lambda s: (values[s], -s))


def decision_losses(game: Game, table: GameSolution, seat: int = 0) -> list[tuple[str, Fraction]]:
    """The exact loss of each of ``seat``'s decisions in a played game against the optimal
    solitaire policy: ``(kind, loss)`` with kind ``hold`` (a re-roll, or stopping with re-rolls
    left, D7), ``mark`` (D8-D14) or ``fail`` (the shelf given up, D13); loss = the best choice's
    exact value minus the chosen one's (0 when optimal), in expected final points.

    The expected sum of a game's losses equals the optimum minus the expected final score, so
    it measures a policy's loss per game with less noise than the scores themselves.

    Raises:
        ExactError: the game is not on the table's board (through :meth:`GameSolution.value`).
    """
    out: list[tuple[str, Fraction]] = []
    start = game.events[0]
    assert isinstance(start, Start)
    marks = parse_marks(start.sheets[seat], table.board)
    dice: tuple[int, ...] = ()
    left = 0
    for event in game.events[1:]:
        if getattr(event, "player", None) != seat:
            continue
        if isinstance(event, Roll):
            dice, left = event.dice, event.rerolls_left
        elif isinstance(event, Hold):
            turn = table.turn(marks)
            out.append(("hold", turn.roll_value(dice, left) - turn.hold_value(event.keep, left)))
        elif isinstance(event, (Mark, Fail)):
            turn = table.turn(marks)
            if left > 0:  # stopped with re-rolls left: keeping every die (D7)
                out.append(("hold", turn.roll_value(dice, left) - turn.hold_value(dice, left)))
            successors = SuccessorValues(table.board, table.rules, marks, table.value)
            if isinstance(event, Mark):
                after = marks.with_marked(event.cells)
                out.append(("mark", turn.roll_value(dice, 0) - successors.worth(after)))
            else:
                after = marks.with_eliminated(event.cells)
                out.append(("fail", max(successors.shelf_values.values()) - successors.shelf_values[event.shelf]))
            marks = after
    return out

