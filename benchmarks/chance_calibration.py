"""Is the chance to win that every screen shows one probability of one position? Measured on
seeded ``win`` self-play on the default board, 2, 3 and 4 players (docs/win-chance.md).

For every turn start of every game (after the first turn), the figure ``play status`` shows
there for every seat is :func:`play.chances.after_turn_chances` of the turn that just ended (the
value the mover's advice gave the marking made, the others sharing the rest). Against the
game's outcome (D20 shares) it gives a reliability table by decile of the shown chance, for the
seat that just moved, the seat about to roll, and the others, separately per number of
players, with Brier scores. And the *hand-off*: the chance of the seat about to roll as shown,
against that seat's own value of the same position before it rolls
(:func:`play.chances.seat_chances`, the one-turn engine under its objective) — one probability
of one position makes them equal; the mean signed and absolute gap say how far apart they are.

A measurement, not a test. Run:
``python benchmarks/chance_calibration.py [--games 2:200,3:120,4:80] [--seed 7] [--jobs 2]
[--markdown FILE] [--plot PNG] [--win-model FILE]``. Each game's dice and choices come from ``SeedSequence(seed).spawn``, one
child per game, so results do not depend on ``--jobs``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.rules import DEFAULT_RULES
from chance_vs_rollout import use_win_model

ROLES = ("just moved", "to roll", "other")


@dataclass(frozen=True)
class Row:
    """One seat at one turn start: players, role, the shown chance, its exactness, the outcome
    share (D20) and, for the seat to roll, its own value of the position (else NaN)."""

    players: int
    game: int
    role: str
    shown: float
    exact: bool
    outcome: float
    own: float
    # the diagnosis (--dump): the turn's round (1-based), this seat's and the mover's place in the
    # round (0-based, D5), the joint model's raw figure of this seat right after the mover's turn
    # (one softmax over the seats, the mover's sheet as marked), and the roller's view of this
    # seat (the roller's start value for itself, the others sharing the rest; NaN with 2 players)
    round: int = 0
    place: int = 0
    mover_place: int = 0
    model: float = float("nan")
    view: float = float("nan")


def game_rows(task: tuple[int, np.random.SeedSequence, int]) -> list[Row]:
    """Play one ``win`` self-play game of ``players`` seats from ``seed`` and measure it."""
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, win_objective
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.play import chances as chances_module
    from shelfie_solver.dice.play.chances import after_turn_chances
    from shelfie_solver.dice.strategies import strategy_named
    from shelfie_solver.dice.win_chance import share

    players, seed, index = task
    _memo_seat_chances(chances_module)
    board = load_board(None)
    game = play_seeded(board, DEFAULT_RULES, [strategy_named("win")] * players, seed)
    finals = game.scores
    outcome = [float(share(finals[j], [s for i, s in enumerate(finals) if i != j])) for j in range(players)]
    played = game.played_turns()
    rows: list[Row] = []
    for (before, action), (now, _) in zip(played, played[1:]):
        shown = after_turn_chances(before, action, now)
        view = chances_module.seat_chances(now)  # memoised: the same call after_turn_chances made
        own = float(view[now.active][0])
        mover = before.active
        every = win_objective(replace(now, active=mover)).every_chance(StateArrays(board, now.rules, now.sheets[mover]))
        order = [mover] + [j for j in range(players) if j != mover]
        model = {j: int(v) / CHANCE_SCALE for j, v in zip(order, every)}
        for j, (chance, exact) in enumerate(shown):
            role = "just moved" if j == before.active else "to roll" if j == now.active else "other"
            rows.append(Row(players, index, role, float(chance), exact, outcome[j], own if role == "to roll" else float("nan"),
                            before.round, before.place(j), before.place(mover), model[j],
                            float(view[j][0]) if players > 2 else float("nan")))
    return rows


def _memo_seat_chances(module: object) -> None:
    """Make ``module.seat_chances`` remember its last answer (keyed by the state object and
    arguments), so that the roller's view :func:`play.chances.after_turn_chances` computes is not
    computed again for the hand-off here; the figures are the library's, unchanged."""
    original = getattr(module, "seat_chances")
    if getattr(original, "_memo", False):
        return
    last: list[object] = [None, None]

    def seat_chances(state, dice=None, rerolls_left=0):  # type: ignore[no-untyped-def]
        if dice is not None or rerolls_left:
            return original(state, dice, rerolls_left)
        if last[0] is not state:
            last[0], last[1] = state, original(state)
        return list(last[1])  # type: ignore[call-overload]

    seat_chances._memo = True  # type: ignore[attr-defined]
    setattr(module, "seat_chances", seat_chances)


def reliability(rows: list[Row], resamples: int = 400) -> list[tuple[str, int, float, float, float, float]]:
    """``(decile, positions, mean shown, observed share, low, high)`` for the rows' shown
    chances; ``low``/``high``: a 95% interval of observed minus shown from a bootstrap over whole
    games (positions of one game are not independent), seeded."""
    shown = np.array([r.shown for r in rows])
    won = np.array([r.outcome for r in rows])
    game = np.array([r.game for r in rows])
    ids = np.unique(game)
    rng = np.random.default_rng(0)
    picks = [rng.choice(ids, size=len(ids)) for _ in range(resamples)]
    members = {g: np.flatnonzero(game == g) for g in ids}
    out = []
    for d in range(10):
        inside = (shown >= d / 10) & ((shown < (d + 1) / 10) if d < 9 else (shown <= 1))
        if not inside.any():
            continue
        gaps = []
        for pick in picks:
            chosen = np.concatenate([members[g] for g in pick])
            chosen = chosen[inside[chosen]]
            if len(chosen):
                gaps.append(won[chosen].mean() - shown[chosen].mean())
        low, high = np.quantile(gaps, [0.025, 0.975]) if gaps else (float("nan"), float("nan"))
        out.append((f"{d * 10}-{d * 10 + 10}%", int(inside.sum()), float(shown[inside].mean()),
                    float(won[inside].mean()), float(low), float(high)))
    return out


def markdown(rows: list[Row], games: dict[int, int], seed: int, seconds: float, model: str = "shipped") -> str:
    """The report: per number of players, a Brier line and a reliability table per role, then
    the hand-off gaps; ``model`` names the win-model file."""
    lines = [f"Win model {model}; seed {seed}; games {', '.join(f'{n} players: {g}' for n, g in games.items())}; "
             f"{len(rows)} seat-positions; {seconds:.0f} s on {platform.machine()}, {os.cpu_count()} cores.", ""]
    for n in games:
        lines += [f"### {n} players", "", "| role | positions | exact | Brier | worst decile gap | deciles off beyond their interval |",
                  "|---|---|---|---|---|---|"]
        tables = []
        for role in ROLES:
            mine = [r for r in rows if r.players == n and r.role == role]
            if not mine:
                continue
            brier = float(np.mean([(r.shown - r.outcome) ** 2 for r in mine]))
            table = reliability(mine)
            worst = max((abs(s - w) for _, count, s, w, _, _ in table if count >= 30), default=float("nan"))
            outside = sum(1 for _, _, _, _, low, high in table if not low <= 0 <= high)
            exact = sum(r.exact for r in mine)
            lines.append(f"| {role} | {len(mine)} | {exact} | {brier:.3f} | {worst * 100:.1f} points | {outside} of {len(table)} |")
            tables.append((role, table))
        lines.append("")
        for role, table in tables:
            lines += [f"{n} players, {role}:", "", "| decile | positions | mean shown | observed | observed - shown, 95% |",
                      "|---|---|---|---|---|"]
            lines += [f"| {d} | {c} | {s * 100:.1f}% | {w * 100:.1f}% | [{lo * 100:+.1f}, {hi * 100:+.1f}] |"
                      for d, c, s, w, lo, hi in table]
            lines.append("")
        handoff = [r for r in rows if r.players == n and r.role == "to roll" and not r.exact]
        if handoff:
            gap = np.array([r.own - r.shown for r in handoff])
            lines += [f"Hand-off, {n} players ({len(handoff)} model positions): own value minus shown, mean "
                      f"{gap.mean() * 100:+.2f} points (95% interval ±{1.96 * gap.std(ddof=1) / np.sqrt(len(gap)) * 100:.2f}), "
                      f"mean absolute {np.abs(gap).mean() * 100:.2f}, 95th percentile {np.quantile(np.abs(gap), 0.95) * 100:.2f}; "
                      f"Brier of the own value {np.mean([(r.own - r.outcome) ** 2 for r in handoff]):.3f}, of the shown "
                      f"{np.mean([(r.shown - r.outcome) ** 2 for r in handoff]):.3f}.", ""]
    return "\n".join(lines)


def plot(rows: list[Row], games: dict[int, int], path: str) -> None:
    """A reliability diagram per number of players, one line per role, written whole to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(games), figsize=(4 * len(games), 4), sharey=True)
    for ax, n in zip(np.atleast_1d(axes), games):
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
        for role in ROLES:
            table = reliability([r for r in rows if r.players == n and r.role == role])
            if table:
                ax.plot([t[2] for t in table], [t[3] for t in table], marker="o", label=role)
        ax.set_title(f"{n} players")
        ax.set_xlabel("chance shown")
        ax.legend(loc="upper left", fontsize=8)
    np.atleast_1d(axes)[0].set_ylabel("share of games won (D20)")
    fig.tight_layout()
    fig.savefig(path + ".tmp.png", dpi=100)
    os.replace(path + ".tmp.png", path)


def dump(rows: list[Row], path: str) -> None:
    """Every row's fields as arrays of one ``.npz`` (``role`` as 0 just moved, 1 to roll, 2 other),
    written whole to ``path``."""
    fields = {name: np.array([getattr(r, name) for r in rows]) for name in
              ("players", "game", "shown", "exact", "outcome", "own", "round", "place", "mover_place", "model", "view")}
    fields["role"] = np.array([ROLES.index(r.role) for r in rows], dtype=np.int8)
    with open(path + ".tmp", "wb") as out:
        np.savez_compressed(out, **fields)
    os.replace(path + ".tmp", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="2:200,3:120,4:80", help="players:games, comma separated")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown", default=None, help="also write the report to this file")
    parser.add_argument("--plot", default=None, help="write the reliability diagrams to this PNG")
    parser.add_argument("--dump", default=None, help="also write every seat-position (shown, role, outcome, round, "
                        "places, the model's raw figure, the roller's view) to this .npz, for the diagnosis")
    parser.add_argument("--win-model", default=None, help="a win-model file win plays and shows its chance by "
                        "(default: the shipped one)")
    args = parser.parse_args()
    use_win_model(args.win_model)  # before the worker processes start (forked: they inherit it)
    games = {int(n): int(g) for n, g in (part.split(":") for part in args.games.split(","))}
    roots = np.random.SeedSequence(args.seed).spawn(len(games))
    tasks = [(n, child, i) for (n, g), root in zip(games.items(), roots) for i, child in enumerate(root.spawn(g))]
    start = time.perf_counter()
    rows: list[Row] = []
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            for found in pool.map(game_rows, tasks, chunksize=4):
                rows += found
    else:
        for task in tasks:
            rows += game_rows(task)
    text = markdown(rows, games, args.seed, time.perf_counter() - start, args.win_model or "shipped")
    print(text)
    if args.plot:
        plot(rows, games, args.plot)
    if args.dump:
        dump(rows, args.dump)
    if args.markdown:
        with open(args.markdown + ".tmp", "w") as out:
            out.write(text + "\n")
        os.replace(args.markdown + ".tmp", args.markdown)


if __name__ == "__main__":
    main()
