"""``shelfie-solve rollout``: the chance to win of a kept game's position and of its top choices,
by playing the rest of the game out many times (docs/rollout.md)."""

from __future__ import annotations

import click

from shelfie_solver.cli.options import WholeNumber

from shelfie_solver.cli.options import (format_option, jobs_option, prepare_run, refuse_win_model, scheduler_option,
                                        seed_option, win_model_option, win_model_path)
from shelfie_solver.core.compiled import import_numba
from shelfie_solver.core.progress import progress_bar
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.dice.rollout.run import DEFAULT_POLICY, MAX_ROLLOUT_GAMES
from shelfie_solver.dice.strategies import STRATEGIES


#: Written to standard error when numba (the ``[fast]`` extra) is missing: the play-outs then run
#: on the numpy path, many times slower (docs/rollout.md, "Speed").
NO_NUMBA_NOTE = ("note: numba (the [fast] extra) is not installed, so the play-outs run on the numpy path, "
                 "many times slower; install it with pip install '.[fast]' in the clone (docs/rollout.md, \"Speed\")")


@click.command("rollout", short_help="Play the rest of a game out many times: the chance to win of each choice.")
@click.argument("game", metavar="GAME")
@click.option("--policy", "--objective", "policy", default=DEFAULT_POLICY, show_default=True, metavar="S[,S...]",
              help=f"The strategy of every seat, or one per seat comma-separated: {', '.join(STRATEGIES)}, "
                   "exact:FILE, exact2:FILE (two players) or learned:FILE (as simulate --players, docs/strategies.md). The top choices "
                   "are the advice of the mover's strategy.")
@click.option("--games", type=WholeNumber(1, MAX_ROLLOUT_GAMES), default=1000, show_default=True, metavar="N",
              help=f"Games to play at most (1 to {MAX_ROLLOUT_GAMES:,}); fewer when the order of the choices is "
                   "settled early.")
@click.option("--top", type=WholeNumber(0, 50), default=3, show_default=True, metavar="N",
              help="How many of the advice's best choices (holds, markings or shelves) to roll out; 0: the "
                   "position only.")
@click.option("--early-stop/--no-early-stop", default=True, show_default=True,
              help="Stop once the order of the choices is settled (docs/rollout.md).")
@seed_option
@jobs_option
@scheduler_option
@format_option
@win_model_option
def rollout_command(game: str, policy: str, games: int, top: int, early_stop: bool, seed: int | None,
                    jobs: int | None, scheduler: str | None, fmt: str) -> None:
    """Roll out the current position of GAME (a game file of play): the rest of the game played out
    many times with the policy in every seat, giving every seat's chance to win from the position
    and from each of the advice's top choices, with 95% intervals. The choices are played on the
    same dice game by game (common random numbers), so their differences are sharper than their
    chances.

    \b
    Examples:
      shelfie-solve rollout game.json
      shelfie-solve rollout game.json --games 5000 --top 5 --seed 7
      shelfie-solve rollout game.json --policy win,learned --format json
    """
    from shelfie_solver.dice.play.gamefile import read_kept_game
    from shelfie_solver.dice.rollout.report import rollout_report
    from shelfie_solver.dice.rollout.run import advice_objective_name, check_rollout, rollout, seat_policies
    from shelfie_solver.dice.strategies import WIN_MODEL_STRATEGIES

    kept = read_kept_game(game)
    check_rollout(kept, games)
    policies = seat_policies(policy, len(kept.players))
    if not any(p.strip().lower() in WIN_MODEL_STRATEGIES for p in policies) and \
            advice_objective_name(policies[kept.active]).lower() not in ("win", "win-model"):
        refuse_win_model(f"no seat plays {', '.join(WIN_MODEL_STRATEGIES)} and the advice is not the chance to win")
    seed, workers = prepare_run(None, seed, jobs, scheduler)
    if import_numba() is None:  # the README's first install has no [fast]: say why it is slow
        click.echo(NO_NUMBA_NOTE, err=True)
    with progress_bar("Rolling out", games) as bar:
        result = rollout(kept, policies, games, seed, top, workers, scheduler, early_stop,
                         progress=bar.advance if bar else None, win_model=win_model_path())
    click.echo(render(rollout_report(kept, result, game), fmt, width=TABLE_WIDTH), nl=False)
