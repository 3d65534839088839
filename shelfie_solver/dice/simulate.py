"""Many full games between strategies, and their statistics (click-free; ``shelfie-solve simulate``).

Determinism. Game ``i`` of a run with seed ``S`` is played from the ``i``-th child of
``numpy.random.SeedSequence(S).spawn(games)`` (:func:`turn.play_seeded`): its dice, its first
player (D5: drawn at random, seats do not rotate) and the random choices of every seat. Results
are gathered by game index and every statistic is summed exactly (integers and
:class:`~fractions.Fraction`), so the same seed gives identical output whatever ``jobs`` is.

Statistics, per seat, each with a 95% interval (:class:`~shelfie_solver.core.stats.Estimate`:
Wilson for the win rate, Student t for the other means; :mod:`shelfie_solver.core.stats`):

* win rate — a won game counts 1, a game shared by ``k`` winners 1/k to each (D20);
  not in solitaire (:data:`SOLITAIRE_OMITS`);
* score, and its standard deviation; points from shelves and from columns (D19);
* failed results (D13) per game;
* lines completed per game (shelves and columns the seat has all marked, D15) and lines
  blocked per game (the seat's lines that lost available items to an opponent's completed line;
  not in solitaire);
* and, for the whole game, its length in rounds (D18).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from shelfie_solver.core import stats
from shelfie_solver.core.errors import shorten
from shelfie_solver.core.stats import SimulationError, Summary
from shelfie_solver.core.tournament import MAX_GAMES, run_games
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.game.events import Block, Fail, Game
from shelfie_solver.dice.game.record import game_to_json
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.strategies import parse_players, seat_strategy, verify_seats


@dataclass(frozen=True)
class SeatResult:
    """One seat's numbers in one game (exact).

    Attributes:
        win: 1, 1/k for a k-way shared victory (D20), or 0.
        score, shelf_points, column_points: points (D19).
        fails: failed results (D13). completed: lines all marked (D15). blocked: the seat's
        lines that lost items to an opponent's completed line.
    """

    win: Fraction
    score: int
    shelf_points: int
    column_points: int
    fails: int
    completed: int
    blocked: int


@dataclass(frozen=True)
class GameResult:
    """One game's numbers: its length in rounds and every seat's :class:`SeatResult`."""

    rounds: int
    seats: tuple[SeatResult, ...]


def game_result(game: Game) -> GameResult:
    """The statistics of one finished game."""
    over = game.over
    share = Fraction(1, len(over.winners))
    seats = []
    for seat, sheet in enumerate(game.sheets):
        fails = sum(1 for e in game.events if isinstance(e, Fail) and e.player == seat)
        blocked = len({e.line for e in game.events if isinstance(e, Block) and e.player == seat})
        completed = sum(sheet.count_marked(line) == len(line) for line in game.board.lines)
        seats.append(SeatResult(share if seat in over.winners else Fraction(0), over.scores[seat],
                                over.shelf_points[seat], over.column_points[seat], fails, completed, blocked))
    return GameResult(over.rounds, tuple(seats))


#: SeatResult fields summarised per seat, with their display names.
SEAT_STATISTICS = (
    ("win", "win rate (ties shared)"),
    ("score", "score"),
    ("shelf_points", "points from shelves"),
    ("column_points", "points from columns"),
    ("fails", "failed results / game"),
    ("completed", "lines completed / game"),
    ("blocked", "lines blocked / game"),
)
#: Statistics that mean nothing for one player (nobody to beat, nobody to block): left out.
SOLITAIRE_OMITS = frozenset(("win", "blocked"))


def seat_statistics(players: int) -> tuple[tuple[str, str], ...]:
    """The :data:`SEAT_STATISTICS` reported for ``players`` seats (solitaire: without
    :data:`SOLITAIRE_OMITS`)."""
    return tuple(item for item in SEAT_STATISTICS if players > 1 or item[0] not in SOLITAIRE_OMITS)


def summarise(results: Sequence[GameResult], players: Sequence[str], seed: int) -> Summary:
    """The dice game's :class:`~shelfie_solver.core.stats.Summary` of many games: the exact
    per-seat statistics of :func:`seat_statistics` (:func:`shelfie_solver.core.stats.summarise`).

    Raises:
        SimulationError: no games.
    """
    return stats.summarise(results, players, seed, seat_statistics(len(players)))


# --- running games --------------------------------------------------------------------------


def play_chunk(board: Board, rules: Ruleset, players: tuple[str, ...], seeds: Sequence[np.random.SeedSequence],
               indices: Sequence[int], root: int, save: bool) -> list[tuple[int, GameResult, str | None]]:
    """Play the games ``indices`` (each from its own seed); a worker's unit of work.

    Returns ``(index, result, JSON line or None)`` per game.
    """
    return play_chunk_with(board, rules, players, None, seeds, indices, root, save)


def play_chunk_with(board: Board, rules: Ruleset, players: tuple[str, ...], win_model: str | None,
                    seeds: Sequence[np.random.SeedSequence], indices: Sequence[int], root: int,
                    save: bool) -> list[tuple[int, GameResult, str | None]]:
    """:func:`play_chunk` with the win strategies playing by the win-model file ``win_model``
    (``--win-model FILE``, :func:`strategies.seat_strategy`; None: the shipped model)."""
    strategies = [seat_strategy(name, win_model) for name in players]
    out = []
    for index, seed in zip(indices, seeds):
        game = play_seeded(board, rules, strategies, seed)
        line = game_to_json(game, game=index, seed=root) if save else None
        out.append((index, game_result(game), line))
    return out


def simulate(board: Board, rules: Ruleset, players: Sequence[str], games: int, seed: int | None = None,
             jobs: int = 1, save: bool = False,
             progress: Callable[[int], None] | None = None, scheduler: Any = None,
             win_model: str | None = None) -> tuple[Summary, list[str]]:
    """Play ``games`` games between ``players`` (strategy names, one per seat, 1 to 4); the win
    strategies by the win-model file ``win_model`` where one is given (``--win-model FILE``).

    Game ``i`` is played from :func:`parallel.task_seed` ``(entropy, i)``, the ``i``-th child of
    ``SeedSequence(seed)``, made when its chunk is handed out (no up-front spawn); chunks of
    games (:func:`play_chunk`) run on :func:`parallel.run_tasks` (:func:`tournament.run_games`).

    Args:
        seed: root seed (``None``: fresh entropy, reported in :attr:`Summary.seed`).
        jobs: worker processes (``concurrent.futures.ProcessPoolExecutor``, capped at the usable
            cores: :func:`parallel.worker_count`); 1 plays here.
        save: also return every game as a JSON line (:func:`record.game_to_json`), in game order.
        progress: called with the number of games just finished.
        scheduler: a dask.distributed scheduler address (``"tcp://host:8786"``) or cluster
            object; the games run there (``jobs`` is then ignored). Same output as ``jobs=1``.

    Returns:
        The :class:`Summary` and the JSON lines (empty unless ``save``).

    Raises:
        StrategyError: an unknown strategy, a bad number of players, or ``exact2:FILE`` in a game
            of other than two players.
        SimulationError: games outside 1 .. :data:`MAX_GAMES`, or jobs below 1.
        ParallelError: the dask extra missing, the scheduler unreachable, a worker died.
        Interrupted: SIGINT or SIGTERM during the run (every worker stopped first).
    """
    names = parse_players(",".join(players))
    verify_seats(names)
    if games < 1:
        raise SimulationError(f"--games must be at least 1, got {games}")
    if games > MAX_GAMES:
        raise SimulationError(f"--games must be at most {MAX_GAMES:,}, got {shorten(str(games))}")
    if jobs < 1:
        raise SimulationError(f"--jobs must be at least 1, got {jobs}")
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    exact_note(board, rules, names)  # solved here once, so the workers read it from the cache
    done = run_games(play_chunk_with, (board, rules, names, win_model), games, entropy, jobs, save, progress,
                     scheduler)
    summary = summarise([r for _, r, _ in done], names, entropy)
    return summary, [line for _, _, line in done if line is not None]


def exact_note(board: Board, rules: Ruleset, players: Sequence[str]) -> str | None:
    """The line a report adds when ``learned``, ``win`` or ``win-model`` played an exact table
    here (solved on first use, before the games, so the workers read it from the cache): alone on
    a board within the solitaire budget (:mod:`wholegame.exact_cache`), or ``win`` and
    ``win-model`` in a two-player game within the two-player budget
    (:mod:`wholegame.exact2_cache`); ``None`` otherwise (or when the solve was interrupted)."""
    words = [p.strip().lower() for p in players]
    if len(words) == 2 and any(w in ("win", "win-model") for w in words):
        return _two_player_note(board, rules, [p for p, w in zip(players, words) if w in ("win", "win-model")])
    if len(words) != 1 or words[0] not in ("learned", "win", "win-model"):
        return None
    from shelfie_solver.dice.wholegame.exact_cache import solution_for

    solution = solution_for(board, rules)
    if solution is None:
        from shelfie_solver.dice.learned.own_cache import own_table_note

        return own_table_note(board, rules, players[0])
    return (f"{players[0]} played the exact optimum here: this board's solitaire game fits the exact budget, "
            f"so its value table (optimum {float(solution.optimum):.4f}, within {solution.error_bound:.2g}) "
            "decides every turn (docs/solve-game.md, exact where it fits).")


def _two_player_note(board: Board, rules: Ruleset, names: Sequence[str]) -> str | None:
    """:func:`exact_note` of ``win`` or ``win-model`` (``names``) in a two-player game."""
    from shelfie_solver.dice.wholegame.exact2_cache import EXACT2_NAME, solution_for
    from shelfie_solver.dice.wholegame.two_player import round_up

    solution = solution_for(board, rules)
    if solution is None:
        return None
    return (f"{' and '.join(dict.fromkeys(names))} played the {EXACT2_NAME} here: this board's two-player game "
            f"fits the exact budget, so its table ({len(solution.keys):,} states; the first player's chance "
            f"{100 * solution.first_player_win_chance:.2f}% when both play it, within {round_up(solution.bound):.2g}) "
            "decides every turn (docs/solve-game.md, exact where it fits).")
