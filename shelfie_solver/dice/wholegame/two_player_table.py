"""Two-player value tables (``solve-game --players 2 --save FILE``): written whole, read back
with every number checked, and played as the strategy ``exact2:FILE`` (docs/solve-game.md
"Two players"): each decision the one that maximises the mover's chance to win (D20) over the
table's values, the turn's DP of :mod:`two_player` (D6-D14).

The file is JSON: ``{"format": "shelfie-solve two-player table 1", "board", "rules", "players": 2,
"modes", "error_bound", "first_player_win_chance", "keys", "values"}``, ``keys`` the states
(:func:`two_player.pack`, sorted) and ``values`` the mover's chance to win at each (float64,
written with every digit, so read back bit for bit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

import numpy as np

from shelfie_solver.core.files import FileKind, json_kind
from shelfie_solver.dice.board import Board, board_from_dict
from shelfie_solver.dice.game.events import GameState, LegalMarkings
from shelfie_solver.dice.rules import Ruleset, rules_from_dict
from shelfie_solver.dice.wholegame.two_player import (MODES, TABLE_TIE, Setup, TwoPlayerError, TwoPlayerSolution, outcomes,
                                                      round_up, run_turn, roll_best, setup_for, start_key,
                                                      state_key)

#: The ``format`` key of a two-player value table.
TABLE_FORMAT = "shelfie-solve two-player table 1"
#: What :func:`files.check_overwrite` recognises as a two-player table (``--save`` replaces only those).
TABLE_KIND: FileKind = json_kind("a two-player value table", TABLE_FORMAT)
#: Largest table read (a 2 x 4 board's 656,000 states are about 25 MB).
MAX_BYTES = 1 << 28
#: The strategy name's prefix.
PREFIX = "exact2:"


def table_json(solution: TwoPlayerSolution) -> str:
    """The table file's text (module docstring)."""
    from shelfie_solver.dice.wholegame.solver import fingerprint

    head = {"format": TABLE_FORMAT, **fingerprint(solution.board, solution.rules), "players": 2,
            "modes": list(solution.modes), "error_bound": round_up(solution.bound),
            "first_player_win_chance": solution.first_player_win_chance}
    return json.dumps({**head, "keys": solution.keys.tolist(), "values": solution.values.tolist()})


def save_two_player(path: str, solution: TwoPlayerSolution, force: bool = False) -> None:
    """Write the table to ``path`` whole or not at all (temporary file, then rename); a file of
    another kind is replaced only with ``force`` (:func:`files.check_overwrite`).

    Raises:
        FileWriteError: the file holds another kind, or cannot be written.
    """
    from shelfie_solver.core.files import replace_checked

    replace_checked({path: (table_json(solution).encode(), TABLE_KIND)}, force)


def load_two_player(path: str) -> TwoPlayerSolution:
    """Read a table written by :func:`save_two_player`, every field checked.

    Raises:
        TwoPlayerError: no path, unreadable, not such a table, or a number out of range (one line).
    """
    from shelfie_solver.core.inputs import read_json

    if not path:  # "exact2:" with nothing after it, as table:/exact: and learned: refuse it
        raise TwoPlayerError("no two-player table file named; expected exact2:FILE with the file "
                             "shelfie-solve solve-game --players 2 --save wrote")
    data = read_json(path, TwoPlayerError, MAX_BYTES, "a two-player table written by solve-game --players 2")
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT:
        raise TwoPlayerError(f"{path}: expected a two-player table (\"format\": \"{TABLE_FORMAT}\"), written by "
                             "solve-game --players 2 --save")
    try:
        rules = rules_from_dict(data["rules"], f"{path}: rules")
        board = board_from_dict(data["board"], rules, f"{path}: board")
    except (KeyError, TypeError, ValueError) as error:
        raise TwoPlayerError(f"{path}: bad board or rules ({error}); expected the file solve-game wrote") from None
    keys, values = _arrays(path, data)
    modes = data.get("modes")
    bound = data.get("error_bound")
    if not (isinstance(modes, list) and len(modes) == 2 and all(m in MODES for m in modes)) \
            or not isinstance(bound, float) or not 0 <= bound < 1e-3:
        raise TwoPlayerError(f"{path}: bad \"modes\" or \"error_bound\"; expected the file solve-game wrote")
    if values.min(initial=0) < -bound or values.max(initial=0) > 1 + bound:
        raise TwoPlayerError(f"{path}: a chance to win outside 0 to 1; expected the file solve-game wrote, unedited")
    solution = TwoPlayerSolution(board, rules, (modes[0], modes[1]), keys, values, Fraction(bound))
    solution.value(start_key(board))  # the start is there
    return solution


def _arrays(path: str, data: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The table's ``keys`` (sorted, distinct int64) and ``values`` (finite float64), checked."""
    keys, values = data.get("keys"), data.get("values")
    if not (isinstance(keys, list) and isinstance(values, list) and len(keys) == len(values) > 0
            and all(type(k) is int and 0 <= k < 1 << 62 for k in keys) and all(type(v) is float for v in values)):
        raise TwoPlayerError(f"{path}: \"keys\" and \"values\" must be lists of equal length of state numbers and "
                             "floats; expected the file solve-game wrote")
    out_keys, out_values = np.array(keys, dtype=np.int64), np.array(values, dtype=np.float64)
    if np.any(np.diff(out_keys) <= 0) or not np.isfinite(out_values).all():
        raise TwoPlayerError(f"{path}: keys not sorted or a value not finite; expected the file solve-game wrote")
    return out_keys, out_values


@cache
def table_named(path: str) -> TwoPlayerSolution:
    """:func:`load_two_player`, once per process per path."""
    return load_two_player(path)


# --- the table as a strategy -----------------------------------------------------------------------


class TurnChoices:
    """One state's turn over a table: each item set's and shelf's worth (the mover's chance to win
    after it) and the hold values ``E_r (H,)`` of every level (r = 1..rerolls)."""

    def __init__(self, solution: TwoPlayerSolution, setup: Setup, key: int):
        out = outcomes(setup, np.array([key], dtype=np.int64))
        worth, shelf = solution.worths(setup, out)
        self.worth, self.shelf = worth[0], shelf[0]
        finals = roll_best(setup, worth, shelf.max(axis=1))
        _, kept = run_turn(setup, finals, keep=True)
        self.expected = [e[:, 0] for e in kept]


class TableSource:
    """Where a :class:`TwoPlayerStrategy` finds its table: :meth:`table` (read when first needed)."""

    def table(self) -> TwoPlayerSolution:
        """The table.

        Raises:
            TwoPlayerError: it cannot be had (a bad file).
        """
        raise NotImplementedError


class TableFile(TableSource):
    """The table of a file written by ``solve-game --players 2 --save`` (:func:`table_named`)."""

    def __init__(self, path: str):
        self.path = path

    def table(self) -> TwoPlayerSolution:
        """:func:`table_named` of the path."""
        return table_named(self.path)


class TwoPlayerStrategy:
    """Optimal two-player play from a table (module docstring): the hold with the highest value
    (ties within :data:`two_player.TABLE_TIE`: the first sub-hold, keeping more dice), the
    marking and the shelf with the highest chance to win after them (ties: the first). The
    strategy ``exact2:FILE`` (``source`` a path) and ``win``'s play in two-player games on a
    board that fits (``source`` the cached table, :mod:`exact2_cache`). Two-player games on the
    table's board only, from empty sheets.

    Raises (at the first decision): TwoPlayerError: not two players, another board, or a
    position the table does not hold.
    """

    def __init__(self, source: str | TableSource, name: str | None = None):
        self.source = TableFile(source) if isinstance(source, str) else source
        self.name = f"{PREFIX}{source}" if name is None else name
        self._turns: dict[int, TurnChoices] = {}

    def _turn(self, state: GameState) -> tuple[TurnChoices, Setup]:
        table = self.source.table()
        if state.players != 2:
            raise TwoPlayerError(f"strategy {self.name} plays two-player games only, not {state.players} "
                                 f"player{'' if state.players == 1 else 's'}")
        if not same_game(table, state.board, state.rules):
            raise TwoPlayerError(f"strategy {self.name}: the table is for board {table.board.name!r} and its "
                                 f"ruleset, not board {state.board.name!r} and this game's ruleset; expected "
                                 "the table of this game's board and rules (simulate: pass the table's "
                                 "--board and --rules)")
        setup = setup_for(table.board, table.rules)
        sheets = (state.sheets[0], state.sheets[1])
        key = state_key(state.board, sheets, state.active, state.first, state.end_triggered)
        found = self._turns.get(key)
        if found is None:
            table.value(key)  # a position the table holds, else one line
            found = TurnChoices(table, setup, key)
            if len(self._turns) > 4096:
                self._turns.pop(next(iter(self._turns)))
            self._turns[key] = found
        return found, setup

    def holds(self, state: GameState) -> bool:
        """Whether the table holds ``state`` (two players, its board and rules, a position some
        game from two empty sheets reaches), so the strategy can decide there.

        Raises:
            TwoPlayerError: the table cannot be had (a bad file).
        """
        table = self.source.table()
        if state.players != 2 or not same_game(table, state.board, state.rules):
            return False
        key = state_key(state.board, (state.sheets[0], state.sheets[1]), state.active, state.first,
                        state.end_triggered)
        at = int(np.searchsorted(table.keys, key))
        return at < len(table.keys) and int(table.keys[at]) == key

    def objective(self, state: GameState) -> TwoPlayerObjective:
        """The table as an objective in ``state`` (:class:`TwoPlayerObjective`, named as the strategy).

        Raises:
            TwoPlayerError: as the strategy's decisions.
        """
        choices, setup = self._turn(state)
        return TwoPlayerObjective(self.name, choices.worth, choices.shelf, _set_index(setup))

    def choose_hold(self, state: GameState, dice: tuple[int, ...], rerolls_left: int,
                    rng: np.random.Generator) -> tuple[int, ...]:
        from shelfie_solver.dice.rolls import space_for

        turn, _ = self._turn(state)
        space = space_for(state.rules)
        subs = space.sub_holds[space.roll_index[dice]]
        subs = subs[subs < len(space.holds)]
        return space.holds[int(subs[_first_best(turn.expected[rerolls_left - 1][subs])])]

    def choose_marking(self, state: GameState, dice: tuple[int, ...], legal: LegalMarkings,
                       rng: np.random.Generator) -> tuple[int, ...]:
        turn, setup = self._turn(state)
        index = _set_index(setup)
        options = np.array([turn.worth[index[sum(1 << c for c in legal.cells(i))]] for i in range(len(legal))])
        return legal.cells(_first_best(options))

    def choose_shelf(self, state: GameState, dice: tuple[int, ...], shelves: tuple[int, ...],
                     rng: np.random.Generator) -> int:
        turn, _ = self._turn(state)
        return shelves[_first_best(turn.shelf[list(shelves)])]


def _first_best(values: np.ndarray) -> int:
    """The first position within :data:`two_player.TABLE_TIE` of the largest value (ties in exact
    arithmetic go to the first choice whatever the rounding)."""
    return int(np.argmax(values >= values.max() - TABLE_TIE))


@cache
def _set_index(setup: Setup) -> dict[int, int]:
    """Each item set's position by its cells' bits."""
    return {int(m): k for k, m in enumerate(setup.set_masks)}


def same_game(solution: TwoPlayerSolution, board: Board, rules: Ruleset) -> bool:
    """Whether the table was solved for this board's layout (D3) and this ruleset (its name aside)."""
    from dataclasses import replace

    mine = solution.board
    return (mine.columns, mine.shelf_faces, mine.values) == (board.columns, board.shelf_faces, board.values) \
        and replace(solution.rules, name="") == replace(rules, name="")


# --- the table as an objective (advice in a game: play, advise --opponent) ---------------------------

#: The objective's integers are chances to win times ``2^30`` (truncated: at most ``2^-30`` below the
#: table's value), so the engine's DP stays in int64 (``2^30 D^rerolls`` < ``2^62`` with 6 dice, 2 re-rolls).
OBJECTIVE_SCALE = 1 << 30


@dataclass(frozen=True, eq=False)
class TwoPlayerObjective:
    """Objective ``exact2:FILE`` in one two-player game state (and ``win``'s there on a board
    that fits, :func:`exact2_cache.exact2_objective`): a marking is worth the mover's chance to
    win after it (blocking, the end trigger and the round played out: D15-D20), a failed result
    the shelf given up's (D13), from the table; integers over :data:`OBJECTIVE_SCALE`.
    Optimising the turn for it is the table's optimal play (:class:`TwoPlayerStrategy`).

    Attributes:
        worth: ``float64 (K,)`` the chance after each item set (-inf: unusable).
        shelves: ``float64 (S,)`` the chance after giving up each shelf (-inf: nothing to give up).
        masks: each item set's position by its cells' bits.
    """

    name: str
    worth: np.ndarray
    shelves: np.ndarray
    masks: dict[int, int]
    #: every value is the chance to win (D20), shown in percent (docs/advise.md)
    win_chance_exact: ClassVar[bool] = True
    #: the whole game's chance at every turn (not only the last turns of :mod:`win_chance`)
    whole_game: ClassVar[bool] = True

    def scale(self, rules: Ruleset) -> int:
        return OBJECTIVE_SCALE

    def values(self, state: Any, sets: Any) -> np.ndarray:
        bits = [sum(1 << int(c) for c in row if c >= 0) for row in sets.cells]
        return _scaled(np.array([self.worth[self.masks[b]] for b in bits], dtype=np.float64))

    def failed_value(self, state: Any) -> int:
        """The best shelf's chance (D13: the player gives up the best one)."""
        return int(_scaled(np.array([self.shelves.max()]))[0])

    def shelf_values(self, state: Any) -> list[tuple[int, int]]:
        """``(shelf, value)`` of every shelf with an available item (D13), best first (ties: shelf order)."""
        from shelfie_solver.dice.sheet_rules import failed_result_shelves

        shelves = list(failed_result_shelves(state.board, state.marks))
        values = _scaled(self.shelves[shelves]) if shelves else np.zeros(0, dtype=np.int64)
        return sorted(zip(shelves, (int(v) for v in values)), key=lambda pair: -pair[1])


def _scaled(chances: np.ndarray) -> np.ndarray:
    """``int64``: chances (clipped to 0 to 1; -inf to 0) times :data:`OBJECTIVE_SCALE`, rounded down."""
    out: np.ndarray = np.floor(np.clip(np.nan_to_num(chances, neginf=0.0), 0.0, 1.0) * OBJECTIVE_SCALE).astype(np.int64)
    return out


def two_player_objective(text: str, state: GameState | None) -> TwoPlayerObjective:
    """The objective ``exact2:FILE`` (``text``) in ``state``, a two-player game on the table's board.

    Raises:
        TwoPlayerError: no game state (plain ``advise``), not two players, another board, a
            position the table does not hold, or a bad table.
    """
    path = text.strip()[len(PREFIX):]
    if state is None:
        raise TwoPlayerError(f"objective {text.strip()} is the chance to win of a two-player game; give the "
                             "opponent's sheet with --opponent STATE (advise) or play a two-player game (play)")
    return TwoPlayerStrategy(path).objective(state)
