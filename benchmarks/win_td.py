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

``ceiling2``: the same turn starts (``--every N``: every N-th, ``--limit``), the figure logged, the
one-ply value and the TWO-PLY value under the first file of ``--files`` for the player who just
played: ``1 - V2(next)``, ``V2`` the one-turn engine over the next player's turn (optimal holds,
the exact DP) whose terminal value for every usable item set and every shelf a failed result may
give up (D13) is the one-ply value of the position after it (``WinPlyStrategy.after_value``: 1 -
the start value of the mover's following turn; the compiled value kept where that is ``None`` or
the choice's value is exact, as ``WinPlyStrategy.choose_marking``): :func:`two_ply_start`. The
table as ``ceiling``'s, with each figure's paired difference against the one-ply value too; the
CPU seconds per two-ply value and the usable item sets a turn; with ``--resamples`` a point
estimate of the true mean absolute error (:func:`deconvolved_mae`, a normal scale mixture fitted
with the rollout noise known) and its bootstrap interval; with ``--screen N`` the cost of an
advice screen of two-ply figures (one two-ply value per usable item set: :func:`screen_cost`) at
every N-th turn start and at the game's first turn. ``--save``/``--load``: the rows as a ``.npy``.
``deconcheck``: :func:`deconvolved_mae` on simulated errors and noise of that size.

``richgate``: a gate without the speed budget: trees fitted to the one-ply values (lambda 0) of
``--sources`` (one source) on the design inputs alone and on them with both seats'
``win_rich_gate.py`` engineered features, line totals and cell bits (no monotone constraints;
``--learning-rate``, ``--leaves``, ``--max-trees``), scored by the RMS from the one-ply values of
``--heldout`` and from the rollouts of the logs ``--log`` (``--seed``, replayed by ``--log-model``).

``score``: the log loss and Brier score, against the outcomes, of the mover's chance under each
file of ``--files`` at every valued position of the source ``--heldout`` (paired with the first
file, SE over games): the pre-registered choice between candidates.

Run: ``python benchmarks/win_td.py targets|fit|score|ceiling|ceiling2|deconcheck|richgate [options]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time
from fractions import Fraction
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


def ceiling_positions(args: argparse.Namespace) -> tuple[list[list[float]], list[Any], list[tuple[int, int]]]:
    """The turn starts of ``ceiling``: the logs ``--log`` (seeds ``--seed``, pooled) replayed with
    ``win`` by ``--log-model`` (the positions ``win_trees.py rollouts`` keeps: after a marking, the
    player who just played not valued exactly, the next player with an available item). Returns
    ``(rows, states, games)``: per position ``[rollout, noise variance, figure logged]`` of the
    player who just played (chances, 0 to 1), the turn start (the next player's
    :class:`GameState`) and ``(seed, game)``."""
    from chance_vs_rollout import PLAYERS, positions_of, use_win_model

    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import valued_positions
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.strategies import strategy_named

    use_win_model(str(ROOT / args.log_model))

    def fresh(s: np.random.SeedSequence) -> np.random.SeedSequence:
        return np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key, pool_size=s.pool_size)

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    out: list[list[float]] = []  # rollout, noise, logged
    states: list[Any] = []
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
                out.append([seat["rollout"], seat["variance"] / row["games"], seat["model"]])
                states.append(kept.state)
                gid.append((int(seed), g))
    return out, states, gid


def ceiling_table(a: np.ndarray, names: list[str], against: tuple[int, ...] = ()) -> None:
    """Print ``ceiling``'s table: ``a`` ``(N, 3 + F)`` the rows of :func:`ceiling_positions` with
    the ``F`` figures named ``names[1:]`` (``names[0]`` the figure logged) appended; RMS with the
    noise removed, minus the figure logged (and, for each column ``k`` of ``against``, a figure's
    paired difference against figure ``k``, ``1 <= k <= F``), all with their 95% bootstrap
    intervals (4,000 resamples of the positions, numpy seed 0), the mean minus the rollout, the
    mean absolute error measured and its lower end's interval (docs/win-chance.md "The mean
    absolute error, with many play-outs"). Points."""
    r, noise = a[:, 0], a[:, 1]
    picks = np.random.default_rng(0).integers(0, len(r), size=(4000, len(r)))

    def rms(e: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The RMS with the noise removed over the rows ``at`` (the last axis)."""
        return np.sqrt(np.maximum(e[at].mean(axis=-1) - noise[at].mean(axis=-1), 0))

    every = np.arange(len(r))
    mad = math.sqrt(2 / math.pi) * np.sqrt(noise).mean()  # the mean absolute noise (docs: "with many play-outs")
    extra = "".join(f" | minus {names[k]} [95% bootstrap]" for k in against)
    print("| figure | RMS, noise removed (points) | minus the figure logged [95% bootstrap]" + extra
          + f" | mean minus rollout | MAE measured (the noise {mad * 100:.2f}) | lower end (MAE minus noise) | "
          "lower end, 95% |")
    print("|---|---:|---:|" + "---:|" * len(against) + "---:|---:|---:|---|")
    for k, name in enumerate(names):
        e = (a[:, 2 + k] - r) ** 2
        diffs = []
        for ref in (0, *against):
            base = (a[:, 2 + ref] - r) ** 2
            lo, hi = np.percentile(rms(e, picks) - rms(base, picks), [2.5, 97.5]) * 100
            diffs.append(f"{(rms(e, every) - rms(base, every)) * 100:+.2f} [{lo:+.2f}, {hi:+.2f}]")
        lower = np.abs(a[:, 2 + k] - r)[picks].mean(axis=1) - math.sqrt(2 / math.pi) * np.sqrt(noise)[picks].mean(axis=1)
        low = np.percentile(lower, [2.5, 97.5]) * 100
        measured = np.abs(a[:, 2 + k] - r).mean() * 100
        print(f"| {name} | {rms(e, every) * 100:.2f} | " + " | ".join(diffs)
              + f" | {(a[:, 2 + k] - r).mean() * 100:+.2f} | {measured:.2f} | {measured - mad * 100:.2f} "
              f"| [{low[0]:.2f}, {low[1]:.2f}] |", flush=True)


def ceiling(args: argparse.Namespace) -> None:
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.strategies import WinPlyStrategy

    start = time.process_time()
    rows, states, gid = ceiling_positions(args)
    plies = [WinPlyStrategy(win_model=load_win_model(ROOT / f)) for f in args.files.split(",")]
    a = np.array([row + [float(1 - ply.start_value(state)) for ply in plies] for row, state in zip(rows, states)])
    print(f"{len(a)} turn starts after a marking of {len(set(gid))} games ({time.process_time() - start:.0f} CPU s)")
    ceiling_table(a, ["the figure logged (" + args.log_model + ")"] + [f"one ply under {f}" for f in args.files.split(",")])


def two_ply_start(ply: Any, state: Any) -> tuple[Fraction, int]:
    """``V2``: the active player's TWO-PLY start value of the turn ``state`` (2 players) and the
    number of usable item sets. The one-turn engine over the turn (optimal holds, the exact DP:
    :func:`engine.kernel.compiled_best_marking` and :func:`engine.batched.solve_finals`, as
    :meth:`WinPlyStrategy.start_value`) whose terminal values are, for every usable item set
    and every shelf a failed result may give up (D13), the ONE-PLY value of the position after
    it (:meth:`WinPlyStrategy.after_value`: ``1 -`` the opponent's start value of its following
    turn, after the blocks D15 and the end trigger D17), rounded to the ``CHANCE_SCALE``
    integers; where that is ``None`` (the game is over, D18, or the opponent passes) or the
    choice's value is exact (:meth:`WinObjective.exact_markings`, ``exact_shelves``), the
    compiled value (:func:`win_model.compiled_win_values`) is kept, as
    :meth:`WinPlyStrategy.choose_marking` does. A turn :mod:`win_chance` values exactly keeps
    its exact start value (then 0 sets are counted)."""
    from shelfie_solver.dice.allocate import feasibility_arrays
    from shelfie_solver.dice.engine.batched import solve_finals
    from shelfie_solver.dice.engine.kernel import compiled_best_marking, turn_arrays
    from shelfie_solver.dice.game.actions import mark_and_block, replace_sheet
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.rolls import space_for
    from shelfie_solver.dice.sheet_rules import failed_result_shelves
    from shelfie_solver.dice.win_chance import exact_objective

    if exact_objective(state) is not None:
        return ply.start_value(state), 0
    board, rules = state.board, state.rules
    quick = compiled_win_values(state, ply.win_model, ply.model)
    assert quick is not None, "numba (the [fast] extra) is needed"
    worth, usable, shelves = quick
    worth = worth.copy()
    objective = ply.objective(state)
    arrays = StateArrays(board, rules, state.marks)
    sets = feasibility_arrays(board, rules).sets
    index = np.flatnonzero(usable[:len(sets.sizes)])
    known = objective.exact_markings(arrays, sets.take(index))
    for i, exact in zip(index.tolist(), known.tolist()):
        value = None if exact else ply.after_value(
            state, mark_and_block(state, tuple(int(c) for c in sets.cells[i, :sets.sizes[i]]), []))
        if value is not None:
            worth[i] = round(value * CHANCE_SCALE)
    exact_shelves = objective.exact_shelves(arrays)
    lost = failed_result_shelves(board, state.marks)
    failed = 0
    for shelf, model_value in shelves:
        value = None if shelf in exact_shelves else ply.after_value(
            state, replace_sheet(state.sheets, state.active, state.marks.with_eliminated(lost[shelf])))
        failed = max(failed, int(model_value) if value is None else round(value * CHANCE_SCALE))
    tables = turn_arrays(board, rules)
    columns = compiled_best_marking()(worth, usable, tables.sizes, tables.set_starts, tables.set_rolls,
                                      tables.n_rolls, failed, 1)
    solved = solve_finals(space_for(rules), columns[:, None, :], rules.rerolls, CHANCE_SCALE, kernel="numba")
    return solved.start_values()[0], len(index)


def deconvolved_mae(x: np.ndarray, noise: np.ndarray, k: int = 3) -> float:
    """A point estimate of the true mean absolute error ``E|d|`` from the measured errors
    ``x = d + n`` (figure minus rollout, chances), the rollout noise ``n_i ~ N(0, noise_i)``
    (``noise`` the variances of the rollout means): ``d`` modelled as a mixture of ``k`` normals
    with one mean and their own variances, fitted by maximum likelihood (each ``x_i`` a mixture
    of normals of variances ``v_j + noise_i``; Nelder-Mead from three starts, the best kept),
    then ``E|d|`` of the fitted mixture. Checked on simulated normal, Laplace and t(3) errors
    with noise of this size (within 0.2 points of the true mean absolute error at 357
    positions). Unlike the bracket of docs/win-chance.md "The mean absolute error, with many
    play-outs" it assumes a shape for ``d``."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp
    from scipy.stats import norm

    spread = float(x.std())

    def unpack(p: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        logit = np.concatenate([[0.0], p[1 + k:]])
        return float(p[0]), np.exp(np.clip(p[1:1 + k], -40, 0)), np.exp(logit - logsumexp(logit))

    def loss(p: np.ndarray) -> float:
        mu, v, w = unpack(p)
        var = v[None, :] + noise[:, None] + 1e-12
        ll = np.log(w)[None, :] - 0.5 * np.log(2 * np.pi * var) - (x[:, None] - mu) ** 2 / (2 * var)
        return float(-logsumexp(ll, axis=1).sum())

    best = None
    with np.errstate(all="ignore"):  # a variance near 0 on the way
        for scales in ((0.3, 1, 3), (0.5, 1, 2), (0.1, 0.7, 2.5)):
            p0 = np.concatenate([[x.mean()], np.log((np.array(scales[:k]) * spread) ** 2), np.zeros(k - 1)])
            found = minimize(loss, p0, method="Nelder-Mead",
                             options={"maxiter": 20000, "maxfev": 20000, "xatol": 1e-7, "fatol": 1e-9})
            if best is None or found.fun < best.fun:
                best = found
    mu, v, w = unpack(best.x)
    sd = np.sqrt(v)
    with np.errstate(all="ignore"):
        return float(np.sum(w * (sd * math.sqrt(2 / math.pi) * np.exp(-mu ** 2 / (2 * v))
                                 + mu * (1 - 2 * norm.cdf(-mu / sd)))))


def screen_cost(ply: Any, state: Any, sample: int, rng: np.random.Generator) -> tuple[int, float, float]:
    """What an advice screen with two-ply figures would pay at the turn start ``state``: one
    :func:`two_ply_start` at the following turn start of every usable item set of the turn (the
    figure of each marking the same depth's value of the next turn start). Times it on ``sample``
    usable sets drawn by ``rng`` (those whose value is exact or after which the game is over or
    the opponent passes cost nothing and are not drawn). Returns ``(usable sets, CPU s per
    two-ply value, the extrapolated CPU s of the screen)``."""
    from shelfie_solver.dice.allocate import feasibility_arrays
    from shelfie_solver.dice.game.actions import finish_turn, mark_and_block
    from shelfie_solver.dice.learned.win_model import compiled_win_values
    from shelfie_solver.dice.objectives import StateArrays

    quick = compiled_win_values(state, ply.win_model, ply.model)
    assert quick is not None, "numba (the [fast] extra) is needed"
    sets = feasibility_arrays(state.board, state.rules).sets
    index = np.flatnonzero(quick[1][:len(sets.sizes)])
    known = ply.objective(state).exact_markings(StateArrays(state.board, state.rules, state.marks), sets.take(index))
    following = []
    for i in index[~known]:
        after = finish_turn(state, mark_and_block(state, tuple(int(c) for c in sets.cells[i, :sets.sizes[i]]), []), [])
        if after is not None and after.marks.has_available:
            following.append(after)
    drawn = rng.choice(len(following), size=min(sample, len(following)), replace=False)
    t0 = time.process_time()
    for j in drawn.tolist():
        two_ply_start(ply, following[j])
    per = (time.process_time() - t0) / max(len(drawn), 1)
    return len(index), per, per * len(following)


def deconcheck(args: argparse.Namespace) -> None:
    """:func:`deconvolved_mae` on simulated errors of the size ``ceiling2`` meets (357 positions;
    normal of SD 4 points, Laplace of scale 3, 2.5 times t(3)) plus rollout noise of SD uniform in
    1-3 points (numpy seed 0): the estimate against the sample's true mean absolute error, the
    measured one and the bracket's lower end. Points."""
    rng = np.random.default_rng(0)
    n = 357
    print("| errors | true MAE | deconvolved | measured | lower end (measured minus noise) |")
    print("|---|---:|---:|---:|---:|")
    for shape in ("normal", "laplace", "t3"):
        d = {"normal": lambda: rng.normal(0, 0.04, n), "laplace": lambda: rng.laplace(0, 0.03, n),
             "t3": lambda: 0.025 * rng.standard_t(3, n)}[shape]()
        noise = rng.uniform(0.01, 0.03, n) ** 2
        x = d + rng.normal(0, np.sqrt(noise))
        lower = np.abs(x).mean() - math.sqrt(2 / math.pi) * np.sqrt(noise).mean()
        print(f"| {shape} | {np.abs(d).mean() * 100:.2f} | {deconvolved_mae(x, noise) * 100:.2f} "
              f"| {np.abs(x).mean() * 100:.2f} | {lower * 100:.2f} |", flush=True)


def ceiling2(args: argparse.Namespace) -> None:
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.strategies import WinPlyStrategy

    start = time.process_time()
    f = args.files.split(",")[0]
    names = ["the figure logged (" + args.log_model + ")", f"one ply under {f}", f"two plies under {f}"]
    if args.load:
        a = np.load(args.load)
        print(f"{len(a)} rows of {args.load}")
    else:
        rows, states, gid = ceiling_positions(args)
        ply = WinPlyStrategy(win_model=load_win_model(ROOT / f))
        chosen = list(range(0, len(rows), args.every))[:args.limit or None]
        print(f"{len(rows)} turn starts after a marking of {len(set(gid))} games; every {args.every}: {len(chosen)} "
              f"of {len({gid[i] for i in chosen})} games ({time.process_time() - start:.0f} CPU s)", flush=True)
        out, seconds, counts = [], [], []
        for n, i in enumerate(chosen):
            one = float(1 - ply.start_value(states[i]))
            t0 = time.process_time()
            value, used = two_ply_start(ply, states[i])
            seconds.append(time.process_time() - t0)
            counts.append(used)
            out.append(rows[i] + [one, float(1 - value)])
            if n % 10 == 0 or n == len(chosen) - 1:
                print(f"  {n + 1}/{len(chosen)}: {seconds[-1]:.2f} CPU s, {used} usable sets", flush=True)
        s, c = np.array(seconds), np.array(counts)
        print(f"two-ply value: {s.mean():.2f} CPU s mean, {s.max():.2f} max, {np.median(s):.2f} median; usable item "
              f"sets a turn {c.mean():.0f} mean, {c.max()} max, {np.median(c):.0f} median ({(c == 0).sum()} turns "
              f"valued exactly); {time.process_time() - start:.0f} CPU s in all", flush=True)
        a = np.array(out)
        if args.save:
            np.save(args.save, a)
        if args.screen:
            rng = np.random.default_rng(0)
            costs = []
            for i in chosen[::args.screen]:
                used, per, total = screen_cost(ply, states[i], args.screen_sample, rng)
                costs.append(total)
                print(f"  screen at turn start {i}: {used} usable sets, {per:.2f} CPU s a two-ply value "
                      f"({args.screen_sample} drawn), about {total:.0f} CPU s in all", flush=True)
            print(f"an advice screen of two-ply figures: {np.mean(costs):.0f} CPU s mean, {np.median(costs):.0f} "
                  f"median, {np.max(costs):.0f} max over {len(costs)} turn starts", flush=True)
            from shelfie_solver.dice.board import Marks
            from shelfie_solver.dice.game.events import GameState

            first = states[0]
            empty = Marks.empty(first.board)
            used, per, total = screen_cost(ply, GameState(first.board, first.rules, (empty, empty), 0, 0, 0, False),
                                           args.screen_sample, rng)
            print(f"  the game's first turn (empty sheets): {used} usable sets, {per:.2f} CPU s a two-ply value, "
                  f"about {total:.0f} CPU s in all", flush=True)
    ceiling_table(a, names, against=(1,))
    if args.resamples:
        r, noise = a[:, 0], a[:, 1]
        picks = np.random.default_rng(0).integers(0, len(r), size=(4000, len(r)))[:args.resamples]
        for k, name in enumerate(names):
            x = a[:, 2 + k] - r
            boot = [deconvolved_mae(x[p], noise[p]) for p in picks]
            lo, hi = np.percentile(boot, [2.5, 97.5]) * 100
            print(f"{name}: the true MAE deconvolved {deconvolved_mae(x, noise) * 100:.2f} [{lo:.2f}, {hi:.2f}] "
                  f"({args.resamples} bootstrap resamples, the first of the table's)", flush=True)


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
    parser.add_argument("command", choices=("targets", "fit", "score", "ceiling", "ceiling2", "deconcheck",
                                                         "richgate"))
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
    parser.add_argument("--every", type=int, default=1, help="ceiling2: every N-th turn start (1: all)")
    parser.add_argument("--save", default="", help="ceiling2: write the rows (rollout, noise, figures) as this .npy")
    parser.add_argument("--load", default="", help="ceiling2: the table (and deconvolution) of rows --save wrote")
    parser.add_argument("--screen", type=int, default=0, help="ceiling2: time an advice screen at every N-th turn start")
    parser.add_argument("--screen-sample", type=int, default=8, help="ceiling2: two-ply values timed a screen")
    parser.add_argument("--resamples", type=int, default=0, help="ceiling2: bootstrap resamples of the deconvolved MAE")
    parser.add_argument("--limit", type=int, default=0, help="ceiling2: at most this many turn starts (0: all)")
    args = parser.parse_args()
    if args.every < 1 or args.limit < 0 or args.screen < 0 or args.screen_sample < 1 or not 0 <= args.resamples <= 4000:
        print("--every and --screen-sample must be at least 1, --limit and --screen at least 0, --resamples 0 to 4000",
              file=sys.stderr)
        sys.exit(2)
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
    {"targets": targets, "fit": fit, "score": score, "ceiling": ceiling, "ceiling2": ceiling2,
     "deconcheck": deconcheck, "richgate": richgate}[args.command](args)


if __name__ == "__main__":
    main()
