"""``shelfie-solve train``: fit the ``learned`` objective's parameters by self-play (docs/train.md)."""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import click

from shelfie_solver.cli.options import (
    WholeNumber,
    board_option,
    check_output,
    force_option,
    jobs_option,
    load_setup,
    resolve_workers,
    rules_option,
    scheduler_option,
)
from shelfie_solver.core.files import FileKind, FileWriteError, replace_checked
from shelfie_solver.core.progress import progress_bar
from shelfie_solver.dice.learned.fit_solved import fit_value_tables
from shelfie_solver.dice.learned.fitting import TrainError
from shelfie_solver.dice.learned.model_file import MODEL_KIND, model_text
from shelfie_solver.dice.learned.train import PLAYER_COUNTS, tasks_total, train


@click.command("train", short_help="Fit the learned objective by self-play.")
@click.option("--seed", type=WholeNumber(0, None), default=None, metavar="S",
              help="Root seed (required for self-play); the same seed and settings give the same parameters "
                   "whatever --jobs is.")
@click.option("--table", "tables", multiple=True, metavar="TABLE",
              help="Instead of self-play, fit the solitaire weights to the exact value table(s) of "
                   "'solve-game --save TABLE' (repeat to pool several boards; docs/train.md).")
@click.option("--games", type=WholeNumber(1, 100_000), default=300, show_default=True, metavar="N",
              help="Self-play games per number of players per iteration.")
@click.option("--iterations", type=WholeNumber(1, 20), default=2, show_default=True, metavar="K",
              help="1 = fit to the solver strategy's games; each more refits to the previous fit's own games.")
@click.option("--solitaire-boards", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="N",
              help="Fit the 1-player weights to the exact value tables of N random small boards drawn from "
                   "--seed (solved here) instead of solitaire self-play; the shipped ones use 24 with "
                   "--seed 11 (docs/train.md).")
@click.option("--solitaire-hard", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards: also fit to N random boards whose columns need 4-5 dice (up to "
                   "5 columns, 125,000 states; solved with the float solver; docs/train.md).")
@click.option("--solitaire-float", "solitaire_float", is_flag=True,
              help="With --solitaire-boards: solve its boards with the float solver (solve-game --float) "
                   "instead of exactly: minutes faster, the same fit up to rounding (docs/train.md).")
@click.option("--solitaire-large", type=WholeNumber(0, 100), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards: also fit to N random 4 x 5 and 5 x 4 boards (about 4.8 million "
                   "states, 1-3 CPU-minutes each with the float solver; 150,000 states of each in the fit; "
                   "docs/train.md).")
@click.option("--solitaire-spread", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards: fit a table for 4 x 5 and 5 x 4 boards (the shapes over the exact "
                   "budget) with a column needing 4-5 dice to its boards and N boards whose column needs "
                   "repeat (4 x 4, 3 x 5, 5 x 3; float solver; docs/train.md).")
@click.option("--solitaire-spread-large", type=WholeNumber(0, 100), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards: also N such 4 x 5 and 5 x 4 boards (3-5 CPU-minutes each; 400,000 "
                   "states of each in the fit).")
@click.option("--solitaire-heavy", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards and --solitaire-spread: a table for 4 x 5 and 5 x 4 boards whose "
                   "columns need 3 dice or more on average, two or more 4-5: the mean of the many-dice table and "
                   "a fit to N boards of such needs (4 x 4, 3 x 5, 5 x 3; float solver, 60,000 states of each; "
                   "docs/train.md).")
@click.option("--solitaire-threes", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards: a table for 4 x 5 and 5 x 4 boards whose columns repeat 3s "
                   "beside 4-5s (none under 3 dice, a quarter or more but under half of 4-5), fitted to N boards "
                   "of such needs (4 x 4, 3 x 5, 5 x 3; float solver, 60,000 states of each; docs/train.md).")
@click.option("--solitaire-threes-seed", type=WholeNumber(0), default=None, metavar="S",
              help="With --solitaire-threes: the root seed of its boards (default: --seed; the shipped file "
                   "uses 12).")
@click.option("--solitaire-light-five", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="N",
              help="With --solitaire-boards and --solitaire-spread: a table for 4 x 5 boards of a 5 beside 1s (one "
                   "column needing 5 dice, no other 4-5, two or more needing 1): the mean of the many-dice table "
                   "and a fit to N boards of such needs (4 x 4, 3 x 5, 5 x 3; float solver, 60,000 states of each; "
                   "docs/train.md).")
@click.option("--solitaire-light-five-seed", type=WholeNumber(0), default=None, metavar="S",
              help="With --solitaire-light-five: the root seed of its boards (default: --seed; the shipped file "
                   "uses 9604).")
@click.option("--solitaire-shapes", type=WholeNumber(0, 1000), default=0, show_default=True, metavar="K",
              help="With --solitaire-boards: also fit a table of its own for each board shape (shelves x "
                   "columns) with at least K of those boards; learned uses it in solitaire on a board of that "
                   "shape, the pooled weights on other shapes (0: pooled only; the shipped ones use 3; "
                   "docs/train.md).")
@click.option("--players", "players_text", default="1,2,3,4", show_default=True, metavar="N,...",
              help="Numbers of players (1-4) to fit weights for.")
@jobs_option
@scheduler_option
@click.option("--output", "output", default="learned.json", show_default=True, metavar="FILE",
              help="Where to write the parameters; use them as the objective or strategy learned:FILE "
                   "(the shipped ones, used by plain 'learned', are shelfie_solver/dice/data/learned.json).")
@click.option("--checkpoint", default=None, metavar="FILE",
              help="Checkpoint file, one entry per finished iteration (default: FILE.checkpoint beside --output); "
                   "a rerun with the same settings resumes from it.")
@click.option("--win-model", "win_model", is_flag=True,
              help="Instead of the learned weights, fit the win model (the objective win: every seat's chance to "
                   "win, one softmax) to --games self-play games of learned per number of players 2-4 from --seed; "
                   "data/win.json's coefficients are fits on win's own play, each with 'a turn ahead': 2 players "
                   "seed 14101, 5,000 games, 3 and 4 players seed 15201, 6,000 games each (benchmarks/win_first.py; "
                   "docs/train.md, \"The chance to win\").")
@click.option("--self-play", "self_play", type=click.Choice(["learned", "win"]), default="learned",
              show_default=True,
              help="With --win-model: whose self-play games the model is fitted on: learned's, or win's own "
                   "(by --play-model, default the shipped model: one step of policy iteration, so the chance "
                   "agrees with win's play; docs/win-chance.md, \"Fitted on its own play\").")
@click.option("--play-model", "play_model", default=None, metavar="FILE",
              help="With --win-model --self-play win: the win-model file that win plays its games by (e.g. the "
                   "previous iteration's --output; default: the shipped data/win.json).")
@click.option("--points-exponent", "points_exponent", default="0", show_default=True, metavar="E",
              help="With --win-model: the exponent by which the coefficients written for boards of other shapes "
                   "than --board's are put in each board's own points, as data/win.json's ('3/4'; a fraction "
                   "from 0 to 2, denominator at most 12): fitted with every seat's points read over --board's "
                   "size factor at E, the block's \"points_exponent\" (0: points as they are, no key; "
                   "docs/win-chance.md, \"In the board's own points\").")
@board_option
@rules_option
@force_option
def train_command(seed: int | None, tables: tuple[str, ...], games: int, iterations: int, solitaire_boards: int,
                  solitaire_hard: int, solitaire_float: bool, solitaire_shapes: int, solitaire_large: int,
                  solitaire_spread: int, solitaire_spread_large: int, solitaire_heavy: int, solitaire_threes: int,
                  solitaire_threes_seed: int | None, solitaire_light_five: int,
                  solitaire_light_five_seed: int | None, players_text: str,
                  jobs: int | None,
                  scheduler: str | None, output: str,
                  checkpoint: str | None, win_model: bool, self_play: str, play_model: str | None,
                  points_exponent: str, board_path: str | None, rules_path: str | None, force: bool) -> None:
    """Fit the learned objective by self-play: Monte Carlo returns, least squares, iterated.

    \b
    Examples:
      shelfie-solve train --seed 11 --output learned.json
      shelfie-solve train --seed 1 --games 20 --iterations 1 --players 2
      shelfie-solve train --table small.json --output small-learned.json
      shelfie-solve train --seed 11 --players 1 --solitaire-boards 24 --output solitaire.json
      shelfie-solve train --seed 11 --players 1 --solitaire-boards 48 --solitaire-hard 48 \\
          --solitaire-large 6 --solitaire-float --solitaire-shapes 3 --output solitaire.json
    """
    if not win_model:
        _refuse_options(click.get_current_context(), _WIN_MODEL_ONLY, "is an option of the win model's fit and "
                        "needs --win-model", "--win-model --seed S [--self-play win [--play-model FILE]] "
                        "[--points-exponent E]")
    if tables:
        _refuse_self_play_options(click.get_current_context())
        _fit_tables(tables, output, force)
        return
    if seed is None:
        raise click.BadParameter("a root seed is needed for self-play (or --table TABLE to fit a value table)",
                                 param_hint="'--seed'")
    rules, board, _ = load_setup(rules_path, board_path, None)
    if win_model:
        _refuse_options(click.get_current_context(), _NOT_WIN_MODEL, "has no effect with --win-model (it fits "
                        "the win model of 2-4 players to --games self-play games in one pass, no checkpoint)",
                        "--win-model --seed S [--games N] [--jobs J] [--output FILE]")
        if play_model is not None and self_play != "win":
            raise click.UsageError("--play-model is the model win plays by and needs --self-play win; expected "
                                   "--win-model --self-play win [--play-model FILE] --seed S")
        _fit_win_model(board, rules, seed, games, jobs, scheduler, output, [board_path, rules_path, play_model],
                       force, self_play, play_model, _exponent(points_exponent))
        return
    players = _parse_players(players_text)
    checkpoint = checkpoint if checkpoint is not None else f"{output}.checkpoint"
    check_output(output, "--output", [checkpoint, board_path, rules_path], MODEL_KIND, force)
    check_output(checkpoint, "--checkpoint", [board_path, rules_path])  # its kind: read first (train.train)
    workers = resolve_workers(jobs, scheduler)
    lines: list[str] = []
    run = functools.partial(train, board, rules, seed, games, iterations, workers, players, checkpoint,
                            report=lines.append, scheduler=scheduler, solitaire_boards=solitaire_boards,
                            solitaire_hard=solitaire_hard, solitaire_float=solitaire_float,
                            solitaire_shapes=solitaire_shapes, solitaire_large=solitaire_large, force=force,
                            solitaire_spread=solitaire_spread, solitaire_spread_large=solitaire_spread_large,
                            solitaire_heavy=solitaire_heavy, solitaire_threes=solitaire_threes,
                            solitaire_threes_seed=solitaire_threes_seed,
                            solitaire_light_five=solitaire_light_five,
                            solitaire_light_five_seed=solitaire_light_five_seed)
    with progress_bar("Self-play", tasks_total(games, iterations, players,
                                               solitaire_boards + solitaire_hard + solitaire_large + solitaire_spread
                                               + solitaire_spread_large + solitaire_heavy
                                               + solitaire_threes + solitaire_light_five)) as bar:
        model = run(progress=bar.advance if bar else None)  # a bar for people, nothing for pipes and tests
    _write(output, model_text(model), MODEL_KIND, force)
    for line in lines:
        click.echo(line)
    seats = min((n for n in sorted(model.weights) if n > 1), default=1)  # a game the file has weights for
    example = ",".join([f"learned:{output}"] + ["solver"] * (seats - 1))
    click.echo(f"Parameters written to {output} (objective and strategy learned:{output}, e.g. "
               f"simulate --players {example}; docs/train.md).")


#: Options of self-play only: with --table they would be ignored silently, so they are refused.
_SELF_PLAY_ONLY = ("seed", "games", "iterations", "solitaire_boards", "solitaire_hard", "solitaire_float",
                   "solitaire_shapes", "solitaire_large", "solitaire_spread", "solitaire_spread_large", "solitaire_heavy",
                   "solitaire_threes", "solitaire_threes_seed", "solitaire_light_five", "solitaire_light_five_seed",
                   "players_text", "jobs", "scheduler", "checkpoint",
                   "board_path", "rules_path", "win_model", "self_play", "play_model", "points_exponent")


#: Options of the solitaire fit: with --win-model they would be ignored silently, so they are refused.
_SOLITAIRE_ONLY = ("solitaire_boards", "solitaire_hard", "solitaire_float", "solitaire_shapes", "solitaire_large",
                   "solitaire_spread", "solitaire_spread_large", "solitaire_heavy", "solitaire_threes",
                   "solitaire_threes_seed", "solitaire_light_five", "solitaire_light_five_seed")
#: Options --win-model would ignore silently: the solitaire fit's, and self-play's iterations,
#: player counts and checkpoint (the win model is fitted in one pass for 2-4 players).
_NOT_WIN_MODEL = _SOLITAIRE_ONLY + ("iterations", "players_text", "checkpoint")
#: Options of the win model's fit only: without --win-model they would be ignored silently.
_WIN_MODEL_ONLY = ("self_play", "play_model", "points_exponent")


def _exponent(text: str) -> Fraction:
    """``--points-exponent``'s value (:func:`win_model.points_exponent_from`, the reading of a
    model file's ``"points_exponent"``).

    Raises:
        click.BadParameter: not such a fraction (one line, exit 2)."""
    from shelfie_solver.dice.learned.win_model import points_exponent_from

    try:
        return points_exponent_from(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--points-exponent'") from None


def _refuse_self_play_options(ctx: click.Context) -> None:
    """Refuse a self-play option given with ``--table`` (the table names its own board and rules)."""
    _refuse_options(ctx, _SELF_PLAY_ONLY, "is for self-play and has no effect with --table (a value table names "
                    "its own board and rules)", "--table TABLE [--table ...] [--output FILE]")


def _refuse_options(ctx: click.Context, names: tuple[str, ...], why: str, expected: str) -> None:
    """Refuse any option of ``names`` given on the command line (one line: the option, ``why``,
    ``expected``)."""
    for param in ctx.command.params:
        if param.name in names and ctx.get_parameter_source(param.name) not in (
                None, click.core.ParameterSource.DEFAULT):
            raise click.UsageError(f"{param.opts[0]} {why}; expected {expected}")


def _write(output: str, text: str, kind: FileKind, force: bool) -> None:
    """Write ``--output`` whole, never over a file of another kind unless ``force``
    (:func:`files.replace_checked`).

    Raises:
        TrainError: the file cannot be written or holds another kind of file (one line).
    """
    try:
        replace_checked({output: (text.encode("utf-8"), kind)}, force)
    except FileWriteError as error:
        raise TrainError(str(error)) from None


def _fit_tables(tables: tuple[str, ...], output: str, force: bool = False) -> None:
    """``train --table``: the solitaire weights fitted to exact value tables (:func:`fit_solved.fit_value_tables`)."""
    import os

    from shelfie_solver.core.errors import shorten
    from shelfie_solver.dice.wholegame.values import load_table

    check_output(output, "--output", tables, MODEL_KIND, force)
    real = [os.path.realpath(path) for path in tables]
    twice = next((path for path, name in zip(tables, real) if real.count(name) > 1), None)
    if twice is not None:  # pooled twice it would weigh double in the fit
        raise click.BadParameter(f"{shorten(twice)} is given more than once; expected each value table once",
                                 param_hint="'--table'")
    model, errors = fit_value_tables([load_table(path) for path in tables])  # refuses mixed D19 thresholds
    _write(output, model_text(model), MODEL_KIND, force)
    for phase, rms in sorted(errors.items()):
        click.echo(f"value table fit, 1 player, phase {phase}: RMS error {rms:.2f} points")
    click.echo(f"Parameters written to {output} (objective and strategy learned:{output}; docs/train.md).")


def _fit_win_model(board: Any, rules: Any, seed: int, games: int, jobs: int | None, scheduler: str | None,
                   output: str, inputs: list[str | None], force: bool = False, self_play: str = "learned",
                   play_model: str | None = None, points_exponent: Fraction = Fraction(0)) -> None:
    """``train --win-model [--self-play win [--play-model FILE]] [--points-exponent E]``:
    :func:`win_fit.train_win_model` on the self-play games of ``self_play`` (``win`` by the model
    file ``play_model``, default the shipped one), its other shapes' block fitted and written with
    ``points_exponent`` (0: none; never taken from ``play_model``: that block is fitted here),
    written whole to ``output`` (not one of ``inputs``).

    Raises:
        WinModelError: ``play_model`` is not a readable win-model file (one line, exit 2).
    """
    import os

    from shelfie_solver.dice.learned.win_fit import train_win_model
    from shelfie_solver.dice.learned.win_model import WIN_KIND, load_win_model
    from shelfie_solver.dice.learned.win_model import model_text as win_text

    check_output(output, "--output", inputs, WIN_KIND, force)
    playing = load_win_model(play_model) if play_model is not None else None  # fail before any game
    model = train_win_model(board, rules, seed, games, jobs=resolve_workers(jobs, scheduler), strategy=self_play,
                            win_model=playing, played_by=os.path.basename(play_model) if play_model else "",
                            points_exponent=points_exponent)
    _write(output, win_text(model), WIN_KIND, force)
    by = f" (by {model.info['played_by']})" if self_play == "win" else ""
    sized = (f"; other shapes in each board's own points, exponent {points_exponent}" if points_exponent else "")
    click.echo(f"Win model fitted to {model.info['positions']} positions of {games} self-play games of "
               f"{self_play}{by} per number of players (2-4, seed {seed}){sized}; written to {output} "
               "(docs/train.md).")


def _parse_players(text: str) -> tuple[int, ...]:
    words = [w.strip() for w in text.split(",")]
    if not words or any(w not in {str(n) for n in PLAYER_COUNTS} for w in words):
        raise click.BadParameter(f"expected numbers of players 1-4 separated by commas (e.g. 1,2,3,4), got {text!r}",
                                 param_hint="'--players'")
    return tuple(sorted({int(w) for w in words}))
