"""Which per-seat quantities would the win model's 13 features gain from? An offline diagnosis
(docs/win-chance.md, "What the 13 features miss"): fresh ``win`` self-play games on the default
board (2 players by default), every position the model values (:func:`win_fit.game_positions`'
positions, the player who just played first), the 13 :func:`win_model.design` features refitted
by maximum likelihood (the softmax of ``win_model.fit_row``, ridge ``OWN_PLAY_RIDGE``, one row
per phase) on the games of ``--train-seed``, then the same with each candidate added, and every
fit scored on the games of ``--test-seed`` (held out).

Why the Brier score of held-out outcomes measures the error against rollouts: with ``t`` the
true chance of a position under ``win`` self-play (what a rollout estimates) and ``y`` the
outcome, ``E[(p - y)^2] = E[(p - t)^2] + E[t (1 - t)]``, and the second term does not depend on
the model. So the difference of two models' held-out Brier scores on the same positions is an
unbiased estimate of the difference of their mean squared errors against rollouts (in
probability squared; 8 points RMS is 0.0064): a feature that removed half of it would lower the
Brier score by about 0.003. The standard error is over games (positions of one game are
dependent).

Candidates (each seat's, in the default board's points; ``d`` its closed shelves short of the
trigger, D17, clipped to 0-6; ``L`` its lead, ``P`` minus the best other seat's): ``d``,
``dmin x L`` (the race: the fewest shelves any seat needs), ``dmin x L|L|/10``, ``L / sqrt(1 +
dmin)`` (the spread of what is left grows with the turns left), ``d - min other d``, its items
to the trigger ``t`` (the open items of its ``d`` shelves nearest to closing: a finer race),
``tmin x L``, ``L / sqrt(1 + tmin)``, the seat's open items, its available points, its lines one item short, and its 40 line totals (D19: marked
and available count and points of each shelf and column); with 2 players, whether the seat played
first in the round (D5: the mover that did is a turn ahead of the other, and the round is played
out after the trigger, D18), alone and times the round (``benchmarks/win_nonlinear.py`` found it).
A measurement, not a test. Run:
``python benchmarks/win_features.py [--players 2] [--train-seed 9701 --train-games 3000]
[--test-seed 9702 --test-games 2000]``.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

GROUPS = (("d",), ("dmin x L",), ("dmin x curve",), ("L / sqrt(1 + dmin)",), ("d - min other d",),
          ("items to the trigger",), ("tmin x L",), ("L / sqrt(1 + tmin)",), ("open items",), ("available points",), ("lines one short",),
          ("open items", "available points", "lines one short"), ("40 line totals",),
          ("played first",), ("played first", "played first x r"))


def positions(players: int, seed: int, games: int) -> list[dict[str, Any]]:
    """Every valued position of ``games`` ``win`` self-play games (game ``g`` from
    ``SeedSequence(seed).spawn(games)[g]``): its phase, :func:`design` row, raw seat columns,
    round, every seat's line totals and sheet (``cells``: ``int (n, 2, cells)``, marked and
    available, D4) after the turn and outcome (D20), the player who just played first; whether
    it played first in the round (D5, D18) and whether the end was triggered before the turn
    (D17; ``benchmarks/win_nonlinear.py`` reads these three)."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import valued_positions
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import strategy_named

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    seat = strategy_named("win")
    out = []
    for g, game_seed in enumerate(np.random.SeedSequence(seed).spawn(games)):
        game = play_seeded(board, rules, [seat] * players, game_seed)
        out += [position_row(g, v) for v in valued_positions(game)]  # the positions win_fit.game_positions fits on
    return out


def position_row(game: int, v: Any) -> dict[str, Any]:
    """:func:`positions`' dict of the valued position ``v`` (a :class:`win_fit.ValuedPosition`)
    of game number ``game``."""
    from shelfie_solver.dice.learned.win_model import board_scale, design, seats_to_play
    from shelfie_solver.dice.objectives import StateArrays

    board, rules = v.before.board, v.before.rules
    return {"game": game, "phase": int(v.phase[0]), "round": v.before.round, "seats": v.seats[0],
            "x": design(v.phase, v.seats, v.before.round, board_scale(board), to_play=seats_to_play(v.before))[0],
            "y": v.y,
            "lines": [StateArrays(board, rules, v.after[j]).line_totals for j in v.order],
            "shelves": board.n_shelves,
            "cells": np.array([v.after[j].bit_arrays() for j in v.order]),
            "first": v.before.active == v.before.first, "ended": v.before.end_triggered}


def candidates(rows: list[dict[str, Any]], names: tuple[str, ...]) -> np.ndarray:
    """``float (N, n, 13 + extra)``: the design row over ``WEIGHT_SCALE`` and the candidates."""
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE

    out = []
    for r in rows:
        s = r["seats"]
        p = s[:, 0] / WEIGHT_SCALE
        d = np.clip(s[:, 2], 0, 6).astype(float)
        n = len(p)
        lead = np.array([p[i] - max(p[j] for j in range(n) if j != i) for i in range(n)])
        k = r["shelves"]
        # items to the trigger: the open items of its d shelves nearest to closing (D17)
        t = np.array([float(np.sort(a[:k][a[:k] > 0])[:dj].sum()) if dj > 0 else 0.0
                      for (_, a, _, _), dj in zip(r["lines"], d.astype(int))])
        cols = [r["x"][:, :13].astype(float) / WEIGHT_SCALE]  # the 13 features (not design's "a turn ahead")
        for name in names:
            if name == "40 line totals":
                cols.append(np.array([np.concatenate([m, a, mp / 10, ap / 10]) for m, a, mp, ap in r["lines"]]))
                continue
            cols.append(_candidate(name, r, lead, d, t, k)[:, None])
        out.append(np.concatenate(cols, axis=1))
    return np.array(out)


def _candidate(name: str, r: dict[str, Any], lead: np.ndarray, d: np.ndarray, t: np.ndarray, k: int) -> np.ndarray:
    """``float (n,)``: the candidate ``name`` of every seat of the position ``r``."""
    lines = r["lines"]
    if name == "d":
        return d
    if name == "dmin x L":
        return lead * d.min()
    if name == "dmin x curve":
        return lead * np.abs(lead) / 10 * d.min()
    if name == "L / sqrt(1 + dmin)":
        return lead / math.sqrt(1 + d.min())
    if name == "d - min other d":
        return d - np.array([np.delete(d, i).min() for i in range(len(d))])
    if name == "items to the trigger":
        return t
    if name == "tmin x L":
        return lead * t.min()
    if name == "L / sqrt(1 + tmin)":
        return lead / math.sqrt(1 + t.min())
    if name == "open items":
        return np.array([a[:k].sum() for _, a, _, _ in lines], dtype=float)
    if name == "available points":
        return np.array([ap[:k].sum() for _, _, _, ap in lines], dtype=float)
    if name == "lines one short":
        return np.array([(a == 1).sum() for _, a, _, _ in lines], dtype=float)
    if name in ("played first", "played first x r"):  # 1 for the seat that played first in the round (D5, D18)
        if len(lines) != 2:
            raise ValueError(f"the candidate {name!r} is defined for 2 players only")
        first = np.array([1.0, 0.0]) if r["first"] else np.array([0.0, 1.0])
        return first * (r["round"] if name == "played first x r" else 1)
    raise ValueError(f"unknown candidate {name!r}")


def held_out(train: list[dict[str, Any]], test: list[dict[str, Any]], names: tuple[str, ...]) -> np.ndarray:
    """``float (M,)``: each test position's Brier score (mean over its seats) under the fit with
    ``names`` added (one row per phase, ridge ``OWN_PLAY_RIDGE``; 40 line totals ridge 1.0)."""
    from scipy.special import softmax

    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
    from shelfie_solver.dice.learned.win_fit import OWN_PLAY_RIDGE
    from shelfie_solver.dice.learned.win_model import fit_row

    xa, xb = candidates(train, names), candidates(test, names)
    ya, yb = np.array([r["y"] for r in train]), np.array([r["y"] for r in test])
    pa, pb = np.array([r["phase"] for r in train]), np.array([r["phase"] for r in test])
    pred = np.full_like(yb, 1 / yb.shape[1])
    ridge = 1.0 if "40 line totals" in names else OWN_PLAY_RIDGE
    for phase in (0, 2, 3):
        a, b = pa == phase, pb == phase
        if a.sum() >= 20 and b.any():
            # fit_row reads integers over WEIGHT_SCALE; the candidates are floats already
            w = fit_row(xa[a] * WEIGHT_SCALE, ya[a], ridge)
            pred[b] = softmax(xb[b] @ w, axis=1)
    out: np.ndarray = ((pred - yb) ** 2).mean(axis=1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--train-seed", type=int, default=9701)
    parser.add_argument("--train-games", type=int, default=3000)
    parser.add_argument("--test-seed", type=int, default=9702)
    parser.add_argument("--test-games", type=int, default=2000)
    args = parser.parse_args()
    start = time.process_time()
    train = positions(args.players, args.train_seed, args.train_games)
    test = positions(args.players, args.test_seed, args.test_games)
    games = np.array([r["game"] for r in test])
    base = held_out(train, test, ())
    print(f"{args.players} players; fitted on {len(train)} positions (seed {args.train_seed}, "
          f"{args.train_games} games), scored on {len(test)} (seed {args.test_seed}, {args.test_games} games)")
    print(f"refitted 13 features: held-out Brier {base.mean():.5f}")
    print("| added to the 13 features | held-out Brier minus the 13's (1e-4) | standard error (over games) |")
    print("|---|---:|---:|")
    for names in GROUPS:
        diff = held_out(train, test, names) - base
        per_game, count = np.bincount(games, weights=diff), np.bincount(games)
        se = math.sqrt(len(count)) * per_game.std() / count.sum()
        print(f"| {' + '.join(names)} | {diff.mean() * 1e4:+.1f} | {se * 1e4:.1f} |")
    print(f"{time.process_time() - start:.0f} CPU s")


if __name__ == "__main__":
    main()
