"""``shelfie-solve simulate``: play many games between strategies and compare them (docs/simulate.md)."""

from __future__ import annotations


import click

from shelfie_solver.core.parallel import signals_raise
from shelfie_solver.core.progress import progress_bar
from shelfie_solver.core.report import TABLE_WIDTH, render
from shelfie_solver.core.tournament import MAX_GAMES
from shelfie_solver.dice.simulate import simulate
from shelfie_solver.dice.simulate_report import summary_report
from shelfie_solver.dice.simulate import exact_note
from shelfie_solver.dice.strategies import STRATEGIES, parse_players
from shelfie_solver.cli.options import (board_option, force_option, format_option, games_option, jobs_option,
                                        load_setup, prepare_run, rules_option, save_option, scheduler_option,
                                        seed_option, player_files, refuse_win_model, note_win_model, win_model_option,
                                        win_model_path)


@click.command("simulate", short_help="Play many games to compare strategies.")
@click.option("--players", "players_text", required=True, metavar="S1,S2,...",
              help=f"One strategy per seat, 1 to 4, comma-separated: {', '.join(STRATEGIES)} "
                   "(docs/strategies.md), exact:FILE (a solve-game value table), exact2:FILE (a solve-game --players 2 "
                   "table, two seats) or learned:FILE (weights written by train). A name may appear more than once.")
@games_option(500, MAX_GAMES)
@seed_option
@jobs_option
@scheduler_option
@board_option
@rules_option
@save_option
@format_option
@force_option
@win_model_option
def simulate_command(players_text: str, games: int, seed: int | None, jobs: int | None, scheduler: str | None,
                     board_path: str | None, rules_path: str | None, save_path: str | None, fmt: str,
                     force: bool) -> None:
    """Play many games between strategies: win rates, scores and more, with 95% intervals.

    \b
    Examples:
      shelfie-solve simulate --players solver,greedy --games 200 --seed 1
      shelfie-solve simulate --players solver,greedy,threshold --games 2000
      shelfie-solve simulate --players threshold --games 100 --save games.jsonl --format json
      shelfie-solve simulate --players solver,greedy --games 5000 --scheduler tcp://host:8786

    Ctrl-C or SIGTERM stops every worker at once: one line, exit 130 / 143, nothing saved.
    """
    rules, board, _ = load_setup(rules_path, board_path, None)
    players = parse_players(players_text)
    from shelfie_solver.dice.strategies import WIN_MODEL_STRATEGIES

    if len(players) < 2 or not any(p.strip().lower() in WIN_MODEL_STRATEGIES for p in players):
        refuse_win_model(f"it is the model of {', '.join(WIN_MODEL_STRATEGIES)} in a game of 2-4 players")
    from shelfie_solver.dice.game.record import SAVED_GAMES_KIND

    seed, workers = prepare_run(save_path, seed, jobs, scheduler,
                                inputs=[board_path, rules_path, *player_files(players_text)],
                                kinds=SAVED_GAMES_KIND, force=force)
    save = save_path is not None
    with signals_raise():  # Ctrl-C / SIGTERM: workers stopped, temporary file removed, one line
        # a first-use solve with its own bar, before the games'; none with --win-model: the win
        # strategies then play by the file, never by an exact two-player table (strategies.seat_strategy)
        exact = exact_note(board, rules, players) if win_model_path() is None else None
        with progress_bar("Playing", games) as bar:  # a bar for people, nothing for pipes and tests
            summary, lines = simulate(board, rules, players, games, seed, workers, save=save,
                                      progress=bar.advance if bar else None, scheduler=scheduler,
                                      win_model=win_model_path())
        if save_path is not None:
            from shelfie_solver.dice.game.record import save_games

            save_games(save_path, lines, force)
    report = summary_report(summary, board.name, saved=save_path, long_form=fmt == "csv")
    if exact is not None:
        report.notes.append(exact)
    note_win_model(report, "the win strategies played by it (never by an exact two-player table)")
    click.echo(render(report, fmt, width=TABLE_WIDTH), nl=False)
