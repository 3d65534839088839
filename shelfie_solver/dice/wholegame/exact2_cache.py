"""Exact where it fits, two players: the two-player table (:mod:`two_player`, both seats playing
for the win, D20 ties halved) of every board and ruleset small enough, solved on first use and
kept in the disk cache (:mod:`core.diskcache`, kind ``two-player-values``), then played and
shown by ``win`` and ``win-model`` in two-player games (docs/solve-game.md, "Exact where it
fits"). The same structure as the solitaire tables of :mod:`exact_cache`, whose helpers it uses
(:func:`exact_cache.budget_from`, :func:`exact_cache.first_use_solve`, :func:`exact_cache.setup_key`).

The budget. A board and ruleset fit when they have at most :data:`two_player.MAX_CELLS` items
and the two-player game at most :func:`exact2_budget` states reachable from two empty sheets
(``$SHELFIE_SOLVE_EXACT2_BUDGET``; default :data:`DEFAULT_BUDGET`, what the float solve and the
enumeration do in about a minute here: :data:`STATES_PER_SECOND` measured), and numba is
installed (or the game has at most :data:`float_solver.MAX_STATES_UNCOMPILED` states). The
examples ``tiny-2x3`` (30,719 states), ``tiny-3x2`` (32,415) and ``held-out-2x4-1245``
(655,959) fit; the default 5 x 5 board (25 items) does not.

The entry. Keyed by :func:`exact_cache.setup_key`, it holds the values by the sorted state keys
(:func:`two_player.reachable_states`; float64 bits as int64) and the proven rounding-error bound
(float64 rounded up). Written whole once solved; an interrupted solve (Ctrl-C, SIGTERM) keeps
nothing, ``win`` stays on the model for the rest of the process, and stderr says so in one line
(:data:`INTERRUPTED_LINE`).

What it gives. :func:`solution_for` the :class:`two_player.TwoPlayerSolution`;
:func:`exact2_strategy` the strategy playing it (:class:`two_player_table.TwoPlayerStrategy`'s
choices, so ``win`` plays exactly the games of ``exact2:FILE`` with the table of ``solve-game
--players 2 --save FILE``); :func:`exact2_objective` the objective of one game state (the
mover's chance to win after each marking, named :data:`EXACT2_NAME`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from shelfie_solver.dice.advise.report import EXACT2_OBJECTIVE
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.exact_cache import (
    MEMORY_TABLES,
    budget_from,
    first_use_solve,
    keeping_words,
    known_or_read,
    remember,
    setup_key,
)
from shelfie_solver.dice.wholegame.two_player import TwoPlayerError, TwoPlayerSolution
from shelfie_solver.dice.wholegame.two_player_table import (
    TableSource,
    TwoPlayerObjective,
    TwoPlayerStrategy,
)

#: The environment variable that sets the budget (two-player states).
BUDGET_ENV = "SHELFIE_SOLVE_EXACT2_BUDGET"
#: States per CPU second of the two-player float solve with its enumeration, compiled, measured
#: here (2026-12-03, 4 processes on 2 cores): ``held-out-2x4-1245``'s 655,959 states in 3.5 s of
#: enumeration and 16.3 s of solve (33,100 a second), ``tiny-2x3``'s 30,719 in 0.94 s once
#: compiled; the estimate uses a lower rate.
STATES_PER_SECOND = 30_000
#: The default budget: what the two-player solve does in about 60 s here.
DEFAULT_BUDGET = 60 * STATES_PER_SECOND
#: The cache entry's kind (``shelfie-solve cache`` lists it).
KIND = "two-player-values"
#: The name of the objective and the strategy's play, where the objective is named (its one home
#: is the advice's report, which explains it: :data:`advise.report.EXACT2_OBJECTIVE`).
EXACT2_NAME = EXACT2_OBJECTIVE
#: Said on stderr when the solve is interrupted.
INTERRUPTED_LINE = ("Exact two-player solve interrupted: nothing was kept; win stays on the model (approximate) "
                    "for this run; the next run solves it again.")

#: This process's tables by :func:`exact_cache.setup_key` (``None``: the solve was interrupted here).
_KNOWN: dict[str, TwoPlayerSolution | None] = {}
#: This process's strategies over those tables, by key and name (:func:`exact2_strategy`).
_STRATEGIES: dict[tuple[str, str], TwoPlayerStrategy] = {}
#: This process's state counts by key (``None``: over the budget it was counted against), with that budget.
_COUNTS: dict[tuple[str, int], int | None] = {}


def exact2_budget() -> int:
    """The budget in states: ``$SHELFIE_SOLVE_EXACT2_BUDGET`` read by :func:`exact_cache.budget_from`
    (unset or blank: :data:`DEFAULT_BUDGET`; ``0`` or ``off``: never solve, ``win`` on the model).

    Raises:
        exact_cache.BudgetError: any other value.
    """
    return budget_from(BUDGET_ENV, DEFAULT_BUDGET)


@dataclass(frozen=True)
class Route:
    """Whether a board and ruleset get the exact two-player table: ``exact`` (they fit; the table
    may still have to be solved), the reachable states ``states`` (``None``: more than the
    budget, not counted further), the ``budget`` and, when not exact, ``reason`` in words."""

    exact: bool
    states: int | None
    budget: int
    reason: str = ""


def route(board: Board, rules: Ruleset) -> Route:
    """Whether ``board`` and ``rules`` fit the two-player budget (module docstring); nothing is
    solved (the states are those of the table in memory or the disk cache, else enumerated once
    per process, at most the budget's worth).

    Raises:
        exact_cache.BudgetError: a bad ``$SHELFIE_SOLVE_EXACT2_BUDGET``.
    """
    from shelfie_solver.dice.wholegame.float_kernel import has_numba
    from shelfie_solver.dice.wholegame.float_solver import MAX_STATES_UNCOMPILED
    from shelfie_solver.dice.wholegame.two_player import MAX_CELLS

    budget = exact2_budget()
    if board.n_cells > MAX_CELLS:
        return Route(False, None, budget, f"{board.n_cells} items, more than the two-player solver's {MAX_CELLS}")
    if budget <= 0:
        return Route(False, None, budget, f"the exact two-player solve is off ({BUDGET_ENV}=0)")
    known = cached_solution(board, rules)  # a kept table: its states, no enumeration
    states = len(known.keys) if known is not None and len(known.keys) <= budget else state_count(board, rules, budget)
    if states is None:
        return Route(False, None, budget, f"more than {budget:,} two-player states, over the exact budget "
                                          f"({BUDGET_ENV})")
    if states > MAX_STATES_UNCOMPILED and not has_numba():
        return Route(False, states, budget, "the exact solve needs numba: pip install '.[fast]' in the clone")
    if interrupted(board, rules):
        return Route(False, states, budget, "the exact two-player solve was interrupted in this run")
    return Route(True, states, budget)


def state_count(board: Board, rules: Ruleset, budget: int) -> int | None:
    """The two-player states reachable from two empty sheets (:func:`two_player.reachable_states`),
    or ``None`` when there are more than ``budget``; counted once per process, and kept in the
    disk cache (kind :data:`COUNT_KIND`): a board just over the budget takes a minute to count
    (``small-4x3``: 62 s here), which every ``play`` or ``advise --opponent`` command on it paid."""
    if budget <= 0:
        return None
    key = (setup_key(board, rules), budget)
    if key not in _COUNTS:
        _COUNTS[key] = _kept_count(board, rules, budget)
    return _COUNTS[key]


#: The disk-cache kind of a state count (:func:`state_count`): ``states``, one int64, the count or
#: -1 for more than the budget of the key.
COUNT_KIND = "two-player-count"


def _kept_count(board: Board, rules: Ruleset, budget: int) -> int | None:
    """:func:`state_count` from the disk cache, else counted and stored (:func:`core.diskcache.load_or_build`)."""
    from shelfie_solver.core.diskcache import all_within, load_or_build
    from shelfie_solver.dice.wholegame.two_player import reachable_states, setup_for

    def count() -> dict[str, np.ndarray]:
        try:
            found = len(reachable_states(setup_for(board, rules), budget))
        except TwoPlayerError:
            found = -1
        return {"states": np.array([found], dtype=np.int64)}

    # a count is -1 (over the budget) or 0 to the budget: anything else is refused and counted again
    states = int(load_or_build(COUNT_KIND, f"{setup_key(board, rules)}\nbudget {budget}", {"states": (1,)},
                               count, lambda found: all_within(found["states"], -1, budget + 1))["states"][0])
    return None if states < 0 else states


def interrupted(board: Board, rules: Ruleset) -> bool:
    """Whether the exact two-player solve of ``board`` and ``rules`` was interrupted in this
    process (``win`` then stays on the model until the process ends, :data:`INTERRUPTED_LINE`)."""
    return _KNOWN.get(setup_key(board, rules), True) is None


def estimated_seconds(states: int) -> float:
    """The two-player solve's estimated wall time for ``states`` states (:data:`STATES_PER_SECOND`)."""
    return states / STATES_PER_SECOND


def cached_solution(board: Board, rules: Ruleset) -> TwoPlayerSolution | None:
    """The table when this process has it or the disk cache holds it; never solves."""
    key = setup_key(board, rules)
    return known_or_read(_KNOWN, key, lambda: _read(board, rules, key))


def solution_for(board: Board, rules: Ruleset, solve: bool = True) -> TwoPlayerSolution | None:
    """The exact two-player table of ``board`` and ``rules`` when they fit the budget
    (:func:`route`), else ``None``: from this process's memory, else the disk cache, else
    (``solve``) solved now (:func:`exact_cache.first_use_solve`: an estimate line, a progress bar,
    stored whole once done). Interrupted: :data:`INTERRUPTED_LINE`, nothing stored, ``None``
    from then on in this process.

    Raises:
        exact_cache.BudgetError: a bad ``$SHELFIE_SOLVE_EXACT2_BUDGET``. CacheSettingError: a bad
            ``$SHELFIE_SOLVE_CACHE_MAX``.
    """
    found_route = route(board, rules)
    if not found_route.exact:
        return None
    found = cached_solution(board, rules)
    if found is not None or not solve:
        return found
    assert found_route.states is not None
    return _solve(board, rules, setup_key(board, rules), found_route.states, found_route.budget)


def _solve(board: Board, rules: Ruleset, key: str, states: int, budget: int) -> TwoPlayerSolution | None:
    from shelfie_solver.core.diskcache import write_entry
    from shelfie_solver.dice.wholegame.two_player import round_up, solve_two_player

    announce = (f"Solving the two-player game of board {board.name!r} exactly, once: {states:,} states, "
                f"about {max(1.0, estimated_seconds(states)):.0f} s ({keeping_words(16 * states)}; "
                f"{BUDGET_ENV}=0 skips it).")
    solved = first_use_solve(_KNOWN, key, announce, states,
                             lambda progress: solve_two_player(board, rules, max_states=budget, progress=progress),
                             INTERRUPTED_LINE)
    if solved is None:
        return None
    values = np.ascontiguousarray(solved.values, dtype=np.float64)
    bound = np.array([round_up(solved.bound)], dtype=np.float64)
    write_entry(KIND, key, {"keys": np.ascontiguousarray(solved.keys, dtype=np.int64),
                            "values": values.view(np.int64), "bound": bound.view(np.int64)})
    remember(_KNOWN, key, solved)
    return solved


def _read(board: Board, rules: Ruleset, key: str) -> TwoPlayerSolution | None:
    """The cached table, every number checked (keys sorted and distinct, values within 0 to 1
    plus the bound, the start held), else ``None`` (solved again and replaced)."""
    from shelfie_solver.core.diskcache import read_entry
    from shelfie_solver.dice.wholegame.two_player import OPTIMAL, start_key

    found = read_entry(KIND, key, {"keys": ("states",), "values": ("states",), "bound": (1,)})
    if found is None:
        return None
    keys = np.ascontiguousarray(found["keys"], dtype=np.int64)
    values = np.ascontiguousarray(found["values"]).view(np.float64)
    bound = float(np.ascontiguousarray(found["bound"]).view(np.float64)[0])
    if not len(keys) or not np.isfinite(bound) \
            or not 0 <= bound < 1e-3 or np.any(np.diff(keys) <= 0) or not np.isfinite(values).all() \
            or values.min() < -bound or values.max() > 1 + bound or int(keys[0]) != start_key(board):
        return None
    return TwoPlayerSolution(board, rules, (OPTIMAL, OPTIMAL), keys, values, Fraction(bound))


class CachedTable(TableSource):
    """The cached table of one board and ruleset as a :class:`two_player_table.TableSource`."""

    def __init__(self, solution: TwoPlayerSolution):
        self.solution = solution

    def table(self) -> TwoPlayerSolution:
        """The table (already solved)."""
        return self.solution


def exact2_strategy(board: Board, rules: Ruleset, name: str = EXACT2_NAME) -> TwoPlayerStrategy | None:
    """The exact two-player optimum's play on ``board`` and ``rules`` (:func:`solution_for`,
    solved on first use), named ``name``, one per table and name in this process (so its turns
    are worked out once); ``None`` when they do not fit or the solve was interrupted."""
    solution = solution_for(board, rules)
    if solution is None:
        return None
    key = (setup_key(board, rules), name)
    found = _STRATEGIES.get(key)
    if found is None or not isinstance(found.source, CachedTable) or found.source.solution is not solution:
        found = _STRATEGIES[key] = TwoPlayerStrategy(CachedTable(solution), name)
        while len(_STRATEGIES) > MEMORY_TABLES:
            _STRATEGIES.pop(next(iter(_STRATEGIES)))
    return found


def exact2_objective(state: GameState, name: str = EXACT2_NAME) -> TwoPlayerObjective | None:
    """The objective :data:`EXACT2_NAME` in a two-player ``state`` on a board that fits
    (:func:`solution_for`, solved on first use): the mover's chance to win after each marking and
    shelf given up, from the table; ``None`` with another number of players, a board that does
    not fit, an interrupted solve, or a position the table does not hold (sheets typed for
    ``advise --opponent`` that no game from empty sheets reaches)."""
    if state.players != 2:
        return None
    strategy = exact2_strategy(state.board, state.rules, name)
    if strategy is None:
        return None
    try:
        return strategy.objective(state)
    except TwoPlayerError:
        return None
