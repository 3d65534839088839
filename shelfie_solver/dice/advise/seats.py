"""The game around one sheet, as a player types it for ``advise``: the opponents' sheets, their
place in the round and the round, turned into the :class:`events.GameState` that game-aware
objectives (``learned``, :func:`learned.objective.state_objective`) read.

``play`` keeps this state itself from the events of the game; ``advise`` has only what the
player types, so the state is rebuilt here and checked against D1, D5, D17 and D18.
"""

from __future__ import annotations

from shelfie_solver.dice.board import Board, Marks, verify_marks_fit
from shelfie_solver.dice.game.events import MAX_PLAYERS, GameError, GameState
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, completed_lines, end_trigger_shelves, triggers_end


class SeatsError(GameError):
    """Opponents' sheets, a place in the round or a round that cannot be a game (D1, D5, D17, D18)."""


def state_from_seats(board: Board, rules: Ruleset, marks: Marks, opponents: tuple[Marks, ...], order: int = 1,
                round_number: int = 1) -> GameState:
    """The state of a game at the start of the player's turn, from what they see.

    Args:
        marks: the player's sheet; ``opponents``: the other sheets in play order, starting with
            the player who plays next after them (clockwise, D5).
        order: the player's place in the round's play order, 1 = they play first (D5).
        round_number: the round being played, from 1 (D18 counts rounds).

    Returns:
        A :class:`events.GameState` with the player in seat 0 and the opponents in seats 1.. in play
        order; ``first`` is the seat that plays first in each round; ``end_triggered`` is D17's
        test on every sheet (any sheet with the trigger's number of shelves without an available
        item).

    Raises:
        SeatsError: more than 3 opponents (D1), ``order`` not 1..players, ``round_number`` < 1,
            or the end triggered while the player is first in the round (the round in which it
            fired has been played out, so the game is over, D18).
            A line complete on one sheet while another sheet still has an item available on it
            (D15 eliminates them) or has it complete too (D16).
        MarksError: an opponent's sheet does not fit the board.
    """
    players = 1 + len(opponents)
    if players > MAX_PLAYERS:
        raise SeatsError(f"{len(opponents)} opponents given; a game has 2-{MAX_PLAYERS} players (D1), "
                           f"so give --opponent at most {MAX_PLAYERS - 1} times")
    if not 1 <= order <= players:
        raise SeatsError(f"--order {order}: your place in the round must be 1-{players} (1 = you play first in each round, D5)")
    if round_number < 1:
        raise SeatsError(f"--round {round_number} is not a round; rounds count from 1")
    for sheet in opponents:
        verify_marks_fit(sheet, board)
    sheets = (marks, *opponents)
    _verify_blocking(board, sheets)
    trigger = end_trigger_shelves(board, rules)
    triggered = any(triggers_end(board, sheet, rules) for sheet in sheets)
    if triggered and order == 1 and players > 1:
        raise SeatsError(f"a sheet has {trigger} shelves without an available item, so the end was triggered "
                           "(D17) in an earlier round, and you play first in the round: the game is over (D18); "
                           "if you do not play first, give --order")
    first = (-(order - 1)) % players  # seat 0 is the player, ``order - 1`` seats after the first
    return GameState(board, rules, sheets, active=0, first=first, turn=(round_number - 1) * players + order - 1,
                     end_triggered=triggered)


def _verify_blocking(board: Board, sheets: tuple[Marks, ...]) -> None:
    """D15/D16: a line with every item marked on one sheet has no available item on any other
    sheet (eliminated when it was completed), so no other sheet has it complete either."""
    names = ["your sheet"] + [f"opponent {j}'s sheet" for j in range(1, len(sheets))]
    completed = [completed_lines(board, sheet) for sheet in sheets]
    for index in range(len(board.lines)):
        complete = [j for j, lines in enumerate(completed) if index in lines]
        if len(complete) > 1:
            raise SeatsError(f"{board.line_name(index)} is complete on {names[complete[0]]} and on "
                               f"{names[complete[1]]}; a line is completed by at most one player (D16)")
        for j in complete:
            _, blocked = block(board, sheets, j, (index,))
            if blocked:  # the first other sheet with an item still available on the line
                k = blocked[0][1]
                raise SeatsError(f"{board.line_name(index)} is complete on {names[j]}, so its items on "
                                 f"{names[k]} are eliminated (D15): mark them 'x' there")
