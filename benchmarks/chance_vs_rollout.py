"""The model's chance to win against rollouts ("measured against the truth", docs/win-chance.md
"Against rollouts"): positions of fresh-seed ``win`` against ``win`` games on the default board,
2, 3 and 4 players; at each, every seat's chance as ``play status`` shows it
(:func:`play.report.table_chances`) against a rollout of ``N`` play-outs of the position with
``win`` in every seat (:func:`rollout.run.rollout`, the position only, no early stop), with its
95% Wilson interval.

Positions: in each game, every turn start after a marking (dice not rolled: the status right
after the marking is recorded) and every position after a turn's initial roll (dice showing, all
re-rolls left), a random subset of ``--per-game`` of them (seeded), until ``--positions`` per
player count. Each seat of a position is one comparison, tagged "to move" (the active seat) or
"others".

The rollout's own noise: ``|model - rollout|`` overstates the model's error. Per row the rollout
mean's variance is estimated as ``s^2 / N`` (the shares' sample variance); the model's mean squared
error is then estimated as ``mean((model - rollout)^2) - mean(s^2 / N)`` (unbiased), reported as
its square root ("RMS error, noise removed") next to the raw mean absolute error and its expected
noise part ``mean(sqrt(2/pi) * s / sqrt(N))`` (the mean absolute deviation of a normal rollout
mean around the truth; "MAE minus noise" is raw MAE minus that, a rough lower-bound-ish figure).

Other boards (``--boards small-3x4,held-out-4x5``, names of examples/boards or paths): the same on
each board in turn, positions of ``win`` games on that board (``$SHELFIE_SOLVE_EXACT2_BUDGET`` 0:
the model, never the exact two-player table), each row tagged with its board; the report's groups
are then per board and player count (docs/win-chance.md "Off the fitted board's shape: against
rollouts"). ``--win-model FILE`` is the model of the figure and of the rollouts' ``win`` seats
alike (each figure against the play it describes).

Run (results are appended to ``--log`` as JSON lines, one per position, so a stopped run keeps
what it measured; ``--report`` alone summarises a log):
``python benchmarks/chance_vs_rollout.py --positions 100 --playouts 40 --seed 5 --log L.jsonl
[--players 2,3,4] [--win-model FILE] [--markdown FILE] [--plot PNG]``
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

PLAYERS = (2, 3, 4)


def use_win_model(path: str | None) -> None:
    """Make ``win`` (policy and status) use the model file ``path`` (None: the shipped one)."""
    if path is None:
        return
    from shelfie_solver.dice.learned import win_model

    win_model.DEFAULT_WIN_PATH = Path(path)
    win_model.default_win_model.cache_clear()
    win_model.default_win_model()  # fail early on a bad file


def board_path(name: str | None) -> str | None:
    """``name`` as a board file: None (the default board), a path, or a name of examples/boards."""
    if name is None or name == "default" or os.path.exists(name):
        return None if name in (None, "default") else name
    return str(Path(__file__).resolve().parent.parent / "examples" / "boards" / f"{name}.toml")


def positions_of(players: int, seed: np.random.SeedSequence, per_game: int, board_name: str | None = None) -> list[Any]:
    """``per_game`` kept-game positions of one fresh ``win`` self-play game (module docstring) on
    ``board_name`` (None: the default board)."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.play.gamefile import act, split_actions, start_kept_game
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import strategy_named

    board, rules = load_board(board_path(board_name), DEFAULT_RULES), DEFAULT_RULES
    game_seed, pick_seed = seed.spawn(2)
    played = play_seeded(board, rules, [strategy_named("win")] * players, game_seed)
    names = tuple("ABCD"[:players])
    kept = start_kept_game(board, rules, names, played.events[0].first)
    found = []
    for _, action in split_actions(played.events):
        kept = act(kept, action)
        if kept.over is not None:
            break
        after_mark = kept.dice is None and kept.last_turn is not None
        first_roll = kept.dice is not None and kept.rerolls_left == rules.rerolls
        if after_mark or first_roll:
            found.append((kept, "after marking" if after_mark else "dice rolled"))
    rng = np.random.default_rng(pick_seed)
    chosen = sorted(rng.choice(len(found), size=min(per_game, len(found)), replace=False)) if found else []
    return [found[i] for i in chosen]


def measure(kept: Any, kind: str, players: int, playouts: int, seed: int,
            win_model: str | None = None) -> dict[str, Any]:
    """One position: every seat's model chance and rollout estimate."""
    from shelfie_solver.dice.play.report import table_chances
    from shelfie_solver.dice.rollout.run import rollout

    model = [float(c) for c, _ in table_chances(kept)]
    exact = [bool(e) for _, e in table_chances(kept)]
    start = time.process_time()
    result = rollout(kept, ("win",) * players, playouts, seed, top=0, early_stop=False,
                     win_model=None if win_model is None else str(Path(win_model).resolve()))
    cpu = time.process_time() - start
    seats = [{"seat": s, "role": "to move" if s == kept.active else "others", "model": model[s],
              "exact": exact[s], "rollout": float(e.mean), "variance": float(e.variance),
              "low": e.low, "high": e.high} for s, e in enumerate(result.position)]
    return {"players": players, "kind": kind, "round": kept.state.round, "games": result.games,
            "cpu": cpu, "seats": seats}


def run(args: argparse.Namespace) -> None:
    """Measure and append to the log."""
    use_win_model(args.win_model)
    named = getattr(args, "boards", None)  # (a Namespace of before --boards: the default board)
    boards = named.split(",") if named else [None]
    if named:
        os.environ["SHELFIE_SOLVE_EXACT2_BUDGET"] = "0"
    with open(args.log, "a") as log:
        for b, board in enumerate(boards):
            # the default board alone: the seeds of before; each other board its own child
            root = np.random.SeedSequence(args.seed) if board is None else np.random.SeedSequence([args.seed, b])
            for players, seq in zip(PLAYERS, root.spawn(len(PLAYERS))):
                if players not in args.players:
                    continue
                done, games = 0, iter(seq.spawn(10_000))
                while done < args.positions:
                    game = next(games)
                    for kept, kind in positions_of(players, game, args.per_game, board)[:args.positions - done]:
                        row = measure(kept, kind, players, args.playouts, int(game.generate_state(1)[0]) + done,
                                      args.win_model)
                        extra = {} if board is None else {"board": board}
                        log.write(json.dumps({**row, **extra, "seed": args.seed}) + "\n")  # the report names it
                        log.flush()
                        done += 1


def summary(rows: list[dict[str, Any]]) -> list[tuple[str, int, float, float, float, float, float, float]]:
    """Per (players, role) and pooled: ``(group, comparisons, MAE, noise MAE, MAE - noise, RMS noise
    removed, 95th percentile |error|, mean signed model - rollout)``, in points."""
    boards = sorted({r.get("board", "default") for r in rows})
    if len(boards) > 1 or boards != ["default"]:
        out = []
        for board in boards:
            part = [r for r in rows if r.get("board", "default") == board]
            out += [(f"{board}, {label}", *rest) for label, *rest in summary_of(part)
                    if label.endswith(", all") or label == "all"]
        return out + [("all boards", *summary_of(rows)[-1][1:])]
    return summary_of(rows)


def summary_of(rows: list[dict[str, Any]]) -> list[tuple[str, int, float, float, float, float, float, float]]:
    """:func:`summary` of rows of one board."""
    flat = [(r["players"], s, r["games"]) for r in rows for s in r["seats"]]
    out = []
    groups = [(f"{n} players, {role}", n, role) for n in PLAYERS for role in ("to move", "others")]
    groups += [(f"{n} players, all", n, None) for n in PLAYERS] + [("all", None, None)]
    for label, n, role in groups:
        chosen = [(s, g) for p, s, g in flat
                  if (n is None or p == n) and (role is None or s["role"] == role)]
        if not chosen:
            continue
        err = np.array([s["model"] - s["rollout"] for s, _ in chosen]) * 100
        noise_var = np.array([s["variance"] / g for s, g in chosen]) * 100 ** 2
        mae = float(np.abs(err).mean())
        noise_mae = float(np.mean(np.sqrt(2 / math.pi * noise_var)))
        mse = float(np.mean(err ** 2) - noise_var.mean())
        out.append((label, len(chosen), mae, noise_mae, mae - noise_mae, math.sqrt(max(mse, 0.0)),
                    float(np.quantile(np.abs(err), 0.95)), float(err.mean())))
    return out


def markdown(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    """The table of the report."""
    cpu = sum(r["cpu"] for r in rows)
    games = sorted({r["games"] for r in rows})
    counts = ", ".join(f"{n} players: {sum(r['players'] == n for r in rows)}" for n in PLAYERS)
    lines = [f"{len(rows)} positions ({counts}), "
             f"{games} play-outs each, {recorded_seeds(rows)}; {cpu:.0f} CPU s of rollouts on {platform.machine()}, "
             f"{os.cpu_count()} cores.", "",
             "| group | seat-positions | MAE | rollout noise part | MAE minus noise | RMS error, noise removed | 95th pct abs error | mean model - rollout |",
             "|---|---|---|---|---|---|---|---|"]
    for label, k, mae, noise, net, rms, p95, bias in summary(rows):
        lines.append(f"| {label} | {k} | {mae:.1f} | {noise:.1f} | {net:.1f} | {rms:.1f} | {p95:.1f} | {bias:+.1f} |")
    pooled = summary(rows)[-1]
    lines += ["", f"Mean error within 2 points (RMS with the noise removed, pooled): "
              f"{'yes' if pooled[5] <= 2 else 'no'} ({pooled[5]:.1f}). Points are percentage points."]
    return "\n".join(lines) + "\n"


def recorded_seeds(rows: list[dict[str, Any]]) -> str:
    """The root seed the log's rows were measured with, as the report says it (each row's
    ``seed``, written by :func:`run`): ``seed S``, ``seeds S, T`` (a log appended by runs of
    several seeds), or ``seed not recorded in the log`` (rows written before they carried it)."""
    seeds = sorted({r["seed"] for r in rows if "seed" in r})
    if not seeds:
        return "seed not recorded in the log"
    return ("seeds " if len(seeds) > 1 else "seed ") + ", ".join(map(str, seeds))


def plot(rows: list[dict[str, Any]], path: str) -> None:
    """Model chance against rollout chance with the 95% interval, coloured by player count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 6))
    for n, colour in zip(PLAYERS, ("tab:blue", "tab:orange", "tab:green")):
        seats = [s for r in rows if r["players"] == n for s in r["seats"]]
        if not seats:
            continue
        x = np.array([s["rollout"] for s in seats])
        y = np.array([s["model"] for s in seats])
        xerr = np.array([[s["rollout"] - s["low"] for s in seats], [s["high"] - s["rollout"] for s in seats]])
        ax.errorbar(x, y, xerr=np.maximum(xerr, 0), fmt="o", ms=3, alpha=0.5, elinewidth=0.5, color=colour,
                    label=f"{n} players")
    ax.plot([0, 1], [0, 1], "k--", lw=1)
    ax.set_xlabel("rollout chance to win (95% interval)")
    ax.set_ylabel("model chance (play status)")
    ax.set_title("win model against win-vs-win rollouts, default board")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100, help="positions per player count")
    parser.add_argument("--players", type=lambda t: tuple(int(x) for x in t.split(",")), default=PLAYERS,
                        help="player counts measured, comma-separated (default 2,3,4)")
    parser.add_argument("--per-game", type=int, default=4)
    parser.add_argument("--playouts", type=int, default=40)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--win-model", default=None, help="a win-model file (default: the shipped one)")
    parser.add_argument("--boards", default=None,
                        help="boards, comma-separated names of examples/boards or paths (default: the default board)")
    parser.add_argument("--log", default="chance_vs_rollout.jsonl")
    parser.add_argument("--report", action="store_true", help="only summarise the log")
    parser.add_argument("--markdown", default=None)
    parser.add_argument("--plot", default=None)
    args = parser.parse_args()
    if not args.report:
        run(args)
    rows = [json.loads(line) for line in open(args.log)]
    text = markdown(rows, args)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
