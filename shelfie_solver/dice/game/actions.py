"""Every action of a game checked and applied in one place (RULES.md D6-D20): :func:`apply` takes
a :class:`Position` and one action (a tuple of input events of :mod:`game.events`) and returns the
next position with the events the action makes, the derived ones included (:class:`Block`,
:class:`EndTriggered`, :class:`Pass`, :class:`GameOver`).

The actions of the active player, each immutable and replayable:

* the initial roll (:class:`Roll`, D6);
* a re-roll (:class:`Hold` then :class:`Roll`, D7): the dice kept are a part of the dice showing,
  keeping every die is stopping, at most ``rules.rerolls`` re-rolls;
* a stop (:class:`Stop`, D7): every die kept with re-rolls left, the dice final;
* a marking (:class:`Mark`, D8-D14): one of the legal markings of the final dice, then the
  blocks it makes (D15, D16);
* an opponent's marking told without dice (:class:`UncheckedMark`): 1 to
  ``rules.combinations_per_turn`` distinct available items (D4, D9);
* a failed result (:class:`Fail`, D13): only when nothing can be marked (D14), a shelf with an
  available item, every available item on it eliminated.

A marking or a failed result ends the turn (:func:`finish_turn`): the end trigger on every sheet
(D17, :func:`sheet_rules.ending_seats`), the round played out (D18), passes for sheets with
nothing left, the scores and winners (D19, D20). The game loop (:func:`turn.play_game`) and the
game file ``play`` keeps (:mod:`play.gamefile`) both act through :func:`apply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from shelfie_solver.core.report import and_list
from shelfie_solver.dice.board import Board, CellState, Marks, score_breakdown
from shelfie_solver.dice.game.events import (
    Block,
    EndTriggered,
    Event,
    Fail,
    GameError,
    GameOver,
    GameState,
    Hold,
    LegalMarkings,
    Mark,
    Pass,
    Roll,
    Stop,
    UncheckedMark,
    legal_sets,
)
from shelfie_solver.dice.joker import is_all_jokers
from shelfie_solver.dice.rolls import Counts, dice_codes, not_among
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.sheet_rules import block, completed_lines, ending_seats, failed_result_shelves

#: One action: its input events (a :class:`Hold` and the :class:`Roll` after it are one action).
Action = tuple[Event, ...]


class ActionError(GameError):
    """An action that the rules or the order of play forbid (the message names the rule)."""


@dataclass(frozen=True)
class Position:
    """A game between two actions.

    Attributes:
        state: the current turn's :class:`GameState` (after the game: the final sheets).
        dice: the dice showing in this turn, ``None`` before the initial roll (D6).
        rerolls_left: re-rolls left with these dice (D7); 0 after a :class:`Stop`.
        stopped: the active player recorded a :class:`Stop` this turn (D7: the dice are final).
        over: the :class:`GameOver` once the game has ended (D18), else ``None``.
    """

    state: GameState
    dice: Counts | None = None
    rerolls_left: int = 0
    stopped: bool = False
    over: GameOver | None = None


def _name(names: Sequence[str] | None, seat: int) -> str:
    return names[seat] if names is not None and 0 <= seat < len(names) else f"player {seat + 1}"


def seat_words(player: object, seats: int, names: Sequence[str] | None = None) -> str:
    """An action's ``player`` (a 0-based seat, as events and game files hold it) in words for a
    refusal, never a bare index beside a name: ``Cy (seat 3)``, ``player 3`` without names, and
    a seat the game does not have ``seat 3 ("player": 2; the game has 2 seats, "player" 0 to
    1)`` (a negative one ``"player": -1 (the game has ...)``); another value (not a whole
    number) as ``repr``."""
    if not isinstance(player, int) or isinstance(player, bool):
        return repr(player)
    if 0 <= player < seats:
        return f"{names[player]} (seat {player + 1})" if names is not None and player < len(names) \
            else f"player {player + 1}"
    game = f'the game has {seats} seat{"s" if seats != 1 else ""}, "player" 0 to {seats - 1}'
    return f'seat {player + 1} ("player": {player}; {game})' if player >= seats else f'"player": {player} ({game})'


def out_of_turn(position: Position, who: object, names: Sequence[str] | None = None) -> ActionError:
    """The error for an action by ``who`` (a name) while another player is to play (D5). Worded
    without a possessive, so it reads right for any name ("me", "Chris")."""
    return ActionError(f"{_name(names, position.state.active)} is to play, not {who} (D5: play goes clockwise)")


def stopped_error(position: Position, names: Sequence[str] | None = None) -> ActionError:
    """The error for a re-roll after the active player's :class:`Stop` this turn (D7)."""
    rules = position.state.rules
    dice = dice_codes(position.dice, rules) if position.dice is not None else ""
    return ActionError(f"{_name(names, position.state.active)} stopped with {dice} (D7): the dice are final, "
                       "no re-roll; mark items, or undo the stop")


#: The refusal of every action once the game is over (D18), whatever the action needs.
GAME_OVER = ("the game is over (D18); to change the last action, undo it: play undo GAME "
             "(at the play prompt: 'undo')")


def apply(position: Position, action: Action, names: Sequence[str] | None = None,
          legal: LegalMarkings | None = None) -> tuple[Position, Action]:
    """Check one action of the active player against the rules and apply it (module docstring).

    Args:
        names: player names by seat, for the messages (default ``player 1`` ...).
        legal: the legal markings of the final dice, when the caller has them already (the game
            loop): a :class:`Mark` is then checked against them instead of computing them again.

    Returns:
        The position after the action, and the events it makes: the action's own, then the
        derived ones.

    Raises:
        ActionError: the game is over, it is not this player's turn, or the action breaks a
            rule (D6-D14). ``position`` is unchanged (it is immutable).
    """
    if position.over is not None:
        raise ActionError(GAME_OVER)
    first = action[0] if action else None
    player = getattr(first, "player", None)
    if player != position.state.active:
        raise out_of_turn(position, seat_words(player, position.state.players, names), names)
    kinds = tuple(type(e) for e in action)
    if kinds == (Roll,):
        return _roll(position, action, names), action
    if kinds == (Hold, Roll):
        return _reroll(position, action, names), action
    if kinds == (Stop,):
        return _stop(position, names), action
    events: list[Event] = list(action)
    if kinds == (Mark,):
        assert isinstance(first, Mark)
        _check_marking(position, first.cells, names, legal)
        sheets = mark_and_block(position.state, first.cells, events)
    elif kinds == (UncheckedMark,):
        assert isinstance(first, UncheckedMark)
        sheets = _unchecked_marking(position, first.cells, names, events)
    elif kinds == (Fail,):
        assert isinstance(first, Fail)
        sheets = _failed_result(position, first)
    else:
        raise ActionError(f"not an action: {[e.kind for e in action]}")
    return end_turn(position.state, sheets, events), tuple(events)


def _roll(position: Position, action: Action, names: Sequence[str] | None) -> Position:
    """The initial roll (D6): no dice showing yet, every re-roll left."""
    roll = action[0]
    assert isinstance(roll, Roll)
    rules = position.state.rules
    if position.dice is not None:
        raise ActionError(f"{_name(names, roll.player)} has rolled already ({dice_codes(position.dice, rules)}); "
                          "expected a re-roll (keep some dice), a marking or a failed result")
    if roll.rerolls_left != rules.rerolls:
        raise ActionError(f"the initial roll leaves {rules.rerolls} re-rolls (D7), not {roll.rerolls_left}")
    return Position(position.state, roll.dice, rules.rerolls)


def _reroll(position: Position, action: Action, names: Sequence[str] | None) -> Position:
    """A re-roll (D7): a hold that is a part of the dice and not all of them, then the new roll
    keeping it, one re-roll fewer."""
    hold, roll = action
    assert isinstance(hold, Hold) and isinstance(roll, Roll)
    rules, left = position.state.rules, position.rerolls_left
    verify_hold(position, hold.keep, names)
    if roll.player != hold.player or any(k > d for k, d in zip(hold.keep, roll.dice)) \
            or roll.rerolls_left != left - 1:
        raise ActionError(f"the re-roll {dice_codes(roll.dice, rules)} does not keep "
                          f"{dice_codes(hold.keep, rules)} with {left - 1} re-rolls left (D7)")
    return Position(position.state, roll.dice, roll.rerolls_left)


def verify_hold(position: Position, keep: Counts, names: Sequence[str] | None = None) -> None:
    """Check that the active player may keep ``keep`` and re-roll the rest now (D7): dice are
    showing, no stop was recorded, a re-roll is left, ``keep`` is a part of the dice and not all
    of them (keeping every die is stopping).

    Raises:
        ActionError: the message names the rule.
    """
    rules, dice, left = position.state.rules, position.dice, position.rerolls_left
    if dice is None:
        raise ActionError(f"{_name(names, position.state.active)} has not rolled yet; expected the initial roll of "
                          f"{rules.dice} dice (D6)")
    if position.stopped:
        raise stopped_error(position, names)
    if left == 0:
        raise ActionError(f"no re-roll left (D7: at most {rules.rerolls}); the dice "
                          f"{dice_codes(dice, rules)} are final: mark items or give up a shelf")
    if len(keep) != len(dice) or min(keep, default=0) < 0 or any(k > d for k, d in zip(keep, dice)):
        why = not_among(keep, dice, rules) if len(keep) == len(dice) and min(keep, default=0) >= 0 else ""
        raise ActionError(f"cannot keep {dice_codes(keep, rules)}: {why or f'not among the dice {dice_codes(dice, rules)}'} "
                          "(D7)")
    if keep == dice:
        raise ActionError("keeping every die is stopping (D7): mark items instead")


def _stop(position: Position, names: Sequence[str] | None) -> Position:
    """A stop (D7): dice showing and a re-roll left; the dice are then final."""
    rules, dice, who = position.state.rules, position.dice, _name(names, position.state.active)
    if dice is None:
        raise ActionError(f"{who} has not rolled yet; nothing to stop (D6: roll first)")
    if position.stopped:
        raise ActionError(f"{who} stopped already with {dice_codes(dice, rules)} (D7): mark items or give up a shelf")
    if position.rerolls_left == 0:
        raise ActionError(f"no re-roll left (D7): the dice {dice_codes(dice, rules)} are final already; "
                          "mark items or give up a shelf")
    return Position(position.state, dice, 0, stopped=True)


def _check_marking(position: Position, cells: tuple[int, ...], names: Sequence[str] | None,
                   legal: LegalMarkings | None) -> None:
    """A marking with the dice showing is one of their legal markings (D8-D14)."""
    state, dice = position.state, position.dice
    board, rules = state.board, state.rules
    if dice is None:
        raise ActionError(f"{_name(names, state.active)} has not rolled; record the dice first, or an "
                          "unchecked marking (told without dice)")
    legal = legal if legal is not None else legal_sets(dice, board, state.marks, rules)
    if not len(legal):
        raise ActionError(f"nothing can be marked with {dice_codes(dice, rules)}: a failed result "
                          "(D13): give up a shelf")
    if not cells:
        raise ActionError(f"the marking names no item; expected 1 to {rules.combinations_per_turn} items a turn "
                          "(D9), e.g. r1c3 r2c2")
    try:
        legal.position(cells)
    except GameError:
        shown = ", ".join(" ".join(board.cell_name(c) for c in found) for found in nearest_markings(cells, legal.all_cells()))
        why = why_not_legal(cells, dice, board, state.marks, rules)
        raise ActionError(f"{' '.join(board.cell_name(c) for c in cells)} is not a legal marking of "
                          f"{dice_codes(dice, rules)} ({why or 'D8-D14'}); legal include: {shown}"
                          f"{' ...' if len(legal) > 6 else ''}") from None


def nearest_markings(cells: Sequence[int], legal: Sequence[tuple[int, ...]], shown: int = 6) -> list[tuple[int, ...]]:
    """The first ``shown`` of the ``legal`` markings (cell indices each) for a refusal of ``cells``:
    those sharing the most items with ``cells`` first, then those marking more items (D9), then
    in their own order; so a marking one item short of what was asked (a Joker too few, D11a) is
    listed before the single items."""
    asked = set(cells)
    order = sorted(range(len(legal)), key=lambda i: (-len(asked.intersection(legal[i])), -len(legal[i]), i))
    return [legal[i] for i in order[:shown]]


def why_not_legal(cells: tuple[int, ...], dice: Counts, board: Board, marks: Marks, rules: Ruleset) -> str | None:
    """Why the items ``cells`` (cell indices) are not a legal marking of ``dice`` (face counts),
    when the reason is a simple one: an item named twice (D4: a hand-edited game file), more
    items than a turn marks (D9), an item not available (D4), more than one item when every die
    is a Joker (D12: any one item), or a face the items need more of
    than the dice show, Jokers counted as they may stand in (D8, D11a: ``jokers_per_group`` per
    item, never more than are showing; D11b: none in an item of 1 die, a Joker never alone), or
    more Jokers than show when each face's items could hold theirs (D9: a die in one group only;
    PGBCJJ and r1c2 r3c2 r4c2 need 3); else None (the rule of the combinations, D10-D14, is for
    the legal list to show)."""
    unmarkable = why_not_markable(cells, board, marks, rules)
    if unmarkable is not None:
        return unmarkable
    if len(cells) > 1 and is_all_jokers(dice, rules):
        return f"{len(cells)} items: every die a Joker marks any one available item, D12"
    need: dict[int, int] = {}
    groups: dict[int, int] = {}
    caps: dict[int, int] = {}  # the Jokers each face's items may hold: joker_cap per group (D11a, D11b)
    alone = 0  # items of one die, which no Joker may mark (D11b)
    for c in cells:
        faces = board.faces_of(c)
        if len(faces) != 1:  # a shelf of several faces: which face each item takes is the list's
            return None
        need[faces[0]] = need.get(faces[0], 0) + board.need(c)
        groups[faces[0]] = groups.get(faces[0], 0) + 1
        caps[faces[0]] = caps.get(faces[0], 0) + rules.joker_cap(board.need(c))
        alone += rules.joker_cap(board.need(c)) < min(rules.jokers_per_group, board.need(c))
    joker = rules.joker_index
    jokers = dice[joker] if joker is not None else 0
    for face, count in need.items():
        stand_in = min(jokers, caps[face])
        if count > dice[face] + stand_in:
            name = rules.sides[face].name
            showing = f"{dice[face]}" + (f" and {jokers} joker{'s' if jokers != 1 else ''}" if jokers else "")
            ids = "D8"
            if stand_in < jokers and alone and stand_in < min(jokers, rules.jokers_per_group * groups[face]):
                # a Joker never forms a group alone: a 1-die item takes a matching die (D11b)
                showing += f", and a Joker never forms a group alone: an item of 1 die needs 1 {name} die"
                ids = "D8, D11b"
            elif stand_in < jokers:  # more Jokers showing than may stand in: why they do not add up (D11a)
                per, items = rules.jokers_per_group, groups[face]
                showing += (f", of which only {stand_in} can stand in: at most {per} Joker per group, and "
                            f"{items} item{' is' if items == 1 else 's are'} {items} group{'s' if items != 1 else ''}")
                ids = "D8, D11a"
            return f"the items need {count} {name} {'die' if count == 1 else 'dice'}, the dice show {showing}, {ids}"
    short = {face: count - dice[face] for face, count in need.items() if count > dice[face]}
    if sum(short.values()) > jokers:  # each face's items may hold their Jokers, but together more than show
        names = [rules.sides[face].name for face in short]
        wanted = and_list([f"{need[face]} {name}" for face, name in zip(short, names)])
        have = and_list([f"{dice[face]} {name}" for face, name in zip(short, names)]
                        + [f"{jokers} joker{'s' if jokers != 1 else ''}"])
        return (f"the items need {wanted} dice, the dice show {have}: {sum(short.values())} Jokers would have to "
                f"stand in (at most {rules.jokers_per_group} per group, each in one group only), D8, D9, D11a")
    return None


def why_not_markable(cells: tuple[int, ...], board: Board, marks: Marks, rules: Ruleset) -> str | None:
    """Why the items ``cells`` (cell indices) cannot be marked in one turn whatever the dice: an
    item named twice (D4: a hand-edited game file), none or more items than a turn marks (D9), or
    an item not available (D4: marked or eliminated); else None. The checks of a marking told
    without dice, and the first of :func:`why_not_legal`."""
    twice = [c for i, c in enumerate(cells) if c in cells[:i]]
    if twice:
        return f"{board.cell_name(twice[0])} is named twice: each item is marked once, D4"
    if len(cells) > rules.combinations_per_turn:
        return f"{len(cells)} items: at most {rules.combinations_per_turn} a turn, D9"
    if not cells:
        return f"no item: 1 to {rules.combinations_per_turn} a turn, D9"
    gone = [c for c in cells if not marks.is_available(c)]
    if gone:
        how = "already marked" if marks.state(gone[0]) is CellState.MARKED else "eliminated"
        return f"{board.cell_name(gone[0])} is {how}: not available, D4"
    return None


def _unchecked_marking(position: Position, cells: tuple[int, ...], names: Sequence[str] | None,
                       events: list[Event]) -> tuple[Marks, ...]:
    """A marking told without dice: only D4 and D9 are checked."""
    state = position.state
    board, rules = state.board, state.rules
    if position.dice is not None:
        raise ActionError(f"the dice {dice_codes(position.dice, rules)} are recorded: mark with them (checked)")
    why = why_not_markable(cells, board, state.marks, rules)
    if why is not None or not state.marks.can_mark(cells) or tuple(sorted(cells)) != cells:
        raise ActionError(f"{_name(names, state.active)} cannot mark {' '.join(board.cell_name(c) for c in cells)}: "
                          f"{why or f'1 to {rules.combinations_per_turn} distinct available items, D4, D9'}")
    return mark_and_block(state, cells, events)


def must_mark(dice: str, how: str = "mark one of its items") -> str:
    """The refusal of a failed result while ``dice`` (codes) can mark an item (D14): one wording
    for ``play fail --shelf N``, ``fail best``, the session's ``fail`` and the page; ``how``: the
    words that mark there and list the markings (``play``'s :attr:`reading.Forms.must_mark`)."""
    return (f"{dice} can mark an item, so it must (D14): {how}; a failed result is only possible when no item "
            "can be marked")


def _failed_result(position: Position, fail: Fail) -> tuple[Marks, ...]:
    """A failed result (D13): never chosen while something can be marked (D14); with no dice
    recorded (told at the table) it is not checked against them."""
    state = position.state
    board, rules, marks = state.board, state.rules, state.marks
    if position.dice is not None and len(legal_sets(position.dice, board, marks, rules)):
        raise ActionError(must_mark(dice_codes(position.dice, rules)))
    options = failed_result_shelves(board, marks)
    shelves = [s + 1 for s in options]
    if fail.shelf + 1 not in shelves:
        raise ActionError(f"a failed result gives up a shelf with an available item (D13): one of "
                          f"{', '.join(map(str, shelves))}, not {fail.shelf + 1}")
    lost = options[fail.shelf]
    if fail.cells != lost:
        raise ActionError(f"giving up shelf {fail.shelf + 1} eliminates {' '.join(board.cell_name(c) for c in lost)} (D13)")
    return replace_sheet(state.sheets, state.active, marks.with_eliminated(lost))


def mark_and_block(state: GameState, cells: tuple[int, ...], events: list[Event]) -> tuple[Marks, ...]:
    """Mark ``cells`` (cell indices, distinct available items) on the active sheet, then block
    every line it completes (D15: shelves and columns, several at once) on every other sheet
    (:func:`sheet_rules.block`), appending one :class:`Block` per line and sheet that lost items.

    Returns:
        Every seat's sheet after the marking and the blocking.

    Raises:
        MarksError: a cell is not available (D4).
    """
    board, seat = state.board, state.active
    after = state.marks.with_marked(cells)
    # the lines through the marked cells: shelves first, then columns (Board.lines)
    touched = {board.shelf_of(c) for c in cells} | {board.n_shelves + board.column_of(c) for c in cells}
    sheets, blocked = block(board, replace_sheet(state.sheets, seat, after), seat,
                            completed_lines(board, after, sorted(touched)))
    events.extend(Block(seat, other, line, lost) for line, other, lost in blocked)
    return sheets


def replace_sheet(sheets: tuple[Marks, ...], seat: int, marks: Marks) -> tuple[Marks, ...]:
    """``sheets`` with ``seat``'s sheet replaced by ``marks``."""
    return sheets[:seat] + (marks,) + sheets[seat + 1:]


def finish_turn(state: GameState, sheets: tuple[Marks, ...], events: list[Event]) -> GameState | None:
    """End the active player's turn, whose sheets are now ``sheets``: append :class:`EndTriggered`
    when this turn fires D17's trigger on any sheet (:func:`sheet_rules.ending_seats`), and
    :class:`GameOver` when the game ends (D18: the round is played out once the end is triggered).

    Returns:
        The state of the next turn, or ``None`` when the game is over.
    """
    board, rules, seat, n = state.board, state.rules, state.active, state.players
    triggered = state.end_triggered
    if not triggered:
        hit = ending_seats(board, rules, sheets)
        if hit:
            events.append(EndTriggered(seat, hit))
            triggered = True
    if triggered and state.is_last_in_round():  # D18: the round is played out, then the game ends
        events.append(game_over(board, rules, sheets, (state.turn + 1) // n))
        return None
    return GameState(board, rules, sheets, (seat + 1) % n, state.first, state.turn + 1, triggered)


def end_turn(state: GameState, sheets: tuple[Marks, ...], events: list[Event]) -> Position:
    """After a marking or a failed result: :func:`finish_turn`, then a :class:`Pass` for every
    next player whose sheet has no available item (nothing can be marked and D13 has no shelf
    to give up, so no dice are rolled), until a player can play or the game is over."""
    following: GameState | None = finish_turn(state, sheets, events)
    while following is not None and not following.marks.has_available:
        events.append(Pass(following.active))
        following = finish_turn(following, following.sheets, events)
    if following is None:  # the game is over: the last turn's state with the final sheets
        last = events[-1]
        assert isinstance(last, GameOver)
        return Position(replace(state, sheets=sheets), over=last)
    return Position(following)


def begin(state: GameState, events: list[Event]) -> Position:
    """The position of a game whose turn ``state`` is about to start: passes first while the
    players to play have no available item (possible only with given starting sheets)."""
    if state.marks.available:
        return Position(state)
    events.append(Pass(state.active))
    return end_turn(state, state.sheets, events)


def game_over(board: Board, rules: Ruleset, sheets: tuple[Marks, ...], rounds: int) -> GameOver:
    """Scores (D19) and winners (D20: every seat with the highest total wins)."""
    breakdown = [score_breakdown(board, m, rules) for m in sheets]
    totals = tuple(s + c for s, c in breakdown)
    best = max(totals)
    return GameOver(rounds, totals, tuple(s for s, _ in breakdown), tuple(c for _, c in breakdown),
                    tuple(p for p, t in enumerate(totals) if t == best))
