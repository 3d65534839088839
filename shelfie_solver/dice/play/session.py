"""Typed input to actions, and the interactive ``play`` session, click-free.

The step commands of ``shelfie-solve play`` and the prompt loop both turn text into
:mod:`gamefile` actions here (:func:`roll_action`, :func:`reroll_action`, :func:`mark_action`,
:func:`told_action`, :func:`fail_action`). :class:`Session` takes one typed line at a time,
updates the game file (whole, under a lock: :func:`gamefile.update_file`) and returns the text to
show, so a terminal loop — or later a web page — only moves text in and out.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from shelfie_solver.dice.advise.advice import advise
from shelfie_solver.dice.rolls import Counts, dice_codes, names_faces, parse_dice
from shelfie_solver.core.errors import ShelfieError, close_word, error_line, shorten
from shelfie_solver.dice.errors import DiceError
from shelfie_solver.dice.game.actions import must_mark
from shelfie_solver.dice.sheet_rules import failed_result_shelves
from shelfie_solver.dice.game.events import Fail, Hold, Mark, Roll, Stop, UncheckedMark, legal_sets
from shelfie_solver.core.report import TABLE_WIDTH, render, wrap_lines
from shelfie_solver.dice.play.gamefile import (
    Action,
    KeptGame,
    KeptGameError,
    act,
    check_running,
    digest_of,
    objective_for,
    out_of_turn,
    read_kept_game,
    revision_matches,
    split_actions,
    undo,
    update_file,
)
from shelfie_solver.dice.board import score
from shelfie_solver.dice.play.reading import PROMPT, Forms, ReadingError, read_reroll, readings
from shelfie_solver.dice.play.report import (
    best_mark_note,
    compact_sheets,
    describe,
    sheet_grid,
    status_report,
    step_advice,
    step_report,
    told_once,
    undone_line,
)
from shelfie_solver.dice.play.screen import (
    LEGEND,
    happened,
    new_warnings,
    screen,
    screen_warnings,
    without_rule_ids,
)
from shelfie_solver.dice.rules import Ruleset


def check_player(kept: KeptGame, player: str | None) -> None:
    """With ``player`` given, check it is the active player (a turn out of order is refused).

    Raises:
        KeptGameError: an unknown name or not this player's turn.
    """
    if player is not None and kept.seat_of(player) != kept.active:
        raise out_of_turn(kept, player)


def stop_action(kept: KeptGame) -> Action:
    """The active player's stop (D7): every die kept, the dice final (:class:`events.Stop`)."""
    return (Stop(kept.active),)


def roll_action(kept: KeptGame, dice: str, form: Forms = PROMPT) -> Action:
    """The active player's initial roll (D6) from typed dice (all ``rules.dice`` of them);
    ``form``: the words of a refusal (:data:`reading.PROMPT`, :data:`reading.STEP`,
    :data:`reading.PAGE`).

    Raises:
        DiceError, KeptGameError: unknown faces or a count other than ``rules.dice``; the game
            over; a roll already made this turn (:func:`rolled_already`).
    """
    check_running(kept)
    if kept.dice is not None:
        raise rolled_already(kept, form)
    return (Roll(kept.active, parse_dice(dice, kept.rules), kept.rules.rerolls),)


def rolled_already(kept: KeptGame, form: Forms) -> KeptGameError:
    """The refusal of a second initial roll in a turn (D6: one roll, then re-rolls, D7), naming
    what may follow the dice showing in ``form``'s words: with a re-roll left (and no stop) a
    re-roll, or a stop and a marking (or, nothing markable, a failed result, D13); with final dice
    a marking, or the failed result when nothing can be marked (D14)."""
    assert kept.dice is not None
    rules = kept.rules
    dice = dice_codes(kept.dice, rules)
    markable = len(legal_sets(kept.dice, kept.board, kept.state.marks, rules)) > 0
    left = 0 if kept.stopped else kept.rerolls_left
    if left:
        then = f"a re-roll ({form.rerolling}); or {form.stop}" if markable else \
            f"a re-roll ({form.rerolling}), or a failed result ({form.fail})"
        state = f"{left} re-roll{'s' if left != 1 else ''} left"
    else:
        then = f"a marking ({form.mark('')})" if markable else f"a failed result ({form.fail})"
        state = "final"
    return KeptGameError(f"{kept.active_name} has rolled already ({dice}, {state}; D6: one roll a turn); expected "
                         + then)


def check_reroll_left(kept: KeptGame) -> None:
    """Refuse a re-roll (D7: at most ``rules.rerolls`` a turn) where none is left, before the dice
    typed are read: a reading's refusal would name a re-roll or a stop that is refused too.

    Raises:
        KeptGameError: no re-roll left (the dice are final: mark items or give up a shelf, D13)."""
    if kept.dice is not None and not kept.rerolls_left:
        raise KeptGameError(f"no re-roll left (D7: at most {kept.rules.rerolls}); the dice "
                            f"{dice_codes(kept.dice, kept.rules)} are final: mark items or give up a shelf")


def reroll_action(kept: KeptGame, keep: str, new: str, form: Forms = PROMPT) -> Action:
    """A re-roll (D7): ``keep`` the dice held (``""`` or ``-`` for none), ``new`` the dice rolled
    again — exactly as many as were picked up — or all the dice now showing (they contain the
    kept ones; :func:`reading.read_reroll`), so a typo cannot silently change the roll; ``form``:
    the words of a refusal (:data:`reading.PROMPT`, the step commands' :data:`reading.STEP`,
    ``play stop GAME``, or the page's :data:`reading.PAGE`).

    Raises:
        DiceError, KeptGameError, ReadingError: unknown faces, kept dice not in the roll, or a
            count that fits neither form.
    """
    rules = kept.rules
    check_running(kept)
    if kept.dice is None:
        raise not_rolled(kept, form)
    if kept.stopped:
        raise stopped(kept, form)
    check_reroll_left(kept)
    held = parse_dice("" if keep.strip() == "-" else keep, rules, count=-1)
    rolled = parse_dice(new, rules, count=-1)
    return hold_action(kept, *read_reroll(kept.dice, rolled, rules, held, new, form))


def typed_reroll_action(kept: KeptGame, new: str, keep: Counts | None = None, form: Forms = PROMPT,
                        advised: Counts | None = None) -> Action:
    """A re-roll (D7) from the dice typed after it, the kept dice read from the dice showing
    before (``keep``: a hold typed before, if any; :func:`reading.read_reroll`); ``form``: the
    words of a refusal (:data:`reading.PROMPT`, :data:`reading.STEP`); ``advised``: the advised
    hold, which a refusal suggests when it is one of the readings.

    Raises:
        DiceError, KeptGameError, ReadingError: unknown faces, no roll yet, or no reading or
            several (the message gives the unambiguous form).
    """
    check_running(kept)
    if kept.dice is None:
        raise not_rolled(kept, form)
    if kept.stopped:
        raise stopped(kept, form)
    check_reroll_left(kept)
    typed = parse_dice(new, kept.rules, count=-1)
    return hold_action(kept, *read_reroll(kept.dice, typed, kept.rules, keep, new, form, advised))


def stopped(kept: KeptGame, form: Forms) -> KeptGameError:
    """The refusal of a re-roll after the active player's stop this turn (D7: the dice are final),
    naming in ``form``'s words the marking and the undo that takes the stop back."""
    assert kept.dice is not None
    return KeptGameError(f"{kept.active_name} stopped with {dice_codes(kept.dice, kept.rules)} (D7): the dice are "
                         f"final, no re-roll; mark items: {form.mark('')}; or take the stop back: {form.unstop}")


def not_rolled(kept: KeptGame, form: Forms) -> KeptGameError:
    """The refusal of a re-roll before the turn's initial roll (D6, D7), naming how ``form``
    (:data:`reading.PROMPT`, :data:`reading.STEP`, :data:`reading.PAGE`) enters that roll."""
    return KeptGameError(f"{kept.active_name} has not rolled yet; expected the initial roll (D6): {form.roll}")


def hold_action(kept: KeptGame, held: Counts, after: Counts) -> Action:
    """The re-roll keeping ``held`` that leaves ``after`` showing (D7), as the two events of
    :func:`gamefile.act` (a :class:`Hold` then a :class:`Roll`)."""
    return Hold(kept.active, held), Roll(kept.active, after, kept.rerolls_left - 1)


def mark_action(kept: KeptGame, items: list[str], objective: str = "strategic", form: Forms = PROMPT) -> Action:
    """A marking (D8-D14) of the named items (``r1c3``), or with ``items == ["best"]`` the
    advice's best marking under ``objective``; ``form``: the words of a refusal, the prompt's
    (:data:`reading.PROMPT`: the dice, ``told``), the ``play mark`` step's (:data:`reading.STEP`:
    ``play roll``, ``--unchecked``) or the page's (:data:`reading.PAGE`).

    Raises:
        KeptGameError: the game is over, no dice showing, nothing can be marked, or a bad item.
    """
    check_running(kept)
    if kept.dice is None:
        raise KeptGameError(f"{kept.active_name} has not rolled; {form.roll_first} a marking made without recorded dice")
    if [w.lower() for w in items] == ["best"]:
        advice = advise(kept.dice, kept.board, kept.state.marks, kept.rules,
                        objective_for(objective, kept.state), 0)
        if not advice.markings:
            raise KeptGameError(_nothing_to_mark(kept, form))
        return (Mark(kept.active, advice.markings[0].marking.cells),)
    cells = _cells(kept, items)
    if not len(legal_sets(kept.dice, kept.board, kept.state.marks, kept.rules)):
        raise KeptGameError(_nothing_to_mark(kept, form))
    return (Mark(kept.active, cells),)


def _nothing_to_mark(kept: KeptGame, form: Forms) -> str:
    """Why nothing can be marked, and what is left to do: with re-rolls left re-rolling (D7) or a
    failed result by choice of stopping (D13); with final dice the failed result; the failed
    result in ``form``'s words (the prompt's ``'fail N'``, the step's ``play fail GAME --shelf N``,
    the page's ``tapping shelf N``)."""
    assert kept.dice is not None
    dice, left = dice_codes(kept.dice, kept.rules), kept.rerolls_left
    if left:
        return (f"nothing can be marked with {dice}; {left} re-roll{'s' if left != 1 else ''} left: keep some dice "
                f"and re-roll (D7), or stop with a failed result: {form.fail} gives up shelf N (D13)")
    return f"nothing can be marked with {dice}: a failed result (D13); give up a shelf ({form.fail}{form.fail_best})"


def told_action(kept: KeptGame, items: list[str], form: Forms = PROMPT) -> Action:
    """A marking told without dice (an opponent's, unchecked; :class:`events.UncheckedMark`);
    ``form``: the words of a refusal (:data:`reading.PROMPT`, :data:`reading.STEP`,
    :data:`reading.PAGE`).

    Raises:
        KeptGameError: the game is over; dice are recorded this turn (the marking is then made
            with them, checked: the refusal gives that form, with the items given); a bad item.
    """
    check_running(kept)
    if kept.dice is not None:
        raise KeptGameError(_recorded_dice(kept, items, form))
    return (UncheckedMark(kept.active, _cells(kept, items)),)


def _recorded_dice(kept: KeptGame, items: list[str], form: Forms) -> str:
    """Why a marking told without dice is refused when dice are recorded (D8-D14: the marking
    is checked against them), and the checked form with ``items`` (or, nothing markable, what
    is left to do: :func:`_nothing_to_mark`)."""
    assert kept.dice is not None
    dice = dice_codes(kept.dice, kept.rules)
    if not len(legal_sets(kept.dice, kept.board, kept.state.marks, kept.rules)):
        return f"the dice {dice} are recorded, so a marking is checked against them; " + _nothing_to_mark(kept, form)
    typed = " ".join(items)
    named = typed if typed and len(typed) <= 40 and typed.isascii() and typed.replace(" ", "").isalnum() else ""
    return f"the dice {dice} are recorded: mark with them (checked): {form.mark(named)}"


def _cells(kept: KeptGame, items: list[str]) -> tuple[int, ...]:
    if not items:
        raise KeptGameError("no item given; expected item names such as r1c3 r2c2")
    cells = [kept.board.parse_cell(w) for w in items]
    if len(set(cells)) != len(cells):
        raise KeptGameError(f"an item is named twice in {' '.join(items)}; each item is marked once (D4)")
    return tuple(sorted(cells))


def fail_action(kept: KeptGame, shelf: str, objective: str = "strategic", form: Forms = PROMPT) -> Action:
    """A failed result (D13) giving up shelf ``shelf`` (1-based number, or ``best``: the
    advice's best shelf under ``objective``, the game's objective in ``play``); ``form``: the
    words of a refusal (:data:`reading.PROMPT`, :data:`reading.STEP`, :data:`reading.PAGE`).

    Raises:
        KeptGameError: the game is over; no shelf given (:func:`no_shelf`); ``best`` without
            dice; a bad shelf; any shelf while the dice can mark (D14: :func:`actions.must_mark`
            in ``form``'s words).
    """
    board, marks = kept.board, kept.state.marks
    check_running(kept)
    if not shelf.strip():
        raise KeptGameError(no_shelf(kept, form))
    # every form taken here: 'best' only with dice (the advice needs them)
    accepted = f"1..{board.n_shelves} or best (the advised shelf)" if kept.dice is not None else \
        f"1..{board.n_shelves} ('best' needs the dice: none are recorded)"
    if shelf.strip().lower() == "best":
        if kept.dice is None:
            raise KeptGameError(f"'best' needs the dice, and none are recorded; expected the shelf number given up, "
                                f"1..{board.n_shelves}")
        advice = advise(kept.dice, board, marks, kept.rules, objective_for(objective, kept.state), 0)
        if not advice.failed:
            raise KeptGameError(must_mark(dice_codes(kept.dice, kept.rules), form.must_mark))
        number = advice.failed[0].shelf
    else:
        digits = shelf.strip()
        if not (digits.isascii() and digits.isdigit()):  # no '1_0', no other scripts' digits
            raise KeptGameError(f"bad shelf {shorten(shelf)}; expected a shelf number {accepted}")
        number = int(digits) - 1 if len(digits) <= 9 else board.n_shelves  # a long number: past every board
        if not 0 <= number < board.n_shelves:
            raise KeptGameError(f"shelf {digits if len(digits) <= 9 else shorten(digits, 20)} is not on the board; "
                                f"expected {accepted}")
        if kept.dice is not None and len(legal_sets(kept.dice, board, marks, kept.rules)):  # D14, in form's words
            raise KeptGameError(must_mark(dice_codes(kept.dice, kept.rules), form.must_mark))
    lost = tuple(c for c in board.lines[number] if marks.is_available(c))
    return (Fail(kept.active, number, lost),)


def no_shelf(kept: KeptGame, form: Forms) -> str:
    """The refusal of a failed result that names no shelf: the shelves it may give up (D13: those
    with an available item) and how ``form`` gives one up (``best`` too with dice recorded); with
    dice that can mark an item, that it must (D14: :func:`actions.must_mark`)."""
    board, marks = kept.board, kept.state.marks
    if kept.dice is not None and len(legal_sets(kept.dice, board, marks, kept.rules)):
        return f"no shelf given, and none may be: {must_mark(dice_codes(kept.dice, kept.rules), form.must_mark)}"
    shelves = [str(s + 1) for s in failed_result_shelves(board, marks)]
    if not shelves:  # a sheet with nothing available passes its turns (D18): never the active one
        return "no shelf given, and no shelf has an available item to give up (D13)"
    which = f"shelf {shelves[0]}" if len(shelves) == 1 else f"one of shelves {', '.join(shelves)}"
    best = form.fail_best if kept.dice is not None else ""
    return (f"no shelf given; a failed result gives up a shelf with an available item (D13), here {which}; "
            f"give one up ({form.fail}{best})")


def undo_count(given: str, form: Forms = PROMPT) -> int:
    """The count of an undo as typed (``given``: ASCII digits, a whole number of actions from 1;
    its upper bound, the actions taken, is :func:`gamefile.undo`'s), ``form``: the words of a
    refusal (:data:`reading.PROMPT`, :data:`reading.STEP`, :data:`reading.PAGE`).

    Raises:
        KeptGameError: not a whole number, below 1, or past every game (more than 9 digits).
    """
    text = given.strip()
    number = re.fullmatch(r"\+?0*([0-9]*)", text) if text.isascii() else None
    if number is not None and text.lstrip("+"):
        digits = number.group(1)
        if len(digits) > 9:  # no game has that many actions
            raise KeptGameError(f"cannot undo {digits if len(digits) <= 20 else shorten(digits, 20)} actions: more "
                                f"than any game takes; {form.undo}")
        if digits:
            return int(digits)
    shown = text if re.fullmatch(r"[+-]?[0-9]{1,20}", text) else shorten(given)
    raise KeptGameError(f"undo needs a count of 1 or more actions, not {shown}; {form.undo}")


HELP = """\
Type one of these at the prompt (the file is saved after every action):
  CCBJPP           the roll: all six dice; after a re-roll the dice now showing
  keep CC          hold CC, then type the new dice ('keep' alone: the advised)
  keep CC new PPBJ a re-roll in one line: the dice kept, then the new dice
  reroll NEW --keep K  as the step 'play reroll' ('--keep -': none kept)
  stop             the dice are final: binding, a re-roll is then refused
  mark r1c3 r2c2   mark items (with re-rolls left: a stop first); 'mark best'
  told r1c3 r2c2   an opponent's marking, told without dice (unchecked)
  fail 4           a failed result: give up shelf 4 ('fail best': the advised)
  undo [N]         take back the last action (or the last N)
  status           every sheet with its values, the scores, every warning
  advise           this step's screen again, with every warning
  help             this text and the legend
  quit             leave ('play GAME' goes on from the file); Ctrl-D too
Up and Down recall earlier lines. More in docs/play.md."""


@dataclass
class Session:
    """An interactive game on a file: :meth:`handle` one typed line, get the text to show.

    A ``stop`` is recorded in the game file (:class:`events.Stop`, binding until the turn ends: a
    re-roll is refused, the advice shows the markings; another session or ``play`` sees it), and
    ``undo`` takes it back as one action. Besides the file the session remembers one thing of the
    current step: a hold typed before the dice (``keep CCJ``: the next dice typed are read with
    it, :func:`reading.read_reroll`), tied to the step it was typed at (the number of events and
    the dice), so any change of the file ends it; ``undo`` takes it back first.

    Attributes:
        path: the game file (updated whole after every action, under a lock).
        objective: the objective name for advice (:func:`gamefile.objective_for`).
        top: rows of advice to show.
        exact: show the exact values' column (``--exact``; the tables in full, as ``verbose``);
            else the tables fit :data:`report.TABLE_WIDTH` columns.
        held: ``(events, dice, keep)`` of the step where a hold was typed, else ``None``.
        verbose: show every table in full after each action (the advice with its legend, the
            active sheet's values, every warning with its rule ids), not one screen
            (:mod:`play.screen`).
        seen: the game the last prompt was drawn from (:meth:`prompt`) or the session's own last
            write; a line acting on the file when the file is no longer that game writes nothing
            and says what changed (:meth:`handle`). ``None``: no prompt drawn yet, nothing checked.
        warned: the warnings on the last screen, as ``(active seat, text)``: not repeated while
            unchanged (:func:`screen.new_warnings`).
        written: how many times the session wrote the file (an action or an undo; a line that
            changes nothing writes nothing): what :meth:`leaving` says.
    """

    path: str
    objective: str = "strategic"
    top: int = 5
    exact: bool = False
    done: bool = False
    held: tuple[int, Counts, Counts] | None = None
    verbose: bool = False
    seen: KeptGame | None = None
    warned: set[tuple[int, str]] = field(default_factory=set)
    written: int = 0

    @property
    def in_full(self) -> bool:
        """Whether every table is shown in full (:attr:`verbose`, or :attr:`exact`: the exact
        values are a column of the full tables)."""
        return self.verbose or self.exact

    def kept_game(self) -> KeptGame:
        """The game as the file holds it now."""
        return read_kept_game(self.path)

    def is_stopped(self, kept: KeptGame) -> bool:
        """Whether the active player stopped this turn (a :class:`events.Stop` in the file)."""
        return kept.dice is not None and kept.stopped

    def hold_typed(self, kept: KeptGame) -> Counts | None:
        """The hold typed at this step of ``kept`` (``keep CCJ``), else ``None``."""
        if self.held is not None and kept.dice is not None and self.held[:2] == (len(kept.events), kept.dice):
            return self.held[2]
        return None

    def shown(self, kept: KeptGame) -> KeptGame:
        """``kept`` as the advice sees it: after ``stop`` the dice are final (0 re-rolls, D7)."""
        return replace(kept, rerolls_left=0) if self.is_stopped(kept) else kept  # (the Stop made it 0)

    def prompt(self) -> str:
        """The prompt: whose turn and the step (``Ann PPBCCJ/2>``, ``/stop`` after ``stop``,
        ``keep PPJ`` after a hold typed). The game it is drawn from is :attr:`seen`: the next
        line acts on that game or on nothing."""
        kept = self.seen = self.kept_game()
        if kept.over is not None:
            return "game over> "
        if kept.dice is None:
            return f"{kept.active_name} roll> "
        rules, held = kept.rules, self.hold_typed(kept)
        step = f"{dice_codes(kept.dice, rules)}/{'stop' if self.is_stopped(kept) else kept.rerolls_left}"
        if held is not None:
            step += f" keep {dice_codes(held, rules) or '-'}"
        return f"{kept.active_name} {step}> "

    def advice(self) -> str:
        """The screen of the current step with every warning (:mod:`play.screen`), or with
        :attr:`verbose` :meth:`full_advice`."""
        return self.full_advice() if self.in_full else self.screen("", every_warning=True)

    def legend(self) -> str:
        """What the session says once at its start: how to read what follows."""
        return "" if self.in_full else LEGEND

    def screen(self, done: str, every_warning: bool = False) -> str:
        """One screen (:func:`screen.screen`): ``done``, the warnings not on the last screen (all
        with ``every_warning``), the advice of the step or the end, every sheet."""
        kept = self.shown(self.kept_game())
        found = screen_warnings(kept)
        warnings = found if every_warning else new_warnings(self.warned, kept, found)
        self.warned = {(kept.active, w) for w in found}
        return screen(kept, self.objective, done, warnings)

    def full_advice(self) -> str:
        """Every sheet (compactly, with opponents), the active player's sheet and the advice for
        the current step (or the final table), in full (``--verbose``)."""
        kept = self.shown(self.kept_game())
        advice = render(step_report(kept, self.objective, self.top), "table", width=TABLE_WIDTH, exact=self.exact)
        if kept.over is not None:
            return "\n".join([*compact_sheets(kept), "", advice]) if len(kept.players) > 1 else advice
        marks = kept.state.marks
        head = f"Sheet of {kept.active_name} ({score(kept.board, marks, kept.rules)} points):"
        sheets = [*compact_sheets(kept), ""] if len(kept.players) > 1 else []
        return "\n".join([*sheets, head, *sheet_grid(kept.board, kept.rules, marks), "", advice])

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
            if command not in _READING_ONLY:
                self._check_seen(self.kept_game())
            out = self._run(command, args, line)
        except ChangedMeanwhile as changed:
            out = self._changed(changed.now, line)
        except ShelfieError as error:
            return f"Error: {error_line(str(error))}"
        if not self.in_full and command != "status":  # rule ids: errors, 'status' and --verbose
            out = without_rule_ids(out)
        return wrap_lines([out], TABLE_WIDTH)[0]  # an error stays one line; the rest fits the width

    def _check_seen(self, now: KeptGame) -> None:
        """Refuse to act when the file is no longer the game :attr:`seen` (the page or another
        terminal wrote meanwhile): the check of the ``serve`` page's writes,
        :func:`gamefile.revision_matches`.

        Raises:
            ChangedMeanwhile: the file changed since the prompt was drawn.
        """
        seen = self.seen
        if seen is not None and not revision_matches(now, len(seen.events), digest_of(seen)):
            raise ChangedMeanwhile(now)

    def _changed(self, now: KeptGame, line: str) -> str:
        """What to show when ``line`` was typed at a prompt the file no longer matches: what
        changed since, in words, that nothing was written, and the screen of the game now (which
        the next prompt is drawn from)."""
        seen = self.seen
        assert seen is not None
        self.seen = now
        typed = shorten(line.strip(), 40)
        head = (f"Meanwhile the page or another terminal changed the game: {changes_between(seen, now)} "
                f"Nothing was written for {typed}; the game now:")
        return head + "\n" + self.full_advice() if self.in_full else self.screen(head, every_warning=True)

    def _update(self, change: Callable[[KeptGame], KeptGame]) -> tuple[KeptGame, KeptGame]:
        """:func:`gamefile.update_file` with ``change``, checked under the file's lock against
        :attr:`seen` first (:meth:`_check_seen`); the session's own write is then what it has
        seen, and a hold typed before it is forgotten (an undo back to that step does not bring it
        back)."""
        def checked(kept: KeptGame) -> KeptGame:
            self._check_seen(kept)
            return change(kept)

        before, after = update_file(self.path, checked)
        if after.events != before.events:  # the file was written (gamefile.update_file)
            self.held = None  # a hold typed before is used up by the write (or belongs to a step undone)
            self.written += 1
        if self.seen is not None:
            self.seen = after
        return before, after

    def leaving(self, interrupted: bool = False) -> str:
        """What the session says as it ends (``quit``, end of input; ``interrupted``: Ctrl-C at the
        prompt, ``Interrupted; ...``), true of this session: every action is in the file, written
        as it was made (``Every action is saved in GAME.``), or nothing was written (``Nothing
        changed in this session: GAME was not written.``); a hold typed at the last prompt without
        its new dice (``keep CC``) is not in the file, and is said so. Reads no file."""
        if self.written:
            said = f"every action is saved in {self.path}"
        else:
            said = f"nothing changed in this session: {self.path} was not written"
        seen = self.seen  # the game of the last prompt, where a hold was typed
        held = self.hold_typed(seen) if seen is not None else None
        if seen is not None and held is not None:
            said += (f"; the hold keep {dice_codes(held, seen.rules) or '-'} is not saved "
                     "(a hold is saved with its new dice)")
        return f"Interrupted; {said}." if interrupted else f"{said[0].upper()}{said[1:]}."

    def _run(self, command: str, args: list[str], line: str) -> str:
        if command in WORDLESS and args:
            raise KeptGameError(f"{shorten(' '.join(args))} after {command!r}: it takes no more words; expected "
                                f"{command!r} alone (help lists the commands)")
        if command in ("quit", "exit", "q"):
            self.done = True
            return self.leaving()
        if command in ("help", "?", "h"):
            return HELP + "\n" + LEGEND
        if command == "status":
            return render(status_report(self.shown(self.kept_game())), "table", width=TABLE_WIDTH).rstrip("\n")
        if command == "advise":
            return self.advice().rstrip("\n")
        if command in _ACTING and self.kept_game().over is not None:  # in the prompt's words, not 'play undo GAME'
            raise KeptGameError(PROMPT.over)
        if command == "stop":
            return self._stop()
        if command == "undo":
            return self._undo(_count(args))
        if command in ("keep", "hold"):
            return self._keep(args)
        if command == "reroll":
            return self._reroll(args)
        if command == "roll":
            if not args:
                raise KeptGameError("expected the dice after 'roll', e.g. roll CCBJPP (D6)")
            return self._dice(" ".join(args))
        command, args = _step_form(command, args)
        if command == "mark" and [w.lower() for w in args] == ["best"]:
            return self._mark_best(args)
        makers: dict[str, Callable[[KeptGame], Action]] = {
            "mark": lambda t: mark_action(self.shown(t), args, self.objective),
            "told": lambda t: told_action(t, args),
            "fail": lambda t: fail_action(t, args[0] if len(args) == 1 else " ".join(args), self.objective),
        }
        if command in makers:
            maker = makers[command]
            return self._change(lambda t: act(t, maker(t)))
        kept = self.kept_game()
        if kept.over is not None:
            if names_faces(shlex.split(line)[0], kept.rules):  # dice typed after the end (D18)
                raise KeptGameError("the game is over (D18): no more dice to enter; 'status' shows the final "
                                    "scores, 'undo' takes back the last action, 'quit' leaves")
            close = close_command(command) if command.isascii() else None
            raise KeptGameError(f"unknown command {shorten(command)}; "
                                + (f"did you mean {close!r}? " if close else "") + "type 'help' for the commands")
        if kept.dice is not None and not names_faces(shlex.split(line)[0], kept.rules):
            try:  # after a re-roll as at the roll: a word that is not dice says why (_neither)
                parse_dice(line, kept.rules, count=-1)
            except DiceError as error:
                raise _neither(shlex.split(line)[0], error, line) from None
            raise KeptGameError(f"unknown command {command!r}; type 'help' for the commands")
        return self._dice(line)

    def _dice(self, text: str) -> str:
        """A line of dice: the initial roll (D6), or after a re-roll the dice typed, read with the
        hold typed before if any (:func:`reading.read_reroll`)."""
        kept = self.kept_game()
        if kept.dice is None:
            try:
                return self._change(lambda t: act(t, roll_action(t, text)))
            except DiceError as error:
                first = shlex.split(text)[0]
                if names_faces(first, kept.rules):
                    raise
                raise _neither(first, error, text) from None
        parse_dice(text, kept.rules, count=-1)  # bad dice are refused before the file is locked

        advised: list[Counts] = []

        def change(t: KeptGame) -> KeptGame:
            self._rerollable(t)
            held = self.hold_typed(t)
            try:
                return act(t, typed_reroll_action(t, text, held))
            except ReadingError:
                keep = None if held is not None else self._advised_hold(t)
                if keep is None:
                    raise
                reading = self._advised_reading(t, text, keep)
                if reading is None:
                    return act(t, typed_reroll_action(t, text, held, advised=keep))  # refused again, naming it
                advised.append(reading[0])
                return act(t, hold_action(t, *reading))

        shown = self._change(change)
        if not advised:
            return shown
        rules = kept.rules
        return (f"Read with the advised hold {dice_codes(advised[0], rules) or 'nothing'} (several holds fit "
                f"{text.strip()}; 'undo' if you kept other dice).\n" + shown)

    def _advised_reading(self, kept: KeptGame, text: str, keep: Counts) -> tuple[Counts, Counts] | None:
        """The reading of dice typed after a re-roll with the advised hold ``keep`` kept, when that
        hold is one of several consistent readings (docs/play.md "After a re-roll": a player who
        followed "keep PPJ" need not type it), else ``None``; ``None`` too for the very dice
        showing before the re-roll, which :func:`reading.read_reroll` refuses naming the stop
        first (D7)."""
        typed = parse_dice(text, kept.rules, count=-1)
        found = readings(kept.dice, typed, kept.rules) if kept.dice is not None else []
        if len(found) < 2 or typed == kept.dice:  # the dice before again: likelier a stop (D7), refused
            return None
        return next((r for r in found if r[0] == keep), None)

    def _advised_hold(self, kept: KeptGame) -> Counts | None:
        """The advised hold of the dice showing (a refusal of ambiguous dice names it), ``None``
        with no hold advised."""
        advice = step_advice(kept, self.objective)
        return advice.holds[0].keep if advice is not None and advice.holds else None

    def _rerollable(self, kept: KeptGame) -> Counts:
        """The dice showing when a re-roll may be made (D7), else the reason it may not.

        Raises:
            KeptGameError: no roll yet, ``stop`` typed (binding), or no re-roll left."""
        check_running(kept)
        if kept.dice is None:
            raise not_rolled(kept, PROMPT)
        dice = dice_codes(kept.dice, kept.rules)
        if self.is_stopped(kept):
            raise KeptGameError(f"{kept.active_name} stopped with {dice} (D7): the dice are final, no re-roll; "
                                "mark items ('mark best'), or 'undo' to take the stop back")
        check_reroll_left(kept)
        return kept.dice

    def _stop(self) -> str:
        kept = self.kept_game()
        check_running(kept)
        if kept.dice is None:
            raise not_rolled(kept, PROMPT)
        dice = dice_codes(kept.dice, kept.rules)
        if self.is_stopped(kept) or not kept.rerolls_left:
            return f"The dice {dice} are final already (D7).\n" + self.advice().rstrip("\n")
        self.held = None
        return self._change(lambda t: act(t, stop_action(t)))

    def _keep(self, args: list[str]) -> str:
        """``keep`` / ``hold``: alone the advised hold, ``K new N`` or (codes) ``K N`` a re-roll,
        else ``K`` a hold typed before the dice."""
        kept = self.kept_game()
        dice = self._rerollable(kept)
        rules = kept.rules
        lowered = [w.lower() for w in args]
        if "new" in lowered:
            at = lowered.index("new")
            if at == len(args) - 1:
                raise KeptGameError("expected the dice after 'new': keep KEPT new NEW (the new dice or all of them)")
            return self._reroll_with(" ".join(args[:at]), " ".join(args[at + 1:]))
        typo = next((i for i, w in enumerate(args) if 0 < i < len(args) - 1 and not names_faces(w, rules)
                     and close_command(w, ("new",))), None)
        if typo is not None:  # 'keep CC nwe PPBJ': the word between the dice is 'new' mistyped
            typed = " ".join(["keep", *args[:typo], "new", *args[typo + 1:]])
            raise KeptGameError(f"{shorten(args[typo])} is neither dice nor 'new'; did you mean {shorten(typed)}? "
                                "(keep KEPT new NEW: the dice kept, then the new dice)")
        if len(args) == 2 and not any(_is_face_name(w, rules) for w in args):
            return self._reroll_with(args[0], args[1])
        if args:
            keep = parse_dice("" if args == ["-"] else " ".join(args), rules, count=-1)
            read_reroll(dice, tuple(d - k for d, k in zip(dice, keep)), rules, keep)  # checks the hold
            what = "Holding"
        else:
            advice = step_advice(kept, self.objective)
            assert advice is not None and advice.holds
            keep = advice.holds[0].keep
            if keep == dice:
                raise KeptGameError(f"the advice is to stop with {dice_codes(dice, rules)} (D7): type 'stop' "
                                    "or mark items")
            what = "Holding the advised"
        self.held = (len(kept.events), dice, keep)
        left = rules.dice - sum(keep)
        rest = dice_codes(tuple(d - k for d, k in zip(dice, keep)), rules)
        return (f"{what} {dice_codes(keep, rules) or 'nothing'} (D7): re-roll {rest}, then type the {left} new "
                f"{'die' if left == 1 else 'dice'} or all {rules.dice} now showing.")

    def _reroll(self, args: list[str]) -> str:
        """``reroll NEW [--keep KEPT]`` as the step command; without ``--keep`` NEW is read as
        typed dice (:meth:`_dice`)."""
        keep: str | None = None
        rest: list[str] = []
        words = iter(args)
        for word in words:
            if word == "--keep":
                keep = next(words, None)
                if keep is None:
                    raise KeptGameError("--keep needs the dice kept: reroll NEW --keep KEPT ('-' for none)")
            elif word.startswith("--keep="):
                keep = word.split("=", 1)[1]
            else:
                rest.append(word)
        if not rest:
            raise KeptGameError("expected the dice: reroll NEW [--keep KEPT] (NEW: the new dice or all of them)")
        if keep is not None:
            return self._reroll_with(keep, " ".join(rest))
        return self._dice(" ".join(rest))

    def _reroll_with(self, keep: str, new: str) -> str:
        def change(t: KeptGame) -> KeptGame:
            self._rerollable(t)
            return act(t, reroll_action(t, keep, new))

        return self._change(change)

    def _undo(self, count: int) -> str:
        """Take back a hold typed at this step first, then file actions (a stop is one)."""
        kept = self.kept_game()
        if self.is_stopped(kept) and self.hold_typed(kept) is None:
            def change(t: KeptGame) -> KeptGame:
                if not self.is_stopped(t):
                    raise KeptGameError("the game file changed meanwhile; nothing undone ('undo' again)")
                return undo(t, count)

            before, _ = self._update(change)
            return undone_line(before, count) + "\n" + self._after_change()
        pending = "the hold" if self.hold_typed(kept) is not None else ""
        if pending and count >= 1:
            if count > 1:
                undo(kept, count - 1)  # refused before anything is taken back
            self.held = None
            if count == 1:
                return f"Undone: {pending} taken back.\n" + self._after_change()
            return f"Undone: {pending} taken back.\n" + self._change(lambda t: undo(t, count - 1))
        return self._change(lambda t: undo(t, count))

    def _mark_best(self, args: list[str]) -> str:
        """``mark best``: the advice's best marking (:func:`mark_action`), with the note ``play
        mark --best`` prints when re-rolls were left and the advice was to re-roll (marking now
        is stopping, D7; :func:`report.best_mark_note`, from the game before the marking)."""
        notes: list[str] = []

        def change(t: KeptGame) -> KeptGame:
            shown = self.shown(t)
            after = act(t, mark_action(shown, args, self.objective))
            notes[:] = best_mark_note(shown, self.objective)
            return after

        return self._change(change, notes)

    def _change(self, change: Callable[[KeptGame], KeptGame], noted: list[str] | None = None) -> str:
        """Apply ``change`` to the file (:meth:`_update`) and show what it did and the next step:
        one screen, or with :attr:`verbose` one line per event and the advice in full; ``noted``
        (filled by ``change``): lines about the action, after its first line (as ``play``'s
        steps print them)."""
        before, after = self._update(change)
        undone = before.actions - after.actions
        if self.in_full:
            lines = told_once(describe(before, after, noted=noted or ()), after) if after.actions > before.actions \
                else [undone_line(before, undone), *(noted or [])]
            return "\n".join(lines) + "\n" + self.full_advice().rstrip("\n")
        done = happened(before, after) if after.actions > before.actions else undone_line(before, undone)
        return self.screen("\n".join([done, *(noted or [])]))

    def _after_change(self) -> str:
        """The rest of an answer whose first line said what was done: the screen of the step, or
        with :attr:`verbose` the advice in full."""
        return self.full_advice().rstrip("\n") if self.in_full else self.screen("")


#: Commands that only read the file: typed at a prompt the file no longer matches, they answer
#: about the file as it is now.
_READING_ONLY = ("help", "?", "h", "quit", "exit", "q", "status", "advise")


class ChangedMeanwhile(KeptGameError):
    """The game file is no longer the game the prompt was drawn from (``now``: the file now)."""

    def __init__(self, now: KeptGame) -> None:
        super().__init__("the game file changed since the prompt was drawn")
        self.now = now


def changes_between(old: KeptGame, new: KeptGame) -> str:
    """What turned the game ``old`` into ``new`` in words: the actions taken back (an undo), then
    what the actions added since did (:func:`screen.happened`)."""
    common = 0
    for a, b in zip(old.events, new.events):
        if a != b:
            break
        common += 1
    back = sum(1 for i, action in split_actions(old.events) if i + len(action) > common)
    base = undo(old, back) if back else old
    said = [f"took back {undone_line(old, back).removeprefix('Undone: ')}"] if back else []  # named
    if new.events[:len(base.events)] == base.events and len(new.events) > len(base.events):
        said.append(happened(base, new) or f"{len(new.events) - len(base.events)} events recorded.")
    return " ".join(said) or "the same events written again."


def _step_form(command: str, args: list[str]) -> tuple[str, list[str]]:
    """The step commands' options typed at the prompt, as the prompt's own forms: ``mark
    --best`` is ``mark best``, ``mark --unchecked ITEMS`` is ``told ITEMS``, ``fail --shelf N``
    is ``fail N``."""
    if command == "mark" and "--unchecked" in args:
        return "told", [a for a in args if a != "--unchecked"]
    if command == "mark" and args == ["--best"]:
        return "mark", ["best"]
    if command == "fail" and args[:1] == ["--shelf"]:
        return "fail", args[1:]
    if command == "fail" and len(args) == 1 and args[0].startswith("--shelf="):
        return "fail", [args[0].split("=", 1)[1]]
    return command, args


def _is_face_name(word: str, rules: Ruleset) -> bool:
    """Whether ``word`` is one face's name (``cat``, ``cats``), not a run of codes: a word of two
    or more characters naming one die."""
    if len(word) < 2 or not names_faces(word, rules):
        return False
    return sum(parse_dice(word, rules, count=-1)) == 1


#: The prompt's commands that record an action other than an undo (refused once the game is over, D18).
_ACTING = frozenset({"stop", "keep", "hold", "reroll", "roll", "mark", "told", "fail"})


#: The prompt's commands that take no words after them (a word more is refused, not ignored).
WORDLESS = frozenset({"quit", "exit", "q", "help", "?", "h", "status", "advise", "stop"})


def _count(args: list[str]) -> int:
    """The N of ``undo N`` (1 for ``undo`` alone): one whole number from 1 in ASCII digits
    (:func:`undo_count`); more words are refused, not ignored.

    Raises:
        KeptGameError: not one whole number from 1."""
    return undo_count(" ".join(args), PROMPT) if args else 1


#: The words the prompt takes first (:meth:`Session._run`), for a mistyped one's suggestion
#: (:func:`close_command`).
COMMAND_WORDS = ("roll", "keep", "hold", "new", "reroll", "stop", "mark", "told", "fail", "undo", "status",
                 "advise", "help", "quit", "exit")


def close_command(word: str, words: tuple[str, ...] = COMMAND_WORDS) -> str | None:
    """The prompt's command word (of ``words``) that ``word`` is likely a typo of
    (:func:`core.errors.close_word`, as the step commands' ``play rol``), else ``None``."""
    return close_word(word, words)


def _neither(word: str, error: DiceError, line: str = "") -> KeptGameError:
    """The one message for a word typed at the prompt that is neither a command nor dice (at the
    roll, D6, and after a re-roll alike): the word as typed, and the line with the command word
    it is close to (``makr r1c1``: did you mean 'mark r1c1'?, :func:`close_command`), else why
    it is not dice (``error``, which names the bad face)."""
    close = close_command(word) if word.isascii() else None
    if close is not None and close != "new":
        words = line.split()
        typed = " ".join([close, *words[1:]]) if words and words[0] == word else close
        return KeptGameError(f"{shorten(word)} is neither a command nor dice; did you mean {shorten(typed, 60)}? "
                             "(help lists the commands)")
    return KeptGameError(f"{shorten(word)} is neither a command (help lists them) nor dice: {error}")
