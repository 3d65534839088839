"""The rules that act on whole sheets when a turn ends: the shelves a failed result may give up
(D13), blocking (D15, D16) and the end trigger (D17).

Each rule has one function here, used by every place that applies it: the game's turn loop
(:mod:`shelfie_solver.dice.game.turn`), the game file ``play`` keeps, the sheets ``advise`` is
told about, the whole-game solver, the advice report and the learned objective. Only the board,
the marks and the ruleset are needed (no game module), so ``advise`` can load this at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np

from shelfie_solver.dice.board import Board, ItemSets, Marks
from shelfie_solver.dice.rules import Ruleset

#: One blocking (D15): ``(completed line, other seat, the cells it eliminates on that seat's sheet)``.
Blocked = tuple[int, int, tuple[int, ...]]


# --- D13: failed result ----------------------------------------------------------------------


def failed_result_shelves(board: Board, marks: Marks) -> dict[int, tuple[int, ...]]:
    """The shelves a failed result may give up (D13) and what giving each up eliminates.

    Returns:
        ``{shelf: cells}`` for every shelf (never a column) with at least one available item, in
        shelf order (0-based); ``cells`` are that shelf's available items, sorted. Its marked
        items stay marked and still score. Empty when the sheet has no available item.
    """
    out: dict[int, tuple[int, ...]] = {}
    for shelf in range(board.n_shelves):
        lost = tuple(c for c in board.lines[shelf] if marks.is_available(c))
        if lost:
            out[shelf] = lost
    return out


# --- D15, D16: blocking ----------------------------------------------------------------------


def completed_lines(board: Board, marks: Marks, lines: Iterable[int] | None = None) -> tuple[int, ...]:
    """The lines among ``lines`` (indices into :attr:`Board.lines`: shelves, then columns; default
    every line), in the order given, whose items are all marked on ``marks`` (D15: an eliminated
    item does not complete a line)."""
    masks = line_masks(board)
    chosen = range(len(masks)) if lines is None else lines
    return tuple(line for line in chosen if marks.marked & masks[line] == masks[line])


def block(board: Board, sheets: Sequence[Marks], seat: int,
          lines: Iterable[int]) -> tuple[tuple[Marks, ...], tuple[Blocked, ...]]:
    """D15: ``seat`` has completed ``lines`` (e.g. :func:`completed_lines`), so every other sheet
    eliminates its still-available items on each; its marked items there stay and still score.
    That line can then no longer be completed on those sheets (D16).

    Lines are taken in the order given, the other seats in seat order; an item on two completed
    lines is eliminated by the first.

    Returns:
        The sheets after blocking, and one ``(line, other seat, cells eliminated)`` (sorted cells)
        per line and other seat that lost at least one item (the game's ``Block`` events).
    """
    after, out = tuple(sheets), []
    for line in lines:
        members = board.lines[line]
        for other in range(len(after)):
            if other == seat:
                continue
            lost = tuple(c for c in members if after[other].is_available(c))
            if lost:
                out.append((line, other, lost))
                after = after[:other] + (after[other].with_eliminated(lost),) + after[other + 1:]
    return after, tuple(out)


@cache
def line_masks(board: Board) -> tuple[int, ...]:
    """Each line's items (:attr:`Board.lines`) as a bit mask over the cells."""
    return tuple(sum(1 << c for c in line) for line in board.lines)


# --- D17: the end trigger --------------------------------------------------------------------


def end_trigger_shelves(board: Board, rules: Ruleset) -> int:
    """Shelves without an available item that trigger the end (D17), at most the board's shelves
    (a sheet with no available item at all always triggers it, so every game ends)."""
    return min(rules.end_trigger_shelves, board.n_shelves)


def triggers_end(board: Board, marks: Marks, rules: Ruleset) -> bool:
    """Whether ``marks`` has :func:`end_trigger_shelves` shelves without an available item (each
    of their items marked or eliminated, in any mix), which triggers the end of the game (D17)."""
    return marks.closed_shelves() >= end_trigger_shelves(board, rules)


def ending_seats(board: Board, rules: Ruleset, sheets: Sequence[Marks]) -> tuple[int, ...]:
    """The seats whose sheet triggers the end (:func:`triggers_end`, D17), in seat order. Any sheet
    counts, the active player's or another's: blocking (D15) can close an opponent's shelves."""
    return tuple(seat for seat, marks in enumerate(sheets) if triggers_end(board, marks, rules))


def marking_ends_game(board: Board, rules: Ruleset, sheets: Sequence[Marks], seat: int,
                      cells: Iterable[int]) -> bool:
    """Whether ``seat`` marking ``cells`` (available items) leaves the end triggered on some
    sheet (D17) once every line then complete on its sheet has blocked the others (D15): one
    marking of :func:`markings_end_game`, by :func:`block` and :func:`ending_seats`."""
    after = sheets[seat].with_marked(tuple(cells))
    placed = tuple(after if i == seat else m for i, m in enumerate(sheets))
    blocked, _ = block(board, placed, seat, completed_lines(board, after))
    return bool(ending_seats(board, rules, blocked))


def markings_end_game(board: Board, rules: Ruleset, sheets: Sequence[Marks], seat: int,
                      sets: ItemSets) -> np.ndarray:
    """Whether each marking of ``sets`` by ``seat`` leaves the end triggered (D17) on some sheet.

    The marking is made on ``sheets[seat]``; every line it then has complete blocks the other
    sheets (D15: their available items on it are eliminated); the end is triggered when any
    sheet, the player's or another's, then has :func:`end_trigger_shelves` shelves without an
    available item. The vectorised form of :func:`block` followed by :func:`ending_seats`, one
    home of the question "does this turn end the game" for the objectives, the exact chances and
    the reasons.

    Args:
        sheets: every seat's marks before the marking.
        seat: the player who marks.
        sets: ``K`` item sets (:class:`board.ItemSets`), each a set of available items of ``seat``.

    Returns:
        ``bool (K,)``.
    """
    need = end_trigger_shelves(board, rules)
    shelves = board.n_shelves
    member = board.line_matrix  # (cells, L)
    marked, available = sheets[seat].bit_arrays()
    count = sets.line_count  # (K, L)
    own_open = available @ member - count
    ends: np.ndarray = (own_open[:, :shelves] == 0).sum(axis=1) >= need
    blocked = _blocked_cells(board, marked, sets)
    for other, marks in enumerate(sheets):
        if other == seat:
            continue
        open_cells = marks.bit_arrays()[1].astype(bool)
        left = (open_cells & ~blocked).astype(np.int64) @ member[:, :shelves]  # (K, shelves)
        ends |= (left == 0).sum(axis=1) >= need
    return ends


def _blocked_cells(board: Board, marked: np.ndarray, sets: ItemSets) -> np.ndarray:
    """``bool (K, cells)``: the cells of the lines the player (marked items ``marked``, ``(cells,)``)
    has complete after each marking of ``sets``, every other sheet's items there eliminated (D15)."""
    member = board.line_matrix  # (cells, L)
    complete = (marked @ member + sets.line_count) == member.sum(axis=0)  # (K, L)
    blocked: np.ndarray = (complete.astype(np.int64) @ member.T) > 0
    return blocked


def may_end_game(board: Board, rules: Ruleset, sheets: Sequence[Marks], seat: int) -> bool:
    """Whether some marking of at most ``rules.combinations_per_turn`` available items by ``seat``
    (D9) could leave the end triggered (D17) on some sheet: a necessary condition of
    :func:`markings_end_game` (``False``: it is False for every marking), cheap to test.

    The player's sheet: its closed shelves plus the most shelves that many items can close (the
    shelves with the fewest available items first). Another sheet: a shelf of it closes only when
    every available item on it is blocked (D15), that is when the player completes that shelf, or
    every column through those items; a line is complete after the turn when the items the player
    still misses on it (none eliminated) are all marked, so the shelves closed together need the
    union of those missing items, at most that many items."""
    need = end_trigger_shelves(board, rules)
    most = rules.combinations_per_turn
    mine = sheets[seat]
    if mine.closed_shelves() + _closable(board, mine, most) >= need:
        return True
    masks = line_masks(board)
    full = (1 << board.n_cells) - 1
    free = ~(mine.marked | mine.eliminated) & full
    missing = [masks[line] & free if not mine.eliminated & masks[line] else -1 for line in range(len(masks))]
    for other, marks in enumerate(sheets):
        if other != seat and _blocks_may_close(board, marks, missing, need, most):
            return True
    return False


def markings_block_out(board: Board, sheets: Sequence[Marks], seat: int, later: Sequence[int],
                       sets: ItemSets) -> np.ndarray:
    """Whether each marking of ``sets`` by ``seat`` leaves every seat of ``later`` (the seats
    still to play in this round, at least one) without an available item after its blocks (D15).

    Such a sheet has every shelf closed, so the end is triggered (D17) if it was not; the round is
    then played out (D18) by seats that can mark nothing and pass, and the game is over with every
    score final after the marking (the seats before ``seat`` in the round have played it).

    Args:
        sheets: every seat's marks before the marking.
        seat: the player who marks.
        later: the seats that play after ``seat`` in this round.
        sets: ``K`` item sets of available items of ``seat``.

    Returns:
        ``bool (K,)``; all False when ``later`` is empty.
    """
    k = len(sets.sizes)
    if not later:
        return np.zeros(k, dtype=bool)
    blocked = _blocked_cells(board, sheets[seat].bit_arrays()[0], sets)
    out = np.ones(k, dtype=bool)
    for other in later:
        open_cells = sheets[other].bit_arrays()[1].astype(bool)
        out &= ~(open_cells & ~blocked).any(axis=1)
    return out


def may_block_out(board: Board, rules: Ruleset, sheets: Sequence[Marks], seat: int, later: Sequence[int]) -> bool:
    """A cheap necessary condition of :func:`markings_block_out` for some marking (``False``: it is
    False for every marking): every available item of every seat of ``later`` lies on a line the
    player can complete this turn (none of its items eliminated, D16, at most
    ``rules.combinations_per_turn`` of them still to mark, D9)."""
    if not later:
        return False
    mine = sheets[seat]
    full = (1 << board.n_cells) - 1
    free = ~(mine.marked | mine.eliminated) & full
    reach = 0
    for mask in line_masks(board):
        if not mine.eliminated & mask and bin(mask & free).count("1") <= rules.combinations_per_turn:
            reach |= mask
    return all(~(sheets[j].marked | sheets[j].eliminated) & full & ~reach == 0 for j in later)


def _closable(board: Board, marks: Marks, most: int) -> int:
    """The most shelves of ``marks`` that ``most`` more marked items can close (D17)."""
    left = sorted(n for n in (len([c for c in line if marks.is_available(c)]) for line in board.lines[: board.n_shelves])
                  if n > 0)
    used = closable = 0
    for count in left:  # the smallest shelves first
        if used + count > most:
            break
        used += count
        closable += 1
    return closable


def _blocks_may_close(board: Board, marks: Marks, missing: list[int], need: int, most: int) -> bool:
    """Whether blocking (D15) may leave ``need`` closed shelves on ``marks``: ``missing[line]``
    the items the player still needs to complete each line (a bit mask; -1: it cannot, an item
    of it eliminated), at most ``most`` of them marked this turn (:func:`may_end_game`)."""
    from itertools import combinations, product

    masks = line_masks(board)
    free = ~(marks.marked | marks.eliminated) & ((1 << board.n_cells) - 1)
    options: list[list[int]] = []  # per open shelf: the items the player must mark to close it
    closed = 0
    for shelf in range(board.n_shelves):
        open_items = free & masks[shelf]
        if not open_items:
            closed += 1
            continue
        ways = [missing[shelf]] if missing[shelf] >= 0 else []
        columns = [missing[board.n_shelves + c % board.n_columns] for c in range(board.n_cells) if open_items >> c & 1]
        if all(m >= 0 for m in columns):
            union = 0
            for m in columns:
                union |= m
            ways.append(union)
        ways = [w for w in ways if w.bit_count() <= most]
        if ways:
            options.append(ways)
    short = need - closed
    if short <= 0:
        return True
    for chosen in combinations(options, short):
        for picked in product(*chosen):  # one way per shelf
            union = 0
            for w in picked:
                union |= w
            if union.bit_count() <= most:
                return True
    return False
