"""Does a nonlinear learner on richer inputs predict 2-player outcomes better than the 13 features?
An offline diagnosis (docs/win-chance.md, "A nonlinear learner on the sheets"), the sequel of
``benchmarks/win_features.py``, whose positions it reads (:func:`win_features.positions`: every
position after a turn that the model values, of fresh ``win`` self-play games on the default
board, the player who just played first) and whose linear refit it runs as the baseline
(:func:`win_features.held_out`).

Every model is fitted on the games of ``--train-seed`` and scored on those of ``--test-seed``
(held out) by the Brier score of the mover's share of victory (D20; with 2 players the mean
over both seats is the same number). The difference of two models' held-out Brier scores on the
same positions estimates the difference of their mean squared errors against the true chance
(what a rollout estimates; win_features' docstring), with its standard error over games (the
positions of one game are dependent; per-game sums, as win_features).

Models: the shipped 2-player coefficients (data/win.json), the 13 features refitted (maximum
likelihood, one row per phase: the baseline), a logistic regression on the rich inputs (linear,
so that inputs and form can be told apart), scikit-learn's ``HistGradientBoostingClassifier`` on
(a) the 13 features of both seats (with the phase and round) and (b) the rich inputs, and an
``MLPClassifier`` on (b). Rich inputs: (a), every seat's raw columns (``P``, score, shelves to the
trigger, turns until it plays), its sheet (every item's state, D4: marked or available bits, the
rest eliminated), its 40 line totals, and engineered quantities: closed shelves, items and dice
to the trigger (D17: the open items of its nearest shelves, and the dice their columns need,
D3), open items and points, lines still able to score (D19) and their points, lines it could
complete and the items of the other seat that completing them would eliminate (D15, blocking
threats), the race (differences of these between the seats), whether the mover played first in
the round (D18) and whether the end is triggered (before the turn, and on the sheets after it).

Early stopping on a split of the FIT games only (``--valid`` of them, by game, seeded): the
boosted trees stop on the validation games' log loss and are refitted on every fit game with
that many iterations; the MLP keeps the setting and epoch best on the validation games
(trained on the rest; ``MLP_SETTINGS``). Ties (D20) enter as two weighted rows (win with
weight ``y``, loss ``1 - y``). The learning curve (``--fractions``) refits on the first quarter,
half, ... of the fit games. Ablations: ``refit13+first`` (win_features' candidate "played
first"), inputs ``a+first`` and ``b-first``. With ``--rollout-log`` every model is also scored
against the rollouts of a ``benchmarks/chance_vs_rollout.py --players 2`` log at its turn starts
after a marking (:func:`rollout_positions`: RMS with the rollout noise removed, as that
benchmark, and paired differences). One thread (``OMP_NUM_THREADS``, 1 unless set). Positions
are cached per seed and game count (``--cache``). 2 players only. A measurement, not a test;
scikit-learn is the ``bench`` extra. Run: ``python benchmarks/win_nonlinear.py [--train-seed
10301 --train-games 12000] [--test-seed 10302 --test-games 2000] [--cache DIR] [--models ...]
[--rollout-log L.jsonl --rollout-seed S]``.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from win_features import held_out, positions  # noqa: E402

#: Arrays of a cached position set (:func:`load`).
KEYS = ("game", "phase", "round", "seats", "x", "y", "lines", "cells", "first", "ended")


def load(players: int, seed: int, games: int, cache: str) -> dict[str, np.ndarray]:
    """:func:`win_features.positions` as arrays (``KEYS``), from ``cache`` when it holds them."""
    path = Path(cache) / f"win-positions-{players}p-seed{seed}-games{games}.npz" if cache else None
    if path is not None and path.exists():
        with np.load(path) as data:
            return {k: data[k] for k in KEYS}
    rows = positions(players, seed, games)
    out = {k: np.array([r[k] for r in rows]) for k in KEYS if k != "lines"}
    out["lines"] = np.array([[np.stack(t) for t in r["lines"]] for r in rows])  # (N, n, 4, L)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **out)
    return out


def rollout_positions(log: str, seed: int, per_game: int, players: int = 2) -> dict[str, np.ndarray]:
    """The ``players``-player turn starts after a marking of a ``benchmarks/chance_vs_rollout.py``
    log (its ``--seed`` ``seed`` and ``--per-game``), rebuilt by replaying its games (the same
    seeds, in its order; ``win`` by the model the log's games were played by, which the caller
    makes the default one: ``chance_vs_rollout.use_win_model``): :func:`load`'s arrays of the
    position after the turn that the model values (positions whose chance is exact are left
    out), with ``rollout``, the rollout's mean share of the player who just played, ``noise`` its
    variance ``s^2 / N`` and ``logged`` the figure ``play status`` showed it (a check of the
    replay); and the same of every seat, ``(N, players)`` in the order of the design rows (the
    player who just played first, the others in seat order): ``rollouts``, ``noises``,
    ``loggeds`` and ``exacts`` (the figure logged is exact: a decided terminal, docs/win-chance.md
    "What is shown", where ``play status`` shows an exact 0 or 1 and not the model's)."""
    import json

    from chance_vs_rollout import PLAYERS, positions_of

    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import valued_positions
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import strategy_named
    from win_features import position_row

    def fresh(s: np.random.SeedSequence) -> np.random.SeedSequence:
        return np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key, pool_size=s.pool_size)

    rows = [r for r in map(json.loads, open(log)) if r["players"] == players]
    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    # chance_vs_rollout.run's order: one child of the seed per count of PLAYERS, then one per game
    games = iter(np.random.SeedSequence(seed).spawn(len(PLAYERS))[PLAYERS.index(players)].spawn(10_000))
    out, done, g = [], 0, -1
    while done < len(rows):
        game, g = next(games), g + 1
        valued = None
        for kept, kind in positions_of(players, fresh(game), per_game)[:len(rows) - done]:
            row, done = rows[done], done + 1
            assert row["kind"] == kind and row["round"] == kept.state.round, "the log is not of this seed"
            if kind != "after marking":
                continue
            if valued is None:
                played = play_seeded(board, rules, [strategy_named("win")] * players, fresh(game).spawn(2)[0])
                valued = {v.before.turn: v for v in valued_positions(played)}
            v = valued.get(kept.state.turn - 1)
            if v is None:  # a chance known exactly (win_chance, or the turn ended the game)
                continue
            # the mover's sheet (the other sheets' blocks, D15, are applied by valued_positions too)
            assert v.after[v.order[0]] == kept.state.sheets[v.order[0]]
            seats = [row["seats"][j] for j in v.order]
            out.append({**position_row(g, v), "rollout": seats[0]["rollout"],
                        "noise": seats[0]["variance"] / row["games"], "logged": seats[0]["model"],
                        "rollouts": [s["rollout"] for s in seats],
                        "noises": [s["variance"] / row["games"] for s in seats],
                        "loggeds": [s["model"] for s in seats], "exacts": [s["exact"] for s in seats]})
    more = ("rollout", "noise", "logged", "rollouts", "noises", "loggeds", "exacts")
    arrays = {k: np.array([r[k] for r in out]) for k in (*KEYS, *more) if k != "lines"}
    arrays["lines"] = np.array([[np.stack(t) for t in r["lines"]] for r in out])
    return arrays


def rows_of(data: dict[str, np.ndarray], keep: np.ndarray) -> list[dict[str, Any]]:
    """The positions ``keep`` as :func:`win_features.positions`' dicts (what ``held_out`` reads)."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES

    shelves = load_board(None, DEFAULT_RULES).n_shelves
    return [{"game": int(data["game"][i]), "phase": int(data["phase"][i]), "round": int(data["round"][i]),
             "seats": data["seats"][i], "x": data["x"][i], "y": data["y"][i], "shelves": shelves,
             "lines": [tuple(seat) for seat in data["lines"][i]], "first": bool(data["first"][i])}
            for i in np.flatnonzero(keep)]


def shipped(data: dict[str, np.ndarray]) -> np.ndarray:
    """``float (N,)``: the mover's chance under data/win.json's 2-player coefficients."""
    from shelfie_solver.dice.learned.win_model import default_win_model, float_chances

    coefficients = default_win_model().coefficients[2]
    out = np.zeros(len(data["y"]))
    for r in np.unique(data["round"]):
        at = data["round"] == r
        out[at] = float_chances(coefficients, data["phase"][at], data["x"][at], int(r))[:, 0]
    return out


def inputs(data: dict[str, np.ndarray], kind: str) -> np.ndarray:
    """``float (N, F)``: the learners' inputs ``kind``, ``a`` or ``b`` of the module docstring (2
    players); ``a+first``: (a) and whether the mover played first in the round (D5, D18);
    ``b-first``: (b) without it."""
    if kind == "a+first":
        return np.concatenate([inputs(data, "a"), data["first"][:, None].astype(float)], axis=1)
    if kind == "b-first":
        rich = inputs(data, "b")
        return np.delete(rich, rich.shape[1] - 3, axis=1)  # the columns end: first, ended, ended after
    rich = kind == "b"
    if kind not in ("a", "b"):
        raise ValueError(f"unknown inputs {kind!r}")
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.sheet_rules import end_trigger_shelves

    n = len(data["y"])
    x = data["x"][..., :13].astype(float) / WEIGHT_SCALE  # the 13 features ("a turn ahead" is the flag, below)
    cols = [x.reshape(n, -1), data["phase"][:, None].astype(float), data["round"][:, None].astype(float)]
    if not rich:
        return np.concatenate(cols, axis=1)
    board = load_board(None, DEFAULT_RULES)
    k, trigger = board.n_shelves, end_trigger_shelves(board, DEFAULT_RULES)
    seats = data["seats"].astype(float)
    seats[..., 0] /= WEIGHT_SCALE
    lines = data["lines"].astype(float)  # (N, 2, 4, L): marked, available, marked points, available points
    m, a, mp, ap = (lines[:, :, i] for i in range(4))
    cells = data["cells"].astype(float)  # (N, 2, 2, C): marked, available
    dice = np.array([board.columns[c] for s in range(k) for c in range(board.n_columns)], dtype=float)
    shelf_of = np.repeat(np.arange(k), board.n_columns)
    avail = cells[:, :, 1]  # (N, 2, C)
    shelf_items = a[..., :k]  # (N, 2, k)
    shelf_dice = np.stack([(avail * dice * (shelf_of == s)).sum(axis=-1) for s in range(k)], axis=-1)
    closed = (shelf_items == 0).sum(axis=-1)  # (N, 2)
    short = np.clip(trigger - closed, 0, None)

    def nearest(per_shelf: np.ndarray) -> np.ndarray:
        """Sum over the ``short`` open shelves nearest to closing by ``per_shelf`` (N, 2)."""
        ranked = np.sort(np.where(shelf_items > 0, per_shelf, np.inf), axis=-1)
        take = np.arange(k)[None, None, :] < short[..., None]
        return np.where(take, np.where(np.isfinite(ranked), ranked, 0), 0).sum(axis=-1)

    t_items, t_dice = nearest(shelf_items), nearest(shelf_dice)
    alive = m + a >= DEFAULT_RULES.scoring_threshold  # lines that score or still can (D19)
    completable = (m + a == 5) & (a > 0)  # every item marked or available: it can still block (D15)
    other = m[:, ::-1], a[:, ::-1], ap[:, ::-1]

    def threat(left: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Lines ``left`` items from completion (D15) and the other seat's items and points there."""
        lines_at = completable & (a == left)
        return lines_at.sum(-1), (lines_at * other[1]).sum(-1), (lines_at * other[2]).sum(-1)

    engineered = [closed, short, t_items, t_dice, a[..., :k].sum(-1), ap[..., :k].sum(-1), (a == 1).sum(-1),
                  alive.sum(-1), (alive * (mp + ap)).sum(-1) / 10, completable.sum(-1), *threat(1), *threat(2),
                  m.sum(-1), (a == 0).sum(-1)]
    per_seat = np.stack(engineered, axis=-1).astype(float)  # (N, 2, E)
    race = per_seat[:, 0] - per_seat[:, 1]
    after_ended = (closed >= trigger).any(axis=1)
    cols += [seats.reshape(n, -1), cells.reshape(n, -1), (lines / np.array([1, 1, 10, 10])[None, None, :, None]).reshape(n, -1),
             per_seat.reshape(n, -1), race, (seats[:, 0] - seats[:, 1])[:, :2],
             np.stack([data["first"], data["ended"], after_ended], axis=1).astype(float)]
    return np.concatenate(cols, axis=1)


def weighted(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Soft targets ``y`` (the mover's share, D20) as rows of a win weighted ``y`` and a loss
    weighted ``1 - y``, without rows of weight 0."""
    xx, yy, ww = np.concatenate([x, x]), np.r_[np.ones(len(y)), np.zeros(len(y))], np.r_[y, 1 - y]
    keep = ww > 0
    return xx[keep], yy[keep], ww[keep]


def split(games: np.ndarray, valid: float, seed: int) -> np.ndarray:
    """``bool (N,)``: the positions of a random ``valid`` share of the games (by game)."""
    ids = np.unique(games)
    chosen = np.random.default_rng(seed).choice(ids, size=max(1, round(valid * len(ids))), replace=False)
    return np.isin(games, chosen)


def boosted(x: np.ndarray, y: np.ndarray, games: np.ndarray, test: np.ndarray, valid: float,
            seed: int) -> tuple[np.ndarray, dict[str, Any]]:
    """``HistGradientBoostingClassifier``: stopped on the validation games' log loss, refitted on
    every fit game with the iterations found; the test positions' chances and what was chosen."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    settings = dict(learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=200, l2_regularization=1.0,
                    random_state=seed)
    hold = split(games, valid, seed)
    xa, ya, wa = weighted(x[~hold], y[~hold])
    xv, yv, wv = weighted(x[hold], y[hold])
    patience = 30
    stopped = HistGradientBoostingClassifier(max_iter=3000, early_stopping=True, n_iter_no_change=patience,
                                             tol=0.0, **settings)  # type: ignore[arg-type]
    stopped.fit(xa, ya, wa, X_val=xv, y_val=yv, sample_weight_val=wv)
    iterations = max(1, stopped.n_iter_ - patience)
    full = HistGradientBoostingClassifier(max_iter=iterations, early_stopping=False, **settings)  # type: ignore[arg-type]
    full.fit(*weighted(x, y))
    return full.predict_proba(test)[:, 1], {"iterations": iterations}


#: The MLP's settings tried (learning rate, L2 penalty ``alpha``), the one chosen on the validation games.
MLP_SETTINGS = ((1e-3, 1e-3), (1e-4, 1e-2))


def perceptron(x: np.ndarray, y: np.ndarray, games: np.ndarray, test: np.ndarray, valid: float,
               seed: int, epochs: int = 60, patience: int = 6) -> tuple[np.ndarray, dict[str, Any]]:
    """``MLPClassifier`` (2 hidden layers of 64, inputs standardised): of :data:`MLP_SETTINGS`
    and their epochs, the one with the lowest log loss on the validation games (trained on the
    other fit games); the test chances."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    hold = split(games, valid, seed)
    scaler = StandardScaler().fit(x[~hold])
    xa, ya, wa = weighted(scaler.transform(x[~hold]), y[~hold])
    xv, yv = scaler.transform(x[hold]), y[hold]
    best, best_loss, chosen = None, math.inf, {}
    for rate, alpha in MLP_SETTINGS:
        net = MLPClassifier(hidden_layer_sizes=(64, 64), alpha=alpha, batch_size=256, learning_rate_init=rate,
                            max_iter=1, warm_start=True, random_state=seed)
        since = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for epoch in range(1, epochs + 1):
                net.fit(xa, ya, wa)
                p = np.clip(net.predict_proba(xv)[:, 1], 1e-6, 1 - 1e-6)
                loss = float(-(yv * np.log(p) + (1 - yv) * np.log(1 - p)).mean())
                if loss < best_loss - 1e-6:
                    best, best_loss, since = copy.deepcopy(net), loss, 0
                    chosen = {"rate": rate, "alpha": alpha, "epochs": epoch}
                else:
                    since += 1
                    if since >= patience:
                        break
    assert best is not None
    return best.predict_proba(scaler.transform(test))[:, 1], chosen


def logistic(x: np.ndarray, y: np.ndarray, games: np.ndarray, test: np.ndarray, valid: float,
             seed: int) -> tuple[np.ndarray, dict[str, Any]]:
    """A logistic regression (inputs standardised, ridge C=1) on every fit game: the linear control."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    fitted = LogisticRegression(C=1.0, max_iter=2000).fit(*weighted(scaler.transform(x), y))
    return fitted.predict_proba(scaler.transform(test))[:, 1], {}


LEARNERS = {"logistic": logistic, "boosted": boosted, "mlp": perceptron}
#: ``refit13+NAME``: the 13 features refitted with win_features' candidate NAME added.
CANDIDATES = {"first": "played first", "firstr": "played first x r", "open": "open items"}


def se_by_game(diff: np.ndarray, games: np.ndarray) -> float:
    """Standard error of ``diff.mean()`` over games (per-game sums, as win_features)."""
    per_game, count = np.bincount(games, weights=diff), np.bincount(games)
    return float(math.sqrt(len(count)) * per_game.std() / count.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-seed", type=int, default=10301)
    parser.add_argument("--train-games", type=int, default=12000)
    parser.add_argument("--test-seed", type=int, default=10302)
    parser.add_argument("--test-games", type=int, default=2000)
    parser.add_argument("--valid", type=float, default=0.2, help="share of the fit games for early stopping")
    parser.add_argument("--fractions", default="0.25,0.5,1", help="learning curve: shares of the fit games")
    parser.add_argument("--models", default="refit13,logistic:b,boosted:a,boosted:b,mlp:b",
                        help="refit13[+CANDIDATE...] and LEARNER:INPUTS, LEARNER one of logistic, boosted, mlp, "
                             "INPUTS a, b, a+first or b-first")
    parser.add_argument("--curve", default="refit13,boosted:b,mlp:b", help="the models of the learning curve")
    parser.add_argument("--cache", default="", help="folder caching the positions")
    parser.add_argument("--seed", type=int, default=0, help="the learners' and the validation split's seed")
    parser.add_argument("--rollout-log", default="", help="a benchmarks/chance_vs_rollout.py log (2 players) "
                        "whose turn starts after a marking every model is also scored on")
    parser.add_argument("--rollout-seed", type=int, default=10304, help="that log's --seed")
    parser.add_argument("--per-game", type=int, default=4, help="that log's --per-game")
    args = parser.parse_args()
    # one thread: scikit-learn's OpenMP reads this when it is first imported (below, in the
    # learners), threadpoolctl (scikit-learn's dependency) limits numpy's BLAS already loaded
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(int(os.environ["OMP_NUM_THREADS"]))
    start = time.process_time()
    train = load(2, args.train_seed, args.train_games, args.cache)
    test = load(2, args.test_seed, args.test_games, args.cache)
    made = time.process_time() - start
    y, games, m = test["y"][:, 0], test["game"], len(test["y"])
    scored = test
    if args.rollout_log:  # scored with the held-out positions, the rollout standing for the outcome
        rolled = rollout_positions(args.rollout_log, args.rollout_seed, args.per_game)
        rolled["y"] = np.stack([rolled["rollout"], 1 - rolled["rollout"]], axis=1)
        scored = {k: np.concatenate([test[k], rolled[k]]) for k in KEYS}
    base_all = shipped(scored)
    base = (base_all[:m] - y) ** 2
    print(f"2 players; fit positions {len(train['y'])} (seed {args.train_seed}, {args.train_games} games), "
          f"held out {m} (seed {args.test_seed}, {args.test_games} games); positions {made:.0f} CPU s")
    made_inputs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    results: list[tuple[str, float, np.ndarray, float, dict[str, Any]]] = []
    against: dict[str, np.ndarray] = {"shipped": base_all[m:]}  # each model's chance at the rollout positions
    fractions = [float(f) for f in args.fractions.split(",")]
    curve = set(args.curve.split(","))
    for name in args.models.split(","):
        for fraction in fractions if name in curve else [1.0]:
            cut = train["game"] < fraction * args.train_games
            tic = time.process_time()
            if name.startswith("refit13"):
                added = tuple(CANDIDATES[c] for c in name.split("+")[1:])
                brier = held_out(rows_of(train, cut), rows_of(scored, np.ones(len(scored["y"]), dtype=bool)), added)
                # held_out gives squared errors only: at the rollout positions (p - rollout)^2, so
                # p is rollout +- its root; the sign is not needed for the RMS
                score, p = brier[:m], scored["y"][m:, 0] + np.sqrt(brier[m:])
                info: dict[str, Any] = {}
            else:
                learner, kind = name.split(":")
                if kind not in made_inputs:
                    made_inputs[kind] = inputs(train, kind), inputs(scored, kind)
                x, x_scored = made_inputs[kind]
                chances, info = LEARNERS[learner](x[cut], train["y"][cut, 0], train["game"][cut], x_scored,
                                                  args.valid, args.seed)
                info["inputs"] = x.shape[1]
                score, p = (chances[:m] - y) ** 2, chances[m:]
            cpu = time.process_time() - tic
            results.append((name, fraction, score, cpu, info))
            if fraction == 1.0:
                against[name] = p
            print(f"  {name} at {fraction:g} of the fit games: Brier {score.mean():.5f} ({cpu:.0f} CPU s) {info}",
                  flush=True)
    ref = next((s for n, f, s, _, _ in results if n == "refit13" and f == 1.0), None)
    if ref is None:
        ref = held_out(rows_of(train, np.ones(len(train["y"]), dtype=bool)), rows_of(test, np.ones(m, dtype=bool)), ())
    print(f"\nshipped: held-out Brier {base.mean():.5f}; minus the refitted 13's "
          f"{(base - ref).mean() * 1e4:+.1f}e-4 (SE {se_by_game(base - ref, games) * 1e4:.1f})")
    print("| model | inputs | fit games | held-out Brier | minus the refitted 13's (1e-4) | SE (over games) "
          "| minus shipped (1e-4) | SE | CPU s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, fraction, score, cpu, info in results:
        learner, _, kind = name.partition(":")
        d_ref, d_ship = score - ref, score - base
        print(f"| {learner} {info if info else ''} | {kind or '13 features'} | {round(fraction * args.train_games)} "
              f"| {score.mean():.5f} | {d_ref.mean() * 1e4:+.1f} | {se_by_game(d_ref, games) * 1e4:.1f} "
              f"| {d_ship.mean() * 1e4:+.1f} | {se_by_game(d_ship, games) * 1e4:.1f} | {cpu:.0f} |")
    if args.rollout_log:
        against_rollouts(rolled, against)
    print(f"{time.process_time() - start:.0f} CPU s")


def against_rollouts(rolled: dict[str, np.ndarray], chances: dict[str, np.ndarray]) -> None:
    """Each model's RMS error against the rollouts (points, the rollout noise removed, as
    chance_vs_rollout), and its squared error minus the shipped model's (paired, SE over games)."""
    r, noise, g = rolled["rollout"], rolled["noise"], rolled["game"]
    logged = np.abs(chances["shipped"] - rolled["logged"])
    print(f"\n{len(r)} turn starts after a marking of the rollout log (model positions of {len(np.unique(g))} games); "
          f"the shipped chance recomputed is within {logged.max() * 100:.2f} points of the logged figure "
          f"(mean {logged.mean() * 100:.3f})")
    print("| model | RMS error, noise removed (points) | squared error minus shipped's (1e-4) | SE (over games) |")
    print("|---|---:|---:|---:|")
    ship = (chances["shipped"] - r) ** 2
    for name, p in chances.items():
        err = (p - r) ** 2
        rms = math.sqrt(max(float(err.mean() - noise.mean()), 0.0)) * 100
        print(f"| {name} | {rms:.2f} | {(err - ship).mean() * 1e4:+.1f} | {se_by_game(err - ship, g) * 1e4:.1f} |")


if __name__ == "__main__":
    main()
