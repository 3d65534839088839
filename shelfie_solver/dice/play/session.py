"""Typed input to actions, and the interactive ``play`` session, click-free.

The step commands of ``shelfie-solve play`` and the prompt loop both turn text into
:mod:`gamefile` actions here (:func:`roll_action`, :func:`reroll_action`, :func:`mark_action`,
:func:`told_action`, :func:`fail_action`). :class:`Session` takes one typed line at a time,
updates the game file (whole, under a lock: :func:`gamefile.update_file`) and returns the text to
show, so a terminal loop — or later a web page — only moves text in and out.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace

from shelfie_solver.dice.advise.advice import advise
from shelfie_solver.dice.rolls import dice_codes, names_faces, parse_dice
from shelfie_solver.core.errors import ShelfieError, error_line, shorten
from shelfie_solver.dice.errors import DiceError
from shelfie_solver.dice.game.events import Fail, Hold, Mark, Roll, UncheckedMark
from shelfie_solver.core.report import render
from shelfie_solver.dice.play.gamefile import (
    Action,
    KeptGame,
    KeptGameError,
    act,
    objective_for,
    out_of_turn,
    read_kept_game,
    undo,
    update_file,
)
from shelfie_solver.dice.board import score
from shelfie_solver.dice.play.report import describe, sheet_grid, status_report, step_report


def check_player(table: KeptGame, player: str | None) -> None:
    """With ``player`` given, check it is the active player (a turn out of order is refused).

    Raises:
        KeptGameError: an unknown name or not this player's turn.
    """
    if player is not None and table.seat_of(player) != table.active:
        raise out_of_turn(table, player)


def roll_action(table: KeptGame, dice: str) -> Action:
    """The active player's initial roll (D6) from typed dice (all ``rules.dice`` of them)."""
    return (Roll(table.active, parse_dice(dice, table.rules), table.rules.rerolls),)


def reroll_action(table: KeptGame, keep: str, new: str) -> Action:
    """A re-roll (D7): ``keep`` the dice held (``""`` or ``-`` for none), ``new`` only the dice
    rolled again, exactly as many as were picked up — so a typo cannot silently change the roll.

    Raises:
        DiceError, KeptGameError: unknown faces, kept dice not in the roll, or a wrong count.
    """
    rules = table.rules
    if table.dice is None:
        raise KeptGameError(f"{table.active_name} has not rolled yet; expected the initial roll (D6)")
    held = parse_dice("" if keep.strip() == "-" else keep, rules, count=-1)
    if any(k > d for k, d in zip(held, table.dice)):
        raise KeptGameError(f"cannot keep {dice_codes(held, rules)}: not among the dice {dice_codes(table.dice, rules)} "
                         "(D7); expected the kept dice, then the new dice")
    rolled = parse_dice(new, rules, count=-1)
    expected = rules.dice - sum(held)
    if sum(rolled) != expected:
        raise KeptGameError(f"keeping {dice_codes(held, rules) or 'nothing'} re-rolls {expected} "
                         f"{'die' if expected == 1 else 'dice'}, but {sum(rolled)} new "
                         f"{'die was' if sum(rolled) == 1 else 'dice were'} given ({new.strip() or 'none'})")
    after = tuple(h + r for h, r in zip(held, rolled))
    return Hold(table.active, held), Roll(table.active, after, table.rerolls_left - 1)


def mark_action(table: KeptGame, items: list[str], objective: str = "strategic") -> Action:
    """A marking (D8-D14) of the named items (``r1c3``), or with ``items == ["best"]`` the
    advice's best marking under ``objective``."""
    if table.dice is None:
        raise KeptGameError(f"{table.active_name} has not rolled; enter the dice first, or 'told' for a "
                         "marking made without recorded dice")
    if [w.lower() for w in items] == ["best"]:
        advice = advise(table.dice, table.board, table.state.marks, table.rules,
                        objective_for(objective, table.state), 0)
        if not advice.markings:
            raise KeptGameError("nothing can be marked with these dice: a failed result (D13); give up a shelf")
        return (Mark(table.active, advice.markings[0].marking.cells),)
    return (Mark(table.active, _cells(table, items)),)


def told_action(table: KeptGame, items: list[str]) -> Action:
    """A marking told without dice (an opponent's, unchecked; :class:`game.UncheckedMark`)."""
    return (UncheckedMark(table.active, _cells(table, items)),)


def _cells(table: KeptGame, items: list[str]) -> tuple[int, ...]:
    if not items:
        raise KeptGameError("no item given; expected item names such as r1c3 r2c2")
    cells = [table.board.parse_cell(w) for w in items]
    if len(set(cells)) != len(cells):
        raise KeptGameError(f"an item is named twice in {' '.join(items)}; each item is marked once (D4)")
    return tuple(sorted(cells))


def fail_action(table: KeptGame, shelf: str) -> Action:
    """A failed result (D13) giving up shelf ``shelf`` (1-based number, or ``best``: the
    advice's least costly shelf)."""
    board, marks = table.board, table.state.marks
    if shelf.strip().lower() == "best":
        if table.dice is None:
            raise KeptGameError("'best' needs the dice; enter the shelf number given up")
        advice = advise(table.dice, board, marks, table.rules, objective_for("strategic", table.state), 0)
        if not advice.failed:
            raise KeptGameError("these dice can mark an item, so they must (D14): no failed result")
        number = advice.failed[0].shelf
    else:
        try:
            number = int(shelf) - 1
        except ValueError:
            raise KeptGameError(f"bad shelf {shelf!r}; expected a shelf number 1..{board.n_shelves}") from None
        if not 0 <= number < board.n_shelves:
            raise KeptGameError(f"shelf {shelf} is not on the board; expected 1..{board.n_shelves}")
    lost = tuple(c for c in board.lines[number] if marks.is_available(c))
    return (Fail(table.active, number, lost),)


HELP = """\
Commands (the active player's turn; D-ids in docs/rules.md):
  CCBJPP              the initial roll (D6): all six dice
  keep CCJ PPG        re-roll (D7): the dice kept, then only the new dice ('keep - PPBCCG': none kept)
  stop                the dice are final: show the markings
  mark r1c3 r2c2      mark items with the final dice (D8-D14); 'mark best' takes the advice
  told r1c3 r2c2      a marking made without recorded dice (an opponent's; unchecked)
  fail 4              failed result (D13): give up shelf 4 ('fail best' takes the advice)
  undo [N]            take back the last N actions (default 1)
  status              every sheet, the scores, whose turn
  advise              the advice for this step again
  help                this text
  quit                leave (the game file is saved after every action)"""


@dataclass
class Session:
    """An interactive game on a file: :meth:`handle` one typed line, get the text to show.

    Attributes:
        path: the game file (updated whole after every action, under a lock).
        objective: the objective name for advice (:func:`gamefile.objective_for`).
        top: rows of advice to show.
    """

    path: str
    objective: str = "strategic"
    top: int = 5
    done: bool = False

    def kept_game(self) -> KeptGame:
        """The game as the file holds it now."""
        return read_kept_game(self.path)

    def prompt(self) -> str:
        """The prompt: whose turn and the step."""
        table = self.kept_game()
        if table.over is not None:
            return "game over> "
        step = "roll" if table.dice is None else f"{dice_codes(table.dice, table.rules)}/{table.rerolls_left}"
        return f"{table.active_name} {step}> "

    def advice(self) -> str:
        """The active player's sheet and the advice for the current step (or the final table)."""
        table = self.kept_game()
        advice = render(step_report(table, self.objective, self.top), "table")
        if table.over is not None:
            return advice
        marks = table.state.marks
        head = f"Sheet of {table.active_name} ({score(table.board, marks, table.rules)} points):"
        return "\n".join([head, *sheet_grid(table.board, table.rules, marks), "", advice])

    def handle(self, line: str) -> str:
        """Carry out one typed line; return what to show. Bad input gives ``Error: ...`` and
        leaves the file unchanged."""
        try:
            words = shlex.split(line)
        except ValueError as error:
            return f"Error: {error}"
        if not words:
            return ""
        command, args = words[0].lower(), words[1:]
        try:
            return self._run(command, args, line)
        except ShelfieError as error:
            return f"Error: {error_line(str(error))}"

    def _run(self, command: str, args: list[str], line: str) -> str:
        if command in ("quit", "exit", "q"):
            self.done = True
            return f"Saved in {self.path}."
        if command in ("help", "?", "h"):
            return HELP
        if command == "status":
            return render(status_report(self.kept_game()), "table").rstrip("\n")
        if command == "advise":
            return self.advice().rstrip("\n")
        if command == "stop":
            table = self.kept_game()
            if table.dice is None:
                raise KeptGameError(f"{table.active_name} has not rolled yet")
            return render(step_report(replace(table, rerolls_left=0), self.objective, self.top),
                          "table").rstrip("\n")
        if command == "undo":
            count = _count(args)
            return self._change(lambda t: undo(t, count))
        makers: dict[str, Callable[[KeptGame], Action]] = {
            "keep": lambda t: reroll_action(t, args[0] if args else "", " ".join(args[1:])),
            "mark": lambda t: mark_action(t, args, self.objective),
            "told": lambda t: told_action(t, args),
            "fail": lambda t: fail_action(t, args[0] if len(args) == 1 else " ".join(args)),
        }
        if command in makers:
            maker = makers[command]
            return self._change(lambda t: act(t, maker(t)))
        table = self.kept_game()
        if table.dice is not None or table.over is not None:
            raise KeptGameError(f"unknown command {command!r}; type 'help' for the commands")
        try:
            return self._change(lambda t: act(t, roll_action(t, line)))
        except DiceError as error:
            first = shlex.split(line)[0]
            if names_faces(first, table.rules):
                raise
            raise KeptGameError(f"{shorten(first)} is neither a command (help lists them) nor dice: {error}") from None

    def _change(self, change: Callable[[KeptGame], KeptGame]) -> str:
        before, after = update_file(self.path, change)
        undone = before.actions - after.actions
        lines = describe(before, after) if after.actions > before.actions else \
            [f"Undone: {undone} action{'s' if undone != 1 else ''} taken back."]
        return "\n".join(lines) + "\n" + self.advice().rstrip("\n")


def _count(args: list[str]) -> int:
    if not args:
        return 1
    try:
        return int(args[0])
    except ValueError:
        raise KeptGameError(f"bad count {args[0]!r}; expected 'undo' or 'undo N' with a whole number N") from None
