"""Exact where it fits: the solitaire value table of every board and ruleset small enough,
solved on first use by the float solver (:mod:`float_solver`, a proven rounding-error bound)
and kept in the disk cache (:mod:`core.diskcache`, kind ``solitaire-values``), then used by
every objective that needs solitaire values (docs/solve-game.md, "Exact where it fits").

The budget. A board and ruleset fit when the solitaire game has at most
:func:`exact_budget` non-terminal states (``$SHELFIE_SOLVE_EXACT_BUDGET``; default
:data:`DEFAULT_BUDGET`, what the float solve does in about a minute here:
:data:`STATES_PER_SECOND` measured), at most 62 items, and numba is installed (or the board
has at most :data:`float_solver.MAX_STATES_UNCOMPILED` states). The default 5 x 5 board
(176,392,511 states) does not fit: ``solve-game --float --save T.npy`` and ``exact:T.npy``
remain the way to exactness there.

The entry. Keyed by the board and the ruleset by content (:func:`setup_key`: their saved-game
JSON without the names, which are labels), it holds the float64 values by
:mod:`state_index` index (their bits as int64) and the proven error bound (a float64 rounded
up). An entry is written whole after the solve has finished, so an interrupted solve
(Ctrl-C, SIGTERM) leaves nothing; the advice then stays on ``learned`` for the rest of the
process and says so on stderr (:data:`INTERRUPTED_LINE`). With the cache off
(``SHELFIE_SOLVE_CACHE=off``) or an entry larger than its bound the table is solved again by
each process that needs it.

Shared with the two-player tables of :mod:`exact2_cache` (one home each): the budget's reader
(:func:`budget_from`), the key (:func:`setup_key`), the bounded memory (:func:`remember`) and the
first-use protocol (:func:`first_use_solve`: estimate, bar, interruption).

What it gives. :func:`solution_for` the :class:`solver.GameSolution` (values read as the exact
value of each float, as a binary table's: :class:`binary_table.MappedValues`);
:func:`exact_objective` the objective ``exact optimum`` (:class:`ExactObjective`: optimal
solitaire play; its value the change of the optimal expected final score);
:func:`exact_strategy` the strategy playing it (:class:`values.ExactStrategy`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.dice.board import Board, Marks, board_to_dict, score
from shelfie_solver.dice.rules import Ruleset, rules_to_dict
from shelfie_solver.dice.wholegame.values import ExactStrategy, TableObjective

from shelfie_solver.dice.wholegame.solver import GameSolution

if TYPE_CHECKING:
    from shelfie_solver.dice.objectives import StateArrays

#: The environment variable that sets the budget (states).
BUDGET_ENV = "SHELFIE_SOLVE_EXACT_BUDGET"
#: States per CPU second of the compiled float solve, measured here: the 4 x 4 board of 266,625
#: states in 5.1 CPU s (52,000 a second), the default 5 x 5 board at 39,395 a second
#: (docs/performance.md); the estimate uses the lower rate.
STATES_PER_SECOND = 40_000
#: The default budget: what the float solve does in about 60 s here.
DEFAULT_BUDGET = 60 * STATES_PER_SECOND
#: The cache entry's kind (``shelfie-solve cache`` lists it).
KIND = "solitaire-values"
#: The name of the objective, in reports ("exact optimum").
EXACT_NAME = "exact optimum"
#: Said on stderr when the solve is interrupted.
INTERRUPTED_LINE = ("Exact solve interrupted: nothing was kept; the advice stays on learned (approximate) "
                    "for this run; the next run solves it again.")

_MULTIPLIERS = {"": 1, "k": 1_000, "m": 1_000_000}
#: A table kept by :func:`remember` (this module's :class:`CachedSolution`, a two-player solution).
T = TypeVar("T")
#: What a first-use solve returns (:func:`first_use_solve`).
S = TypeVar("S")


class BudgetError(ShelfieError):
    """An exact budget (``$SHELFIE_SOLVE_EXACT_BUDGET``, ``$SHELFIE_SOLVE_EXACT2_BUDGET``) is not a
    number of states."""


def exact_budget() -> int:
    """The budget in states: ``$SHELFIE_SOLVE_EXACT_BUDGET`` read by :func:`budget_from`
    (unset or blank: :data:`DEFAULT_BUDGET`; ``0`` or ``off``: never solve, ``learned`` everywhere).

    Raises:
        BudgetError: any other value.
    """
    return budget_from(BUDGET_ENV, DEFAULT_BUDGET)


def budget_from(variable: str, default: int) -> int:
    """A budget in states from the environment variable ``variable``: a whole number, with an
    optional ``k`` (thousand) or ``m`` (million) suffix (``500k``; ``2.4m`` is refused: whole
    numbers only before the suffix; ``_`` and ``,`` between digits ignored); ``0`` or ``off``:
    never solve; unset or blank: ``default``. The one reader of every exact budget
    (this module's, :mod:`exact2_cache`'s).

    Raises:
        BudgetError: any other value (one line naming ``variable``).
    """
    text = os.environ.get(variable, "").strip().lower().replace("_", "").replace(",", "")
    if not text:
        return default
    if text in ("off", "no", "false"):
        return 0
    digits, unit = (text[:-1], text[-1]) if text[-1] in _MULTIPLIERS else (text, "")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 15:
        raise BudgetError(f"{variable}={shorten(os.environ.get(variable, ''))} is not a number of states: "
                          "expected a whole number, optionally with k or m (thousand, million), e.g. 2400000 "
                          "or 500k; 0 or off never solves")
    return int(digits) * _MULTIPLIERS[unit]


def setup_key(board: Board, rules: Ruleset) -> str:
    """The cache key of a board and ruleset: their saved-game JSON (:func:`board.board_to_dict`,
    :func:`rules.rules_to_dict`) without the names, keys sorted."""
    shelf = {k: v for k, v in board_to_dict(board, rules).items() if k != "name"}
    ruleset = {k: v for k, v in rules_to_dict(rules).items() if k != "name"}
    return json.dumps({"board": shelf, "rules": ruleset}, sort_keys=True)


@dataclass(frozen=True)
class Route:
    """Whether a board and ruleset get exact solitaire values: ``exact`` (they fit; the table
    may still have to be solved), the state count ``states``, the ``budget`` and, when not
    exact, ``reason`` in words."""

    exact: bool
    states: int
    budget: int
    reason: str = ""


def route(board: Board, rules: Ruleset) -> Route:
    """Whether ``board`` and ``rules`` fit the budget (module docstring); nothing is solved.

    Raises:
        BudgetError: a bad ``$SHELFIE_SOLVE_EXACT_BUDGET``.
    """
    from shelfie_solver.dice.wholegame.float_kernel import has_numba
    from shelfie_solver.dice.wholegame.float_solver import MAX_STATES_UNCOMPILED
    from shelfie_solver.dice.wholegame.solver import state_count

    budget = exact_budget()
    states = state_count(board, rules)
    if states > budget:
        return Route(False, states, budget, f"{states:,} solitaire states, over the exact budget of {budget:,} "
                                            f"({BUDGET_ENV})")
    if board.n_cells > 62:
        return Route(False, states, budget, f"{board.n_cells} items, more than the float solver's 62")
    if states > MAX_STATES_UNCOMPILED and not has_numba():
        return Route(False, states, budget, "the exact solve needs numba: pip install '.[fast]' in the clone")
    if interrupted(board, rules):
        return Route(False, states, budget, "the exact solve was interrupted in this run")
    return Route(True, states, budget)


def interrupted(board: Board, rules: Ruleset) -> bool:
    """Whether the exact solve of ``board`` and ``rules`` was interrupted in this process (so
    ``learned`` stands in for the exact optimum until the process ends, :data:`INTERRUPTED_LINE`)."""
    return _KNOWN.get(setup_key(board, rules), True) is None


#: This process's tables by :func:`setup_key` (``None``: the solve was interrupted here).
_KNOWN: dict[str, CachedSolution | None] = {}
#: Tables kept in memory at most (a 2.4M-state table is 19 MB).
MEMORY_TABLES = 8


def estimated_seconds(states: int) -> float:
    """The float solve's estimated wall time for ``states`` states (:data:`STATES_PER_SECOND`)."""
    return states / STATES_PER_SECOND


def cached_solution(board: Board, rules: Ruleset) -> CachedSolution | None:
    """The table when this process has it or the disk cache holds it; never solves."""
    key = setup_key(board, rules)
    return known_or_read(_KNOWN, key, lambda: _read(board, rules, key))


def solution_for(board: Board, rules: Ruleset, solve: bool = True) -> CachedSolution | None:
    """The exact solitaire table of ``board`` and ``rules`` when they fit the budget
    (:func:`route`), else ``None``: from this process's memory, else the disk cache, else
    (``solve``) solved now: an estimate line on stderr first, a progress bar while it runs
    (stderr a terminal), stored whole in the cache once done. Interrupted (SIGINT, SIGTERM):
    :data:`INTERRUPTED_LINE` on stderr, nothing stored, ``None`` from then on in this process.

    Raises:
        BudgetError: a bad ``$SHELFIE_SOLVE_EXACT_BUDGET``. CacheSettingError: a bad
            ``$SHELFIE_SOLVE_CACHE_MAX``.
    """
    if not route(board, rules).exact:
        return None
    found = cached_solution(board, rules)
    if found is not None or not solve:
        return found
    return _solve(board, rules, setup_key(board, rules))


def _remember(key: str, solution: CachedSolution | None) -> None:
    remember(_KNOWN, key, solution)


def known_or_read(known: dict[str, T | None], key: str, read: Callable[[], T | None]) -> T | None:
    """The table of ``key`` in the process's tables ``known`` (``None`` there: interrupted), else
    ``read()`` (the disk cache; ``None``: not there), kept in ``known`` when found; never solves."""
    if key in known:
        return known[key]
    found = read()
    if found is not None:
        remember(known, key, found)
    return found


def remember(known: dict[str, T | None], key: str, solution: T | None) -> None:
    """Keep ``solution`` (``None``: its solve was interrupted) in the process's tables ``known``,
    the oldest dropped beyond :data:`MEMORY_TABLES`."""
    if len(known) >= MEMORY_TABLES:
        known.pop(next(iter(known)))
    known[key] = solution


def keeping_words(entry_bytes: int) -> str:
    """Whether a solved table of about ``entry_bytes`` bytes will be kept, for the estimate line:
    "kept in the table cache", or why not (the cache off, the table over its bound)."""
    from shelfie_solver.core.diskcache import cache_dir, cache_limit

    limit = cache_limit()
    if cache_dir() is None or not limit:
        return "not kept: the table cache is off"
    if entry_bytes > limit:
        return "not kept: larger than SHELFIE_SOLVE_CACHE_MAX"
    return "kept in the table cache"


def first_use_solve(known: dict[str, Any], key: str, announce: str, states: int,
                    solve: Callable[[Callable[[int, int], None] | None], S], interrupted_line: str,
                    label: str = "Solving exactly") -> S | None:
    """Solve once, on first use: ``announce`` on stderr, then ``solve(progress)`` under a
    progress bar of ``states`` steps named ``label`` (stderr a terminal; ``progress(_, n)``
    advances it by ``n``). Interrupted (SIGINT, SIGTERM): ``interrupted_line`` on stderr, ``None`` kept under
    ``key`` in ``known`` (not asked again in this process) and returned; the caller stores a
    finished solve (the one home of this protocol, here, in :mod:`exact2_cache` and in
    :mod:`learned.own_cache`)."""
    from shelfie_solver.core.parallel import Interrupted, signals_raise
    from shelfie_solver.core.progress import progress_bar

    sys.stderr.write(announce + "\n")
    sys.stderr.flush()
    try:
        # SIGTERM as Ctrl-C (parallel.signals_raise): the two-player solve has no handler of its own
        with signals_raise(), progress_bar(label, states) as bar:  # a bar on a terminal only
            try:
                return solve(None if bar is None else lambda _, n: bar.advance(n))
            except SystemError as caught:  # a signal inside a numba dispatch: the same interruption
                if isinstance(caught.__cause__, (KeyboardInterrupt, Interrupted)):
                    raise caught.__cause__ from None
                raise
    except (KeyboardInterrupt, Interrupted):
        sys.stderr.write(interrupted_line + "\n")
        sys.stderr.flush()
        remember(known, key, None)
        return None


def _solve(board: Board, rules: Ruleset, key: str) -> CachedSolution | None:
    from shelfie_solver.core.diskcache import write_entry
    from shelfie_solver.dice.wholegame.binary_table import round_up
    from shelfie_solver.dice.wholegame.float_solver import solve_float
    from shelfie_solver.dice.wholegame.solver import state_count

    states = state_count(board, rules)
    announce = (f"Solving the solitaire game of board {board.name!r} exactly, once: {states:,} states, "
                f"about {max(1.0, estimated_seconds(states)):.0f} s ({keeping_words(8 * states)}; "
                f"{BUDGET_ENV}=0 skips it).")
    solved = first_use_solve(_KNOWN, key, announce, states, lambda progress: solve_float(board, rules, progress=progress),
                             INTERRUPTED_LINE)
    if solved is None:
        return None
    values = np.ascontiguousarray(solved.values, dtype=np.float64)
    bound = np.array([round_up(solved.bound)], dtype=np.float64)
    write_entry(KIND, key, {"values": values.view(np.int64), "bound": bound.view(np.int64)})
    solution = _solution(board, rules, values, float(bound[0]), solved.seconds)
    _remember(key, solution)
    return solution


def _read(board: Board, rules: Ruleset, key: str) -> CachedSolution | None:
    from shelfie_solver.core.diskcache import read_entry
    from shelfie_solver.dice.wholegame.solver import ExactError, state_count

    found = read_entry(KIND, key, {"values": (state_count(board, rules),), "bound": (1,)})
    if found is None:
        return None
    values = np.ascontiguousarray(found["values"]).view(np.float64)
    bound = float(np.ascontiguousarray(found["bound"]).view(np.float64)[0])
    if not np.isfinite(bound) or bound < 0:
        return None  # another layout: solved again and replaced
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)
    if values.size and not float(np.max(values)) <= possible:  # also NaN
        return None  # a value above a full sheet's points (D19), which the table refuses when used
    try:
        return _solution(board, rules, values, bound, 0.0)
    except ExactError:
        return None


@dataclass
class CachedSolution(GameSolution):
    """A table of :func:`solution_for`: :class:`solver.GameSolution` with ``error_bound``, the
    proven bound (points) on ``|value - exact value|`` of every value (the float solve's,
    rounded up)."""

    error_bound: float = 0.0


def _solution(board: Board, rules: Ruleset, values: np.ndarray, bound: float, seconds: float) -> CachedSolution:
    """The values as a :class:`solver.GameSolution` (checked as a binary table's are:
    :func:`binary_table.check_values`)."""
    from shelfie_solver.dice.wholegame.binary_table import MappedValues, check_values, scale_exponent
    from shelfie_solver.dice.wholegame.state_index import state_index

    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)
    source = f"the cached solitaire table of board {board.name!r}"
    check_values(values, possible, Fraction(bound), source)
    mapped = MappedValues(state_index(board, rules), values, possible, scale_exponent(values), source)
    return CachedSolution(board, rules, mapped, seconds, error_bound=bound)


@dataclass(frozen=True, eq=False)
class ExactObjective(TableObjective):
    """The objective ``learned`` becomes alone on a board that fits (:func:`exact_objective`):
    :class:`values.TableObjective` over the cached table, named ``exact optimum``; its
    :meth:`before` is ``V(marks)``, so advice shows the optimal expected final score."""

    name: str = EXACT_NAME
    opponents: int = 0

    def before(self, state: StateArrays) -> int:
        """``V(marks)`` over :meth:`scale` (an integer: every value is a multiple of ``1/scale``)."""
        return int(self.table.value(state.marks) * self.scale(state.rules))


def exact_objective(board: Board, rules: Ruleset) -> ExactObjective | None:
    """The objective ``exact optimum`` of ``board`` and ``rules`` (solved on first use,
    :func:`solution_for`), or ``None`` when they do not fit or the solve was interrupted."""
    solution = solution_for(board, rules)
    return None if solution is None else ExactObjective(solution)


class CachedExactStrategy(ExactStrategy):
    """:class:`values.ExactStrategy` over the cached table of the game's board (what ``learned``
    and ``win`` play alone on a board that fits)."""

    def __init__(self, solution: GameSolution, name: str = EXACT_NAME):
        super().__init__("")
        self.name = name
        self.solution = solution

    def _table(self, state: Any) -> GameSolution:
        return self.solution


def exact_strategy(board: Board, rules: Ruleset, name: str = EXACT_NAME) -> CachedExactStrategy | None:
    """The optimal solitaire strategy on ``board`` and ``rules`` (:func:`solution_for`), or
    ``None`` when they do not fit or the solve was interrupted."""
    solution = solution_for(board, rules)
    return None if solution is None else CachedExactStrategy(solution, name)
