"""Calibration of the ``win`` model's chance to win (docs/train.md, "The chance to win"): fit it
on seeded self-play of ``learned`` (as ``train --win-model`` does), then measure it on self-play
games from a seed the fit never saw, 2-4 players: a reliability table by decile of predicted
chance, Brier score and log loss against two baselines fitted on the same positions (a logistic
of the score gap alone; today's learned win-chance shape mapped to [0, 1]). A measurement, not a test.

Run: ``python benchmarks/win_calibration.py [--fit-games N] [--test-games N] [--seed S]
[--test-seed S] [--jobs J] [--model FILE] [--plot PNG] [--markdown FILE]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_fit import self_play_positions
from shelfie_solver.dice.learned.win_model import fit, float_chances, load_win_model, model_text, replace_info
from shelfie_solver.dice.rules import DEFAULT_RULES


def arrays(samples: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return (np.array([s[0] for s in samples]), np.array([s[1] for s in samples]),
            np.array([s[2] for s in samples], dtype=np.int64), np.array([s[3] for s in samples]))


def predict(model, players: np.ndarray, phase: np.ndarray, x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(players))
    for n in np.unique(players):
        chosen = players == n
        out[chosen] = float_chances(model.for_players(int(n)), phase[chosen], x[chosen])
    return out


def logistic_1d(feature: np.ndarray, y: np.ndarray, groups: np.ndarray, test_feature: np.ndarray,
                test_groups: np.ndarray) -> np.ndarray:
    """A logistic of one feature (plus intercept) per group, fitted on (feature, y), predicted on test."""
    from scipy.optimize import minimize

    out = np.zeros(len(test_feature))
    for g in np.unique(groups):
        f, t = feature[groups == g], y[groups == g]
        s = max(np.abs(f).max(), 1e-9)

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            z = w[0] + w[1] * f / s
            p = 1 / (1 + np.exp(-z))
            return float(np.sum(np.logaddexp(0, z) - t * z)), np.array([np.sum(p - t), np.sum((p - t) * f / s)])

        w = minimize(loss, np.zeros(2), jac=True, method="L-BFGS-B").x
        chosen = test_groups == g
        out[chosen] = 1 / (1 + np.exp(-(w[0] + w[1] * test_feature[chosen] / s)))
    return out


def scores(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return float(np.mean((p - y) ** 2)), float(np.mean(-(y * np.log(q) + (1 - y) * np.log(1 - q))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fit-games", type=int, default=1500)
    parser.add_argument("--test-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--test-seed", type=int, default=1018)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--model", default=None, help="write the fitted model here (else only measure)")
    parser.add_argument("--use", default=None, help="measure this model file instead of fitting one")
    parser.add_argument("--plot", default=None)
    parser.add_argument("--markdown", default=None)
    parser.add_argument("--cache", default=None, help="npz file to keep the positions in")
    args = parser.parse_args()
    rules = DEFAULT_RULES
    board = load_board(None, rules)
    start = time.time()
    cached = None
    if args.cache:
        try:
            cached = np.load(args.cache, allow_pickle=True)
        except OSError:
            cached = None
    if cached is not None:
        fit_samples, test_samples = list(cached["fit"]), list(cached["test"])
    else:
        fit_samples = self_play_positions(board, rules, args.seed, args.fit_games, jobs=args.jobs) if not args.use else []
        test_samples = self_play_positions(board, rules, args.test_seed, args.test_games, jobs=args.jobs)
        if args.cache:
            np.savez(args.cache, fit=np.array(fit_samples, dtype=object), test=np.array(test_samples, dtype=object))
    collected = time.time() - start
    if args.use:
        model = load_win_model(args.use)
    else:
        model = replace_info(fit(fit_samples), seed=args.seed, games=args.fit_games, players=[2, 3, 4],
                             positions=len(fit_samples), strategy="learned", board=board.name)
    if args.model:
        with open(args.model, "w", encoding="utf-8") as out:
            out.write(model_text(model))
    players, phase, x, y = arrays(test_samples)
    p = predict(model, players, phase, x)
    # baselines, fitted on the fit positions (per players and phase), measured on the test ones
    fp, fph, fx, fy = arrays(fit_samples) if fit_samples else (players, phase, x, y)
    groups, test_groups = fp * 10 + fph, players * 10 + phase
    gap = logistic_1d(fx[:, 2] / WEIGHT_SCALE, fy, groups, x[:, 2] / WEIGHT_SCALE, test_groups)
    from shelfie_solver.dice.learned.objective import WIN_SIGMA

    sigma = np.where(phase == 0, WIN_SIGMA[0], np.where(phase == 2, WIN_SIGMA[1], WIN_SIGMA[2]))
    g = x[:, 2] / WEIGHT_SCALE
    shape = (g / (sigma + np.abs(g)) + 1) / 2
    lines = [f"Fit: {len(fit_samples)} positions of {args.fit_games} games per player count (seed {args.seed}); "
             f"test: {len(test_samples)} positions of {args.test_games} games per player count "
             f"(seed {args.test_seed}, never seen by the fit); self-play of `learned`, 2-4 players, default board. "
             f"Collected in {collected:.0f} s.", "",
             "| decile of predicted chance | positions | mean predicted | observed win share | difference (points) |",
             "|---|---|---|---|---|"]
    order = np.argsort(p, kind="stable")
    worst = 0.0
    bins = np.array_split(order, 10)
    table = []
    for k, chosen in enumerate(bins):
        mp, ob = float(p[chosen].mean()), float(y[chosen].mean())
        worst = max(worst, abs(mp - ob))
        table.append((mp, ob))
        lines.append(f"| {k + 1} | {len(chosen)} | {100 * mp:.1f}% | {100 * ob:.1f}% | {100 * (ob - mp):+.1f} |")
    lines += ["", f"Largest decile difference: {100 * worst:.1f} percentage points.", "",
              "| model | Brier score | log loss |", "|---|---|---|"]
    for name, q in (("win (this model)", p), ("baseline: logistic of the gap alone", gap),
                    ("baseline: learned's shape g/(s+|g|) mapped to [0, 1]", shape)):
        brier, log = scores(q, y)
        lines.append(f"| {name} | {brier:.4f} | {log:.4f} |")
    for n in (2, 3, 4):
        chosen = players == n
        if chosen.any():
            brier, log = scores(p[chosen], y[chosen])
            lines.append(f"| win, {n} players only ({int(chosen.sum())} positions) | {brier:.4f} | {log:.4f} |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", label="perfect calibration")
        ax.plot([t[0] for t in table], [t[1] for t in table], marker="o", label="win model (test games)")
        ax.set_xlabel("predicted chance to win (decile mean)")
        ax.set_ylabel("observed share of victories (D20)")
        ax.set_title("Reliability of the win model")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)


if __name__ == "__main__":
    main()
