"""Seeded tournaments on the default board: the ``learned`` strategy against today's ``solver``
(2, 3 and 4 players: one ``learned`` seat against ``solver`` seats) and solitaire mean scores of
both, with 95% intervals (docs/strategies.md, "learned against solver"). A measurement, not a test.

Run: ``python benchmarks/tournament_learned.py [--games2 N] [--games3 N] [--games4 N]
[--games1 N] [--seed S] [--jobs J]``. Prints Markdown table rows and the CPU time used.
"""

from __future__ import annotations

import argparse
import platform
import time

from collections.abc import Iterator

from shelfie_solver.core.stats import Estimate, Summary
from shelfie_solver.dice.board import Board, load_board
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset
from shelfie_solver.dice.simulate import simulate


def interval(e: Estimate, percent: bool = False) -> str:
    if percent:
        return f"{float(e.mean) * 100:.1f}% [{e.low * 100:.1f}, {e.high * 100:.1f}]"
    return f"{float(e.mean):.1f} [{e.low:.1f}, {e.high:.1f}]"


def arguments(doc: str | None, games: dict[int, int], seed: int, win_model: bool = False) -> argparse.Namespace:
    """The options of a tournament script: ``--gamesN`` per player count (``games``: defaults),
    ``--seed`` and ``--jobs``; with ``win_model``, ``--win-model FILE`` (the model ``win`` plays
    by; default the shipped one)."""
    parser = argparse.ArgumentParser(description=doc)
    for n, default in games.items():
        parser.add_argument(f"--games{n}", type=int, default=default)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--jobs", type=int, default=2)
    if win_model:
        parser.add_argument("--win-model", default=None, help="a win-model file (default: the shipped one)")
    return parser.parse_args()


def one_against_field(board: Board, rules: Ruleset, challenger: str, field: str, args: argparse.Namespace
                      ) -> Iterator[tuple[int, list[str], int, Summary, float]]:
    """For 2, 3 and 4 players with ``--gamesN`` above 0: one ``challenger`` seat against
    ``field`` seats, simulated with ``--seed`` and ``--jobs``; yields (players, seats, games,
    summary, seconds)."""
    for n in (2, 3, 4):
        games = getattr(args, f"games{n}")
        if games < 1:
            continue
        seats = [challenger] + [field] * (n - 1)
        start = time.time()
        summary, _ = simulate(board, rules, seats, games, args.seed, args.jobs)
        yield n, seats, games, summary, time.time() - start


def main() -> None:
    args = arguments(__doc__, {1: 500, 2: 1000, 3: 500, 4: 500}, 2026)
    rules = DEFAULT_RULES
    board = load_board(None, rules)
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"--jobs {args.jobs}, seed {args.seed}")
    print("| players | seats | games | learned win rate (fair share) | learned score | solver score (mean seat) "
          "| score margin learned - solver | rounds |")
    print("|---|---|---|---|---|---|---|---|")
    for n, seats, games, summary, seconds in one_against_field(board, rules, "learned", "solver", args):
        learned = summary.seats[0].stats
        solver_mean = sum(float(s.stats["score"].mean) for s in summary.seats[1:]) / (n - 1)
        margin = next((m for m in summary.margins if {m.leader, m.other} == {0, 1}), None) if n == 2 else None
        sign = 1 if margin is None or margin.leader == 0 else -1
        margin_text = f"{float(learned['score'].mean) - solver_mean:+.1f}" if margin is None else (
            f"{sign * float(margin.score.mean):+.1f} [{min(sign * margin.score.low, sign * margin.score.high):+.1f}, "
            f"{max(sign * margin.score.low, sign * margin.score.high):+.1f}]")
        print(f"| {n} | {','.join(seats)} | {games} | {interval(learned['win'], True)} ({100 / n:.1f}%) "
              f"| {interval(learned['score'])} | {solver_mean:.1f} | {margin_text} "
              f"| {interval(summary.rounds)} | <!-- {seconds:.0f} s -->", flush=True)
    for name in ("learned", "solver"):
        games = args.games1
        if games < 1:
            continue
        start = time.time()
        summary, _ = simulate(board, rules, [name], games, args.seed, args.jobs)
        stats = summary.seats[0].stats
        print(f"| 1 | {name} | {games} | | {interval(stats['score'])} | | | {interval(summary.rounds)} "
              f"| <!-- {time.time() - start:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
