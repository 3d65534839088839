"""A board's own table on first use (docs/solve-game.md, "Exact where it fits", its last part): in
solitaire, on a board of :data:`OWN_SHAPES` over the exact budget whose sub-boards fit it
(:func:`own_table.sub_boards`, :func:`wholegame.exact_cache.route`), where the shipped file plays a
table the own table replaces (:data:`OWN_REPLACES`: not the threes table), the shipped ``learned``
plays the board's own table (:func:`own_table.own_weights`: the fit to the sub-boards' float
value tables mixed with the table :meth:`model_file.LearnedModel.for_board` picks, then value
iteration on the board itself, :func:`own_table.iterate_weights`), fitted once
and kept in the disk cache (:mod:`core.diskcache`, kind :data:`KIND`): :func:`own_model`, which
the ``learned`` strategy (:class:`strategies.LearnedStrategy`) and objective
(:func:`objective_names.parse_objective`) play alone there.

The protocol is the exact table's (:func:`wholegame.exact_cache.first_use_solve`): an estimate line
on stderr, a progress bar on a terminal, the entry written whole once the fit is done; Ctrl-C or
SIGTERM keeps nothing and the advice stays on the shipped tables for the rest of the process
(:data:`INTERRUPTED_LINE`). Keyed by the board's and ruleset's content
(:func:`wholegame.exact_cache.setup_key`), the design (:data:`own_table.SIDES`,
:func:`own_table.share_for`, the value iteration's settings :data:`own_table.ITERATIONS` and the
rest, so entries of an earlier design are fitted again) and the base table's
weights (a new shipped file fits again). ``$SHELFIE_SOLVE_OWN_TABLE`` (:data:`OWN_ENV`) ``off``
turns it off; ``learned:FILE`` is never replaced.
"""

from __future__ import annotations

import hashlib
import os
import sys

import numpy as np

from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.learned.model_file import N_FEATURES, PHASES, LearnedModel, default_model
from shelfie_solver.dice.rules import Ruleset

#: The environment variable that turns the own table off (``off``, ``0``, ``no``, ``false``).
OWN_ENV = "SHELFIE_SOLVE_OWN_TABLE"
#: The cache entry's kind (``shelfie-solve cache`` lists it).
KIND = "solitaire-own-table"
#: The board shapes (shelves, columns) that get an own table: those over the default exact
#: budget, where it was chosen on the validation family 4242 (docs/strategies.md, "A board's own
#: table").
OWN_SHAPES: tuple[tuple[int, int], ...] = ((4, 5), (5, 4))
#: The shipped tables the own table replaces (:meth:`model_file.LearnedModel.table_kind`): all but
#: the threes table (repeated 3s beside 4-5s), where it lost 1.5 points a game on the validation
#: family 4242; on the heavy, light-five, many-dice and pooled tables' boards it gained or held
#: (docs/strategies.md, "A board's own table").
OWN_REPLACES = ("heavy", "light_five", "many", "shapes", "players")
#: Sub-board states fitted per CPU second (solved and summed, :func:`own_table.fit_sub_boards`),
#: measured here on 2 shared cores: the 5 4 x 4 sub-boards of a 5 x 4 board (1,333,125 states) in
#: 34-57 CPU s, the 4 3 x 5 sub-boards of a 4 x 5 board (488,188 states) in 13-23 CPU s (the
#: slower ends, under load; a whole first ``advise`` on a quieter machine, before value iteration:
#: 32.8 s and 11.8 s).
STATES_PER_SECOND = 25_000
#: Games of value iteration (:func:`own_table.iterate_weights`) played and fitted per CPU second,
#: measured here on 2 shared cores: the 5 x 2,000 games (4 steps and the last step's weights
#: played) in 7-25 CPU s on the validation boards, under load (the slower end); a whole first
#: ``advise`` with value iteration: 41.5 s on 5 x 4, 15.9 s on 4 x 5 (docs/strategies.md, "Value
#: iteration on the board itself").
GAMES_PER_SECOND = 600
#: Steps of the fit's progress bar per game of value iteration: the bar counts each sub-board state
#: twice (solved, then summed), so a game weighs what the two rates above make its time, and the bar
#: does not stand at 99% once the states are done with most of the time still to come (measured here
#: on the 4 x 5 benchmark board: the states in 10 s, the games in 20 s).
GAME_UNITS = round(2 * STATES_PER_SECOND / GAMES_PER_SECOND)
#: Said on stderr when the fit is interrupted.
INTERRUPTED_LINE = ("Own-table fit interrupted: nothing was kept; the advice stays on learned's shipped tables "
                    "for this run; the next run fits it again.")
#: Said on stderr when the fitted table passes the objective's bound (:data:`model_file.MAX_WEIGHT`,
#: boards of large item values): the shipped tables stay, and the cache keeps the bound passed
#: (a ``(1, 1)`` table: a later version with another bound fits it again), :data:`_NONE` in memory.
OVER_BOUND_LINE = ("Own table of board {name!r} not used: its fitted weights pass the learned objective's "
                   "bound; the advice stays on learned's shipped tables (kept so, not fitted again).")
#: This process's table of a board whose fit passed the bound (:data:`OVER_BOUND_LINE`): none.
_NONE = np.zeros((0, N_FEATURES), dtype=np.int64)
#: This process's own tables by :func:`_key` (``None``: the fit was interrupted here, or the
#: board gets none).
_KNOWN: dict[str, np.ndarray | None] = {}
#: The same by board, ruleset and base table (the per-turn look-up, no key built).
_BY_OBJECT: dict[tuple[Board, Ruleset, bytes], np.ndarray | None] = {}
#: Boards whose look-up :data:`_BY_OBJECT` keeps at most (the oldest dropped).
MEMORY_TABLES = 8


class OwnTableSettingError(ShelfieError):
    """``$SHELFIE_SOLVE_OWN_TABLE`` is neither on nor off."""


def own_enabled() -> bool:
    """Whether boards get their own table: ``$SHELFIE_SOLVE_OWN_TABLE`` unset, blank, ``on``,
    ``1``, ``yes`` or ``true``: yes; ``off``, ``0``, ``no`` or ``false``: no (case ignored).

    Raises:
        OwnTableSettingError: any other value (one line naming the variable).
    """
    text = os.environ.get(OWN_ENV, "").strip().lower()
    if text in ("", "on", "1", "yes", "true"):
        return True
    if text in ("off", "0", "no", "false"):
        return False
    raise OwnTableSettingError(f"{OWN_ENV}={shorten(os.environ.get(OWN_ENV, ''))} is neither on nor off: expected "
                               "on (the default) or off")


def applies(board: Board, rules: Ruleset) -> bool:
    """Whether a solitaire game of the shipped ``learned`` on ``board`` gets its own table: the
    setting is on (:func:`own_enabled`), the board's shape is one of :data:`OWN_SHAPES`, the
    shipped file plays one of the tables of :data:`OWN_REPLACES` there, numba is installed (the
    value iteration's compiled turns), the board does not fit the exact budget (:func:`exact_cache.route`: its exact table is used where it
    does) and every sub-board fits it (so ``$SHELFIE_SOLVE_EXACT_BUDGET=0`` turns this off too).

    Raises:
        OwnTableSettingError: a bad ``$SHELFIE_SOLVE_OWN_TABLE``. BudgetError: a bad
            ``$SHELFIE_SOLVE_EXACT_BUDGET``.
    """
    from shelfie_solver.dice.learned.own_table import sub_boards
    from shelfie_solver.dice.wholegame.exact_cache import route

    if not own_enabled() or (board.n_shelves, board.n_columns) not in OWN_SHAPES:
        return False
    from shelfie_solver.dice.wholegame.float_kernel import has_numba

    if not has_numba():  # the value iteration's turns are compiled (own_table.turn_targets); on the
        return False  # shapes of OWN_SHAPES the sub-boards' solves need numba too (exact_cache.route)
    if default_model().table_kind(1, board) not in OWN_REPLACES:
        return False
    if route(board, rules).exact:
        return False
    try:
        subs = sub_boards(board)
    except ValueError:
        return False
    return all(route(sub, rules).exact for sub in subs)


def _key(board: Board, rules: Ruleset, base: np.ndarray) -> str:
    """The cache key: the board and ruleset by content, the design and the base table's weights."""
    from shelfie_solver.dice.learned import own_table
    from shelfie_solver.dice.wholegame.exact_cache import setup_key

    digest = hashlib.sha256(np.ascontiguousarray(base, dtype=np.int64).tobytes()).hexdigest()[:32]
    return (f"{setup_key(board, rules)}\nown table: sub-boards {own_table.SIDES}, own share "
            f"{own_table.share_for(board)}, base {digest}, value iteration {own_table.ITERATIONS} steps of "
            f"{own_table.ITERATION_GAMES} games, seed {own_table.ITERATION_SEED}, step {own_table.ITERATION_STEP}, "
            f"pooled {own_table.ITERATION_POOLED}, select {own_table.ITERATION_SELECT}")


def own_table_for(board: Board, rules: Ruleset, base: np.ndarray) -> np.ndarray | None:
    """The board's own solitaire table (``int64 (3, N_FEATURES)``) when it gets one
    (:func:`applies`), else ``None``: from this process's memory, else the disk cache, else
    fitted now with ``base`` (the table the shipped file picks there) under an estimate
    line and a progress bar on stderr and stored whole in the cache. Interrupted (SIGINT, SIGTERM):
    :data:`INTERRUPTED_LINE` on stderr, nothing stored, ``None`` for the rest of the process.

    Raises:
        OwnTableSettingError, BudgetError: as :func:`applies`. CacheSettingError: a bad
            ``$SHELFIE_SOLVE_CACHE_MAX``.
    """
    memo = (board, rules, base.tobytes())
    if memo in _BY_OBJECT:
        return _BY_OBJECT[memo]
    if not applies(board, rules):
        return None  # not kept: a setting may change between calls of a test, never within a command
    from shelfie_solver.dice.wholegame.exact_cache import known_or_read

    key = _key(board, rules, base)
    found = known_or_read(_KNOWN, key, lambda: _read(key))
    if found is None and key not in _KNOWN:
        found = _fit(board, rules, base, key)
    if found is not None and found.size == 0:  # beyond the objective's bound (_NONE): none here
        found = None
    if found is not None or key in _KNOWN:
        if len(_BY_OBJECT) >= MEMORY_TABLES:
            _BY_OBJECT.pop(next(iter(_BY_OBJECT)))
        _BY_OBJECT[memo] = found
    return found


def _fit(board: Board, rules: Ruleset, base: np.ndarray, key: str) -> np.ndarray | None:
    from shelfie_solver.core.diskcache import entry_bytes, write_entry
    from shelfie_solver.dice.learned import own_table
    from shelfie_solver.dice.learned.own_table import own_weights, sub_boards
    from shelfie_solver.dice.wholegame.exact_cache import first_use_solve, keeping_words, remember
    from shelfie_solver.dice.wholegame.solver import state_count

    subs = sub_boards(board)
    states = sum(state_count(sub, rules) for sub in subs)
    games = (own_table.ITERATIONS + own_table.ITERATION_SELECT) * own_table.ITERATION_GAMES
    seconds = states / STATES_PER_SECOND + games / GAMES_PER_SECOND
    announce = (f"Fitting learned's own table for board {board.name!r}, once: {len(subs)} sub-boards of "
                f"{states:,} states solved exactly, then {games:,} games of value iteration, about "
                f"{max(1.0, seconds):.0f} s ({keeping_words(entry_bytes(KIND, key, [base.shape]))}; "
                f"{OWN_ENV}=off skips it).")
    fitted = first_use_solve(_KNOWN, key, announce, 2 * states + games * GAME_UNITS,  # solved, summed, played
                             lambda progress: own_weights(board, rules, base, progress=progress,
                                                          game_units=GAME_UNITS), INTERRUPTED_LINE,
                             "Fitting own table")
    if fitted is None:
        return None
    from shelfie_solver.dice.learned.model_file import MAX_WEIGHT

    if int(np.abs(fitted).max()) > MAX_WEIGHT:  # the objective's int64 bound: the shipped tables stay
        # said, and kept as such (an empty table), so that later runs neither fit it again nor
        # believe it kept
        sys.stderr.write(OVER_BOUND_LINE.format(name=board.name) + "\n")
        sys.stderr.flush()
        write_entry(KIND, key, {"weights": np.array([[MAX_WEIGHT]], dtype=np.int64)})
        remember(_KNOWN, key, _NONE)
        return None
    write_entry(KIND, key, {"weights": np.ascontiguousarray(fitted, dtype=np.int64)})
    remember(_KNOWN, key, fitted)
    return fitted


def _read(key: str) -> np.ndarray | None:
    from shelfie_solver.core.diskcache import read_entry
    from shelfie_solver.dice.learned.model_file import MAX_WEIGHT

    found = read_entry(KIND, key, {"weights": ("phases", "features")})  # (1, 1) or (3, N_FEATURES), below
    if found is None:
        return None
    weights = np.ascontiguousarray(found["weights"], dtype=np.int64)
    if weights.shape == (1, 1):  # fitted before, beyond the objective's bound: the shipped tables
        return _NONE if int(weights[0, 0]) == MAX_WEIGHT else None  # another bound: fitted again
    if weights.shape != (len(PHASES), N_FEATURES) or int(np.abs(weights).max()) > MAX_WEIGHT:
        return None  # another layout: fitted again and replaced
    return weights


#: This process's models of :func:`own_model` by board and ruleset (``None``: none there).
_MODELS: dict[tuple[Board, Ruleset], LearnedModel | None] = {}


def own_model(board: Board, rules: Ruleset) -> LearnedModel | None:
    """What the shipped ``learned`` plays alone on ``board`` when it gets its own table
    (:func:`own_table_for`, fitted on first use with the shipped file's table for the board as the
    base): the shipped parameters with that table as the board shape's solitaire table
    (:attr:`LearnedModel.shapes`, nothing else by shape, so :meth:`LearnedModel.for_board` gives it
    in solitaire); ``None`` elsewhere. Kept per board and ruleset for the process once known.

    Raises:
        OwnTableSettingError, BudgetError: as :func:`applies`.
    """
    memo = (board, rules)
    if memo in _MODELS:
        return _MODELS[memo]
    shipped = default_model()
    base = shipped.for_board(1, board)
    own = own_table_for(board, rules, base)
    if own is None:
        if (board, rules, base.tobytes()) in _BY_OBJECT:  # interrupted: not asked again in this process
            _keep(memo, None)
        return None
    model = LearnedModel(dict(shipped.weights), {"trained": {"own table": board.name}},
                         {(board.n_shelves, board.n_columns): own})
    _keep(memo, model)
    return model


def own_table_note(board: Board, rules: Ruleset, name: str, verb: str = "played") -> str | None:
    """The one line every command adds where ``name`` (a strategy or objective that plays the
    shipped ``learned`` alone) plays ``board``'s own table (:func:`own_model`, fitted here on first
    use): ``learned played this board's own table here: ...`` (``verb``: ``plays`` where the
    advice is still to be followed); ``None`` where the board gets none (or the fit was
    interrupted). The name stays the objective's own: ``learned`` is not renamed.

    Raises:
        OwnTableSettingError, BudgetError: as :func:`applies`.
    """
    if own_model(board, rules) is None:
        return None
    return (f"{name} {verb} this board's own table here: the board is over the exact budget, so its weights were "
            "fitted to the exact tables of its sub-boards, then improved by value iteration on the board itself "
            "(docs/solve-game.md, exact where it fits).")


def _keep(memo: tuple[Board, Ruleset], model: LearnedModel | None) -> None:
    if len(_MODELS) >= MEMORY_TABLES:
        _MODELS.pop(next(iter(_MODELS)))
    _MODELS[memo] = model
