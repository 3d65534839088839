"""The 2-player win model with "a turn ahead" (docs/win-chance.md, "Who played first in the round"):
its fit, the shipped file's assembly, and its measurements against the model shipped before it on
the same positions. A measurement, not a test.

``fit``: the 2-player coefficients (``win_model.FEATURES``, with "a turn ahead", D5, D18) fitted
by :func:`win_fit.train_win_model` (``players=(2,)``, ``strategy="win"``, ridge
``OWN_PLAY_RIDGE``) to ``--games`` self-play games of ``win`` by ``--play-model`` (the 2-player
coefficients shipped before: ``examples/win-own-play.json``), from ``--seed``; the other counts
at even chances (all 0, as ``train_matchup_model``), written to ``--output``.

``assemble``: data/win.json from that file (2 players) and ``examples/win-learned-play.json`` (3
and 4 players, as before) by :func:`win_model.assemble`.

``heldout``: every position the model values (:func:`win_fit.valued_positions`) of ``--games``
``win`` self-play games from ``--seed`` (game ``g`` from ``SeedSequence(seed).spawn(games)[g]``,
``benchmarks/win_features.py``), played by ``--play-model``; the mover's chance under ``--old``
and ``--new``: the Brier score of each (the mover's share of victory, D20), their paired
difference (standard error over games), the calibration split by seat order (after the first
player's turn, after the second's: mean shown, mean won) and by decile.

``rollouts``: the turn starts after a marking of a ``benchmarks/chance_vs_rollout.py`` log
(``--log``, its ``--seed``), rebuilt by replaying its games (``win_nonlinear.rollout_positions``:
``win`` by the shipped model, the one the log's games were played by), each model's chance for the
player who just played against the rollout's mean share: RMS with the rollout noise removed, the
paired difference of squared errors (standard error over games, and a bootstrap of the positions,
4,000 resamples, numpy seed 0), split by seat order too.

``versus``: ``--games`` 2-player games of ``win`` by ``--new`` against ``win`` by ``--old``
(game ``g`` from ``SeedSequence(seed).spawn(games)[g]``, the new model at seat ``g % 2``, the
first player drawn from the game's seed, D5), the new model's share of victory (ties shared, D20)
with its 95% Wilson interval.

Run: ``python benchmarks/win_first.py fit|assemble|heldout|rollouts|versus [options]``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "examples/win-own-play.json"


def chances_of(path: str, data: dict[str, np.ndarray]) -> np.ndarray:
    """``float (N,)``: the mover's chance under the model file ``path`` (2 players) at the
    positions ``data`` (win_nonlinear's arrays: phase, round, design rows ``x``)."""
    from shelfie_solver.dice.learned.win_model import float_chances, load_win_model

    coefficients = load_win_model(path).for_players(2)
    out = np.zeros(len(data["phase"]))
    for r in np.unique(data["round"]):
        at = data["round"] == r
        out[at] = float_chances(coefficients, data["phase"][at], data["x"][at], int(r))[:, 0]
    return out


def se_by_game(diff: np.ndarray, games: np.ndarray) -> float:
    per_game, count = np.bincount(games, weights=diff), np.bincount(games)
    return float(math.sqrt(len(count)) * per_game.std() / count.sum())


def use_model(path: str) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from chance_vs_rollout import use_win_model

    use_win_model(path)


def fit(args: argparse.Namespace) -> None:
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.learned.win_fit import EVEN, train_win_model
    from shelfie_solver.dice.learned.win_model import WinModel, load_win_model, model_text
    from shelfie_solver.dice.rules import DEFAULT_RULES

    start = time.process_time()
    board = load_board(None, DEFAULT_RULES)
    model = train_win_model(board, DEFAULT_RULES, args.seed, args.games, players=(2,), jobs=args.jobs,
                            strategy="win", win_model=load_win_model(ROOT / args.play_model),
                            played_by=args.play_model)
    tables = {n: model.coefficients.get(n, EVEN.coefficients[n]).copy() for n in EVEN.coefficients}
    out = WinModel(tables, model.info)
    Path(args.output).write_text(model_text(out), "utf-8")
    print(f"{model.info['positions']} positions of {args.games} games (seed {args.seed}); "
          f"{time.process_time() - start:.0f} CPU s here (workers' not counted with --jobs > 1)")
    print(out.coefficients[2])


def assemble_file(args: argparse.Namespace) -> None:
    from shelfie_solver.dice.learned.win_model import DEFAULT_WIN_PATH, assemble, load_win_model, model_text

    two, rest = args.two, "examples/win-learned-play.json"
    parts = {2: (load_win_model(ROOT / two), two), 3: (load_win_model(ROOT / rest), rest),
             4: (load_win_model(ROOT / rest), rest)}
    note = (f"each number of players' coefficients from the fit recorded for it under fitted, whose file is named "
            f"there; 2 players: {two}, fitted with the feature a turn ahead (D5, D18) to win's games by "
            f"{BEFORE} (docs/win-chance.md, Who played first in the round); 3 and 4 players: {rest}, "
            "unchanged (docs/win-chance.md, A file assembled per number of players)")
    DEFAULT_WIN_PATH.write_text(model_text(assemble(parts, note)), "utf-8")
    print(f"written {DEFAULT_WIN_PATH}")


def calibration(name: str, p: np.ndarray, y: np.ndarray, first: np.ndarray, games: np.ndarray) -> None:
    print(f"\n{name}: by seat order (the player who just played)")
    print("| after the turn of | positions | mean shown | mean won | shown minus won (points) | SE |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, keep in (("the first player", first), ("the second player", ~first)):
        d = p[keep] - y[keep]
        print(f"| {label} | {keep.sum()} | {p[keep].mean() * 100:.1f}% | {y[keep].mean() * 100:.1f}% "
              f"| {d.mean() * 100:+.1f} | {se_by_game(d, games[keep]) * 100:.1f} |")
    print(f"\n{name}: by decile of the chance shown")
    print("| decile | positions | mean shown | mean won | 95% interval of won | within |")
    print("|---|---:|---:|---:|---|---|")
    edges = np.linspace(0, 1, 11)
    off = 0
    for i in range(10):
        keep = (p >= edges[i]) & ((p < edges[i + 1]) if i < 9 else (p <= 1))
        if not keep.any():
            continue
        won, shown = y[keep].mean(), p[keep].mean()
        half = 1.96 * se_by_game(y[keep] - won, games[keep])
        inside = abs(won - shown) <= half
        off += not inside
        print(f"| {i * 10}-{i * 10 + 10}% | {keep.sum()} | {shown * 100:.1f}% | {won * 100:.1f}% "
              f"| [{(won - half) * 100:.1f}, {(won + half) * 100:.1f}] | {'yes' if inside else 'no'} |")
    print(f"deciles off beyond their interval: {off}")


def heldout(args: argparse.Namespace) -> None:
    use_model(str(ROOT / args.play_model))
    from win_nonlinear import load

    start = time.process_time()
    data = load(2, args.seed, args.games, args.cache)
    made = time.process_time() - start
    y, games, first = data["y"][:, 0], data["game"], data["first"].astype(bool)
    old, new = chances_of(str(ROOT / args.old), data), chances_of(str(ROOT / args.new), data)
    bo, bn = (old - y) ** 2, (new - y) ** 2
    _, at = np.unique(games, return_index=True)  # each game's first position: the first player's share
    first_share = np.where(first[at], y[at], 1 - y[at])
    print(f"held out: seed {args.seed}, {args.games} games of win by {args.play_model}, {len(y)} positions "
          f"({made:.0f} CPU s); the first player's share of victory {first_share.mean() * 100:.1f}% "
          f"(SE {first_share.std() / math.sqrt(len(at)) * 100:.1f})")
    print("| model | Brier | minus old (1e-4) | SE |")
    print("|---|---:|---:|---:|")
    print(f"| old ({args.old}) | {bo.mean():.5f} | 0 | |")
    print(f"| new ({args.new}) | {bn.mean():.5f} | {(bn - bo).mean() * 1e4:+.1f} "
          f"| {se_by_game(bn - bo, games) * 1e4:.1f} |")
    for label, keep in (("after the first player's turn", first), ("after the second player's turn", ~first)):
        d = bn[keep] - bo[keep]
        print(f"  {label}: {keep.sum()} positions, new minus old {d.mean() * 1e4:+.1f}e-4 "
              f"(SE {se_by_game(d, games[keep]) * 1e4:.1f})")
    calibration("old", old, y, first, games)
    calibration("new", new, y, first, games)
    print(f"{time.process_time() - start:.0f} CPU s")


def rollouts(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from win_nonlinear import rollout_positions

    start = time.process_time()
    rolled = rollout_positions(args.log, args.seed, args.per_game)
    r, noise, g = rolled["rollout"], rolled["noise"], rolled["game"]
    first = rolled["first"].astype(bool)
    old, new = chances_of(str(ROOT / args.old), rolled), chances_of(str(ROOT / args.new), rolled)
    logged = np.abs(new - rolled["logged"])
    print(f"{len(r)} turn starts after a marking (model positions of {len(np.unique(g))} games); the new chance "
          f"recomputed is within {logged.max() * 100:.2f} points of the logged figure")
    eo, en = (old - r) ** 2, (new - r) ** 2
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(r), size=(4000, len(r)))
    boot = np.sqrt(np.maximum((en[picks] - noise[picks]).mean(axis=1), 0)) \
        - np.sqrt(np.maximum((eo[picks] - noise[picks]).mean(axis=1), 0))
    print("| positions | old RMS (points) | new RMS | new minus old [95% bootstrap] "
          "| squared error new minus old (1e-4) | SE (over games) |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, keep in (("all", np.ones(len(r), dtype=bool)), ("after the first player's turn", first),
                        ("after the second player's turn", ~first)):
        ro = math.sqrt(max(float(eo[keep].mean() - noise[keep].mean()), 0)) * 100
        rn = math.sqrt(max(float(en[keep].mean() - noise[keep].mean()), 0)) * 100
        d = en[keep] - eo[keep]
        interval = f" [{np.percentile(boot, 2.5) * 100:+.2f}, {np.percentile(boot, 97.5) * 100:+.2f}]" \
            if label == "all" else ""
        print(f"| {label} ({keep.sum()}) | {ro:.2f} | {rn:.2f} | {rn - ro:+.2f}{interval} | {d.mean() * 1e4:+.1f} "
              f"| {se_by_game(d, g[keep]) * 1e4:.1f} |")
        print(f"    mean old / new / rollout: {old[keep].mean() * 100:.1f} / {new[keep].mean() * 100:.1f} / "
              f"{r[keep].mean() * 100:.1f}")
    print(f"{time.process_time() - start:.0f} CPU s")


def versus(args: argparse.Namespace) -> None:
    from fractions import Fraction

    from shelfie_solver.core.stats import estimate
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import WinStrategy
    from shelfie_solver.dice.win_chance import share

    start = time.process_time()
    board = load_board(None, DEFAULT_RULES)
    new = WinStrategy(win_model=load_win_model(ROOT / args.new))
    old = WinStrategy(win_model=load_win_model(ROOT / args.old))
    shares = []
    for g, seed in enumerate(np.random.SeedSequence(args.seed).spawn(args.games)):
        seats: list[Any] = [old, old]
        seats[g % 2] = new
        game = play_seeded(board, DEFAULT_RULES, seats, seed)
        finals = game.scores
        shares.append(Fraction(share(finals[g % 2], [finals[1 - g % 2]])))
    rate = estimate(shares, (Fraction(0), Fraction(1)))
    print(f"new {args.new} against old {args.old}: {args.games} games (seed {args.seed}), new's share "
          f"{float(rate.mean) * 100:.1f}% [{rate.low * 100:.1f}, {rate.high * 100:.1f}]; "
          f"{time.process_time() - start:.0f} CPU s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("fit", "assemble", "heldout", "rollouts", "versus"))
    parser.add_argument("--seed", type=int, required=False, default=None)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--play-model", default=BEFORE)
    parser.add_argument("--output", default="examples/win-first.json")
    parser.add_argument("--two", default="examples/win-first.json", help="assemble: the 2-player file")
    parser.add_argument("--old", default=BEFORE)
    parser.add_argument("--new", default="shelfie_solver/dice/data/win.json")
    parser.add_argument("--cache", default="")
    parser.add_argument("--log", default="")
    parser.add_argument("--per-game", type=int, default=4)
    args = parser.parse_args()
    os.chdir(ROOT)
    commands = {"fit": fit, "assemble": assemble_file, "heldout": heldout, "rollouts": rollouts, "versus": versus}
    commands[args.command](args)


if __name__ == "__main__":
    main()
