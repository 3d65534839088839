"""``shelfie-solve simulate``: play many games between strategies and compare them (docs/simulate.md)."""

from __future__ import annotations

import math
import sys
from typing import Any

import click

from shelfie_solver.core.parallel import signals_raise
from shelfie_solver.core.report import TABLE_WIDTH, Report, exact, render
from shelfie_solver.core.stats import Estimate, Summary
from shelfie_solver.core.tournament import MAX_GAMES
from shelfie_solver.dice.simulate import seat_statistics, simulate
from shelfie_solver.dice.strategies import STRATEGIES, parse_players
from shelfie_solver.cli.estimates import estimate_data, interval_text, seat_label
from shelfie_solver.cli.options import (board_option, force_option, format_option, games_option, jobs_option,
                                        load_setup, prepare_run, rules_option, save_option, scheduler_option,
                                        seed_option, player_files)


@click.command("simulate", short_help="Play many games to compare strategies.")
@click.option("--players", "players_text", required=True, metavar="S1,S2,...",
              help=f"One strategy per seat, 1 to 4, comma-separated: {', '.join(STRATEGIES)} "
                   "(docs/strategies.md), or exact:FILE (a solve-game value table). A name may appear more than once.")
@games_option(500, MAX_GAMES)
@seed_option
@jobs_option
@scheduler_option
@board_option
@rules_option
@save_option
@format_option
@force_option
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
    from shelfie_solver.dice.game.record import SAVED_GAMES_KIND

    seed, workers = prepare_run(save_path, seed, jobs, scheduler,
                                inputs=[board_path, rules_path, *player_files(players_text)],
                                kinds=SAVED_GAMES_KIND, force=force)
    save = save_path is not None
    with signals_raise():  # Ctrl-C / SIGTERM: workers stopped, temporary file removed, one line
        if sys.stderr.isatty():  # a progress bar for people, nothing for pipes and tests
            with click.progressbar(length=games, label="Playing", file=sys.stderr, show_pos=True) as bar:
                summary, lines = simulate(board, rules, players, games, seed, workers, save=save,
                                          progress=bar.update, scheduler=scheduler)
        else:
            summary, lines = simulate(board, rules, players, games, seed, workers, save=save, scheduler=scheduler)
        if save_path is not None:
            from shelfie_solver.dice.game.record import save_games

            save_games(save_path, lines, force)
    report = summary_report(summary, board.name, saved=save_path, long_form=fmt == "csv")
    click.echo(render(report, fmt, width=TABLE_WIDTH), nl=False)


def _signed_ci(e: Estimate) -> str:
    return "[one game: no interval]" if math.isnan(e.low) else f"[{e.low:+.2f}, {e.high:+.2f}]"


def summary_report(summary: Summary, board_name: str, saved: str | None = None, long_form: bool = False) -> Report:
    """The report of ``shelfie-solve simulate``: one column per seat (table, Markdown, JSON), or
    with ``long_form`` one row per seat and statistic, numbers only (CSV: seat, strategy,
    statistic, mean, ci_low, ci_high, sd, games). Rendered at a width, a table too wide for it
    is split into tables of as many seats as fit, each led by the statistic column."""
    seats = summary.seats
    leader = seats[summary.leader]
    title = [(f"{summary.games} game{'s' if summary.games != 1 else ''} of {', '.join(summary.players)} "
              f"on board {board_name!r}, seed {summary.seed}"),
             f"Game length: {interval_text(summary.rounds)} rounds (95% interval)"]
    for margin in summary.margins:
        win, points = margin.win, margin.score
        title.append(f"{seat_label(summary, margin.leader)} vs {seat_label(summary, margin.other)}: "
                     f"win rate {float(win.mean) * 100:+.1f} percentage points "
                     f"[{win.low * 100:+.1f}, {win.high * 100:+.1f}], "
                     f"score {float(points.mean):+.2f} {_signed_ci(points)} per game")
    if len(seats) > 1:
        title.insert(2, f"Leader: {seat_label(summary, summary.leader)}, "
                        f"win rate {interval_text(leader.stats['win'], as_percent=True)}")
    headers = ["statistic"] + [seat_label(summary, s.seat) for s in seats]
    rows: list[list[Any]] = []
    for key, label in seat_statistics(len(seats)):
        rows.append([label] + [interval_text(s.stats[key], as_percent=key == "win") for s in seats])
        if key == "score":
            rows.append(["score standard deviation"] + [f"{s.stats['score'].sd:.2f}" for s in seats])
    data: dict[str, Any] = {
        "games": summary.games,
        "players": list(summary.players),
        "seed": summary.seed,
        "board": board_name,
        "rounds": estimate_data(summary.rounds),
        "leader": summary.leader + 1,
        "seats": [{"seat": s.seat + 1, "strategy": s.strategy,
                   **{key: estimate_data(s.stats[key]) for key, _ in seat_statistics(len(seats))}} for s in seats],
        "margins": [{"leader": m.leader + 1, "other": m.other + 1, "score": estimate_data(m.score),
                     "win": estimate_data(m.win)} for m in summary.margins],
    }
    notes = [("[low, high]: 95% interval (win rate: Wilson score interval; other means: Student t over "
              "games). Win rate: a k-way tie gives each winner 1/k (D20). First player drawn at random "
              "each game (D5); seats do not rotate."),
             "Lines blocked: this seat's lines that lost items to an opponent's completed line (D15)."]
    if len(seats) == 1:
        notes = ["[low, high]: 95% interval (Student t over games).", "Solitaire: no win rate, no lines blocked."]
    if saved:
        notes.append(f"Games saved to {saved} (JSON Lines, replayable).")
    split = [[headers[0]], *([h] for h in headers[1:])]  # at 80 columns: as many seats a table as fit
    if long_form:
        headers, rows = _long_rows(summary)
    return Report(title, headers, rows, data, notes, split=split)


def _ci(e: Estimate) -> tuple[float | str, float | str]:
    """The interval's ends for CSV: empty cells when there is none (one game)."""
    return ("", "") if math.isnan(e.low) else (e.low, e.high)


def _long_rows(summary: Summary) -> tuple[list[str], list[list[Any]]]:
    headers = ["seat", "strategy", "statistic", "mean", "mean_exact", "ci_low", "ci_high", "sd", "games"]
    rows: list[list[Any]] = []
    for s in summary.seats:
        for key, _ in seat_statistics(len(summary.seats)):
            e = s.stats[key]
            rows.append([s.seat + 1, s.strategy, key, float(e.mean), exact(e.mean), *_ci(e), e.sd, e.n])
    e = summary.rounds
    rows.append(["", "", "rounds", float(e.mean), exact(e.mean), *_ci(e), e.sd, e.n])
    for m in summary.margins:  # pairwise: leader's seat minus the other's, per game
        for key, e in (("win_margin", m.win), ("score_margin", m.score)):
            rows.append([f"{m.leader + 1}-{m.other + 1}", "", key, float(e.mean), exact(e.mean), *_ci(e), e.sd, e.n])
    return headers, rows
