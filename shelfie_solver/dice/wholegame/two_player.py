"""The two-player game solved in float64 on small boards (``solve-game --players 2``,
docs/solve-game.md "Two players"): each player maximises their own chance to win (ties shared,
D20), with a proven bound on the rounding error.

A position between turns is both sheets, the seat to move and whether the end is triggered
(D17). Seat 0 plays first (D5); with two players the end triggered by seat 0's turn leaves
seat 1 one last turn, and the end triggered by seat 1's turn ends the game at once (D18). So a
state is seen from the mover: its sheet, the other's, and a *phase*: :data:`FIRST` (the mover
opens the round), :data:`SECOND` (the mover closes it, the end not triggered) or :data:`LAST`
(the mover closes the round after the trigger: the game's last turn). Its value ``V`` is the
mover's chance to win; the other's is ``1 - V`` (a tie counts one half for each, D20).

A turn (D6-D14) is the one-turn DP over (dice, re-rolls left) (:mod:`engine`'s re-roll
transitions, :func:`transitions.transition_matrix`) with each final roll worth its best marking
or, on a failed result (D13), the best shelf to give up. A marking's worth is the mover's
chance to win after it: the marking blocks every line it completes on the other sheet (D15,
:func:`sheet_rules.block`'s rule, vectorised here and checked against it in the tests), then the
end trigger is looked for on both sheets (D17) and the round played out (D18); a finished game
is worth 1, 1/2 or 0 by the scores (D19, D20), otherwise ``1 - V`` of the other player's turn.

Order. Every turn marks or eliminates at least one of the mover's items and nothing is ever
undone, so the *decided* items of both sheets together strictly grow: the game is acyclic and
the states are solved layer by layer from the most decided (:func:`solve_two_player`). The
states are those reachable from two empty sheets (:func:`reachable_states`), enumerated forward
layer by layer.

Seats may also follow the solitaire optimum (each maximising its own expected final score as if
alone, :func:`solitaire_values` over every sheet, eliminated items anywhere), or the choices that
are optimal when both play for the win (the table's play, as ``exact2:FILE`` makes them): the
turn is then that policy's, evaluated for the chance to win (``modes``, :func:`solve_two_player`);
against such a seat :data:`OPTIMAL` is the best response. Layers can be kept and resumed
(:mod:`two_player_checkpoints`).

Rounding. A turn's values are ``V_0 = finals``, ``E_r = (T V_(r-1)) / D`` (``T`` the integer
transition weights, exact in float64, ``D = sides ** dice``), ``V_r`` the best sub-hold's ``E_r``
(stopping: ``V_0``) and the start ``(T V_rerolls)[no die] / D``. Each ``E`` entry is a dot product
of at most ``m`` exact weights (``m`` the longest row of ``T``) and one division: relative error
at most ``gamma = (m + 1) u / (1 - (m + 1) u)``, ``u = 2^-53``, of the sum of non-negative terms. A
maximum or a fixed choice is exact and non-expansive, and ``1 - x`` adds at most ``u``. So with
successor errors at most ``e``, a state's error is at most ``e + u + (rerolls + 1) gamma M``,
``M`` bounding every intermediate value: ``W (1 + gamma)^(rerolls + 1)``, ``W`` the largest
final-roll value of the layer. Terminal values are exact; :func:`layer_bound` adds this layer by
layer in exact rationals (the largest bound of every layer above stands for ``e``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any, NoReturn, Protocol

import numpy as np

from shelfie_solver.core.errors import ShelfieError
from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import end_trigger_shelves

#: The mover opens the round (seat 0, D5), the end not triggered.
FIRST = 0
#: The mover closes the round (seat 1), the end not triggered.
SECOND = 1
#: The mover closes the round after seat 0's turn triggered the end: the last turn (D18).
LAST = 2
#: How each seat plays: for the chance to win (a best response to the other seat's play), the
#: solitaire optimum (expected own score), or the table's play: the choices that are optimal when
#: both play for the win (the strategy ``exact2:FILE``), whoever the other is.
OPTIMAL, SOLITAIRE, TABLE = "optimal", "solitaire", "table"
MODES = (OPTIMAL, SOLITAIRE, TABLE)
#: Largest board (items): four sheets' bits and the phase in one int64 key.
MAX_CELLS = 14
#: Default largest number of states ``solve-game --players 2`` accepts.
MAX_STATES = 3_000_000
#: States per batch of the vectorised turn (memory: about 40 kB per state).
BATCH = 512
#: Float values closer than this count as ties when the solitaire policy chooses (points).
TIE = 1e-9
#: Chances to win closer than this count as ties when the table's play chooses (above twice the
#: rounding bounds met, about 2e-12: the compiled and numpy paths then choose alike).
TABLE_TIE = 1e-10
#: The unit roundoff of float64.
UNIT = Fraction(1, 2**53)


class TwoPlayerError(ShelfieError):
    """A board too large for the two-player solver, or a two-player table that is malformed or
    for another board or ruleset."""


@dataclass(frozen=True, eq=False)
class Setup:
    """The state-free arrays of a board and ruleset (built once per process).

    Attributes:
        board, rules: the game. n: items; full: every item's bit.
        set_masks: ``int64 (K,)`` each item set's cells (:func:`allocate.feasibility_arrays`).
        starts, members: the sets each final roll can mark (CSR over rolls, sentinel ``K``).
        shelf_masks: ``int64 (S,)``. closed: ``int64 (2^n,)`` shelves with every item decided,
            by decided bits (D17). points: ``int64 (2^n,)`` the score by marked bits (D19).
        completed: ``int64 (2^n,)`` the cells of every line complete on a marked-bits sheet (D15).
        trigger: closed shelves that trigger the end (D17).
        weights: ``float64`` CSR ``(H, R)`` transition weights over ``denominator`` (D7).
        hold, pair_starts: every (roll, sub-hold) pair (:func:`transitions.pairs`).
        n_rolls, empty, rerolls, longest: rolls, the hold of no die, re-rolls, longest row of ``weights``.
    """

    board: Board
    rules: Ruleset
    n: int
    full: int
    set_masks: np.ndarray
    starts: np.ndarray
    members: np.ndarray
    shelf_masks: np.ndarray
    closed: np.ndarray
    points: np.ndarray
    completed: np.ndarray
    trigger: int
    weights: Any
    denominator: float
    hold: np.ndarray
    pair_starts: np.ndarray
    n_rolls: int
    empty: int
    rerolls: int
    longest: int


@cache
def setup_for(board: Board, rules: Ruleset) -> Setup:
    """The :class:`Setup` of a board and ruleset.

    Raises:
        TwoPlayerError: more than :data:`MAX_CELLS` items.
    """
    from shelfie_solver.dice.allocate import feasibility_arrays, set_masks
    from shelfie_solver.dice.engine.transitions import pairs, transition_matrix
    from shelfie_solver.dice.rolls import space_for

    n = board.n_cells
    if n > MAX_CELLS:
        raise TwoPlayerError(f"board {board.name!r} has {n} items; the two-player solver takes at most {MAX_CELLS} "
                             "(e.g. a 2 x 3, 3 x 3 or 3 x 4 board)")
    feasible = feasibility_arrays(board, rules)
    masks = set_masks(feasible)
    assert masks is not None
    space = space_for(rules)
    lines = [sum(1 << c for c in line) for line in board.lines]
    shelves = np.array(lines[:board.n_shelves], dtype=np.int64)
    every = np.arange(1 << n, dtype=np.int64)
    closed = sum(((every & s) == s).astype(np.int64) for s in shelves)
    completed = np.zeros(1 << n, dtype=np.int64)
    for line in lines:
        completed |= np.where((every & line) == line, line, 0)
    points = np.array([score(board, Marks(board.n_shelves, board.n_columns, m), rules) for m in range(1 << n)],
                      dtype=np.int64)
    weights = transition_matrix(space).astype(np.float64)
    found = pairs(space)
    return Setup(board, rules, n, (1 << n) - 1, masks.astype(np.int64), feasible.starts, feasible.members,
                 shelves, closed, points, completed, end_trigger_shelves(board, rules), weights,
                 float(space.denominator), found.hold, found.starts, len(space.rolls),
                 space.hold_index[(0,) * space.n_sides], rules.rerolls, int(np.diff(weights.indptr).max()))


# --- keys: (mover's marked, eliminated, other's marked, eliminated, phase) in one int64 ------------


def pack(n: int, m: Any, e: Any, om: Any, oe: Any, phase: Any) -> Any:
    """The key of a state (ints or int64 arrays): the mover's marked and eliminated bits, the
    other's, and the phase, ``n`` bits each (the phase 2 bits)."""
    return ((((m << n | e) << n | om) << n | oe) << 2) | phase


def unpack(n: int, key: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Inverse of :func:`pack`: ``(m, e, om, oe, phase)``."""
    mask = (1 << n) - 1
    return (key >> (3 * n + 2)) & mask, (key >> (2 * n + 2)) & mask, (key >> (n + 2)) & mask, \
        (key >> 2) & mask, key & 3


def start_key(board: Board) -> int:
    """The key of the game's start: two empty sheets, seat 0 to open the round (D5)."""
    return 0


def state_key(board: Board, sheets: tuple[Marks, Marks], mover: int, first: int, triggered: bool) -> int:
    """The key of a two-player position: ``sheets`` by seat, ``mover`` to play, ``first`` the seat
    that opens each round (D5), ``triggered`` whether the end is triggered (D17, D18)."""
    own, other = sheets[mover], sheets[1 - mover]
    phase = FIRST if mover == first else (LAST if triggered else SECOND)
    return int(pack(board.n_cells, own.marked, own.eliminated, other.marked, other.eliminated, phase))


def decided_count(n: int, keys: np.ndarray) -> np.ndarray:
    """``int64``: the decided items (marked or eliminated) of both sheets of each key: its layer."""
    m, e, om, oe, _ = unpack(n, keys)
    out: np.ndarray = _popcount(m | e) + _popcount(om | oe)
    return out


def _popcount(x: np.ndarray) -> np.ndarray:
    out = np.zeros(np.shape(x), dtype=np.int64)
    x = np.array(x, dtype=np.int64)
    while np.any(x):
        out += x & 1
        x = x >> 1
    return out


# --- the outcomes of a turn ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Outcomes:
    """Where each marking and each failed result of ``B`` states leads.

    Attributes:
        set_ok: ``bool (B, K)`` the item set is usable (every item available, D4).
        set_next: ``int64 (B, K)`` the successor's key (-1: the game is over, or unusable).
        set_end: ``float64 (B, K)`` the mover's result of a finished game (1, 0.5, 0, D20), else NaN.
        shelf_ok, shelf_next, shelf_end: the same ``(B, S)`` for giving up each shelf (D13).
    """

    set_ok: np.ndarray
    set_next: np.ndarray
    set_end: np.ndarray
    shelf_ok: np.ndarray
    shelf_next: np.ndarray
    shelf_end: np.ndarray


def _after(setup: Setup, phase: np.ndarray, m: np.ndarray, e: np.ndarray, om: np.ndarray,
           oe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The turn's end for sheets after the mover's action (arrays of one shape): the end trigger on
    both sheets (D17), the round played out (D18), scores compared (D19, D20). Returns the next
    state's key (-1 when the game is over) and the mover's result when it is (else NaN)."""
    t, n = setup.trigger, setup.n
    triggered = (setup.closed[m | e] >= t) | (setup.closed[om | oe] >= t)
    # the other closes the round: it still plays unless its sheet has nothing left (a pass, D18)
    last = (phase == FIRST) & triggered & ((setup.full & ~(om | oe)) != 0)
    over = (phase == LAST) | (triggered & ~last)
    nxt = np.where(last, LAST, np.where(phase == FIRST, SECOND, FIRST))
    key = np.where(over, -1, pack(n, om, oe, m, e, nxt))
    mine, theirs = setup.points[m], setup.points[om]
    result = np.where(mine > theirs, 1.0, np.where(mine == theirs, 0.5, 0.0))
    return key, np.where(over, result, np.nan)


def outcomes(setup: Setup, keys: np.ndarray) -> Outcomes:
    """The :class:`Outcomes` of the states ``keys`` (``int64 (B,)``): each usable item set marked
    (D8-D12, D14), then blocking (D15: every line complete on the mover's sheet eliminates the
    other's available items on it), or each shelf with an available item given up (D13)."""
    m, e, om, oe, phase = (a[:, None] for a in unpack(setup.n, keys))
    masks = setup.set_masks[None, :]
    set_ok = (masks & (m | e)) == 0
    own = m | masks
    blocked = oe | (setup.completed[own] & ~om)
    set_next, set_end = _after(setup, phase, own, e, om, blocked)
    shelves = setup.shelf_masks[None, :]
    lost = shelves & ~(m | e)
    shelf_ok = lost != 0
    shelf_next, shelf_end = _after(setup, phase, m, e | lost, om, oe)
    return Outcomes(set_ok, np.where(set_ok, set_next, -1), set_end, shelf_ok, np.where(shelf_ok, shelf_next, -1),
                    shelf_end)


def reachable_states(setup: Setup, max_states: int = MAX_STATES) -> np.ndarray:
    """``int64``: the keys of every state reachable from the start by legal turns, sorted (found
    once per process per board, ruleset and limit).

    Raises:
        TwoPlayerError: more than ``max_states`` states.
    """
    return _reachable(setup, max_states).copy()


@cache
def _reachable(setup: Setup, max_states: int) -> np.ndarray:
    n = setup.n
    layers: dict[int, list[np.ndarray]] = {0: [np.array([start_key(setup.board)], dtype=np.int64)]}
    found: list[np.ndarray] = []
    total = 0
    for layer in range(2 * n + 1):
        if layer not in layers:
            continue
        keys = np.unique(np.concatenate(layers.pop(layer)))
        found.append(keys)
        total += len(keys)
        if total > max_states:
            _too_many(setup, max_states, total, layer)
        check = max_states - total  # the later layers' pieces, counted again past it (duplicates)
        for lo in range(0, len(keys), BATCH * 4):
            out = outcomes(setup, keys[lo:lo + BATCH * 4])
            nxt = np.concatenate([out.set_next.ravel(), out.shelf_next.ravel()])
            nxt = np.unique(nxt[nxt >= 0])
            depth = decided_count(n, nxt)
            for d in np.unique(depth):
                layers.setdefault(int(d), []).append(nxt[depth == d])
            if sum(len(piece) for pieces in layers.values() for piece in pieces) > check:
                # stop as soon as the distinct states found pass the limit (a layer is the states of
                # one decided count, so the layers' states are distinct from each other and from the
                # found ones): a board just over it no longer enumerates to the end (small-4x3: 68 s)
                for d, pieces in layers.items():
                    layers[d] = [np.unique(np.concatenate(pieces))]
                pending = sum(len(pieces[0]) for pieces in layers.values())
                if total + pending > max_states:
                    _too_many(setup, max_states, total + pending, layer)
                check = max(max_states - total, 2 * pending)  # the next compaction after as much again
    return np.sort(np.concatenate(found))


def _too_many(setup: Setup, max_states: int, found: int, layer: int) -> NoReturn:
    """Raise the refusal of :func:`reachable_states`: more than ``max_states`` states, ``found``
    of them seen by ``layer`` (the layers of decided items).

    Raises:
        TwoPlayerError: always."""
    seconds = found * 150e-6
    cost = f"{seconds:,.0f} CPU-seconds" if seconds >= 1 else "under a CPU-second"
    raise TwoPlayerError(f"board {setup.board.name!r} has more than {max_states:,} two-player states "
                         f"(--max-states; {found:,} found by layer {layer + 1} of decided "
                         f"items); at least {found * 40 // 10**6 + 1:,} MB and {cost} for those; raise "
                         "--max-states or take a smaller board")


# --- the turn: the DP over (dice, re-rolls left) ---------------------------------------------------


def gamma(setup: Setup) -> Fraction:
    """``gamma = k u / (1 - k u)``, ``k = max(m + 1, sides * dice)``: one averaging pass's relative
    error, of the sparse product (module docstring) or of the compiled one-die-at-a-time averages
    (:mod:`two_player_kernel`), whichever ran."""
    k = max(setup.longest + 1, setup.rules.n_sides * setup.rules.dice)
    return k * UNIT / (1 - k * UNIT)


def layer_bound(setup: Setup, later: Fraction, largest: float, subtract: bool = True) -> Fraction:
    """A layer's rounding-error bound: ``later`` (every layer above's largest bound), ``u`` for
    ``1 - x`` (``subtract``), and ``(rerolls + 1) gamma M``, ``M = largest (1 + gamma)^(rerolls + 1)``."""
    g, passes = gamma(setup), setup.rerolls + 1
    return later + (UNIT if subtract else 0) + passes * g * Fraction(largest) * (1 + g) ** passes


def roll_best(setup: Setup, worth: np.ndarray, failed: np.ndarray) -> np.ndarray:
    """``float64 (R, B)``: each final roll's value, its best usable set's ``worth (B, K)`` (-inf
    where unusable), or where it has none the best shelf to give up, ``failed (B,)`` (D13)."""
    padded = np.concatenate([worth, np.full((len(worth), 1), -np.inf)], axis=1)
    best = np.maximum.reduceat(padded[:, setup.members], setup.starts, axis=1)
    return np.where(best == -np.inf, failed[:, None], best).T


def run_turn(setup: Setup, finals: np.ndarray, holds: list[np.ndarray] | None = None,
             keep: bool = False) -> tuple[np.ndarray, list[np.ndarray]]:
    """The turn's DP for ``B`` states from ``finals (R, B)`` (D6, D7): the value at the start of
    the turn ``(B,)`` and, with ``keep``, each level's hold values ``E_r (H, B)`` (r = 1..rerolls;
    keeping every die is stopping). ``holds``: a fixed policy, per level ``int64 (R, B)`` the hold
    each roll keeps (policy evaluation); ``None``: the best hold (ties: the first sub-hold)."""
    values, kept = finals, []
    for level in range(1, setup.rerolls + 1):
        expected = np.asarray(setup.weights @ values) / setup.denominator
        expected[:setup.n_rolls] = finals
        if keep:
            kept.append(expected)
        if holds is None:
            values = np.maximum.reduceat(expected[setup.hold], setup.pair_starts, axis=0)
        else:
            values = np.take_along_axis(expected, holds[level - 1], axis=0)
    start = np.asarray(setup.weights[setup.empty] @ values).ravel() / setup.denominator
    return start, kept


def first_best_holds(setup: Setup, expected: np.ndarray, tie: float = TIE) -> np.ndarray:
    """``int64 (R, B)``: each roll's best hold at one level from ``expected (H, B)``: the first
    sub-hold (keeping more dice first, stopping first of all) within ``tie`` of the best."""
    chosen = expected[setup.hold]
    best = np.maximum.reduceat(chosen, setup.pair_starts, axis=0)
    seg = np.repeat(np.arange(setup.n_rolls), np.diff(np.append(setup.pair_starts, len(setup.hold))))
    position = np.where(chosen >= best[seg] - tie, np.arange(len(setup.hold))[:, None], len(setup.hold))
    first = np.minimum.reduceat(position, setup.pair_starts, axis=0)
    out: np.ndarray = setup.hold[first]
    return out


# --- solitaire values over every sheet ---------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SolitaireValues:
    """The optimal expected final score (D19) of one player alone on every sheet (items eliminated
    anywhere, as blocking leaves them), float64. ``keys`` sorted ``marked << n | eliminated``."""

    setup: Setup
    keys: np.ndarray
    values: np.ndarray
    bound: Fraction

    def worth(self, marked: np.ndarray, eliminated: np.ndarray) -> np.ndarray:
        """``V`` of sheets (arrays): the score when the end is triggered (D17), else the table's."""
        s = self.setup
        over = s.closed[marked | eliminated] >= s.trigger
        key = (marked << s.n) | eliminated
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        out: np.ndarray = np.where(over, s.points[marked].astype(np.float64), self.values[at])
        return out


def _sheet_outcomes(setup: Setup, m: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                         np.ndarray]:
    """Per sheet (``(B, 1)`` arrays): each set's marked bits and usability, each shelf's eliminated
    bits after giving it up and whether it may be (D13)."""
    masks = setup.set_masks[None, :]
    lost = setup.shelf_masks[None, :] & ~(m | e)
    return m | masks, (masks & (m | e)) == 0, e | lost, lost != 0


def _all_sheets(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every sheet of ``n`` items (each available, marked or eliminated, D4): ``3^n`` marked and
    eliminated bit masks."""
    code = np.arange(3**n, dtype=np.int64)
    m, e = np.zeros_like(code), np.zeros_like(code)
    for cell in range(n):
        digit = code % 3
        code //= 3
        m |= (digit == 1).astype(np.int64) << cell
        e |= (digit == 2).astype(np.int64) << cell
    return m, e


@cache
def solitaire_values(board: Board, rules: Ruleset) -> SolitaireValues:
    """Solve the one-player game on every sheet of the board (3^n sheets, the end not triggered),
    layer by layer as :func:`solve_two_player` (the same turn and bound, without ``1 - x``)."""
    setup = setup_for(board, rules)
    n = setup.n
    m, e = _all_sheets(n)
    keys = np.sort(((m << n) | e)[setup.closed[m | e] < setup.trigger])
    values = np.full(len(keys), np.nan)
    table = SolitaireValues(setup, keys, values, Fraction(0))
    depth = _popcount((keys >> n) | (keys & setup.full))
    bound = Fraction(0)
    for layer in range(n, -1, -1):
        at = np.flatnonzero(depth == layer)
        largest = 0.0
        for lo in range(0, len(at), BATCH):
            part = at[lo:lo + BATCH]
            sm, se = (keys[part] >> n)[:, None], (keys[part] & setup.full)[:, None]
            own, usable, failed_e, may = _sheet_outcomes(setup, sm, se)
            worth = np.where(usable, table.worth(own, np.broadcast_to(se, own.shape)), -np.inf)
            fails = np.where(may, table.worth(np.broadcast_to(sm, failed_e.shape), failed_e), -np.inf).max(axis=1)
            values[part], big = turn_values(setup, worth, fails)
            largest = max(largest, big)
        bound = max(bound, layer_bound(setup, bound, largest, subtract=False))
    return SolitaireValues(setup, keys, values, bound)


def solitaire_choices(setup: Setup, table: SolitaireValues, m: np.ndarray,
                      e: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The solitaire optimum's turn on sheets ``(m, e)`` (``int64 (B,)``): per final roll the
    position in ``setup.members`` of the marking it makes (the first feasible set in the engine's
    order within :data:`TIE` of the best, D14; -1: a failed result) ``(B, R)``, per sheet the shelf
    a failed result gives up (the first best, D13) ``(B,)``, and per level the hold each roll keeps
    (D7) ``(rerolls, R, B)``."""
    sm, se = m[:, None], e[:, None]
    own, usable, failed_e, may = _sheet_outcomes(setup, sm, se)
    worth = np.where(usable, table.worth(own, np.broadcast_to(se, own.shape)), -np.inf)
    fails = np.where(may, table.worth(np.broadcast_to(sm, failed_e.shape), failed_e), -np.inf)
    return greedy_choices(setup, worth, fails, TIE)


def greedy_choices(setup: Setup, worth: np.ndarray, fails: np.ndarray,
                   tie: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The choices that maximise ``worth (B, K)`` (each item set's, -inf: unusable) and ``fails
    (B, S)`` (each shelf's): per final roll the position in ``setup.members`` of the first set
    within ``tie`` of its best (-1: a failed result) ``(B, R)``, the first best shelf ``(B,)``, and
    per level each roll's first best hold ``(rerolls, R, B)`` (:func:`first_best_holds`)."""
    shelf = (fails >= fails.max(axis=1, keepdims=True) - tie).argmax(axis=1)
    padded = np.concatenate([worth, np.full((len(worth), 1), -np.inf)], axis=1)
    gathered = padded[:, setup.members]
    best = np.maximum.reduceat(gathered, setup.starts, axis=1)
    seg = np.repeat(np.arange(setup.n_rolls), np.diff(np.append(setup.starts, len(setup.members))))
    position = np.where((gathered >= best[:, seg] - tie) & (gathered > -np.inf),
                        np.arange(len(setup.members))[None, :], len(setup.members))
    first = np.minimum.reduceat(position, setup.starts, axis=1)
    first = np.where(first >= len(setup.members), -1, first)
    finals = np.where(best == -np.inf, fails.max(axis=1)[:, None], best).T
    holds, values = [], finals
    for level in range(1, setup.rerolls + 1):
        expected = np.asarray(setup.weights @ values) / setup.denominator
        expected[:setup.n_rolls] = finals
        chosen = first_best_holds(setup, expected, tie)
        holds.append(chosen)
        values = np.take_along_axis(expected, chosen, axis=0)
    stacked = np.stack(holds) if holds else np.zeros((0, setup.n_rolls, len(worth)), dtype=np.int64)
    return first, shelf, stacked


@dataclass(frozen=True, eq=False)
class SolitairePolicy:
    """The solitaire optimum's choices (:func:`solitaire_choices`) on every sheet with an available
    item (``keys`` sorted ``marked << n | eliminated``; a sheet that triggers the end plays its last
    turn for the score): ``moves (N, R)``, ``shelves (N,)``, ``holds (N, rerolls, R)``."""

    keys: np.ndarray
    moves: np.ndarray
    shelves: np.ndarray
    holds: np.ndarray

    def lookup(self, n: int, m: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The choices on sheets ``(m, e)``: moves ``(B, R)``, shelves ``(B,)``, holds ``(rerolls, R, B)``."""
        at = np.searchsorted(self.keys, (m << n) | e)
        return self.moves[at], self.shelves[at], np.transpose(self.holds[at], (1, 2, 0))


@cache
def solitaire_policy(board: Board, rules: Ruleset) -> SolitairePolicy:
    """The :class:`SolitairePolicy` of a board (from :func:`solitaire_values`)."""
    setup, table = setup_for(board, rules), solitaire_values(board, rules)
    n = setup.n
    m, e = _all_sheets(n)
    keys = np.sort(((m << n) | e)[(m | e) != setup.full])
    moves = np.empty((len(keys), setup.n_rolls), dtype=np.int32)
    shelves = np.empty(len(keys), dtype=np.int32)
    holds = np.empty((len(keys), setup.rerolls, setup.n_rolls), dtype=np.int32)
    for lo in range(0, len(keys), BATCH):
        part = keys[lo:lo + BATCH]
        first, shelf, chosen = solitaire_choices(setup, table, part >> n, part & setup.full)
        moves[lo:lo + BATCH], shelves[lo:lo + BATCH] = first, shelf
        holds[lo:lo + BATCH] = np.transpose(chosen, (2, 0, 1))
    return SolitairePolicy(keys, moves, shelves, holds)


def turn_values(setup: Setup, worth: np.ndarray, failed: np.ndarray, holds: np.ndarray | None = None,
                finals: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The values at the start of the turn ``(B,)`` and the largest final-roll value, from each
    set's ``worth (B, K)`` (-inf: unusable) and the failed result's ``failed (B,)``, or from
    ``finals (R, B)``; ``holds (rerolls, R, B)`` a fixed policy. Compiled with numba
    (:mod:`two_player_kernel`), else numpy (:func:`roll_best`, :func:`run_turn`)."""
    from shelfie_solver.dice.wholegame.two_player_kernel import compiled_turn, hold_steps_for, kernel

    if kernel() is not None:
        steps = hold_steps_for(setup.rules.dice, setup.rules.n_sides)
        return compiled_turn(worth, failed, setup.starts, setup.members, steps, setup.rerolls, holds, finals)
    if finals is None:
        finals = roll_best(setup, worth, failed)
    policy = None if holds is None else list(holds)
    return run_turn(setup, finals, policy)[0], float(finals.max(initial=0.0))


# --- the two-player game -------------------------------------------------------------------------


@dataclass
class TwoPlayerSolution:
    """The solved two-player game.

    Attributes:
        board, rules: what was solved. modes: how seat 0 and seat 1 play (:data:`OPTIMAL`,
            :data:`SOLITAIRE`). keys: ``int64 (N,)`` sorted state keys (:func:`pack`).
        values: ``float64 (N,)`` the mover's chance to win at each. bound: proven bound on every
            value's rounding error. seconds: wall time.
    """

    board: Board
    rules: Ruleset
    modes: tuple[str, str]
    keys: np.ndarray
    values: np.ndarray
    bound: Fraction
    seconds: float = 0.0
    layers: dict[int, Fraction] = field(default_factory=dict)

    @property
    def first_player_win_chance(self) -> float:
        """Seat 0's chance to win from the start (D5: seat 0 plays first), ties counted one half."""
        return self.value(start_key(self.board))

    def value(self, key: int) -> float:
        """The mover's chance to win at the state ``key``.

        Raises:
            TwoPlayerError: not a state of the table.
        """
        at = int(np.searchsorted(self.keys, key))
        if at >= len(self.keys) or int(self.keys[at]) != key:
            raise TwoPlayerError("this position is not one the two-player table holds: it holds the positions "
                                 "reachable from two empty sheets, seat 1 opening every round (D5) and every turn "
                                 "marking or giving up at least one item (D13, D14); seat 2 never moves while seat "
                                 "1's sheet is empty")
        return float(self.values[at])

    def worths(self, setup: Setup, out: Outcomes) -> tuple[np.ndarray, np.ndarray]:
        """The mover's chance to win after each marking ``(B, K)`` and each shelf given up
        ``(B, S)`` of :class:`Outcomes` (-inf where not allowed): ``1 - V`` of the other's turn,
        or the finished game's result."""
        return (self._worth(out.set_ok, out.set_next, out.set_end),
                self._worth(out.shelf_ok, out.shelf_next, out.shelf_end))

    def _worth(self, ok: np.ndarray, nxt: np.ndarray, end: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.keys, nxt), len(self.keys) - 1)
        return np.where(ok, np.where(nxt >= 0, 1.0 - self.values[at], end), -np.inf)


def table_choices(setup: Setup, worth: np.ndarray, fails: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`greedy_choices` within :data:`TABLE_TIE` (the choices of
    :class:`two_player_table.TwoPlayerStrategy`), compiled with numba (:mod:`two_player_kernel`)."""
    from shelfie_solver.dice.wholegame.two_player_kernel import compiled_greedy, greedy_kernel, hold_steps_for

    if greedy_kernel() is None:
        return greedy_choices(setup, worth, fails, TABLE_TIE)
    shelf = (fails >= fails.max(axis=1, keepdims=True) - TABLE_TIE).argmax(axis=1)
    steps = hold_steps_for(setup.rules.dice, setup.rules.n_sides)
    first, holds = compiled_greedy(worth, fails.max(axis=1), setup.starts, setup.members, setup.hold,
                                   setup.pair_starts, steps, setup.rerolls, TABLE_TIE)
    return first, shelf, holds


def _solve_batch(solution: TwoPlayerSolution, setup: Setup, keys: np.ndarray, mode: str,
                 policy: SolitairePolicy | None, reference: TwoPlayerSolution | None) -> tuple[np.ndarray, float]:
    """The values of the states ``keys`` (their successors solved) and the largest final-roll
    value, the mover playing ``mode``: :data:`OPTIMAL` the best choices; :data:`SOLITAIRE` the
    ``policy``'s, :data:`TABLE` those optimal over the both-optimal ``reference`` (first best,
    as :class:`two_player_table.TwoPlayerStrategy`), evaluated."""
    out = outcomes(setup, keys)
    worth, shelf_worth = solution.worths(setup, out)
    if mode == OPTIMAL:
        return turn_values(setup, worth, shelf_worth.max(axis=1))
    if mode == SOLITAIRE:
        assert policy is not None
        m, e, *_ = unpack(setup.n, keys)
        first, shelf, holds = policy.lookup(setup.n, m, e)
    else:
        assert reference is not None
        first, shelf, holds = table_choices(setup, *reference.worths(setup, out))
    picked = np.concatenate([worth, np.full((len(keys), 1), -np.inf)], axis=1)[:, setup.members]
    rows = np.arange(len(keys))[:, None]
    failed = shelf_worth[np.arange(len(keys)), shelf]
    finals = np.where(first >= 0, picked[rows, np.maximum(first, 0)], failed[:, None]).T
    return turn_values(setup, worth, failed, holds.astype(np.int64), np.ascontiguousarray(finals))


class LayerStore(Protocol):
    """Where solved layers are kept (:class:`two_player_checkpoints.TwoPlayerCheckpoints`)."""

    def load(self, layer: int, states: int) -> tuple[np.ndarray, float, Fraction] | None:
        """A layer's values, largest final-roll value and recorded bound, or ``None``."""
        ...

    def save(self, layer: int, values: np.ndarray, largest: float, bound: Fraction) -> None:
        """Keep one solved layer."""
        ...


def solve_two_player(board: Board, rules: Ruleset, modes: tuple[str, str] = (OPTIMAL, OPTIMAL),
                     max_states: int = MAX_STATES, progress: Callable[[int, int], None] | None = None,
                     checkpoints: LayerStore | None = None) -> TwoPlayerSolution:
    """Solve the two-player game (module docstring) over the states reachable from the start.

    Args:
        modes: how seat 0 (the first player, D5) and seat 1 play: :data:`OPTIMAL` maximises its
            chance to win (knowing the other's play), :data:`SOLITAIRE` plays the solitaire optimum
            (:func:`solitaire_values`), :data:`TABLE` plays the both-optimal solution's choices.
        progress: called ``(layer, states solved)``.
        checkpoints: where each solved layer is written and the layers already there are loaded,
            their bounds recomputed (a :class:`two_player_checkpoints.TwoPlayerCheckpoints`
            directory for this board, rules and modes).

    Raises:
        TwoPlayerError: the board has more than :data:`MAX_CELLS` items or ``max_states`` states,
            or a checkpoint directory of another solve or with bad files.
        FileWriteError: a checkpoint cannot be written.
    """
    start = time.perf_counter()
    setup = setup_for(board, rules)
    keys = reachable_states(setup, max_states)
    solution = TwoPlayerSolution(board, rules, modes, keys, np.full(len(keys), np.nan), Fraction(0))
    folder = checkpoints
    table = solitaire_policy(board, rules) if SOLITAIRE in modes else None
    reference = solve_two_player(board, rules, (OPTIMAL, OPTIMAL), max_states) if TABLE in modes else None
    depth = decided_count(setup.n, keys)
    bound = Fraction(0)
    for layer in range(2 * setup.n, -1, -1):
        at = np.flatnonzero(depth == layer)
        if not len(at):
            continue
        found = folder.load(layer, len(at)) if folder is not None else None
        if found is None:
            largest = _solve_layer(solution, setup, at, table, reference, progress, layer)
            bound = layer_bound(setup, bound, largest)
            if folder is not None:
                folder.save(layer, solution.values[at], largest, bound)
        else:
            bound = _checked_layer(setup, solution, at, found, bound, layer)
            if progress is not None:
                progress(layer, len(at))
        solution.layers[layer] = bound
    if np.isnan(solution.values).any():
        raise AssertionError("a successor of a state was solved after it")
    solution.bound = bound
    solution.seconds = time.perf_counter() - start
    return solution


def _solve_layer(solution: TwoPlayerSolution, setup: Setup, at: np.ndarray, table: SolitairePolicy | None,
                 reference: TwoPlayerSolution | None, progress: Callable[[int, int], None] | None,
                 layer: int) -> float:
    """Solve the states ``at`` (indices into ``solution.keys``) of one layer in batches, each seat
    as its mode; returns the largest final-roll value met."""
    keys, largest = solution.keys, 0.0
    phase = keys[at] & 3
    for lo in range(0, len(at), BATCH):
        part, kind = at[lo:lo + BATCH], phase[lo:lo + BATCH]
        for seat in (0, 1):
            mine = part[(kind == FIRST) == (seat == 0)]
            if len(mine):
                solution.values[mine], big = _solve_batch(solution, setup, keys[mine], solution.modes[seat], table,
                                                          reference)
                largest = max(largest, big)
        if progress is not None:
            progress(layer, len(part))
    return largest


def _checked_layer(setup: Setup, solution: TwoPlayerSolution, at: np.ndarray,
                   found: tuple[np.ndarray, float, Fraction], later: Fraction, layer: int) -> Fraction:
    """A layer read from a checkpoint: its bound recomputed from ``later`` and the recorded largest
    final-roll value (it must equal the recorded one), every value within 0 to 1 plus the bound.

    Raises:
        TwoPlayerError: a recorded number the layers above do not imply.
    """
    values, largest, recorded = found
    bound = layer_bound(setup, later, largest)
    if recorded != bound or largest > 1 + later or not (-float(bound) <= values.min(initial=0.0)) \
            or values.max(initial=0.0) > min(largest * (1 + 1e-9), 1 + float(bound)):
        raise TwoPlayerError(f"checkpoint layer {layer}: its bound or values differ from what the layers above "
                             "imply; expected the files solve-game --players 2 wrote, unedited")
    solution.values[at] = values
    return bound


def full_sheet_points(board: Board, rules: Ruleset) -> int:
    """A full sheet's points (D19)."""
    return score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)


def round_up(bound: Fraction) -> float:
    """``bound`` as the next float at or above it (a bound stays a bound when shown)."""
    value = float(bound)
    return value if Fraction(value) >= bound else math.nextafter(value, math.inf)
