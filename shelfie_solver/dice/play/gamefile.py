"""A real game at the table, turn by turn (``shelfie-solve play``), click-free.

A :class:`KeptGame` is the game so far: the events of :mod:`game.events` (the saved-game format of
``simulate --save``, "shelfie-solve game 1"), from which the rules engine derives everything
else — whose turn it is, the dice showing and the re-rolls left, every sheet, blocking (D15),
the end trigger and the last round (D17, D18), the final scores and winners (D19, D20).

Players act through *actions*, each one or two input events: the initial roll (:class:`Roll`,
D6), a re-roll (:class:`Hold` then :class:`Roll`, D7), a stop (:class:`Stop`, D7: every die kept,
the dice final), a marking (:class:`Mark`, D8-D14), a
failed result (:class:`Fail`, D13) and an opponent's marking told without dice
(:class:`UncheckedMark`). :func:`act` checks an action against the rules and appends it with
the events the rules derive from it (:class:`Block`, :class:`Pass`, :class:`EndTriggered`,
:class:`GameOver`), reusing the turn logic of :mod:`game` (:func:`events.legal_sets`,
:func:`turn.mark_and_block`, :func:`turn.finish_turn`). Undo drops the last actions and derives the
game again.

Decisions where the rules are silent:

* Stopping (D7) is recorded when a player says so (:class:`Stop`): the roll phase is over,
  ``rerolls_left`` is 0 and a re-roll is refused until the stop is undone. With dice showing a
  marking may also be entered at any time without one; it ends the rolling (an implicit stop,
  not recorded, as in :mod:`game.turn`).
* A failed result (D13) may be entered without dice (an opponent's turn told at the table); it
  is then unchecked like :class:`UncheckedMark`. With dice it must be a real failed result:
  nothing can be marked (D14).
* A game file in progress has no :class:`GameOver`; it is written whole after every action,
  under an exclusive lock (:func:`update_file`), so two processes never interleave.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from shelfie_solver.dice.board import Board, Marks, score_breakdown
from shelfie_solver.dice.rolls import Counts
from shelfie_solver.core.errors import ShelfieError, shorten
from shelfie_solver.core.report import possessive
from shelfie_solver.core.inputs import check_json_text, json_refusal, kind_of, read_text, strict_loads
from shelfie_solver.core.files import FileWriteError, create_text, locked, resolve_target, write_text_atomically
from shelfie_solver.dice.game.events import (
    MAX_PLAYERS,
    PLAYER_COUNTS,
    Event,
    Fail,
    Game,
    GameError,
    GameOver,
    GameState,
    Hold,
    Mark,
    Roll,
    Start,
    Stop,
    UncheckedMark,
)
from shelfie_solver.dice.game import actions
from shelfie_solver.dice.game.actions import ActionError, Position, apply
from shelfie_solver.dice.game.record import MAX_GAME_BYTES, game_to_dict, saved_game_parts
from shelfie_solver.dice.objectives import Objective
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.workload import WorkError, check_work

#: Input events (what players do); the other kinds are derived by the rules.
INPUT_EVENTS = (Roll, Hold, Stop, Mark, UncheckedMark, Fail)
#: One action of a player (:data:`actions.Action`).
Action = actions.Action


class KeptGameError(GameError):
    """An action that the rules or the turn order forbid, or a game file that is not a game in
    this format (the message names the first bad event)."""


def out_of_turn(kept: KeptGame, who: object) -> KeptGameError:
    """The error for an action by ``who`` (a name) while another player is to play (D5)
    (:func:`actions.out_of_turn`)."""
    return KeptGameError(str(actions.out_of_turn(kept.position, who, kept.players)))


def check_running(kept: KeptGame) -> None:
    """Refuse an action on a finished game first, before what the action needs (dice showing, a
    re-roll left) is looked at: a finished game has no roll to enter (D18).

    Raises:
        KeptGameError: the game is over (:data:`actions.GAME_OVER`).
    """
    if kept.over is not None:
        raise KeptGameError(actions.GAME_OVER)


@dataclass(frozen=True)
class KeptGame:
    """A game so far.

    Attributes:
        board, rules: what is played.
        players: player names by seat (0-based seats).
        events: every event so far (the first is :class:`Start`).
        state: the current turn's :class:`events.GameState` (after the game: the final sheets).
        dice: the dice showing in this turn, ``None`` before the initial roll (D6).
        rerolls_left: re-rolls left with these dice (D7); 0 after a :class:`Stop`.
        actions: how many actions were taken (undo counts these).
        stopped: the active player recorded a :class:`Stop` this turn (D7: the dice are final).
        last_turn: the last turn that ended, as ``(the state it started from, the action that
            ended it: a marking or a failed result)``; ``None`` before any (the chance to win at
            a turn's start is that turn's figure for the choice made, :mod:`play.chances`).
    """

    board: Board
    rules: Ruleset
    players: tuple[str, ...]
    events: tuple[Event, ...]
    state: GameState
    dice: Counts | None = None
    rerolls_left: int = 0
    actions: int = 0
    stopped: bool = False
    last_turn: tuple[GameState, Event] | None = None

    @property
    def over(self) -> GameOver | None:
        """The final event once the game is over (D18), else ``None``."""
        last = self.events[-1]
        return last if isinstance(last, GameOver) else None

    @property
    def sheets(self) -> tuple[Marks, ...]:
        """Every seat's sheet."""
        return self.state.sheets

    @property
    def active(self) -> int:
        """The seat whose turn it is."""
        return self.state.active

    @property
    def active_name(self) -> str:
        """The active player's name."""
        return self.players[self.active]

    def seat_of(self, name: str) -> int:
        """The seat of a player name (case-insensitive).

        Raises:
            KeptGameError: no such player, or the name of more than one seat.
        """
        seats = [seat for seat, player in enumerate(self.players) if player.lower() == name.strip().lower()]
        if len(seats) > 1:  # a game of simulate --save: one strategy in several seats
            raise KeptGameError(f"{name!r} names seats {', '.join(str(s + 1) for s in seats)} of this game "
                                "(a game saved by simulate); leave out --player to act for the player to move")
        if seats:
            return seats[0]
        raise KeptGameError(f"no player {name!r} in this game; players: {', '.join(self.players)}")

    def scores(self) -> tuple[int, ...]:
        """Every seat's total score now (D19)."""
        return tuple(sum(score_breakdown(self.board, m, self.rules)) for m in self.sheets)

    @property
    def position(self) -> Position:
        """The game between two actions, as :func:`actions.apply` takes it."""
        return Position(self.state, self.dice, self.rerolls_left, self.stopped, self.over)

    def to_game(self) -> Game:
        """The events as a :class:`events.Game` (for :func:`record.game_to_dict`)."""
        return Game(self.board, self.rules, self.players, self.events, self.sheets)


#: Longest player name ``play new`` and the page accept: the grids, tables and the page's seat
#: buttons stay readable (a name is a label at the table, not a text).
MAX_NAME_LENGTH = 32

#: Longest seat name of a saved game of ``simulate --save`` named by a strategy with a file
#: (``learned:FILE``, :data:`strategies.FILE_STRATEGIES`): the prefix and a path of at most
#: 4,096 characters (Linux's ``PATH_MAX``).
MAX_STRATEGY_NAME_LENGTH = 4096 + len("learned:")


def _has_control(name: str) -> bool:
    """Whether ``name`` holds a control or an invisible format character (Unicode categories Cc,
    Cf: an escape sequence, a bell, a zero-width space, a bidirectional override). A byte that
    is not UTF-8 (read as a lone surrogate) is kept: it is shown escaped (core.report.printable)."""
    import unicodedata

    return any(unicodedata.category(c) in ("Cc", "Cf") for c in name)


def shown_name(name: str) -> str:
    """A player's name as a refusal quotes it: ``repr``, and a name over :data:`MAX_NAME_LENGTH`
    characters cut to that many with an ellipsis and its length, ``'aaaa…' (5,000 characters)``
    (:func:`core.errors.shorten`), so the cut shows and the message stays one short line."""
    if len(name) <= MAX_NAME_LENGTH:
        return repr(name)
    return f"{shorten(name, MAX_NAME_LENGTH)} ({len(name):,} characters)"


def _file_strategy(name: str) -> bool:
    """Whether ``name`` is a strategy named with a file (``learned:/models/my model.json``,
    :data:`strategies.FILE_STRATEGIES`), a seat name of ``simulate --save``."""
    from shelfie_solver.dice.strategies import FILE_STRATEGIES  # the engine's module: only for such a name

    return name.lower().startswith(FILE_STRATEGIES) and len(name) <= MAX_STRATEGY_NAME_LENGTH


def check_names(names: Sequence[object], distinct: bool = True, strategies: bool = False) -> tuple[str, ...]:
    """The rules of the player names of a game at the table, the one home of them: ``play new``,
    the ``serve`` page's new game and every game file read (:func:`kept_game_from_dict`) apply
    them alike. 2 to 4 names (D1), or 1 (solitaire, this tool's extension), each a non-empty
    string without spaces or commas, printable (no control character), at most
    :data:`MAX_NAME_LENGTH` characters, no two alike ignoring case (a name picks a seat: ``--player``, ``--first``). ``distinct=False`` (a game file read:
    ``simulate --save`` names the seats by strategy, ``greedy,greedy``) lets names repeat; such a
    name then picks no seat (:meth:`KeptGame.seat_of`). ``strategies`` (``review``, which reads
    ``simulate --save``'s games too): a strategy named with a file may also be a seat's name,
    its path as given (spaces included, up to :data:`MAX_STRATEGY_NAME_LENGTH` characters), but
    printable as every name.

    Returns:
        The names as given (callers strip typed names first).
    Raises:
        KeptGameError: the first rule broken, naming it.
    """
    if not all(isinstance(n, str) for n in names):
        raise KeptGameError(f"player names must be text (JSON strings), got {list(names)!r}; "
                            "expected names like Ann,Ben,me")
    texts = tuple(str(n) for n in names)
    if not 1 <= len(texts) <= MAX_PLAYERS:
        raise KeptGameError(f"a game needs {PLAYER_COUNTS}, got {len(texts)}; "
                         "expected names like Ann,Ben,me")
    for number, n in enumerate(texts, 1):
        if strategies and n.strip() == n and _file_strategy(n) and "," not in n:
            continue  # learned:/models/my model.json: a path may hold spaces
        if not n or any(ch.isspace() or ch == "," for ch in n):
            what = f"name {number} of {len(texts)} is empty" if not n \
                else f"{shown_name(n)} has a space or a comma"
            raise KeptGameError(f"player names must be non-empty words without spaces: {what}; "
                                "expected names like Ann,Ben,me")
    if any((len(n) > MAX_NAME_LENGTH and not (strategies and _file_strategy(n))) or _has_control(n) for n in texts):
        raise KeptGameError(f"player names must be printable words of at most {MAX_NAME_LENGTH} characters "
                            f"(no control characters), got [{', '.join(shown_name(n) for n in texts)}]; "
                            "expected names like Ann,Ben,me")
    if distinct and len({n.lower() for n in texts}) != len(texts):
        raise KeptGameError(f"player names must differ (whatever their case), got {','.join(texts)}; "
                            "expected names like Ann,Ben,me")
    return texts


def new_kept_game(board: Board, rules: Ruleset, players: Sequence[str], first: int) -> KeptGame:
    """A new game: ``players`` names (2 to 4, D1, or 1 for solitaire; stripped, then
    :func:`check_names`), ``first`` the seat that plays first (D5), every sheet empty.

    Raises:
        KeptGameError: a bad number of players, a repeated or empty name, a name with a space, a
            control character or more than :data:`MAX_NAME_LENGTH` characters, or a bad first seat.
    """
    names = check_names(tuple(p.strip() for p in players))
    return start_kept_game(board, rules, names, first)


def start_kept_game(board: Board, rules: Ruleset, players: tuple[str, ...], first: int) -> KeptGame:
    """The start of a game as recorded (names as they are: ``simulate`` repeats strategy names).

    Raises:
        KeptGameError: a bad first seat.
    """
    names = players
    if not 0 <= first < len(names):
        raise KeptGameError(f"first player {first + 1} is not a seat 1..{len(names)}")
    sheets = tuple(Marks.empty(board) for _ in names)
    start = Start(len(names), first, tuple(str(m) for m in sheets))
    return KeptGame(board, rules, names, (start,), GameState(board, rules, sheets, first, first, 0, False))


def act(kept: KeptGame, action: Action) -> KeptGame:
    """Apply one action of the active player (module docstring), with the events it implies:
    :func:`actions.apply`, the one home of the rules of an action.

    Raises:
        KeptGameError: the game is over, it is not this player's turn, or the action breaks a rule
            (D6-D14); ``kept`` itself is unchanged (it is immutable).
    """
    try:
        after, made = apply(kept.position, action, kept.players)
    except ActionError as error:
        raise KeptGameError(str(error)) from None
    ended = isinstance(action[0], (Mark, UncheckedMark, Fail))
    return KeptGame(kept.board, kept.rules, kept.players, kept.events + made, after.state, after.dice,
                    after.rerolls_left, kept.actions + 1, after.stopped,
                    (kept.state, action[0]) if ended else kept.last_turn)


def split_actions(events: Sequence[Event]) -> Iterator[tuple[int, Action]]:
    """The input actions of an event list with the index of each one's first event (a
    :class:`Hold` and the :class:`Roll` after it are one action); derived events are skipped."""
    i = 1
    while i < len(events):
        event = events[i]
        if isinstance(event, Hold):
            yield i, tuple(events[i:i + 2])
            i += 2
        elif isinstance(event, INPUT_EVENTS):
            yield i, (event,)
            i += 1
        else:
            i += 1


def kept_game_from_events(board: Board, rules: Ruleset, players: tuple[str, ...], events: Sequence[Event]) -> KeptGame:
    """Derive a game from its events, checking every action and every derived event.

    Raises:
        KeptGameError: the first event is not a fresh :class:`Start`, an action is illegal, or a
            recorded derived event differs from what the rules give (names the event number).
    """
    if not events or not isinstance(events[0], Start):
        raise KeptGameError("the first event must be 'start'")
    start = events[0]
    if start.players != len(players):
        raise KeptGameError(f"{len(players)} player names but {start.players} players")
    if not 0 <= start.first < start.players:
        raise KeptGameError(f"event 0: first player {start.first} is not a seat")
    if not 1 <= len(players) <= MAX_PLAYERS:
        raise KeptGameError(f"{len(players)} players; a game has {PLAYER_COUNTS}")
    kept = start_kept_game(board, rules, players, start.first)
    if kept.events[0] != start:
        raise KeptGameError("event 0: the sheets must start empty")
    for index, action in split_actions(events):
        try:
            kept = act(kept, action)
        except ShelfieError as error:
            raise KeptGameError(f"event {index} ({action[0].kind}): {error}") from None
    for i, (old, new) in enumerate(zip(events, kept.events)):
        if old != new:
            raise KeptGameError(f"event {i} ({old.kind}): recorded {old!r} but the rules give {new!r}")
    if len(events) < len(kept.events):
        raise KeptGameError(f"event {len(events)}: the file ends where the rules give the event "
                         f"{kept.events[len(events)].kind!r}")
    if len(events) > len(kept.events):
        raise KeptGameError(f"event {len(kept.events)} ({events[len(kept.events)].kind}): not what the rules "
                         "give after the events before it")
    return kept


def undo(kept: KeptGame, count: int = 1) -> KeptGame:
    """The game without its last ``count`` actions.

    Raises:
        KeptGameError: ``count`` < 1 or more than the actions taken.
    """
    actions = list(split_actions(kept.events))
    if not actions:
        raise KeptGameError("nothing to undo: no action has been taken in this game yet")
    if not 1 <= count <= len(actions):
        raise KeptGameError(f"cannot undo {count} action{'s' if count != 1 else ''}: "
                         f"{len(actions)} taken; expected 1..{len(actions)}")
    fresh = start_kept_game(kept.board, kept.rules, kept.players, kept.state.first)
    for _, action in actions[: len(actions) - count]:
        fresh = act(fresh, action)
    return fresh


# --- the file -------------------------------------------------------------------------------


def kept_game_to_text(kept: KeptGame) -> str:
    """The game file's text: one line of JSON (the saved-game format, :func:`record.game_to_dict`)."""
    return json.dumps(game_to_dict(kept.to_game()), separators=(",", ":")) + "\n"


def kept_game_from_text(text: str, source: str = "game file") -> KeptGame:
    """Read a game file (in progress or finished, :func:`kept_game_to_text`, or one game saved by
    ``simulate --save``), its player names held to the rules of ``play new`` (:func:`check_names`).

    Raises:
        KeptGameError: not JSON, not a saved game, or an event is malformed or illegal (the
            message names the first bad event).
    """
    check_json_text(text, KeptGameError, source)
    try:
        data = strict_loads(text)  # the one strict parser: a key given twice, NaN refused
    except json.JSONDecodeError as error:
        games = sum(1 for line in text.splitlines() if line.lstrip().startswith("{"))
        if games > 1:
            raise KeptGameError(f"{source} holds {games} games (JSON Lines); play acts on a file of one game "
                             "(review --game N reads one of many)") from None
        raise KeptGameError(f"{source} is not a saved game: not valid JSON ({error}); a truncated file?") from None
    except ValueError as error:  # a key given twice, NaN or Infinity
        raise KeptGameError(json_refusal(error, source, "a saved game written by shelfie-solve play")) from None
    return kept_game_from_dict(data, source, table=True)


def kept_game_from_dict(data: Any, source: str = "game file", table: bool = False) -> KeptGame:
    """:func:`kept_game_from_text` of parsed JSON, the one reader of a game of every command
    (``play``, ``rollout``, ``serve``, ``review``). Its names follow the rules of ``play new``
    (:func:`check_names`) except that they may repeat, as the strategy names of a game of
    ``simulate --save`` do (``greedy,greedy``). Away from the table (``table`` False: ``review``,
    which reads ``simulate --save``'s games too) a seat may also be named by a strategy with a
    file, a path that may be long or hold spaces (``learned:/models/my model.json``); ``table``
    True: a game file of ``play``, ``rollout``, ``serve`` (:func:`kept_game_from_text`). A name
    with a control character, or another name over 32 characters, is refused by all alike.

    Raises:
        KeptGameError: as :func:`kept_game_from_text`, or a name those rules refuse.
    """
    try:
        rules, board, players, events = saved_game_parts(data)
        check_names(players, distinct=False, strategies=not table)
        # as `play new --board/--rules` (cli.options.load_setup): a hand-edited file must not make the
        # engine too big for its bounds after an action is written
        check_work(board, rules, what="a game file")
    except (GameError, WorkError) as error:
        raise KeptGameError(f"{source}: {error}") from None
    try:
        return kept_game_from_events(board, rules, players, events)
    except KeptGameError as error:
        raise KeptGameError(f"{source}: {error}") from None


def read_kept_game(path: str) -> KeptGame:
    """Read a game file.

    Raises:
        KeptGameError: the file cannot be read or is not a game (:func:`kept_game_from_text`).
    """
    return kept_game_from_text(read_text_file(path), path)


#: What a game file is, in the messages that refuse a path (the one wording of every reader).
GAME_FILE = "a game file (play new GAME --players A,B)"


def read_text_file(path: str) -> str:
    """The text of a game file: a regular file of at most :data:`record.MAX_GAME_BYTES` bytes,
    UTF-8 (:func:`inputs.read_text`: a FIFO, device or directory is refused, never read).

    Raises:
        KeptGameError: it cannot be read (the message names the path and the reason).
    """
    return read_text(path, KeptGameError, MAX_GAME_BYTES, GAME_FILE)


def game_file_text(kept: KeptGame, path: str) -> str:
    """:func:`kept_game_to_text`, checked to fit what every reader of a game file accepts
    (:data:`record.MAX_GAME_BYTES`), so an action can never leave a file no command opens
    (``play undo`` included).

    Raises:
        KeptGameError: the text is larger than that (the game file is full; nothing is written).
    """
    text = kept_game_to_text(kept)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_GAME_BYTES:
        raise KeptGameError(f"the game file {path} is full: this action would make it {size:,} bytes, more than the "
                            f"{MAX_GAME_BYTES:,} a game file may hold; the file is unchanged (start a new game with "
                            "'play new', or 'play undo')")
    return text


def create_file(path: str, kept: KeptGame) -> None:
    """Write a new game file; refuses to overwrite an existing file.

    Raises:
        KeptGameError: ``path`` is a directory (or another kind of non-file: said so, with a
            file path to give instead), the file exists, or it cannot be written.
    """
    kind = kind_of(path)
    if kind is not None:  # a directory is no game to go on with (play status would refuse it too)
        example = f"e.g. {os.path.join(path, 'game.json')}" if kind == "a directory" else "a new file name"
        raise KeptGameError(f"{path} is {kind}, not a file; expected the path of a new game file, {example}")
    if os.path.lexists(path):
        raise KeptGameError(f"{path} exists already; choose a new file name for a new game, or go on with that "
                            "one: play status GAME shows where it stands")
    try:
        create_text(path, game_file_text(kept, path))  # never replaces a file made meanwhile (two `play new`)
    except FileWriteError as error:
        raise KeptGameError(str(error)) from None


@contextmanager
def _locked(path: str) -> Iterator[None]:
    """Hold the exclusive lock of the game file ``path`` names now (:func:`files.locked`: the
    ``filelock`` package's lock, on POSIX and Windows alike, on a lock file beside the game
    file). Another writer replaces the game file (:func:`files.write_text_atomically`), so the
    lock is not on the game file itself: the file is read after the lock is taken, and a lock
    file replaced meanwhile is locked again."""
    try:
        real = resolve_target(path)
        os.stat(real)
    except FileWriteError as error:
        raise KeptGameError(str(error)) from None
    except FileNotFoundError:  # as every reader of a game file says it (inputs.open_regular)
        raise KeptGameError(f"cannot read {path}: no such file; expected {GAME_FILE}") from None
    except OSError as error:
        raise KeptGameError(f"cannot read {path}: {error.strerror or error}") from None
    with locked(real, KeptGameError):
        yield


def update_file(path: str, change: Callable[[KeptGame], KeptGame]) -> tuple[KeptGame, KeptGame]:
    """Read the game file under an exclusive lock, apply ``change`` and write the result whole
    (only when its events differ). On any error nothing is written: the file stays byte for byte
    as it was.

    Returns:
        (the game before, the game after).
    Raises:
        KeptGameError and other :class:`ShelfieError`: from reading, ``change`` or writing.
    """
    with _locked(path):
        before = kept_game_from_text(read_text_file(path), path)
        after = change(before)
        if after.events != before.events:
            try:
                write_text_atomically(path, game_file_text(after, path))
            except FileWriteError as error:
                raise KeptGameError(str(error)) from None
    return before, after


# --- the revision a write was made on ------------------------------------------------------


def digest_of(kept: KeptGame) -> str:
    """The first 16 hex digits of the SHA-256 of the game's file text (:func:`kept_game_to_text`):
    with the number of events, what tells two states of a game file apart (after an undo and a
    new action the count alone may be the same)."""
    return hashlib.sha256(kept_game_to_text(kept).encode()).hexdigest()[:16]


def revision_matches(kept: KeptGame, revision: int, digest: str | None = None) -> bool:
    """Whether ``kept`` (the file now) is the state a write was made on: ``revision`` its number
    of events and, when given, ``digest`` its :func:`digest_of`. A write whose state does not
    match is refused and changes nothing (the ``serve`` page's writes, HTTP 409, and the lines
    typed at the ``play`` prompt alike)."""
    return len(kept.events) == revision and (digest is None or digest == digest_of(kept))


# --- advice that knows the game -------------------------------------------------------------


#: The objective ``play`` advises with unless ``--objective`` says otherwise: ``win``, the chance
#: to win (D20) — exact on the last turns (:mod:`win_chance`), else the calibrated model over the
#: game-aware ``learned`` values (:mod:`learned.win_model`, docs/train.md); alone (one player)
#: it is ``learned``'s expected final score. ``learned`` and ``strategic`` stay selectable.
PLAY_OBJECTIVE = "win"


def objective_for(name: str, state: GameState) -> Objective:
    """The objective the advice of ``play`` maximises in this game state: ``learned`` sees the
    whole game (every sheet, the end trigger, the rounds left, the opponents' threats:
    :func:`learned.objective.state_objective`); any other name looks at the active sheet only: the
    registry's :func:`objective_names.parse_objective` given the state.

    On the turns where the game allows it (the last turn against final scores, or with two
    players the turn before the opponent's last, D18), ``learned`` is replaced by the exact chance
    to win (:func:`objective_names.advice_objective`).

    Raises:
        ObjectiveError: an unknown name. ModelError: a bad ``learned:FILE``.
    """
    from shelfie_solver.dice.objective_names import advice_objective

    return advice_objective(name, state)


def warnings(kept: KeptGame) -> list[str]:
    """What the active player should know beyond the dice: the last round (D17, D18), a sheet one
    closed shelf from the trigger, opponents one item from completing a line that holds the
    active player's available items (a blocking threat, D15), the score gap from the active
    player's side, named in its label (``Score now for Ben (D19): 7, best opponent 25 (-18).``,
    D19). Every player is named, never "you": the lines follow the previous player's action
    (docs/play.md)."""
    if kept.over is not None:
        return []
    board, state, names = kept.board, kept.state, kept.players
    me, n = state.active, state.players
    out: list[str] = []
    if state.end_triggered:
        left = state.turns_left_in_round()
        out.append(f"Last round (D18): the end is triggered; {left} more turn{'s' if left != 1 else ''} "
                   "after this one, then the game is over.")
    else:
        need = state.trigger_shelves
        for seat, sheet in enumerate(state.sheets):
            closed = sheet.closed_shelves()
            if closed == need - 1:
                # named, never "you": after Ben's marking the output is read by Ben, Ann to play
                out.append(f"End near (D17): {names[seat]} has {closed} closed shelf{'s' if closed != 1 else ''}; "
                           "one more triggers the last round.")
    for threat in blocking_threats(kept):
        risk = [board.cell_name(c) for c in threat.at_risk]
        out.append(f"Blocking threat (D15): {names[threat.seat]} completes {board.line_name(threat.line)} with one "
                   f"more item ({board.cell_name(threat.open_cell)}): {possessive(names[me])} {', '.join(risk)} "
                   f"{'are' if len(risk) > 1 else 'is'} at risk.")
    if n > 1:
        scores = kept.scores()
        best_other = max(s for seat, s in enumerate(scores) if seat != me)
        gap = scores[me] - best_other
        # from the player to play's side, said in the label: the line is read by the whole table
        out.append(f"Score now for {names[me]} (D19): {scores[me]}, best opponent {best_other} "
                   f"({'+' if gap >= 0 else ''}{gap}).")
    return out


@dataclass(frozen=True)
class Threat:
    """A blocking threat (D15) against the active player: the opponent at ``seat`` completes
    ``line`` (an index of :attr:`Board.lines`) by marking ``open_cell``, its one item left, and the
    active player's ``at_risk`` items on that line (cell indices, at least one) are then lost."""

    seat: int
    line: int
    open_cell: int
    at_risk: tuple[int, ...]


def blocking_threats(kept: KeptGame) -> list[Threat]:
    """Every blocking threat (D15) against the active player, by opponent seat then line: an
    opponent one item from completing a line on which the active player still has available
    items, and a turn left to complete it (once the end is triggered, only the seats after the
    active player in the round play again, D18). Empty once the game is over."""
    if kept.over is not None:
        return []
    board, state = kept.board, kept.state
    mine = state.sheets[state.active]
    out = []
    for seat, sheet in enumerate(state.sheets):
        if seat == state.active or not sheet.available:
            continue
        if state.end_triggered and not state.plays_later_this_round(seat):
            continue  # its last turn is played (D18): it completes nothing more
        for line, members in enumerate(board.lines):
            open_cells = [c for c in members if sheet.is_available(c)]
            if len(open_cells) == 1 and sheet.count_marked(members) == len(members) - 1:
                risk = tuple(c for c in members if mine.is_available(c))
                if risk:
                    out.append(Threat(seat, line, open_cells[0], risk))
    return out


def draw_first(players: int, seed: int | None) -> int:
    """The first player drawn at random (D5) from a generator made from ``seed``."""
    return int(np.random.default_rng(seed).integers(players))
