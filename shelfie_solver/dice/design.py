"""The board report for designers (``solve-game --report``, docs/solve-game.md "The board
report"): how much skill a board and ruleset reward, on one page, click-free.

* The optimal solitaire mean: exact where the board fits the exact budget
  (:mod:`wholegame.exact_cache`, solved on first use); on the default board the known value of
  the float path (:data:`KNOWN_OPTIMA`: 232.8345, docs/solve-game.md); else unknown (over the
  budget: ``solve-game --float``).
* Its distribution: a seeded simulation of the optimal policy (where the table is known) with
  95% intervals, else of ``learned`` (said so): mean, standard deviation, quantiles, a histogram
  (:func:`histogram_png`); the mean game length in rounds.
* Each strategy's solitaire mean as a share of the optimum (``random``, ``greedy``,
  ``threshold``, ``solver``, and ``learned``'s fitted weights: :data:`FITTED`).
* With 2 players: ``win`` and ``learned`` each against ``solver`` (seeded games, D5 first player
  drawn each game); the stronger one's winning share.

Every simulation is :func:`simulate.simulate`: game ``i`` from the ``i``-th child of
``SeedSequence(seed)``, the same numbers whatever the number of workers.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from shelfie_solver.core.report import Report
from shelfie_solver.core.stats import UNANIMOUS_NOTE, Estimate
from shelfie_solver.core.tournament_report import interval_text
from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.rules import Ruleset

if TYPE_CHECKING:
    from shelfie_solver.dice.wholegame.exact_cache import Route

#: Known optima of boards over the exact budget, by :func:`exact_cache.setup_key` of the default
#: board and ruleset (filled on first use): ``(optimum, proven error bound, where it comes from)``.
DEFAULT_OPTIMUM = (232.83452234000788, 6.55e-11,
                   "known: the float path's solve of the default board (docs/solve-game.md; 55 min here)")
#: Quantiles of the score distribution reported (fractions).
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: The solitaire strategies compared with the optimum; ``learned`` as fitted, never the exact table.
STRATEGIES = ("random", "greedy", "threshold", "solver", "learned (fitted)")
#: Default number of seeded games per solitaire simulation and per two-player pairing.
DEFAULT_GAMES = 500
DEFAULT_DUEL_GAMES = 200


def fitted_name() -> str:
    """The strategy name of ``learned``'s shipped weights as fitted (``learned:FILE`` of the
    shipped file: never the exact table, :meth:`strategies.LearnedStrategy.exact`)."""
    from shelfie_solver.dice.learned.model_file import DEFAULT_MODEL_PATH, FILE_PREFIX

    return f"{FILE_PREFIX}{DEFAULT_MODEL_PATH}"


@dataclass(frozen=True)
class Optimum:
    """The optimal solitaire mean: ``value`` (points, float64) within ``bound`` of the exact one,
    ``source`` in words, ``exact_table`` whether the optimal policy is available to simulate;
    ``value`` ``None`` when unknown."""

    value: float | None
    bound: float
    source: str
    exact_table: bool


@dataclass(frozen=True)
class Distribution:
    """The simulated solitaire scores of ``policy``: their ``mean`` (an :class:`Estimate`), the
    ``scores`` (``int64 (games,)``, in game order) and the game length ``rounds``."""

    policy: str
    scores: np.ndarray
    mean: Estimate
    rounds: Estimate

    def quantiles(self) -> list[tuple[float, float]]:
        """``(q, score quantile)`` for each of :data:`QUANTILES` (numpy's linear interpolation)."""
        return [(q, float(np.quantile(self.scores, q))) for q in QUANTILES]


@dataclass(frozen=True)
class BoardReport:
    """Everything ``solve-game --report`` shows (module docstring).

    Attributes:
        shares: ``(strategy label, solitaire mean)`` per :data:`STRATEGIES`.
        duels: ``(strategy, win share against solver)`` for ``win`` and ``learned`` (2 players).
    """

    board: Board
    rules: Ruleset
    optimum: Optimum
    distribution: Distribution
    shares: tuple[tuple[str, Estimate], ...]
    duels: tuple[tuple[str, Estimate], ...]
    games: int
    duel_games: int
    seed: int
    states: int
    route: str

    @property
    def stronger(self) -> tuple[str, Estimate] | None:
        """The stronger of ``win`` and ``learned`` against ``solver`` (higher win share; ties:
        ``win``)."""
        return max(self.duels, key=lambda d: d[1].mean) if self.duels else None


def optimum_of(board: Board, rules: Ruleset) -> Optimum:
    """The optimal solitaire mean (module docstring): exact within the budget (solving it on
    first use), the known value on the default board, else unknown."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.wholegame.exact_cache import route, setup_key, solution_for

    solution = solution_for(board, rules)
    if solution is not None:
        return Optimum(float(solution.optimum), solution.error_bound,
                       "exact: the board's solitaire game solved whole (float64 with a proven bound; kept in "
                       "the table cache)", True)
    if setup_key(board, rules) == setup_key(load_board(None, DEFAULT_RULES), DEFAULT_RULES):
        value, bound, source = DEFAULT_OPTIMUM
        return Optimum(value, bound, source, False)
    why = route(board, rules).reason
    return Optimum(None, 0.0, f"unknown: {why}; solve-game --float --save T.npy solves it "
                              "(then simulate --players exact:T.npy)", False)


def board_report(board: Board, rules: Ruleset, games: int = DEFAULT_GAMES, duel_games: int = DEFAULT_DUEL_GAMES,
                 seed: int = 0, jobs: int = 1) -> BoardReport:
    """The board report of ``board`` and ``rules`` (module docstring): every simulation seeded
    from ``seed``, ``games`` solitaire games per strategy and ``duel_games`` two-player games
    per pairing, on ``jobs`` workers.

    Raises:
        SimulationError: ``games`` or ``duel_games`` outside 1 .. ``MAX_GAMES``.
        Interrupted: SIGINT or SIGTERM (nothing written).
    """
    from shelfie_solver.core.stats import SimulationError
    from shelfie_solver.core.tournament import MAX_GAMES
    from shelfie_solver.dice.simulate import play_chunk, simulate, summarise
    from shelfie_solver.core.tournament import run_games
    from shelfie_solver.dice.wholegame.exact_cache import route
    from shelfie_solver.dice.wholegame.solver import state_count

    for name, count in (("--games", games), ("--duel-games", duel_games)):
        if not 1 <= count <= MAX_GAMES:
            raise SimulationError(f"{name} must be 1 to {MAX_GAMES:,}, got {count}")
    optimum = optimum_of(board, rules)
    policy = "learned" if optimum.exact_table else fitted_name()  # learned alone here: the exact table
    entropy = int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]
    done = run_games(play_chunk, (board, rules, (policy,)), games, entropy, jobs)
    results = [r for _, r, _ in done]
    summary = summarise(results, (policy,), entropy)
    label = "optimal policy" if optimum.exact_table else "learned (fitted)"
    distribution = Distribution(label, np.array([r.seats[0].score for r in results], dtype=np.int64),
                                summary.seats[0].stats["score"], summary.rounds)
    shares = []
    for shown in STRATEGIES:
        name = fitted_name() if shown == "learned (fitted)" else shown
        if name == policy:  # the same seeded games as the distribution's
            shares.append((shown, distribution.mean))
            continue
        found, _ = simulate(board, rules, [name], games, seed, jobs)
        shares.append((shown, found.seats[0].stats["score"]))
    duels = []
    for name in ("win", "learned"):
        found, _ = simulate(board, rules, [name, "solver"], duel_games, seed, jobs)
        duels.append((name, found.seats[0].stats["win"]))
    where = route_words(route(board, rules))
    return BoardReport(board, rules, optimum, distribution, tuple(shares), tuple(duels), games, duel_games, seed,
                       state_count(board, rules), where)


def route_words(fits: Route) -> str:
    """The report's "Solitaire states:" line after its label: the count, then whether it fits
    the exact budget, and why not (``Route.reason`` without the count said again)."""
    reason = fits.reason.removeprefix(f"{fits.states:,} solitaire states, ")
    return f"{fits.states:,}, " + ("within the exact budget" if fits.exact else reason)


UNSETTLED_EVEN = "a duel is not settled when its 95% interval holds 50%: these games have not shown either side stronger"
UNSETTLED_ORDER = "the stronger of the two is not settled when the two duels' 95% intervals overlap"


def _unsettled_even(e: Estimate) -> str:
    """The reason a duel's row says "not settled" (:data:`UNSETTLED_EVEN`, its win share's 95%
    interval holds 50%: the duel has not shown either side stronger, a player reads "45% won" of
    40 games as a loss otherwise), or "" when it is settled."""
    return UNSETTLED_EVEN if not math.isnan(e.low) and e.low <= 0.5 <= e.high else ""


def _unsettled_order(duels: list[Estimate]) -> str:
    """The reason the stronger-of-the-two row says "not settled" (:data:`UNSETTLED_ORDER`, the two
    duels' 95% intervals overlap, so which of ``win`` and ``learned`` is stronger is not shown by
    these games), or "" when it is settled."""
    if len(duels) == 2 and not any(math.isnan(e.low) for e in duels):
        a, b = duels
        if a.low <= b.high and b.low <= a.high:
            return UNSETTLED_ORDER
    return ""


def _share(mean: Fraction | float, optimum: float | None) -> str:
    return "" if not optimum else f"{float(mean) / optimum * 100:.1f}%"


def report(result: BoardReport, histogram: str | None = None) -> Report:
    """The page of ``solve-game --report`` (``histogram``: the PNG written, named in a note)."""
    board, rules, best = result.board, result.rules, result.optimum
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), rules)
    title = [f"Board report: {board.name!r} ({board.n_shelves} x {board.n_columns}, columns need "
             f"{', '.join(str(c) for c in board.columns)} dice, a full sheet is worth {possible} points)",
             f"Solitaire states: {result.route}",
             f"Seed {result.seed}: {result.games} solitaire games per strategy, {result.duel_games} two-player games "
             "per pairing"]
    dist = result.distribution
    quantiles = ", ".join(f"{'median' if q == 0.5 else f'{q * 100:.0f}%'} {v:g}" for q, v in dist.quantiles())
    optimum_text = "unknown" if best.value is None else f"{best.value:.4f}"
    rows: list[list[Any]] = [
        ["optimal solitaire mean", optimum_text + (f" (within {best.bound:.2g})" if best.value is not None else "")],
        [f"simulated: {dist.policy}", interval_text(dist.mean)],
        ["score standard deviation", f"{dist.mean.sd:.2f}"],
        ["score quantiles", quantiles],
        ["mean game length", f"{interval_text(dist.rounds)} rounds"],
    ]
    for label, mean in result.shares:
        share = _share(mean.mean, best.value)
        rows.append([f"solitaire: {label}", interval_text(mean) + (f", {share} of optimum" if share else "")])
    unsettled: list[str] = []  # the reasons, in a note under the table (rows stay within 80 columns)
    for name, win in result.duels:
        reason = _unsettled_even(win)
        rows.append([f"2 players: {name} vs solver",
                     f"{interval_text(win, as_percent=True)} won" + (" (not settled)" if reason else "")])
        if reason and reason not in unsettled:
            unsettled.append(reason)
    stronger = result.stronger
    if stronger is not None:
        reason = _unsettled_order([win for _, win in result.duels])
        rows.append(["stronger of win and learned", f"{stronger[0]}: {interval_text(stronger[1], as_percent=True)} won"
                     + (" (not settled)" if reason else "")])
        if reason:
            unsettled.append(reason)
    greedy = dict(result.shares).get("greedy")
    top = best.value if best.value is not None else float(dist.mean.mean)
    if greedy is not None and top > 0:
        rows.append(["skill gap (optimum - greedy)",
                     f"{top - float(greedy.mean):.2f} points ({(top - float(greedy.mean)) / top * 100:.1f}% "
                     f"of {'optimum' if best.value is not None else 'learned'})"])
    data = _report_data(result, possible, histogram)
    notes = [f"Optimal solitaire mean: {best.source}.",
             "[low, high]: 95% intervals (means: Student t over games; win shares: Wilson). Solitaire: one "
             "player, the game ends after the turn that closes the trigger's shelves (D17, D18), final score D19. "
             "Two players: won = share of the games won, ties shared (D20); the first player drawn each game "
             "(D5), seats do not rotate.",
             *([f"Not settled: {'; '.join(unsettled)} (more --duel-games narrows them)."] if unsettled else []),
             "learned (fitted): the shipped weights as fitted; alone on a board within the exact budget, "
             "learned itself plays the optimal policy (docs/solve-game.md, exact where it fits)."]
    if any(e.unanimous for e in (dist.mean, dist.rounds, *(mean for _, mean in result.shares))):
        notes.insert(2, UNANIMOUS_NOTE[0].upper() + UNANIMOUS_NOTE[1:])
    if possible == 0:  # lines all too short, or worth nothing: no figure above can differ from another
        threshold = rules.scoring_threshold
        why = (f"a line scores only with at least {threshold} marked items (D19), and its shelves have "
               f"{board.n_columns} items, its columns {board.n_shelves}"
               if max(board.n_columns, board.n_shelves) < threshold else
               "the lines a full sheet scores are worth 0 (D19: the sum of their items' values)")
        notes.append(f"Nothing can score on this board: {why}; so a full sheet is worth 0 points and every "
                     "strategy ties at 0.")
    if histogram:
        notes.append(f"Wrote {histogram} (histogram of the {result.games} simulated scores of {dist.policy}).")
    if not best.exact_table:
        notes.append("The score distribution is learned's (fitted weights), not the optimal policy's: the optimal "
                     "policy is not solved on this board (over the exact budget).")
    return Report(title, ["", "value"], rows, data, notes)


def _report_data(result: BoardReport, possible: int, histogram: str | None) -> dict[str, Any]:
    """The JSON form of :func:`report` (``possible``: a full sheet's points)."""
    stronger = result.stronger
    return {
        "board": result.board.name, "states": result.states, "seed": result.seed, "games": result.games,
        "duel_games": result.duel_games, "possible": possible, "route": result.route,
        "optimum": result.optimum.value, "optimum_bound": result.optimum.bound, "optimum_source": result.optimum.source,
        "optimum_policy_simulated": result.optimum.exact_table,
        "distribution": {"policy": result.distribution.policy, **_estimate(result.distribution.mean),
                         "quantiles": {f"{q:g}": v for q, v in result.distribution.quantiles()}},
        "rounds": _estimate(result.distribution.rounds),
        "strategies": [{"strategy": label, **_estimate(mean),
                        "share_of_optimum": None if not result.optimum.value else float(mean.mean) / result.optimum.value}
                       for label, mean in result.shares],
        "two_players": [{"strategy": name, "against": "solver", **_estimate(win)} for name, win in result.duels],
        "stronger": None if stronger is None else stronger[0],
        "histogram": histogram,
    }


def _estimate(e: Estimate) -> dict[str, Any]:
    # no interval for one game, or where every game gave one value: then how rare another is (core/stats)
    return {"mean": float(e.mean), "sd": e.sd, "ci95": None if math.isnan(e.low) else [e.low, e.high],
            **({"others_at_most": e.others_at_most} if e.unanimous else {})}


def histogram_png(result: BoardReport) -> bytes:
    """The simulated scores of :attr:`BoardReport.distribution` as a PNG histogram (one bar per
    score band), the optimum and the mean marked. Deterministic for a matplotlib version
    (default style, Agg canvas, no software metadata)."""
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    dist, best = result.distribution, result.optimum
    scores = dist.scores
    low, high = (int(scores.min()), int(scores.max())) if len(scores) else (0, 0)
    bins = max(1, min(40, high - low + 1))
    with matplotlib.style.context("default"):
        fig = Figure(figsize=(7, 3.4), dpi=110)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.hist(scores, bins=bins, range=(low - 0.5, high + 0.5), color="#1f77b4", alpha=0.8)
        ax.axvline(float(dist.mean.mean), color="#000000", linewidth=1, label=f"mean {float(dist.mean.mean):.2f}")
        if best.value is not None:
            ax.axvline(best.value, color="#d62728", linestyle="--", linewidth=1, label=f"optimum {best.value:.2f}")
        ax.set_xlabel("final score (points, D19)")
        ax.set_ylabel("games")
        ax.set_title(f"{result.board.name}: {len(scores)} solitaire games of {dist.policy}", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        out = io.BytesIO()
        fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()
