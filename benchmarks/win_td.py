"""The 2-player trees fitted to the model's own one-ply values instead of game outcomes (fitted
value iteration / TD(lambda); docs/win-chance.md, "Fitted on its own one-ply values"). A
measurement, not a test; LightGBM is the ``bench`` extra (the package never imports it).

``targets``: for 2-player games of each source ``SEED:GAMES:POLICY`` of ``--sources`` (as
``benchmarks/win_trees.py``: game ``g`` from ``SeedSequence(seed).spawn(5)[2].spawn(games)[g]``,
POLICY a model file that ``win`` plays by, or ``learned``), every position that
:func:`win_fit.valued_positions` yields (the position after a turn, the sheets after its blocks,
D15) with its sample (:func:`win_fit.game_positions`, the same rows as ``win_trees.py positions``),
its outcome (the mover's share of victory, D20) and its ONE-PLY target under ``--model``: the
mover's chance ``1 - WinPlyStrategy(win_model=M).start_value(next)``, ``next`` the start state of
the next played turn (``game.played_turns()[index + 1][0]``; exact where :mod:`win_chance`
applies, which ``start_value`` handles), or the outcome where the game is over after the turn or
the opponent cannot play (the next played turn is the mover's again). Cached per source and model
in ``--cache`` (a pickle).

The TD(lambda) target along each game, from the mover's perspective (2 players: consecutive
valued positions alternate movers): ``G_t = (1 - lam) * one_t + lam * (1 - G_{t+1})`` where the
next played turn is the opponent's and its position is valued; ``G_t`` = the outcome where the
game is over after turn ``t`` (then ``one_t`` is the outcome too); otherwise (the next turn is one
:mod:`win_chance` values exactly or one whose end the model knows exactly, so
``valued_positions`` skips it, or the opponent passes) the chain breaks and ``G_t = one_t``, the
one-ply value there being exact or near it. ``lam = 0`` is the one-ply target (fitted value
iteration), ``lam = 1`` the outcome wherever the chain reaches the end.

``fit``: as ``win_trees.py fit`` (its inputs :func:`win_trees.tree_inputs`, monotone constraints
:func:`win_trees.monotone_vector`, settings :data:`win_trees.PARAMS` with ``--learning-rate`` and
``--leaves``, early stopping on 20% of the games by game, numpy seed 0, patience
:data:`win_trees.PATIENCE`, refitted on every game, export :func:`win_trees.export` and its
checks), the labels the TD(``--lam``) targets (rows ``(u_0, G)`` and ``(u_1, 1 - G)``, objective
``cross_entropy``), the init score the seat's logit under ``--base``'s 2-player coefficients (the
linear rows, without its trees); written as ``--output``: ``--base``'s file with its 2-player
trees replaced (format 5; the 3- and 4-player rows unchanged).

``ceiling``: how close the one-ply value itself comes to rollouts, the bound of what fitting to it
can reach: at the turn starts after a marking of a ``benchmarks/chance_vs_rollout.py`` log
(``--log``, its ``--seed``; several logs, comma-separated, pooled; replayed with ``win`` by ``--log-model``, the positions
``win_trees.py rollouts`` keeps), the figure logged (the model's, ``play status``) and the one-ply
value ``1 - start_value`` of the turn start (the next player's, under each file of ``--files``)
for the player who just played, against the rollout: RMS with the rollout noise removed, and the
paired difference with a bootstrap of the positions (4,000 resamples, numpy seed 0); the mean
absolute error measured and the mean absolute noise ``sqrt(2/pi) s / sqrt(N)`` (the true one lies
between the two's difference and the measured one: docs/win-chance.md "The mean absolute error,
with many play-outs"), with the 95% bootstrap interval of that lower end.

``richgate``: a gate without the speed budget: trees fitted to the one-ply values (lambda 0) of
``--sources`` (one source) on the design inputs alone and on them with both seats'
``win_rich_gate.py`` engineered features, line totals and cell bits (no monotone constraints;
``--learning-rate``, ``--leaves``, ``--max-trees``), scored by the RMS from the one-ply values of
``--heldout`` and from the rollouts of the logs ``--log`` (``--seed``, replayed by ``--log-model``).

``score``: the log loss and Brier score, against the outcomes, of the mover's chance under each
file of ``--files`` at every valued position of the source ``--heldout`` (paired with the first
file, SE over games): the pre-registered choice between candidates.

Run: ``python benchmarks/win_td.py targets|fit|score|ceiling|richgate [options]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import win_first  # noqa: E402
import win_trees  # noqa: E402

ROOT = win_trees.ROOT
SHIPPED = win_trees.SHIPPED
#: The shipped 2-player file (data/win.json's 2-player part): its linear rows are the base.
BASE = "examples/win-trees-2-fast.json"


def source_targets(source: str, model: str, cache: str) -> dict[str, np.ndarray]:
    """The arrays of one source under the model file ``model`` (module docstring): ``phase
    (N,)``, ``x (N, 2, F)``, ``y (N,)`` the outcome, ``one (N,)`` the one-ply target, ``game
    (N,)``, ``ends (N,)`` the game over after the turn, ``link (N,)`` the next position in the
    arrays is the next played turn's, the opponent's; from ``cache`` when it holds them."""
    seed, games, policy = source.split(":", 2)
    path = Path(cache) / f"td-{seed}-{games}-{Path(policy).stem}-under-{Path(model).stem}.pkl"
    if path.exists():
        out: dict[str, np.ndarray] = pickle.loads(path.read_bytes())
        return out
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import game_positions, self_play_seat, valued_positions
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import WinPlyStrategy

    board = load_board(None, DEFAULT_RULES)
    seat = self_play_seat("learned") if policy == "learned" else self_play_seat("win", load_win_model(ROOT / policy))
    ply = WinPlyStrategy(win_model=load_win_model(ROOT / model))
    seeds = np.random.SeedSequence(int(seed)).spawn(5)[2].spawn(int(games))  # as win_trees.source_positions
    rows: dict[str, list[Any]] = {k: [] for k in ("phase", "x", "y", "one", "game", "ends", "link", "turn")}
    for g, s in enumerate(seeds):
        game = play_seeded(board, DEFAULT_RULES, [seat] * 2, s)
        played = game.played_turns()
        samples = game_positions(game)
        turns = []
        for sample, v in zip(samples, valued_positions(game), strict=True):
            index = v.before.turn  # the turn's place in played_turns (every rolled turn ends in a marking or D13)
            assert played[index][0].turn == index and played[index][0].active == v.before.active
            me = v.before.active
            y = float(v.y[0])
            ends = index + 1 == len(played)
            if ends or played[index + 1][0].active == me:  # over, or the opponent cannot play
                one = y
            else:
                one = float(1 - ply.start_value(played[index + 1][0]))
            rows["phase"].append(sample[1])
            rows["x"].append(sample[2])
            rows["y"].append(y)
            rows["one"].append(one)
            rows["game"].append(g)
            rows["ends"].append(ends)
            rows["turn"].append(index)
            turns.append((index, me))
        for k, (index, me) in enumerate(turns):
            rows["link"].append(k + 1 < len(turns) and turns[k + 1][0] == index + 1 and turns[k + 1][1] != me)
        if (g + 1) % 500 == 0:
            print(f"    {source}: {g + 1} games, {len(rows['y'])} positions, {time.process_time():.0f} CPU s", flush=True)
    out = {k: np.array(v) for k, v in rows.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_bytes(pickle.dumps(out))
    temp.replace(path)
    return out


def td_targets(data: dict[str, np.ndarray], lam: float) -> np.ndarray:
    """``float (N,)``: the TD(``lam``) target of every position (module docstring), computed
    backwards along each game (the arrays in the order played, game by game)."""
    one, y, ends, link = data["one"], data["y"], data["ends"], data["link"]
    out = np.empty(len(one))
    for t in range(len(one) - 1, -1, -1):
        if ends[t]:
            out[t] = y[t]
        elif link[t]:
            out[t] = (1 - lam) * one[t] + lam * (1 - out[t + 1])
        else:
            out[t] = one[t]
    return out


def targets(args: argparse.Namespace) -> None:
    for source in args.sources.split(","):
        start = time.process_time()
        data = source_targets(source, args.model, args.cache)
        one, y = data["one"], data["y"]
        print(f"{source} under {args.model}: {len(y)} positions of {data['game'].max() + 1} games "
              f"({time.process_time() - start:.0f} CPU s); mean outcome {y.mean():.4f}, mean one-ply target "
              f"{one.mean():.4f}; Brier of the one-ply target against the outcome {((one - y) ** 2).mean():.5f}; "
              f"chain links {data['link'].mean():.3f}, ends {data['ends'].mean():.3f}", flush=True)


def fit(args: argparse.Namespace) -> None:
    import lightgbm as lgb

    from shelfie_solver.dice.learned.win_model import FEATURES

    start = time.process_time()
    F = len(FEATURES)
    parts, records, offset = [], [], 0
    for source in args.sources.split(","):
        data = source_targets(source, args.model, args.cache)
        parts.append({**data, "game": data["game"] + offset, "label": td_targets(data, args.lam)})
        seed, games, policy = source.split(":", 2)
        records.append({"seed": int(seed), "games": int(games), "played_by": policy if policy == "learned"
                        else f"win by {policy}", "positions": len(data["y"])})
        offset += int(games)
    phase = np.concatenate([p["phase"] for p in parts]).astype(np.int64)
    x = np.concatenate([p["x"] for p in parts]).astype(np.int64)
    yo = np.concatenate([p["y"] for p in parts])
    lab = np.concatenate([p["label"] for p in parts])
    game = np.concatenate([p["game"] for p in parts])
    rounds = win_trees.rounds_of(x)
    base, _ = win_trees.file_parts(str(ROOT / args.base))
    gap = win_trees.linear_gaps(base, phase, x, rounds) / win_trees.scale()
    u0, u1 = win_trees.tree_inputs(phase, x)
    u = np.concatenate([u0, u1]).astype(np.float64)
    assert np.array_equal(u[: len(u0)].astype(np.int64), u0), "inputs beyond float64's exact integers"
    label, init, games2 = np.concatenate([lab, 1 - lab]), np.concatenate([gap, -gap]), np.concatenate([game, game])
    outcome = np.concatenate([yo, 1 - yo])
    held = np.random.default_rng(0).permutation(offset)[: offset // 5]
    valid = np.isin(games2, held)
    params = {**win_trees.PARAMS, "monotone_constraints": win_trees.monotone_vector(F),
              "learning_rate": args.learning_rate, "num_leaves": args.leaves}
    print(f"{len(yo)} positions of {offset} games, lambda {args.lam}; targets: mean {lab.mean():.4f}, "
          f"Brier against the outcomes {((lab - yo) ** 2).mean():.5f}", flush=True)
    train = lgb.Dataset(u[~valid], label[~valid], init_score=init[~valid], free_raw_data=False)
    check = lgb.Dataset(u[valid], label[valid], init_score=init[valid], reference=train)
    booster = lgb.train(params, train, args.max_trees, valid_sets=[check],
                        callbacks=[lgb.early_stopping(win_trees.PATIENCE, verbose=False)])
    best = booster.best_iteration or booster.num_trees()
    raw = booster.predict(u[valid], num_iteration=best, raw_score=True)
    ce = win_trees.cross_entropy
    print(f"early stopping: {best} iterations; held-back log loss against the targets {ce(label[valid], init[valid]):.5f} "
          f"linear, {ce(label[valid], init[valid] + raw):.5f} with trees; against the outcomes "
          f"{ce(outcome[valid], init[valid]):.5f} linear, {ce(outcome[valid], init[valid] + raw):.5f} with trees",
          flush=True)
    booster = lgb.train(params, lgb.Dataset(u, label, init_score=init), best) if args.refit \
        else lgb.train(params, train, best)
    block = win_trees.export(booster)
    raw = booster.predict(u[valid], raw_score=True)
    mine = win_trees.tree_terms(block, u[valid].astype(np.int64)) / (win_trees.scale() / 2)
    ok = win_trees.monotone_ok(block, F) and win_trees.acyclic_ok(block)
    print(f"export: {len(block['feature'])} nodes in {len(block['roots'])} trees; |exported - raw| at most "
          f"{np.abs(mine - raw).max():.2e} logit; monotone and acyclic {ok}", flush=True)
    assert ok
    assert sum(max(abs(block["value"][i]) for i in win_trees.leaves(block, r)) for r in block["roots"]) < 1 << 61
    block["fitted"] = {
        "sources": records, "positions": int(len(yo)), "games": offset, "rows": int(len(u)), "base": args.base,
        "init_score": "the seat's logit z_i - z_j of the base's 2-player coefficients (its linear rows)",
        "labels": (f"TD(lambda={args.lam}) targets under {args.model}: the one-ply value 1 - the opponent's start "
                   "value of the next turn (WinPlyStrategy.start_value), the outcome (D20) at the game's end; "
                   "objective cross_entropy"),
        "lightgbm": lgb.__version__, "params": {k: v for k, v in params.items() if k != "monotone_constraints"},
        "monotone": f"+1 on u[f], -1 on u[F+f] for f in {list(win_trees.OWN)}", "iterations": int(best),
        "max_trees": args.max_trees,
        "early_stopping": f"log loss of 20% of the games (numpy seed 0), patience {win_trees.PATIENCE}",
        "refitted_on_every_game": bool(args.refit), "benchmark": "benchmarks/win_td.py fit",
        "docs": "docs/win-chance.md, Fitted on its own one-ply values (2 players; 2026-12-07)",
    }
    data = json.loads((ROOT / args.base).read_text("utf-8"))
    data["format"] = win_trees.TREES_FORMAT
    data["trees"] = {"2": block}
    temp = Path(args.output + ".tmp")
    temp.write_text(json.dumps(data, separators=(",", ":")) + "\n", "utf-8")
    temp.replace(args.output)
    print(f"written {args.output}; {time.process_time() - start:.0f} CPU s in all")


def score(args: argparse.Namespace) -> None:
    start = time.process_time()
    samples, game = win_trees.source_positions(args.heldout, args.cache)
    x = np.array([s[2] for s in samples], dtype=np.int64)
    data = {"phase": np.array([s[1] for s in samples], dtype=np.int64), "x": x, "round": win_trees.rounds_of(x)}
    y = np.array([s[3][0] for s in samples])
    print(f"held out: {args.heldout}, {len(y)} positions of {game.max() + 1} games "
          f"({time.process_time() - start:.0f} CPU s)")
    print("| file | log loss | minus the first (1e-4) | SE | Brier | minus the first (1e-4) | SE |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    first: tuple[np.ndarray, np.ndarray] | None = None
    for path in args.files.split(","):
        p = np.clip(win_trees.chances_of(str(ROOT / path), data)[:, 0], 1e-9, 1 - 1e-9)
        ll, br = -(y * np.log(p) + (1 - y) * np.log(1 - p)), (p - y) ** 2
        if first is None:
            first = (ll, br)
        dl, db = ll - first[0], br - first[1]
        print(f"| {path} | {ll.mean():.5f} | {dl.mean() * 1e4:+.1f} | {win_first.se_by_game(dl, game) * 1e4:.1f} "
              f"| {br.mean():.5f} | {db.mean() * 1e4:+.1f} | {win_first.se_by_game(db, game) * 1e4:.1f} |", flush=True)
    print(f"{time.process_time() - start:.0f} CPU s")


def ceiling(args: argparse.Namespace) -> None:
    from chance_vs_rollout import PLAYERS, positions_of, use_win_model

    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import valued_positions
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import WinPlyStrategy, strategy_named

    start = time.process_time()
    use_win_model(str(ROOT / args.log_model))
    plies = [WinPlyStrategy(win_model=load_win_model(ROOT / f)) for f in args.files.split(",")]

    def fresh(s: np.random.SeedSequence) -> np.random.SeedSequence:
        return np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key, pool_size=s.pool_size)

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    out: list[list[float]] = []  # rollout, noise, logged, one-ply under each file
    gid: list[tuple[int, int]] = []
    for log, seed in zip(args.log.split(","), str(args.seed).split(","), strict=True):  # logs pooled
        rows = [r for r in map(json.loads, open(log)) if r["players"] == 2]
        games = iter(np.random.SeedSequence(int(seed)).spawn(len(PLAYERS))[PLAYERS.index(2)].spawn(10_000))
        done, g = 0, -1
        while done < len(rows):  # as win_nonlinear.rollout_positions
            game, g = next(games), g + 1
            valued = None
            for kept, kind in positions_of(2, fresh(game), args.per_game)[:len(rows) - done]:
                row, done = rows[done], done + 1
                assert row["kind"] == kind and row["round"] == kept.state.round, "the log is not of this seed"
                if kind != "after marking":
                    continue
                if valued is None:
                    played = play_seeded(board, rules, [strategy_named("win")] * 2, fresh(game).spawn(2)[0])
                    valued = {v.before.turn: v for v in valued_positions(played)}
                v = valued.get(kept.state.turn - 1)
                seat = row["seats"][v.order[0]] if v is not None else None
                if v is None or seat["exact"] or not kept.state.marks.has_available:
                    continue
                assert kept.state.active == v.order[1]
                out.append([seat["rollout"], seat["variance"] / row["games"], seat["model"]]
                           + [float(1 - ply.start_value(kept.state)) for ply in plies])
                gid.append((int(seed), g))
    a = np.array(out)
    r, noise = a[:, 0], a[:, 1]
    names = ["the figure logged (" + args.log_model + ")"] + [f"one ply under {f}" for f in args.files.split(",")]
    picks = np.random.default_rng(0).integers(0, len(r), size=(4000, len(r)))

    def rms(e: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The RMS with the noise removed over the rows ``at`` (the last axis)."""
        return np.sqrt(np.maximum(e[at].mean(axis=-1) - noise[at].mean(axis=-1), 0))

    every = np.arange(len(r))
    base = (a[:, 2] - r) ** 2
    print(f"{len(r)} turn starts after a marking of {len(set(gid))} games ({time.process_time() - start:.0f} CPU s)")
    mad = math.sqrt(2 / math.pi) * np.sqrt(noise).mean()  # the mean absolute noise (docs: "with many play-outs")
    print("| figure | RMS, noise removed (points) | minus the figure logged [95% bootstrap] | mean minus rollout "
          f"| MAE measured (the noise {mad * 100:.2f}) | lower end (MAE minus noise), 95% |")
    print("|---|---:|---:|---:|---:|---|")
    for k, name in enumerate(names):
        e = (a[:, 2 + k] - r) ** 2
        lo, hi = np.percentile(rms(e, picks) - rms(base, picks), [2.5, 97.5]) * 100
        lower = np.abs(a[:, 2 + k] - r)[picks].mean(axis=1) - math.sqrt(2 / math.pi) * np.sqrt(noise)[picks].mean(axis=1)
        low = np.percentile(lower, [2.5, 97.5]) * 100
        print(f"| {name} | {rms(e, every) * 100:.2f} | {(rms(e, every) - rms(base, every)) * 100:+.2f} "
              f"[{lo:+.2f}, {hi:+.2f}] | {(a[:, 2 + k] - r).mean() * 100:+.2f} "
              f"| {np.abs(a[:, 2 + k] - r).mean() * 100:.2f} | [{low[0]:.2f}, {low[1]:.2f}] |", flush=True)


def rich_rows(source: str, model: str, cache: str) -> dict[str, np.ndarray]:
    """The valued positions of ``source`` as ``win_features.position_row`` arrays (``lines``,
    ``cells``, ``x``, ``phase``, ``round``) with their one-ply targets under ``model``
    (:func:`source_targets`, the same order), from ``cache`` when it holds them."""
    seed, games, policy = source.split(":", 2)
    path = Path(cache) / f"rich-{seed}-{games}-{Path(policy).stem}.npz"
    targets = source_targets(source, model, cache)
    if not path.exists():
        from win_features import position_row

        from shelfie_solver.dice.board import load_board
        from shelfie_solver.dice.game.turn import play_seeded
        from shelfie_solver.dice.learned.win_fit import self_play_seat, valued_positions
        from shelfie_solver.dice.learned.win_model import load_win_model
        from shelfie_solver.dice.rules import DEFAULT_RULES

        board = load_board(None, DEFAULT_RULES)
        seat = self_play_seat("learned") if policy == "learned" else self_play_seat("win", load_win_model(ROOT / policy))
        rows = []
        for g, s in enumerate(np.random.SeedSequence(int(seed)).spawn(5)[2].spawn(int(games))):
            rows += [position_row(g, v) for v in valued_positions(play_seeded(board, DEFAULT_RULES, [seat] * 2, s))]
        out = {k: np.array([r[k] for r in rows]) for k in ("phase", "round", "x", "cells")}
        out["lines"] = np.array([[np.stack(t) for t in r["lines"]] for r in rows])
        np.savez_compressed(path, **out)
    with np.load(path) as data:
        rich = {k: data[k] for k in data.files}
    assert len(rich["x"]) == len(targets["one"]) and np.array_equal(rich["x"], targets["x"])
    return {**rich, "one": targets["one"], "y": targets["y"], "game": targets["game"]}


def rich_inputs(d: dict[str, np.ndarray], rich: bool) -> tuple[np.ndarray, np.ndarray]:
    """``float (N, K)`` twice, each seat's inputs: ``u_i`` of the spec and, with ``rich``, both
    seats' ``win_rich_gate`` engineered features, line totals and cell bits (the seat's first)."""
    x = d["x"].astype(np.int64)
    u0, u1 = win_trees.tree_inputs(d["phase"].astype(np.int64), x)
    if not rich:
        return u0.astype(float), u1.astype(float)
    from win_rich_gate import cell_bits, engineered, line_totals

    seat = np.concatenate([engineered(d), line_totals(d), cell_bits(d)], axis=-1)  # (N, 2, R)
    return (np.concatenate([u0, seat[:, 0], seat[:, 1]], axis=1).astype(float),
            np.concatenate([u1, seat[:, 1], seat[:, 0]], axis=1).astype(float))


def richgate(args: argparse.Namespace) -> None:
    """Trees on the design inputs against trees on richer inputs, both fitted to the one-ply values
    (lambda 0, no monotone constraints, no speed budget): the RMS from the one-ply values on the
    held-out source, and from the rollouts of logs (the figure the log shows beside them; the paired
    difference with a bootstrap of the positions, 4,000 resamples, numpy seed 0)."""
    import lightgbm as lgb
    from chance_vs_rollout import use_win_model
    from win_nonlinear import rollout_positions

    start = time.process_time()
    train = rich_rows(args.sources, args.model, args.cache)
    test = rich_rows(args.heldout, args.model, args.cache)
    use_win_model(str(ROOT / args.log_model))
    logs = [rollout_positions(log, int(seed), args.per_game, 2)
            for log, seed in zip(args.log.split(","), str(args.seed).split(","), strict=True)]
    rolled = {k: np.concatenate([r[k] for r in logs]) for k in ("phase", "round", "x", "cells", "lines", "rollout",
                                                               "noise", "logged", "exacts")}
    keep = ~rolled["exacts"][:, 0].astype(bool)
    rolled = {k: v[keep] for k, v in rolled.items()}
    base, _ = win_trees.file_parts(str(ROOT / args.base))

    def gap(d: dict[str, np.ndarray]) -> np.ndarray:
        x = d["x"].astype(np.int64)
        out: np.ndarray = win_trees.linear_gaps(base, d["phase"].astype(np.int64), x, win_trees.rounds_of(x))
        return out / win_trees.scale()

    print(f"{len(train['one'])} training positions, {len(test['one'])} held out, {len(rolled['rollout'])} turn starts "
          f"rolled out ({time.process_time() - start:.0f} CPU s)")
    print("| inputs | trees | RMS from the one-ply value, held out (points) | RMS from the rollouts, noise removed "
          "(minus the figure shown [95% bootstrap]) |")
    print("|---|---:|---:|---:|")
    r, noise = rolled["rollout"], rolled["noise"]
    picks = np.random.default_rng(0).integers(0, len(r), size=(4000, len(r)))
    shown = (rolled["logged"] - r) ** 2
    noise_of = noise[picks].mean(axis=1)

    def rms_of(e: np.ndarray) -> np.ndarray:
        """RMS with the noise removed of each row of ``e`` (a resample; one row: every position)."""
        n = noise_of if len(e) == len(picks) else np.array([noise.mean()])
        return np.sqrt(np.maximum(e.mean(axis=1) - n, 0))

    print(f"| the figure the logs show | | | {math.sqrt(max(((rolled['logged'] - r) ** 2).mean() - noise.mean(), 0)) * 100:.2f} |")
    for rich in (False, True):
        u0, u1 = rich_inputs(train, rich)
        g = gap(train)
        label, init = np.concatenate([train["one"], 1 - train["one"]]), np.concatenate([g, -g])
        games2 = np.concatenate([train["game"], train["game"]])
        held = np.random.default_rng(0).permutation(int(train["game"].max()) + 1)[: (int(train["game"].max()) + 1) // 5]
        valid = np.isin(games2, held)
        u = np.concatenate([u0, u1])
        params = {**win_trees.PARAMS, "learning_rate": args.learning_rate, "num_leaves": args.leaves}
        t0 = time.process_time()
        booster = lgb.train(params, lgb.Dataset(u[~valid], label[~valid], init_score=init[~valid]), args.max_trees,
                            valid_sets=[lgb.Dataset(u[valid], label[valid], init_score=init[valid])],
                            callbacks=[lgb.early_stopping(win_trees.PATIENCE, verbose=False)])

        def chance(d: dict[str, np.ndarray]) -> np.ndarray:
            a, b = rich_inputs(d, rich)
            z = gap(d) + (booster.predict(a, raw_score=True) - booster.predict(b, raw_score=True)) / 2
            out: np.ndarray = 1 / (1 + np.exp(-z))
            return out

        held_rms = math.sqrt(((chance(test) - test["one"]) ** 2).mean())
        e = (chance(rolled) - r) ** 2
        roll_rms = math.sqrt(max(e.mean() - noise.mean(), 0))
        diff = rms_of(e[picks]) - rms_of(shown[picks])
        lo, hi = np.percentile(diff, [2.5, 97.5]) * 100
        print(f"| {'design + engineered + line totals + cells' if rich else 'design (u_i)'} | {booster.best_iteration} "
              f"| {held_rms * 100:.2f} | {roll_rms * 100:.2f} ({(roll_rms - rms_of(shown[None])[0]) * 100:+.2f} "
              f"[{lo:+.2f}, {hi:+.2f}]) | <!-- {time.process_time() - t0:.0f} CPU s -->", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("targets", "fit", "score", "ceiling", "richgate"))
    parser.add_argument("--sources", default="", help="SEED:GAMES:POLICY,... (POLICY a model file or learned)")
    parser.add_argument("--model", default=SHIPPED, help="the model file the one-ply targets are computed under")
    parser.add_argument("--cache", default="/tmp/td")
    parser.add_argument("--lam", type=float, default=0.0, help="fit: the TD(lambda) parameter, 0 to 1")
    parser.add_argument("--base", default=BASE, help="fit: the file whose linear rows the trees are fitted on top of")
    parser.add_argument("--output", default="examples/win-td-2.json")
    parser.add_argument("--refit", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--learning-rate", type=float, default=0.4)
    parser.add_argument("--leaves", type=int, default=31)
    parser.add_argument("--max-trees", type=int, default=16)
    parser.add_argument("--heldout", default="", help="score: the source SEED:GAMES:POLICY scored")
    parser.add_argument("--files", default=SHIPPED, help="score: model files, comma-separated (the first the reference)")
    parser.add_argument("--log", default="", help="ceiling: a chance_vs_rollout.py log of 2 players")
    parser.add_argument("--log-model", default=SHIPPED, help="ceiling: the model file the log's games were played by")
    parser.add_argument("--seed", default="0", help="ceiling: the log's seed (seeds, comma-separated, one a log)")
    parser.add_argument("--per-game", type=int, default=4, help="ceiling: the log's --per-game")
    args = parser.parse_args()
    if not 0 <= args.lam <= 1:
        print(f"--lam must be between 0 and 1, got {args.lam}", file=sys.stderr)
        sys.exit(2)
    for source in [t for t in args.sources.split(",") + [args.heldout] if t]:
        seed, games, policy = (source.split(":", 2) + ["", ""])[:3]
        if not (seed.isdigit() and games.isdigit() and int(games) > 0 and policy):
            print(f"a source is SEED:GAMES:POLICY (POLICY a model file or learned), got {source!r}", file=sys.stderr)
            sys.exit(2)
    os.chdir(ROOT)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    {"targets": targets, "fit": fit, "score": score, "ceiling": ceiling, "richgate": richgate}[args.command](args)


if __name__ == "__main__":
    main()
