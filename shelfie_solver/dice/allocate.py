"""The combination allocator: final dice -> disjoint combinations (groups) -> items (D8-D14).

A *marking* is a set of at most ``combinations_per_turn`` available items, each marked by its
own group of dice (D8, D9). Deciding whether a set of items can be marked is a flow problem:
dice flow from their faces to the items, an item needs exactly n(c) dice, all of one face its
shelf accepts, of which at most ``jokers_per_group`` Jokers and never only Jokers (D11).

Two exact methods live here:

* :func:`find_groups` — the fast closed form used everywhere. Once each item's face is chosen
  (a shelf may accept several), the flow network is a set of independent stars, one per face,
  plus the shared Joker supply, so max-flow = demand exactly when, for every face ``f``,
  ``deficit_f = max(0, demand_f - dice_f) <= sum of the Joker caps of f's groups`` and
  ``sum_f deficit_f <= Jokers``. :func:`feasibility_arrays` applies it to every roll and every
  item set at once with numpy.
* :func:`find_groups_flow` — the same question as a maximum flow in networkx (the reference);
  ``tests/test_allocate.py`` proves the two equal, and both equal to a brute force over every
  assignment of each die to a group.

D12 (all dice Jokers: mark any one available item, :mod:`joker`) and D13/D14 (failed result only
when nothing can be marked) are applied by :func:`legal_markings` and the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import product

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks, item_sets
from shelfie_solver.dice.joker import all_jokers_roll, holds_combination, spread_jokers
from shelfie_solver.dice.rolls import Counts, DiceSpace, space_for
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.workload import BLOCK_PAIRS, check_work


@dataclass(frozen=True)
class Group:
    """One combination (D8): the dice that mark one item.

    Attributes:
        cell: the item marked (cell index).
        face: side number of the matching face (the Joker's, for D12's all-Jokers marking).
        matching: dice showing ``face``.
        jokers: Jokers standing in for ``face`` (D11).
    """

    cell: int
    face: int
    matching: int
    jokers: int

    def codes(self, rules: Ruleset) -> str:
        """The group's dice as one-letter codes, e.g. ``CCJ``."""
        joker = rules.joker.code if rules.joker else ""
        return rules.sides[self.face].code * self.matching + joker * self.jokers


@dataclass(frozen=True)
class Marking:
    """A legal marking: items (sorted cell indices) and one disjoint group per item."""

    cells: tuple[int, ...]
    groups: tuple[Group, ...]

    def dice_used(self) -> int:
        """Number of dice the marking uses."""
        return sum(g.matching + g.jokers for g in self.groups)


def find_groups(counts: Counts, cells: tuple[int, ...], board: Board, rules: Ruleset) -> tuple[Group, ...] | None:
    """Disjoint groups marking every item of ``cells`` with the dice ``counts``, or ``None``.

    Closed form of the max-flow (module docstring); D12 is not applied here.

    Args:
        counts: dice per side (length ``rules.n_sides``).
        cells: distinct cell indices (availability is not checked here).
    Returns:
        One :class:`Group` per cell, in the order of ``cells``, or ``None`` when impossible.
    """
    jokers = counts[rules.joker_index] if rules.joker_index is not None else 0
    for choice in product(*(board.faces_of(c) for c in cells)):
        demand: dict[int, int] = {}
        cap: dict[int, int] = {}
        for cell, face in zip(cells, choice):
            demand[face] = demand.get(face, 0) + board.need(cell)
            cap[face] = cap.get(face, 0) + rules.joker_cap(board.need(cell))
        deficit = {f: max(0, d - counts[f]) for f, d in demand.items()}
        if all(deficit[f] <= cap[f] for f in demand) and sum(deficit.values()) <= jokers:
            return _spread_jokers(cells, choice, deficit, board, rules)
    return None


def _spread_jokers(cells: tuple[int, ...], choice: tuple[int, ...], deficit: dict[int, int],
                   board: Board, rules: Ruleset) -> tuple[Group, ...]:
    """One :class:`Group` per cell of a feasible face choice, the Jokers spread over them as each
    face's ``deficit`` needs (:func:`joker.spread_jokers`, D11)."""
    jokers = spread_jokers(deficit, [(face, board.need(cell)) for cell, face in zip(cells, choice)], rules)
    return tuple(Group(cell, face, board.need(cell) - used, used) for cell, face, used in zip(cells, choice, jokers))


def can_allocate(counts: Counts, cells: tuple[int, ...], board: Board, rules: Ruleset) -> bool:
    """Whether ``cells`` can all be marked in one turn with ``counts`` (D8, D11; not D12)."""
    return find_groups(counts, cells, board, rules) is not None


def find_groups_flow(counts: Counts, cells: tuple[int, ...], board: Board, rules: Ruleset) -> tuple[Group, ...] | None:
    """The reference allocator: the same answer as :func:`find_groups`, by maximum flow.

    For each choice of face per item, a network source -> face (capacity: dice of that face),
    source -> Joker (capacity: Jokers), face -> item (capacity n(c)), Joker -> item (capacity:
    the item's Joker cap, D11), item -> sink (capacity n(c)); the items can be marked when the
    maximum flow (networkx, preflow-push) saturates every item.
    """
    import networkx as nx

    joker = rules.joker_index
    for choice in product(*(board.faces_of(c) for c in cells)):
        graph = nx.DiGraph()
        for face in set(choice):
            graph.add_edge("source", ("face", face), capacity=counts[face])
        if joker is not None:
            graph.add_edge("source", "joker", capacity=counts[joker])
        for cell, face in zip(cells, choice):
            need = board.need(cell)
            graph.add_edge(("face", face), ("cell", cell), capacity=need)
            if joker is not None:
                graph.add_edge("joker", ("cell", cell), capacity=rules.joker_cap(need))
            graph.add_edge(("cell", cell), "sink", capacity=need)
        value, flow = nx.maximum_flow(graph, "source", "sink")
        if value == sum(board.need(c) for c in cells):
            return tuple(Group(cell, face, flow[("face", face)][("cell", cell)],
                               flow["joker"][("cell", cell)] if joker is not None else 0)
                         for cell, face in zip(cells, choice))
    return None


def legal_sets(counts: Counts, board: Board, marks: Marks, rules: Ruleset) -> np.ndarray:
    """``int64 (K,)``: indices into :func:`board.item_sets` of every legal marking of the final
    dice — non-empty sets of at most ``combinations_per_turn`` available items with disjoint
    groups (D8-D11), plus, when all dice are Jokers, every single available item (D12) — listed
    by size, then cell order. Empty = failed result (D13). Read from :func:`feasibility_arrays`.
    """
    feasible = feasibility_arrays(board, rules)
    row = space_for(rules).roll_index[counts]
    end = feasible.starts[row + 1] if row + 1 < len(feasible.starts) else len(feasible.members)
    members = feasible.members[feasible.starts[row]:end - 1]  # the "no set" sentinel ends every row
    masks = set_masks(feasible)
    if masks is not None:  # a set is open when none of its items is marked or eliminated (D4)
        open_sets: np.ndarray = members[(masks[members] & (marks.marked | marks.eliminated)) == 0]
        return open_sets
    found: np.ndarray = members[_open_cells(marks)[feasible.sets.cells[members]].all(axis=1)]
    return found


@cache
def set_masks(feasible: FeasibilityArrays) -> np.ndarray | None:
    """``int64 (K,)``: each item set's cells as a bit mask, or ``None`` when a board has more
    than 62 items (the masks would not fit in int64)."""
    cells = feasible.sets.cells
    if cells.size and int(cells.max()) > 61:
        return None
    bits = np.where(cells >= 0, np.left_shift(1, np.maximum(cells, 0), dtype=np.int64), 0)
    masks: np.ndarray = np.bitwise_or.reduce(bits, axis=1) if cells.shape[1] else np.zeros(len(cells), np.int64)
    return masks


@lru_cache(maxsize=4096)
def _open_cells(marks: Marks) -> np.ndarray:
    """``bool (cells+1,)``: the available items (D4), then ``True`` for the -1 padding."""
    return np.append(marks.bit_arrays()[1].astype(bool), True)


def legal_markings(counts: Counts, board: Board, marks: Marks, rules: Ruleset) -> list[Marking]:
    """Every legal marking of the final dice (:func:`legal_sets`), each with its dice groups;
    a D12 single item shows all the (Joker) dice as its group. Empty list = failed result (D13).
    """
    cells_of = item_sets(board, rules.combinations_per_turn).cells
    found = []
    for index in legal_sets(counts, board, marks, rules):
        cells = tuple(int(c) for c in cells_of[index] if c >= 0)
        groups = find_groups(counts, cells, board, rules)
        if groups is None:  # only D12 (all Jokers: any one item) can mark it
            assert rules.joker_index is not None and len(cells) == 1
            groups = (Group(cells[0], rules.joker_index, 0, rules.dice),)
        found.append(Marking(cells, groups))
    return found


def set_indicator(space: DiceSpace, rules: Ruleset, face: int, n: int) -> np.ndarray:
    """``int64 (R,)``: 1 where a roll holds a combination of exactly ``n`` dice showing ``face``
    (side number of an item face), Joker rules applied (D11: at most ``jokers_per_group``
    Jokers, never only Jokers unless the ruleset allows it), else 0. D12 is not applied.
    """
    counts = space.roll_counts
    jokers = counts[:, rules.joker_index] if rules.joker_index is not None else np.zeros(len(counts), np.int64)
    return holds_combination(counts[:, face], jokers, n, rules).astype(np.int64)


# --- every roll x every item set, at once (for the engine) ---------------------------------


@dataclass(frozen=True, eq=False)
class FeasibilityArrays:
    """Which item sets every final roll can mark, for one board and ruleset (state-free).

    Stored sparse (about 1% of roll x set pairs are feasible on the default board), in CSR form
    over the rolls of :class:`DiceSpace`: the sets of roll ``r`` are
    ``members[starts[r]:starts[r + 1]]``, and every row ends with the sentinel ``len(sets.sizes)``
    ("no set") so that no row is empty.

    Attributes:
        sets: every set of 1..k items (:func:`board.item_sets`).
        starts: ``int64 (R,)`` row starts. members: ``int64 (nnz,)`` set indices.
    """

    sets: ItemSets
    starts: np.ndarray
    members: np.ndarray


@cache
def feasibility_arrays(board: Board, rules: Ruleset) -> FeasibilityArrays:
    """Build (once per process per board and ruleset) the :class:`FeasibilityArrays` (D8-D12),
    or read them from the disk cache (:mod:`~shelfie_solver.core.diskcache`).

    Raises:
        WorkError: the arrays would pass the documented memory bound (:func:`workload.check_work`).
    """
    from shelfie_solver.core.diskcache import all_within, load_or_build, row_starts_fit

    check_work(board, rules)
    sets = item_sets(board, rules.combinations_per_turn)
    arrays = load_or_build("feasibility", f"{board!r}\n{rules!r}",
                           {"starts": (len(space_for(rules).rolls),), "members": ("members",)},
                           lambda: _build_feasibility(board, rules, sets),
                           lambda found: (row_starts_fit(found["starts"], len(found["members"]) - 1)  # rows end
                                          and all_within(found["members"], 0, len(sets.sizes) + 1)))  # in a sentinel
    return FeasibilityArrays(sets, arrays["starts"], arrays["members"])


def _build_feasibility(board: Board, rules: Ruleset, sets: ItemSets) -> dict[str, np.ndarray]:
    """The arrays of :class:`FeasibilityArrays` (``starts``, ``members``), computed."""
    space = space_for(rules)
    options = _set_options(sets.cells, board, rules)
    all_jokers = all_jokers_roll(rules)
    d12 = None if all_jokers is None else space.roll_index[all_jokers]
    # rolls in blocks of about _BLOCK_PAIRS roll x option pairs: memory stays bounded (docs/performance.md)
    block = max(1, _BLOCK_PAIRS // max(1, len(options[2])))
    all_rows, all_members = [], []
    for lo in range(0, len(space.rolls), block):
        counts = space.roll_counts[lo:lo + block]
        feasible = _feasible_sets(counts, options, len(sets.sizes), rules)
        if d12 is not None and lo <= d12 < lo + len(counts):
            feasible[d12 - lo] |= sets.sizes == 1  # D12: also any one item
        feasible = np.concatenate([feasible, np.ones((len(feasible), 1), dtype=bool)], axis=1)  # sentinel
        rows, members = np.nonzero(feasible)
        all_rows.append(rows + lo)
        all_members.append(members)
    rows, members = np.concatenate(all_rows), np.concatenate(all_members)
    starts = np.searchsorted(rows, np.arange(len(space.rolls)))
    return {"starts": starts.astype(np.int64), "members": members.astype(np.int64)}


#: Roll x set-option pairs evaluated at once by :func:`feasibility_arrays` (about 4 MB per temporary).
_BLOCK_PAIRS = BLOCK_PAIRS


def _feasible_sets(counts: np.ndarray, options: tuple[np.ndarray, np.ndarray, np.ndarray], n_sets: int,
                   rules: Ruleset) -> np.ndarray:
    """``bool (N, K)``: which of the ``K`` item sets each roll of ``counts`` ``(N, sides)`` can
    mark, by the closed form, vectorised over rolls, item sets and faces (``options`` from
    :func:`_set_options`)."""
    demand, cap, owner = options
    dice = counts[:, : rules.n_faces].astype(np.int8)
    if rules.joker_index is not None:
        jokers = counts[:, rules.joker_index].astype(np.int8)
    else:
        jokers = np.zeros(len(counts), dtype=np.int8)
    ok = np.ones((len(counts), len(owner)), dtype=bool)
    jokers_needed = np.zeros((len(counts), len(owner)), dtype=np.int8)
    for face in range(rules.n_faces):  # one face at a time keeps the temporaries small
        deficit = np.maximum(demand[None, :, face] - dice[:, None, face], 0).astype(np.int8)
        ok &= deficit <= cap[None, :, face]
        jokers_needed += deficit
    ok &= jokers_needed <= jokers[:, None]
    if len(owner) == n_sets:
        return ok
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return np.logical_or.reduceat(ok, starts, axis=1)


def _set_options(cells: np.ndarray, board: Board, rules: Ruleset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item set and per choice of one face per item (a shelf may accept several faces):
    dice needed per face ``int8 (O, F)``, Joker capacity per face ``int8 (O, F)`` (D11), and the
    item set each option belongs to ``int64 (O,)`` (non-decreasing)."""
    n_faces = rules.n_faces
    per_cell_demand = np.zeros((board.n_cells + 1, n_faces), dtype=np.int16)  # last row: padding
    per_cell_cap = np.zeros((board.n_cells + 1, n_faces), dtype=np.int16)
    for cell in range(board.n_cells):
        face = board.faces_of(cell)[0]
        per_cell_demand[cell, face] = board.need(cell)
        per_cell_cap[cell, face] = rules.joker_cap(board.need(cell))
    demand = per_cell_demand[cells].sum(axis=1)
    cap = per_cell_cap[cells].sum(axis=1)
    owner = np.arange(len(cells))
    multi = [c for c in range(board.n_cells) if len(board.faces_of(c)) > 1]
    if multi:  # expand the sets holding a several-face item into one option per face choice
        needs_choice = np.isin(cells, multi).any(axis=1)
        rows_d, rows_c, rows_o = [], [], []
        for index in np.flatnonzero(needs_choice):
            chosen = [int(c) for c in cells[index] if c >= 0]
            for choice in product(*(board.faces_of(c) for c in chosen)):
                d, k = np.zeros(n_faces, dtype=np.int16), np.zeros(n_faces, dtype=np.int16)
                for cell, face in zip(chosen, choice):
                    d[face] += board.need(cell)
                    k[face] += rules.joker_cap(board.need(cell))
                rows_d.append(d)
                rows_c.append(k)
                rows_o.append(index)
        keep = ~needs_choice
        demand = np.concatenate([demand[keep], np.array(rows_d, dtype=np.int16).reshape(-1, n_faces)])
        cap = np.concatenate([cap[keep], np.array(rows_c, dtype=np.int16).reshape(-1, n_faces)])
        owner = np.concatenate([owner[keep], np.array(rows_o, dtype=np.int64)])
        order = np.argsort(owner, kind="stable")
        demand, cap, owner = demand[order], cap[order], owner[order]
    return demand.astype(np.int8), cap.astype(np.int8), owner.astype(np.int64)
