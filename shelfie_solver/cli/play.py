"""``shelfie-solve play``: one real game in a game file, turn by turn, with advice (docs/play.md)."""

from __future__ import annotations

import functools
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import click

from shelfie_solver.core.errors import ShelfieError, close_word, shorten
from shelfie_solver.core.report import TABLE_WIDTH, printable, render
from shelfie_solver.dice.play.session import (
    Session,
    check_player,
    fail_action,
    mark_action,
    reroll_action,
    roll_action,
    stop_action,
    told_action,
    typed_reroll_action,
    undo_count,
)
from shelfie_solver.dice.play.gamefile import PLAY_OBJECTIVE as DEFAULT_OBJECTIVE
from shelfie_solver.dice.play.gamefile import (
    Action,
    KeptGame,
    KeptGameError,
    act,
    check_running,
    create_file,
    objective_for,
    read_kept_game,
    undo,
    update_file,
)
from shelfie_solver.dice.game.events import PLAYER_COUNTS
from shelfie_solver.dice.play.newgame import new_game
from shelfie_solver.dice.play.reading import STEP, ReadingError
from shelfie_solver.dice.play.report import action_report, best_mark_note, describe, status_report, step_advice, undone_line
from shelfie_solver.cli.options import (
    WholeNumber,
    board_option,
    exact_option,
    exact_wanted,
    format_option,
    first_seed_option,
    load_setup,
    rules_option,
    note_win_model,
    play_objective_option,
    sigterm_stops,
    win_model_option,
)


class PlayGroup(click.Group):
    """``play GAME`` (no step) opens the interactive session; ``play STEP GAME ...`` runs a step.

    A first word that is not a step is the game file, unless it is ``help`` (the group's help)
    or, naming no existing file, is close to a step's name (``rol``): then it is refused as a
    mistyped step. ``play GAME EXTRA`` is refused with the way to run a step."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            if args[0].lower() == "help":
                args = ["--help"]
            else:
                self._check_game_file(ctx, args)
                ctx.meta[_IMPLIED_SESSION_KEY] = True  # the session's usage names 'play', the words typed
                args = ["session", *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the step; a refusal that names a step command's form (``play undo GAME``) names
        the step's own game file instead (:func:`_with_game_named`)."""
        try:
            return super().invoke(ctx)
        except ShelfieError as error:
            game = ctx.meta.get(_GAME_KEY)
            if not isinstance(game, str):
                raise
            raise ShelfieError(_with_game_named(str(error), game)) from None

    def _steps(self, ctx: click.Context) -> list[str]:
        return [name for name in self.list_commands(ctx) if not self.commands[name].hidden]

    def _check_game_file(self, ctx: click.Context, args: list[str]) -> None:
        """Refuse a mistyped step, and words after the game file of the session (click.UsageError)."""
        steps = self._steps(ctx)
        first = args[0]
        if not os.path.exists(first):
            close = close_word(first, steps)
            if close:
                raise click.UsageError(f"no such step or game file {first!r}; did you mean {close!r}? "
                                       f"(steps: {', '.join(steps)})", ctx)
        options = [param for param in self.commands["session"].params if isinstance(param, click.Option)]
        with_value = {name for param in options if not param.is_flag for name in param.opts}
        known = {name for param in options for name in (*param.opts, *param.secondary_opts)}
        at = 1
        while at < len(args):
            word = args[at]
            if word in with_value:
                at += 1
            elif word.startswith("-") and word.split("=", 1)[0] not in known:
                return  # an option the session does not take (--win-model): click names it, not its value
            elif not word.startswith("-"):
                raise click.UsageError(_after_the_file(first, word, args[at + 1:], steps), ctx)
            at += 1


@click.group("play", cls=PlayGroup, short_help="Track a real game turn by turn, with advice.")
def play_command() -> None:
    """Keep one real game in a game file and get advice at every step (docs/play.md).

    \b
    First:
      shelfie-solve play new game.json --players Ann,Ben,me
      shelfie-solve play game.json            (interactive: type dice, keep, mark, undo, help)
      shelfie-solve play roll game.json CCBJPP
    """


def _objective_option(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--top", type=WholeNumber(1, None), default=5, show_default=True, metavar="K",
                        help="Rows of advice in table and markdown output.")(func)
    return play_objective_option(win_model_option(exact_option(func)))


def _player_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--player", default=None, metavar="NAME",
                        help="Check that it is this player's turn (a turn out of order is refused).")(func)


#: Where the step's game file is kept for its refusals (:meth:`PlayGroup.invoke`; ``ctx.meta`` is
#: shared by the group's context and the step's).
_GAME_KEY = "shelfie_solve.play.game"
#: Set when ``play GAME`` runs the session without the word ``session`` (:class:`_SessionContext`).
_IMPLIED_SESSION_KEY = "shelfie_solve.play.implied_session"


def _remember_game(ctx: click.Context, _param: click.Parameter, value: str) -> str:
    ctx.meta[_GAME_KEY] = value
    return value


def _with_game_named(message: str, game: str) -> str:
    """``message`` with every step command's placeholder (``play undo GAME``, ``play reroll GAME
    ...``) naming ``game``, quoted for the shell where it needs it, so the command can be copied."""
    named = _shell_word(game)
    return re.sub(r"\bplay (\w+) GAME\b", lambda m: f"play {m.group(1)} {named}", message)


def _shell_word(game: str) -> str:
    """A game file as a command names it: quoted for the shell where it needs it, ``./-x`` for a
    name that would read as an option."""
    return shlex.quote(os.path.join(".", game) if game.startswith("-") else game)


def _after_the_file(game: str, word: str, rest: list[str], steps: list[str]) -> str:
    """The refusal of ``word`` (and ``rest``) after the game file of ``play GAME``: the command of
    the step it names, the file in its place (``play roll 'x y.json' CCBJPP``), and the session's
    form, the file alone and the step's words typed at its prompt (``roll CCBJPP``); for a word
    that is no step, ``play STEP GAME ...`` with the file named."""
    named = _shell_word(game)
    listed = f"(steps: {', '.join(steps)})"
    if word not in steps:
        return (f"unexpected {shorten(word)} after the game file; a step is: play STEP {named} ... {listed}; the "
                f"interactive session is: play {named} alone")
    typed = " ".join([word, *(shlex.quote(w) for w in rest)])
    step = f"unexpected {word!r} after the game file; as a step: play {word} {named}{typed[len(word):]}"
    if word == "new":  # the session opens an existing game: no 'new' at its prompt
        return f"{step} {listed}"
    return f"{step}; or the interactive session, play {named}, then at its prompt: {typed} {listed}"


_GAME = click.argument("game", metavar="GAME", callback=_remember_game)


def _acting_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The options of every step that records an action: ``--player``, ``--objective``, ``--top``
    and ``--format``."""
    return _player_option(_objective_option(format_option(func)))


def _shown(before: KeptGame | None, after: KeptGame, objective: str, top: int, fmt: str,
           noted: list[str] | None = None, game: str = "GAME") -> str:
    """What the action did (``noted``, lines about it, after its first line), then the advice of
    the next step (or the final table), rendered; ``game``: the file, as the commands it names
    say it."""
    unstop = _with_game_named(STEP.unstop, game)
    done = describe(before, after, unstop, noted or ()) if before is not None else []
    report = action_report(after, objective, done, None if fmt == "json" else top)
    if len(after.players) > 1:
        note_win_model(report)
    return render(report, fmt, width=TABLE_WIDTH, exact=exact_wanted())


@contextmanager
def _naming_the_file(game: str, written: Callable[[], str | None] = lambda: None) -> Iterator[None]:
    """SIGTERM (:func:`cli.options.sigterm_stops`) or Ctrl-C inside: the command stops with one
    line naming what became of the game file, ``Interrupted by SIGTERM: run stopped, game.json
    unchanged.``, exit 143 (Ctrl-C 130), as ``simulate`` (:class:`core.parallel.Interrupted`).
    ``written()``: the words when the file holds what the command wrote (else it is unchanged: it
    is written whole or not at all, :func:`gamefile.update_file`). An interruption that already
    says what it kept (an inner step's) passes as it is."""
    try:
        yield
    except BaseException as stop:
        from shelfie_solver.core.parallel import Interrupted, interrupted_by

        if not isinstance(stop, (KeyboardInterrupt, Interrupted)) \
                or (isinstance(stop, Interrupted) and stop.kept != Interrupted(stop.signum).kept):
            raise
        raise interrupted_by(stop).keeping(_unstopped(written) or f"{game} unchanged") from None


def _unstopped(words: Callable[[], str | None]) -> str | None:
    """``words()`` with SIGTERM and SIGINT ignored while it runs (in the main thread; the handlers
    before are put back after): a second signal (Ctrl-C pressed twice) while the game file is read
    again must not cut that reading short, or a step already written would be said unchanged."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return words()
    before = {signum: signal.signal(signum, signal.SIG_IGN) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        return words()
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _holds(game: str, after: KeptGame) -> bool:
    """Whether the game file now holds ``after`` (its events), for :func:`_naming_the_file`."""
    try:
        return read_kept_game(game).events == after.events
    except Exception:  # noqa: BLE001 (unreadable now: not known to hold it)
        return False


def _stops_naming_the_file(command: Callable[..., None]) -> Callable[..., None]:
    """A ``play`` command (its ``game`` argument) stopped by SIGTERM or Ctrl-C says what became of
    the game file in one line (:func:`_naming_the_file`; unchanged unless a step inside says it
    was written). Put it below the click options."""
    @functools.wraps(command)
    def body(*args: Any, **kwargs: Any) -> None:
        with _naming_the_file(kwargs["game"]):
            command(*args, **kwargs)

    return sigterm_stops(body)


def _show(before: KeptGame | None, after: KeptGame, objective: str, top: int, fmt: str) -> None:
    """Print :func:`_shown`."""
    click.echo(_shown(before, after, objective, top, fmt), nl=False)


def _step(path: str, player: str | None, make: Callable[[KeptGame], Action], objective: str, top: int,
          fmt: str, note: Callable[[KeptGame], list[str]] | None = None) -> None:
    """Apply one action to the game file. Its output (the advice that follows) is made before the
    file is written, so nothing is written unless the whole step succeeds. ``note``: lines about
    the action from the game before it, printed after what it did."""
    shown: list[str] = []
    done: list[KeptGame] = []

    def change(kept: KeptGame) -> KeptGame:
        check_player(kept, player)
        objective_for(objective, kept.state)  # a bad --objective is refused before anything is written
        after = act(kept, make(kept))
        shown.append(_shown(kept, after, objective, top, fmt, note(kept) if note is not None else None, path))
        done.append(after)
        return after

    # interrupted once the file holds the step (its advice not yet printed): said so
    with _naming_the_file(path, lambda: f"the step is saved in {path}; 'play advise {path}' shows the advice"
                          if done and _holds(path, done[0]) else None):
        update_file(path, change)
        click.echo(shown[0], nl=False)


@play_command.command("new")
@_GAME
@click.option("--players", "players_text", required=True, metavar="A,B,...",
              help=f"Player names in seat order (clockwise, D5): {PLAYER_COUNTS}, e.g. Ann,Ben,me.")
@click.option("--first", default=None, metavar="NAME", help="Who plays first (D5). Default: drawn at random.")
@first_seed_option
@board_option
@rules_option
@format_option
@_stops_naming_the_file
def new_command(game: str, players_text: str, first: str | None, seed: int | None, board_path: str | None,
                rules_path: str | None, fmt: str) -> None:
    """Start a new game in the file GAME (which must not exist yet)."""
    if first is not None and seed is not None:  # docs/play.md: [--first NAME | --seed S]
        raise click.UsageError("--seed draws who plays first and --first NAME names them: give one of the two")
    rules, board, _ = load_setup(rules_path, board_path, None)
    kept = new_game(board, rules, players_text.split(","), first, seed)
    made: list[bool] = []
    with _naming_the_file(game, lambda: f"{game} created; 'play advise {game}' shows the advice" if made
                          else f"{game} not created"):
        shown = _shown(None, kept, DEFAULT_OBJECTIVE, 5, fmt)  # before the file: nothing written unless it all works
        create_file(game, kept)
        made.append(True)
        click.echo(shown, nl=False)


@play_command.command("roll")
@_GAME
@click.argument("dice", metavar="DICE")
@_acting_options
@_stops_naming_the_file
def roll_command(game: str, dice: str, player: str | None, objective: str, top: int, fmt: str) -> None:
    """The active player's initial roll (D6): all six dice (such as CCBJPP); prints the hold advice."""
    _step(game, player, lambda t: roll_action(t, dice, STEP), objective, top, fmt)


@play_command.command("reroll")
@_GAME
@click.argument("words", metavar="NEW", nargs=-1)
@click.option("--keep", default=None, metavar="DICE",
              help="The dice kept ('-' for none). Without it the kept dice are read from NEW and the dice "
                   "showing, and NEW is refused when more than one reading fits (docs/play.md, \"After a re-roll\").")
@_acting_options
@_stops_naming_the_file
def reroll_command(game: str, words: tuple[str, ...], keep: str | None, player: str | None, objective: str,
                   top: int, fmt: str) -> None:
    """A re-roll (D7): --keep the dice held, NEW the dice rolled again or all the dice now showing."""
    new = " ".join(words) if words else None  # the prompt's form typed unquoted is several words
    if len(words) > 1:
        _refuse_the_prompts_form(game, new or "", keep)
        raise click.UsageError(f"got unexpected extra arguments ({' '.join(words[1:])}); expected one NEW "
                               "(the dice rolled again, such as CP, or all the dice now showing)")
    if new is None and keep is None:  # GAME: named by PlayGroup.invoke, as in every step's refusal
        raise ShelfieError("expected the dice rolled again: play reroll GAME NEW [--keep DICE]")
    if new is not None:
        _refuse_the_prompts_form(game, new, keep)
    if new is None:  # --keep alone: every die kept is a stop (D7), said so; else the count is short
        new = ""
    if keep is None:
        _step(game, player, lambda t: _typed_step(t, new, objective), objective, top, fmt)
    else:
        _step(game, player, lambda t: reroll_action(t, keep, new, STEP), objective, top, fmt)


def _refuse_the_prompts_form(game: str, new: str, keep: str | None) -> None:
    """NEW typed in the ``play`` prompt's words (``keep PP new CCBA``, ``keep PP CCBA``, ``hold
    PP ...``): refused naming the step's form with the same dice (``play reroll GAME CCBA --keep
    PP``, ``game`` named), never as an unknown face 'keep'.

    Raises:
        ShelfieError: NEW starts with the prompt's word ``keep`` or ``hold``."""
    words = new.split()
    if not words or words[0].lower() not in ("keep", "hold"):
        return
    lowered = [w.lower() for w in words]
    if "new" in lowered:  # keep K new N
        at = lowered.index("new")
        held, rolled = " ".join(words[1:at]), " ".join(words[at + 1:])
    elif len(words) == 3:  # keep K N (codes)
        held, rolled = words[1], words[2]
    else:  # keep K: the hold alone
        held, rolled = " ".join(words[1:]), ""
    held = held or (keep or "KEPT")
    step = f"play reroll GAME {shlex.quote(rolled) if rolled else 'NEW'} --keep {shlex.quote(held)}"
    raise ShelfieError(f"{shorten(new)} is the interactive session's form (play {_shell_word(game)} alone); the step "
                       f"form is: {step}" + ("" if rolled else " (NEW: the new dice or all the dice now showing)"))


def _typed_step(kept: KeptGame, new: str, objective: str) -> Action:
    """``play reroll GAME NEW`` without ``--keep``: the one reading of NEW; when several fit, the
    refusal suggests the advised hold if it is one of them (docs/play.md, "After a re-roll")."""
    try:
        return typed_reroll_action(kept, new, form=STEP)
    except ReadingError:
        advice = step_advice(kept, objective)
        if advice is None or not advice.holds:
            raise
        return typed_reroll_action(kept, new, form=STEP, advised=advice.holds[0].keep)  # refused again


@play_command.command("stop")
@_GAME
@_acting_options
@_stops_naming_the_file
def stop_command(game: str, player: str | None, objective: str, top: int, fmt: str) -> None:
    """Stop (D7): keep every die, the dice are final; records the stop (a re-roll is then refused
    until 'play undo') and shows the markings. With no re-roll left, or stopped already, only shows them."""
    kept = read_kept_game(game)
    check_running(kept)
    if kept.dice is None:
        raise KeptGameError(f"{kept.active_name} has not rolled yet; expected 'play roll {game} DICE'")
    if kept.stopped or not kept.rerolls_left:
        check_player(kept, player)
        _show(None, kept, objective, top, fmt)
    else:
        _step(game, player, stop_action, objective, top, fmt)


@play_command.command("mark")
@_GAME
@click.argument("items", nargs=-1, metavar="ITEM...")
@click.option("--best", is_flag=True, help="Mark the advice's best marking.")
@click.option("--unchecked", is_flag=True,
              help="A marking made without recorded dice (an opponent's): recorded as unchecked.")
@_acting_options
@_stops_naming_the_file
def mark_command(game: str, items: tuple[str, ...], best: bool, unchecked: bool, player: str | None,
                 objective: str, top: int, fmt: str) -> None:
    """Mark items with the final dice (D8-D14), e.g. r1c3 r2c2; or --best; or --unchecked."""
    if best and (items or unchecked):
        raise click.UsageError("--best takes no items and no --unchecked")
    if not best and not items:
        raise click.UsageError("expected items such as r1c3 r2c2, or --best")
    if unchecked:
        _step(game, player, lambda t: told_action(t, list(items), STEP), objective, top, fmt)
    else:
        _step(game, player, lambda t: mark_action(t, ["best"] if best else list(items), objective, STEP),
              objective, top, fmt, (lambda t: best_mark_note(t, objective)) if best else None)


@play_command.command("fail")
@_GAME
@click.option("--shelf", default="", metavar="N|best",
              help="The shelf given up (1-based), or best. Required: without it the refusal names the shelves "
                   "that may be given up.")
@_acting_options
@_stops_naming_the_file
def fail_command(game: str, shelf: str, player: str | None, objective: str, top: int, fmt: str) -> None:
    """Failed result (D13): nothing can be marked, give up a shelf."""
    _step(game, player, lambda t: fail_action(t, shelf, objective, STEP), objective, top, fmt)


class _CountCommand(click.Command):
    """A command whose count may be typed negative (``play undo GAME -1``): click would take
    ``-1`` for an unknown option ("No such option"); it is read as the count instead, so the
    refusal says what undo needs (:func:`session.undo_count`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        negative = [a for a in args if re.fullmatch(r"-\d+", a)]
        if negative and "--" not in args:
            args = [a for a in args if a not in negative] + ["--", *negative]
        return super().parse_args(ctx, args)


@play_command.command("undo", cls=_CountCommand)
@_GAME
@click.argument("count_text", metavar="[N]", default="1")
@format_option
@_stops_naming_the_file
def undo_command(game: str, count_text: str, fmt: str) -> None:
    """Take back the last N actions (default 1)."""
    count = undo_count(count_text, STEP)  # 0, -1, x: refused in the step's words (GAME: PlayGroup.invoke)
    done: list[KeptGame] = []

    def change(kept: KeptGame) -> KeptGame:
        done.append(undo(kept, count))
        return done[0]

    with _naming_the_file(game, lambda: f"the undo is saved in {game}" if done and _holds(game, done[0]) else None):
        before, after = update_file(game, change)
        report = status_report(after, markdown=fmt == "markdown")
        click.echo(render(replace(report, title=[undone_line(before, count)] + report.title), fmt, width=TABLE_WIDTH),
                   nl=False)


@play_command.command("status")
@_GAME
@format_option
@win_model_option
@_stops_naming_the_file
def status_command(game: str, fmt: str) -> None:
    """Every sheet as a grid, the scores, whose turn, the round and the end trigger."""
    kept = read_kept_game(game)
    report = status_report(kept, markdown=fmt == "markdown")
    if len(kept.players) > 1:
        note_win_model(report)
    click.echo(render(report, fmt, width=TABLE_WIDTH), nl=False)


@play_command.command("advise")
@_GAME
@_objective_option
@format_option
@_stops_naming_the_file
def advise_command(game: str, objective: str, top: int, fmt: str) -> None:
    """The advice for the current step again (or the final table)."""
    kept = read_kept_game(game)
    objective_for(objective, kept.state)  # a bad --objective is refused even when no advice is due
    _show(None, kept, objective, top, fmt)


class _SessionContext(click.Context):
    """The ``session`` command, also run as ``play GAME`` (the form most type): so run, its usage
    line and error hints name ``shelfie-solve play``, which takes the same words; run as ``play
    session GAME``, ``shelfie-solve play session``."""

    @property
    def command_path(self) -> str:
        if self.parent is not None and self.meta.get(_IMPLIED_SESSION_KEY):
            return self.parent.command_path
        return super().command_path


class _SessionCommand(click.Command):
    context_class = _SessionContext


@play_command.command("session", cls=_SessionCommand,
                      short_help="The interactive session (also: play GAME): type dice, keep, mark...")
@_GAME
@play_objective_option
@exact_option
@click.option("--verbose", is_flag=True,
              help="After each action every table in full (the advice with its legend, the active sheet's values, "
                   "every warning with its rule ids), not one screen.")
@sigterm_stops
def session_command(game: str, objective: str, verbose: bool) -> None:
    """The interactive session on the game file GAME: type the dice, keep, mark, undo... ('help' at
    the prompt lists the commands; the file is saved after every action). 'play GAME' and 'play
    session GAME' are the same, with the same options."""
    from shelfie_solver.core.parallel import Interrupted  # SIGTERM (sigterm_stops)

    if sys.stdin is None or sys.stdin.closed:  # `play GAME <&-`: nothing can be typed
        raise KeptGameError("standard input is closed, so nothing can be typed; expected the session on a terminal "
                            "or commands piped in (play GAME < moves.txt), or the steps (play roll GAME DICE)")
    session = Session(game, objective, exact=exact_wanted(), verbose=verbose)
    objective_for(objective, read_kept_game(game).state)  # a bad file or objective is refused before the prompt
    click.echo("Type 'help' for the commands; the file is saved after every action.")
    if session.legend():
        click.echo(session.legend())
    click.echo(printable(session.advice()))
    while not session.done:
        try:
            line = _read_line(printable(session.prompt()))
        except UnicodeDecodeError:
            click.echo("Error: the line is not UTF-8 text; type 'help' for the commands")
            continue
        except EOFError:
            click.echo("\n" + printable(session.leaving()))
            return
        except KeyboardInterrupt:
            click.echo("\n" + printable(session.leaving(interrupted=True)))
            return
        except Interrupted as stop:  # SIGTERM at the prompt: every action is in the file
            raise stop.keeping(f"every action is saved in {game}") from None
        before = _unstopped(lambda: _file_digest(game))
        try:
            out = session.handle(line)
        except (KeyboardInterrupt, Interrupted) as stop:  # the file is replaced whole or not at all
            kept = (f"this line's action is saved in {game}" if _unstopped(lambda: _file_digest(game)) != before
                    else f"this line's action is not recorded; {game} holds every action before it")
            if isinstance(stop, Interrupted):
                raise stop.keeping(kept) from None
            click.echo(f"\nInterrupted; {kept}.")
            return
        if out:
            click.echo(printable(out))  # names from the file: escaped (core.report.printable)



def _file_digest(path: str) -> str | None:
    """The SHA-256 of the file's bytes, ``None`` if it cannot be read (what the session's
    interrupted line left: :func:`session_command`)."""
    import hashlib

    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


#: Longest typed line of the session (a terminal's own line limit is 4096).
MAX_LINE_BYTES = 4096


def _read_line(prompt: str) -> str:
    """One typed line: on a terminal through prompt_toolkit (line editing and history,
    :func:`_terminal`; ``input`` when only standard input is a terminal); from a pipe or file
    at most :data:`MAX_LINE_BYTES` bytes (so ``< /dev/zero`` or a 100 MB line cannot fill memory
    or hang), undecodable bytes replaced.

    Raises:
        EOFError: end of input (Ctrl-D). KeyboardInterrupt: Ctrl-C. KeptGameError: a piped line
            longer than the limit (the session ends).
    """
    if sys.stdin.isatty():
        return _terminal().prompt(prompt) if sys.stdout.isatty() else input(prompt)
    click.echo(prompt, nl=False)
    raw = sys.stdin.buffer.readline(MAX_LINE_BYTES + 1)
    if not raw:
        raise EOFError
    if len(raw) > MAX_LINE_BYTES:
        raise KeptGameError(f"an input line is longer than {MAX_LINE_BYTES:,} bytes; expected one command per line "
                         "(type 'help' in the session)")
    return raw.decode("utf-8", errors="replace").rstrip("\r\n")


@functools.cache
def _terminal() -> Any:
    """The session's line editor (one per process): a ``prompt_toolkit.PromptSession`` with an
    in-memory history, so Up and Down recall this session's lines and Left, Right, Home, End,
    Backspace and Delete edit the line (docs/play.md: prompt_toolkit rather than readline). Made
    at the first prompt on a terminal only: pipes and tests never import it."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory

    return PromptSession(history=InMemoryHistory())
