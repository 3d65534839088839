"""The win model with "a turn ahead" (docs/win-chance.md, "Who played first in the round" for 2
players, "A turn ahead with 3 and 4 players"): its fit, the shipped file's assembly, and its
measurements against the model shipped before it on the same positions. A measurement, not a test.
``--players`` names the number of players (default 2; ``fit`` takes several, comma-separated).

``fit``: the coefficients of ``--players`` (``win_model.FEATURES``, with "a turn ahead", D5, D18)
fitted by :func:`win_fit.train_win_model` (``players`` those counts, ``strategy="win"``, ridge
``OWN_PLAY_RIDGE``) to ``--games`` self-play games per count of ``win`` by ``--play-model`` (2
players: the coefficients shipped before, ``examples/win-own-play.json``; 3 and 4:
``examples/win-learned-play.json``), from ``--seed``; the other counts at even chances (all 0, as
``train_matchup_model``), written to ``--output``.

``assemble``: data/win.json from ``--two``, ``--three`` and ``--four`` (each count's
coefficients from its file, by :func:`win_model.assemble`; a file assembled before, such as
another branch's data/win.json, may be given: its record of that count is kept).

``heldout``: every position the model values (:func:`win_fit.valued_positions`) of ``--games``
``win`` self-play games of ``--players`` from ``--seed`` (game ``g`` from
``SeedSequence(seed).spawn(games)[g]``, ``benchmarks/win_features.py``), played by
``--play-model``; every seat's chance under ``--old`` and ``--new``: the Brier score of the
player who just played and of every seat (the shares of victory, D20), their paired differences
(standard error over games) by the mover's place in the round, and the calibration: by that
place (mean shown, mean won), by role (the player who just played, the others) and "a turn
ahead", and by decile for the player who just played and for the others separately (the share
won within its 95% interval, and within 2 points of the mean shown); with ``--plot PNG`` the
reliability diagrams of both models, the mover and the others side by side.

``rollouts``: the turn starts after a marking of a ``benchmarks/chance_vs_rollout.py`` log
(``--log``, its ``--seed``, ``--players``), rebuilt by replaying its games
(``win_nonlinear.rollout_positions``: ``win`` by ``--log-model``, default the shipped file: the
model the log's games were played by), every seat's chance under each model against the
rollout's mean share: RMS with the rollout noise removed, with a bootstrap of the positions
(4,000 resamples, numpy seed 0) of the difference, and the paired difference of squared errors
(standard error over games), for every seat, the player who just played, the others, and by
the mover's place in the round (the positions where the mover's figure logged is exact, a decided
terminal, left out: ``play status`` shows that figure, not the model's); and the RMS of the figures the log shows (``play status``: the
mover's is the model's, with 3-4 players the others' are not, docs/win-chance.md "What is
shown").

``versus``: ``--games`` games of ``--players`` of ``win`` by ``--new`` against ``win`` by
``--old`` (game ``g`` from ``SeedSequence(seed).spawn(games)[g]``, the new model at seat ``g % n``,
the first player drawn from the game's seed, D5), the new model's share of victory (ties shared,
D20) with its 95% Wilson interval.

``ablate``: the feature against the refit. Every position the model values of ``--games`` ``win``
self-play games of ``--players`` from ``--seed`` (as ``heldout``, by ``--play-model``), fitted
three ways (``win_model.fit``, one row per phase): the 13 features without "a turn ahead" (its
column held at 0) with ridge ``win_model.RIDGE`` (1.0, the old fit's) and ``OWN_PLAY_RIDGE``,
and the 14 with ``OWN_PLAY_RIDGE``; each scored with ``--old`` on the games of
``--heldout-seed`` (``--heldout-games``): the Brier score of the player who just played and of
every seat against ``--old`` (paired, SE over games) and the mean shown minus won by the
mover's place in the round.

Run: ``python benchmarks/win_first.py fit|assemble|heldout|rollouts|versus|ablate [options]``.
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


def chances_of(path: str, data: dict[str, np.ndarray], players: int = 2) -> np.ndarray:
    """``float (N, players)``: every seat's chance under the model file ``path`` (its coefficients
    for ``players``) at the positions ``data`` (win_nonlinear's arrays: phase, round, design rows
    ``x``), the player who just played first, the others in seat order."""
    from shelfie_solver.dice.learned.win_model import float_chances, load_win_model

    coefficients = load_win_model(path).for_players(players)
    out = np.zeros((len(data["phase"]), players))
    for r in np.unique(data["round"]):
        at = data["round"] == r
        out[at] = float_chances(coefficients, data["phase"][at], data["x"][at], int(r))
    return out


def places(data: dict[str, np.ndarray]) -> np.ndarray:
    """``int (N,)``: the place in the round (0 first, D5) of the player who just played, read from
    the design rows' "a turn ahead" (``win_model.design``: after the turn of the seat at place
    ``q`` that is not last, it and the ``q`` seats before it are a turn ahead; after the last
    seat's turn nobody is)."""
    from shelfie_solver.dice.learned.win_model import FEATURES

    n = data["x"].shape[1]
    ahead = (data["x"][:, :, FEATURES.index("a turn ahead")] > 0).sum(axis=1)
    out: np.ndarray = np.where(ahead == 0, n - 1, ahead - 1)
    assert np.array_equal(out == 0, data["first"].astype(bool)), "the place read disagrees with who played first"
    return out


def turn_ahead(data: dict[str, np.ndarray]) -> np.ndarray:
    """``bool (N, players)``: every seat's "a turn ahead" (D5, D18), in the design rows' order."""
    from shelfie_solver.dice.learned.win_model import FEATURES

    out: np.ndarray = data["x"][:, :, FEATURES.index("a turn ahead")] > 0
    return out


def se_by_game(diff: np.ndarray, games: np.ndarray) -> float:
    """The standard error of ``diff.mean()`` with the values of one game dependent (per-game
    sums; ``games`` the game of each value, ints)."""
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
    counts = tuple(args.players)
    model = train_win_model(board, DEFAULT_RULES, args.seed, args.games, players=counts, jobs=args.jobs,
                            strategy="win", win_model=load_win_model(ROOT / args.play_model),
                            played_by=args.play_model)
    tables = {n: model.coefficients.get(n, EVEN.coefficients[n]).copy() for n in EVEN.coefficients}
    out = WinModel(tables, model.info)
    temp = Path(args.output + ".tmp")
    temp.write_text(model_text(out), "utf-8")
    temp.replace(args.output)
    print(f"{model.info['positions']} positions of {args.games} games (seed {args.seed}); "
          f"{time.process_time() - start:.0f} CPU s here (workers' not counted with --jobs > 1)")
    for n in counts:
        print(n, "players:", out.coefficients[n].tolist())


#: What each file that ``assemble`` may take was fitted to (the note of the file it writes).
DESCRIBED = {
    "examples/win-first.json": "fitted with the feature a turn ahead (D5, D18) to win's games by "
                               f"{BEFORE} (docs/win-chance.md, Who played first in the round)",
    "examples/win-learned-play.json": "fitted to learned's games, its a turn ahead 0 (docs/win-chance.md, "
                                      "A file assembled per number of players)",
    "examples/win-first-34.json": "fitted with the feature a turn ahead (D5, D18) to win's games by "
                                  "examples/win-learned-play.json (docs/win-chance.md, A turn ahead with 3 and 4 "
                                  "players)",
}


def assemble_file(args: argparse.Namespace) -> None:
    from shelfie_solver.dice.learned.win_model import DEFAULT_WIN_PATH, assemble, load_win_model, model_text

    files = {2: args.two, 3: args.three, 4: args.four}
    parts = {n: (load_win_model(ROOT / name), name) for n, name in files.items()}
    said = "; ".join(f"{n} players: {name}" + (f", {DESCRIBED[name]}" if name in DESCRIBED else "")
                     for n, name in files.items())
    note = ("each number of players' coefficients from the fit recorded for it under fitted, whose file is named "
            f"there; {said}")
    temp = DEFAULT_WIN_PATH.with_suffix(".json.tmp")
    temp.write_text(model_text(assemble(parts, note)), "utf-8")
    temp.replace(DEFAULT_WIN_PATH)
    print(f"written {DEFAULT_WIN_PATH}")


def decile_rows(p: np.ndarray, y: np.ndarray, games: np.ndarray) -> list[tuple[int, int, float, float, float]]:
    """Per decile of the chances ``p`` (flat, one per seat-position) that holds any: ``(decile,
    positions, mean shown, mean won, half width of the 95% interval of won)`` (SE over games)."""
    edges = np.linspace(0, 1, 11)
    out = []
    for i in range(10):
        keep = (p >= edges[i]) & ((p < edges[i + 1]) if i < 9 else (p <= 1))
        if keep.any():
            won = float(y[keep].mean())
            out.append((i, int(keep.sum()), float(p[keep].mean()), won,
                        1.96 * se_by_game(y[keep] - won, games[keep])))
    return out


def deciles(label: str, p: np.ndarray, y: np.ndarray, games: np.ndarray) -> None:
    """The reliability table of the chances ``p`` against the shares won ``y`` (flat, one per
    seat-position; ``games`` their games): per decile of the chance shown, the mean shown, the
    mean won with its 95% interval (SE over games), whether the share won is within that
    interval and within 2 points of the mean shown."""
    print(f"\n{label}: by decile of the chance shown")
    print("| decile | positions | mean shown | mean won | won minus shown | 95% interval of won | within it "
          "| within 2 points |")
    print("|---|---:|---:|---:|---:|---|---|---|")
    rows = decile_rows(p, y, games)
    off = wide = 0
    for i, count, shown, won, half in rows:
        inside, near = abs(won - shown) <= half, abs(won - shown) <= 0.02
        off += not inside
        wide += not near
        print(f"| {i * 10}-{i * 10 + 10}% | {count} | {shown * 100:.1f}% | {won * 100:.1f}% "
              f"| {(won - shown) * 100:+.1f} | [{(won - half) * 100:.1f}, {(won + half) * 100:.1f}] "
              f"| {'yes' if inside else 'no'} | {'yes' if near else 'no'} |")
    print(f"{label}: deciles off beyond their interval {off} of {len(rows)}; more than 2 points off {wide} of {len(rows)}")


def plot(path: str, n: int, models: dict[str, np.ndarray], y: np.ndarray, games: np.ndarray) -> None:
    """Reliability diagrams, the player who just played and the others side by side: per decile
    the share won minus the mean chance shown, in points, with its 95% interval, a line per model
    (``models``: label -> chances ``(N, n)``), the band of 2 points shaded; written whole to
    ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g2 = np.repeat(games[:, None], n, axis=1)
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.5), sharey=True)
    for ax, (title, cols) in zip(axes, (("the player who just played", slice(0, 1)), ("the others", slice(1, n)))):
        ax.axhspan(-2, 2, color="0.9", label="within 2 points")
        ax.axhline(0, color="grey", linewidth=0.8, linestyle="--")
        for (label, p), colour in zip(models.items(), ("tab:orange", "tab:blue")):
            rows = decile_rows(p[:, cols].ravel(), y[:, cols].ravel(), g2[:, cols].ravel())
            ax.errorbar([r[2] * 100 for r in rows], [(r[3] - r[2]) * 100 for r in rows],
                        yerr=[r[4] * 100 for r in rows], marker="o", ms=4, capsize=2, color=colour, label=label)
        ax.set_title(f"{n} players, {title}")
        ax.set_xlabel("chance shown, decile means (%)")
        ax.legend(loc="lower left", fontsize=8)
    axes[0].set_ylabel("share won minus chance shown (points), 95% interval")
    fig.tight_layout()
    fig.savefig(path + ".tmp.png", dpi=90)
    os.replace(path + ".tmp.png", path)


def calibration(name: str, p: np.ndarray, y: np.ndarray, games: np.ndarray, place: np.ndarray,
                ahead: np.ndarray) -> None:
    """Every calibration table of the model ``name``'s chances ``p (N, n)`` against the shares
    won ``y (N, n)`` (the player who just played first): by the mover's place in the round, by
    role and "a turn ahead", and by decile for the mover and for the others."""
    n = p.shape[1]
    print(f"\n{name}: the player who just played, by its place in the round")
    print("| after the turn of | positions | mean shown | mean won | shown minus won (points) | SE |")
    print("|---|---:|---:|---:|---:|---:|")
    for q in range(n):
        keep = place == q
        d = p[keep, 0] - y[keep, 0]
        print(f"| the seat at place {q + 1} of {n} | {keep.sum()} | {p[keep, 0].mean() * 100:.1f}% "
              f"| {y[keep, 0].mean() * 100:.1f}% | {d.mean() * 100:+.1f} | {se_by_game(d, games[keep]) * 100:.1f} |")
    g2 = np.repeat(games[:, None], n, axis=1)
    role = np.zeros((len(p), n), dtype=bool)
    role[:, 0] = True
    print(f"\n{name}: by role and a turn ahead (D5, D18; seat-positions)")
    print("| seats | seat-positions | mean shown | mean won | shown minus won (points) | SE |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, keep in (("the player who just played, a turn ahead", role & ahead),
                        ("the player who just played, not ahead (last in the round)", role & ~ahead),
                        ("the others, a turn ahead", ~role & ahead),
                        ("the others, not ahead", ~role & ~ahead),
                        ("the others, all", ~role)):
        if not keep.any():
            continue
        d = p[keep] - y[keep]
        print(f"| {label} | {keep.sum()} | {p[keep].mean() * 100:.1f}% | {y[keep].mean() * 100:.1f}% "
              f"| {d.mean() * 100:+.1f} | {se_by_game(d, g2[keep]) * 100:.1f} |")
    deciles(f"{name}, the player who just played", p[:, 0], y[:, 0], games)
    deciles(f"{name}, the others", p[:, 1:].ravel(), y[:, 1:].ravel(), g2[:, 1:].ravel())


def heldout(args: argparse.Namespace) -> None:
    use_model(str(ROOT / args.play_model))
    from win_nonlinear import load

    n = args.players[0]
    start = time.process_time()
    data = load(n, args.seed, args.games, args.cache)
    made = time.process_time() - start
    y, games = data["y"], data["game"]
    place, ahead = places(data), turn_ahead(data)
    old, new = chances_of(str(ROOT / args.old), data, n), chances_of(str(ROOT / args.new), data, n)
    bo, bn = (old - y) ** 2, (new - y) ** 2
    _, at = np.unique(games, return_index=True)  # each game's first position: its first player's place is 0
    first_share = y[at, 0]
    print(f"held out: {n} players, seed {args.seed}, {args.games} games of win by {args.play_model}, {len(y)} "
          f"positions ({made:.0f} CPU s); the first player's share of victory {first_share.mean() * 100:.1f}% "
          f"(SE {first_share.std() / math.sqrt(len(at)) * 100:.1f}; fair share {100 / n:.1f}%)")
    print("| model | Brier, the player who just played | minus old (1e-4) | SE | Brier, every seat (mean) "
          "| minus old (1e-4) | SE |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| old ({args.old}) | {bo[:, 0].mean():.5f} | 0 | | {bo.mean():.5f} | 0 | |")
    print(f"| new ({args.new}) | {bn[:, 0].mean():.5f} | {(bn[:, 0] - bo[:, 0]).mean() * 1e4:+.1f} "
          f"| {se_by_game(bn[:, 0] - bo[:, 0], games) * 1e4:.1f} | {bn.mean():.5f} "
          f"| {(bn - bo).mean() * 1e4:+.1f} | {se_by_game((bn - bo).mean(axis=1), games) * 1e4:.1f} |")
    for q in range(n):
        keep = place == q
        d, e = bn[keep, 0] - bo[keep, 0], (bn[keep] - bo[keep]).mean(axis=1)
        print(f"  after the turn of the seat at place {q + 1}: {keep.sum()} positions, new minus old "
              f"{d.mean() * 1e4:+.1f}e-4 (SE {se_by_game(d, games[keep]) * 1e4:.1f}), every seat "
              f"{e.mean() * 1e4:+.1f}e-4 (SE {se_by_game(e, games[keep]) * 1e4:.1f})")
    calibration("old", old, y, games, place, ahead)
    calibration("new", new, y, games, place, ahead)
    if args.plot:
        plot(args.plot, n, {f"old ({args.old})": old, f"new ({args.new})": new}, y, games)
    print(f"{time.process_time() - start:.0f} CPU s")


def rollouts(args: argparse.Namespace) -> None:
    if args.log_model:
        use_model(str(ROOT / args.log_model))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from win_nonlinear import rollout_positions

    n = args.players[0]
    start = time.process_time()
    rolled = rollout_positions(args.log, args.seed, args.per_game, n)
    # the positions where play status shows the mover the model's figure (not an exact 0 or 1)
    model = ~rolled["exacts"][:, 0].astype(bool)
    print(f"left out: {(~model).sum()} positions whose mover's figure logged is exact (a decided terminal)")
    rolled = {k: v[model] for k, v in rolled.items()}
    r, noise, g = rolled["rollouts"], rolled["noises"], rolled["game"]
    place = places(rolled)
    old, new = chances_of(str(ROOT / args.old), rolled, n), chances_of(str(ROOT / args.new), rolled, n)
    shown = rolled["loggeds"]  # play status: the mover's the model's; with 3-4 the others' not (the roller's view)
    print(f"{n} players: {len(r)} turn starts after a marking (model positions of {len(np.unique(g))} games); the "
          f"mover's figure logged differs from the new one recomputed by {np.abs(new - shown)[:, 0].max() * 100:.2f} "
          f"points at most, from the old one by {np.abs(old - shown)[:, 0].max() * 100:.2f}; the others' figures "
          f"logged (play status) from the new model's by {np.abs(new - shown)[:, 1:].mean() * 100:.2f} on average")
    eo, en, es = (old - r) ** 2, (new - r) ** 2, (shown - r) ** 2
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(r), size=(4000, len(r)))
    print("| seats | seat-positions | old RMS (points) | new RMS | new minus old [95% bootstrap] "
          "| squared error new minus old (1e-4) | SE (over games) | mean old / new / rollout | shown RMS |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    role = np.zeros(r.shape, dtype=bool)
    role[:, 0] = True
    rows = [("every seat", np.ones(r.shape, dtype=bool)), ("the player who just played", role),
            ("the others", ~role)]
    rows += [(f"the player who just played, at place {q + 1} of {n}", role & (place == q)[:, None])
             for q in range(n)]
    for label, keep in rows:
        w = keep.astype(float)  # the seats kept of each position: a bootstrap of the positions
        count = w[picks].sum(axis=(1, 2))
        boot = np.sqrt(np.maximum(((en - noise) * w)[picks].sum(axis=(1, 2)) / count, 0)) \
            - np.sqrt(np.maximum(((eo - noise) * w)[picks].sum(axis=(1, 2)) / count, 0))
        ro = math.sqrt(max(float(eo[keep].mean() - noise[keep].mean()), 0)) * 100
        rn = math.sqrt(max(float(en[keep].mean() - noise[keep].mean()), 0)) * 100
        rs = math.sqrt(max(float(es[keep].mean() - noise[keep].mean()), 0)) * 100
        d = ((en - eo) * w).sum(axis=1)
        per = w.sum(axis=1) > 0
        print(f"| {label} | {keep.sum()} | {ro:.2f} | {rn:.2f} | {rn - ro:+.2f} [{np.percentile(boot, 2.5) * 100:+.2f}, "
              f"{np.percentile(boot, 97.5) * 100:+.2f}] | {(en - eo)[keep].mean() * 1e4:+.1f} "
              f"| {se_by_game(d[per] / w[per].sum(axis=1).mean(), g[per]) * 1e4:.1f} "
              f"| {old[keep].mean() * 100:.1f} / {new[keep].mean() * 100:.1f} / {r[keep].mean() * 100:.1f} "
              f"| {rs:.2f} |")
    print(f"{time.process_time() - start:.0f} CPU s")


def ablate(args: argparse.Namespace) -> None:
    """The feature against the refit: fits on the same games with and without "a turn ahead"."""
    use_model(str(ROOT / args.play_model))
    from win_nonlinear import load

    from shelfie_solver.dice.learned.win_fit import OWN_PLAY_RIDGE
    from shelfie_solver.dice.learned.win_model import RIDGE, fit, float_chances

    n = args.players[0]
    start = time.process_time()
    train = load(n, args.seed, args.games, args.cache)
    test = load(n, args.heldout_seed, args.heldout_games, args.cache)
    made = time.process_time() - start

    def fitted(x: np.ndarray, ridge: float) -> np.ndarray:
        samples = [(n, int(ph), row, yy) for ph, row, yy in zip(train["phase"], x, train["y"])]
        return fit(samples, ridge).coefficients[n]

    def scored(table: np.ndarray) -> np.ndarray:
        out = np.zeros(test["y"].shape)
        for r in np.unique(test["round"]):
            at = test["round"] == r
            out[at] = float_chances(table, test["phase"][at], test["x"][at], int(r))
        return out

    without = train["x"].copy()
    without[..., -1] = 0  # "a turn ahead" (the last of FEATURES) held at 0: its coefficient stays 0
    y, games, place = test["y"], test["game"], places(test)
    old = chances_of(str(ROOT / args.old), test, n)
    fits = {"old (the file before)": old,
            "13 features refitted, ridge 1.0 (win_model.RIDGE)": scored(fitted(without, RIDGE)),
            "13 features refitted, ridge OWN_PLAY_RIDGE": scored(fitted(without, OWN_PLAY_RIDGE)),
            "14 features (with a turn ahead), ridge OWN_PLAY_RIDGE": scored(fitted(train["x"], OWN_PLAY_RIDGE))}
    print(f"{n} players: fitted on {len(train['y'])} positions of {args.games} games of seed {args.seed}, scored on "
          f"{len(y)} of {args.heldout_games} games of seed {args.heldout_seed} (win by {args.play_model}; "
          f"{made:.0f} CPU s the games)")
    print("| fit | Brier, the player who just played | minus old (1e-4) | SE | every seat minus old (1e-4) | SE | "
          + " | ".join(f"shown minus won after place {q + 1} (points)" for q in range(n)) + " |")
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * n)
    bo = (old - y) ** 2
    for label, p in fits.items():
        b = (p - y) ** 2
        d, e = b[:, 0] - bo[:, 0], (b - bo).mean(axis=1)
        bias = " | ".join(f"{(p[place == q, 0] - y[place == q, 0]).mean() * 100:+.1f}" for q in range(n))
        print(f"| {label} | {b[:, 0].mean():.5f} | {d.mean() * 1e4:+.1f} | {se_by_game(d, games) * 1e4:.1f} "
              f"| {e.mean() * 1e4:+.1f} | {se_by_game(e, games) * 1e4:.1f} | {bias} |")
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
    n = args.players[0]
    for g, seed in enumerate(np.random.SeedSequence(args.seed).spawn(args.games)):
        seats: list[Any] = [old] * n
        seats[g % n] = new
        game = play_seeded(board, DEFAULT_RULES, seats, seed)
        finals = game.scores
        shares.append(Fraction(share(finals[g % n], [f for j, f in enumerate(finals) if j != g % n])))
    rate = estimate(shares, (Fraction(0), Fraction(1)))
    print(f"{n} players, new {args.new} against old {args.old}: {args.games} games (seed {args.seed}), new's share "
          f"{float(rate.mean) * 100:.1f}% [{rate.low * 100:.1f}, {rate.high * 100:.1f}]; "
          f"{time.process_time() - start:.0f} CPU s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("fit", "assemble", "heldout", "rollouts", "versus", "ablate"))
    parser.add_argument("--seed", type=int, required=False, default=None)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=lambda t: tuple(int(x) for x in t.split(",")), default=(2,),
                        help="the numbers of players, comma-separated (fit: each fitted; else the first)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--play-model", default=BEFORE)
    parser.add_argument("--output", default="examples/win-first.json")
    parser.add_argument("--two", default="examples/win-first.json", help="assemble: the 2-player file")
    parser.add_argument("--three", default="examples/win-learned-play.json", help="assemble: the 3-player file")
    parser.add_argument("--four", default="examples/win-learned-play.json", help="assemble: the 4-player file")
    parser.add_argument("--log-model", default="", help="rollouts: the model file the log's games were played by "
                        "(default: the shipped one)")
    parser.add_argument("--old", default=BEFORE)
    parser.add_argument("--new", default="shelfie_solver/dice/data/win.json")
    parser.add_argument("--cache", default="")
    parser.add_argument("--log", default="")
    parser.add_argument("--per-game", type=int, default=4)
    parser.add_argument("--plot", default="", help="heldout: write the reliability diagrams to this PNG")
    parser.add_argument("--heldout-seed", type=int, default=None, help="ablate: the held-out games' seed")
    parser.add_argument("--heldout-games", type=int, default=2000, help="ablate: the held-out games")
    args = parser.parse_args()
    os.chdir(ROOT)
    commands = {"fit": fit, "assemble": assemble_file, "heldout": heldout, "rollouts": rollouts, "versus": versus,
                "ablate": ablate}
    commands[args.command](args)


if __name__ == "__main__":
    main()
