"""Both sheets' trees on top of the 2-player linear model (win-model format 5; docs/win-chance.md,
"Both sheets: trees on the line states"): their fit with LightGBM, the export to the file's integer
trees (the shared spec: per seat ``u_i = [x_i, x_j, phase]``, ``x`` the raw :func:`win_model.design`
integers, each tree's leaf value in units of ``1 / (COEF_SCALE * WEIGHT_SCALE)`` of strength, ``z_i``
the format-4 strength numerator plus the sum of the leaves ``u_i`` reaches), and their measurements.
A measurement, not a test; LightGBM is the ``bench`` extra (the package never imports it).

``positions``: the positions after every turn that the model values (:func:`win_fit.game_positions`,
as ``win_fit.self_play_positions``: game ``g`` from ``SeedSequence(seed).spawn(5)[2].spawn(games)[g]``)
of each source ``SEED:GAMES:POLICY`` of ``--sources`` (POLICY a model file that ``win`` plays by, or
``learned``), cached per source in ``--cache`` (a pickle of the samples and their games).

``fit``: LightGBM on both perspectives of every position of ``--sources`` (rows ``(u_0, y_0)`` and
``(u_1, y_1 = 1 - y_0)``, the shares of victory, D20, as soft labels: objective ``cross_entropy``),
each row's init score the seat's logit under ``--base``'s 2-player coefficients (``z_i - z_j`` of
:func:`win_model.strength_numerators`, the monotone projection included, over ``COEF_SCALE *
WEIGHT_SCALE``), so that the trees model the linear model's residual; monotone constraints
(``basic``) non-decreasing in the seat's own columns that rise with its ``P`` (:data:`OWN`) and
non-increasing in the other seat's; early stopping on the log loss of 20% of the games (numpy seed
0, by game), then refitted on every game with that many iterations. Exported (:func:`export`),
checked against ``booster.predict(raw_score=True)`` on the held-back games and by the spec's
monotone condition (:func:`monotone_ok`), written as ``--output`` (format 5: ``--base``'s
coefficients for 2-4 players and the trees for 2).

``speed``: ``benchmarks/bench_rollout.py``'s play-outs per CPU second with ``win`` by ``--new``.

``heldout`` / ``rollouts`` / ``versus``: those of ``benchmarks/win_first.py`` (its docstring) with
every chance computed by :func:`chances_of` here (the trees of a format-5 file evaluated in plain
numpy integers, :func:`tree_terms`; the same figures as the package's evaluation of the file).

Run: ``python benchmarks/win_trees.py positions|fit|heldout|rollouts|versus [options]``.
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

ROOT = win_first.ROOT
SHIPPED = "shelfie_solver/dice/data/win.json"
TREES = "examples/win-trees-2.json"
TREES_FORMAT = "shelfie-solve win 5"
#: The columns of ``design`` that rise with the seat's own ``P`` (the spec): P, P x r, F x another
#: seat near, F x near, lead x |lead| / 10, its x r.
OWN = (0, 1, 5, 6, 11, 12)
#: LightGBM's settings, fixed before any run; the files of docs/win-chance.md override the learning
#: rate and the leaves (``--learning-rate 0.3 --leaves 31 --max-trees 24``, for speed: that section).
PARAMS: dict[str, Any] = {
    "objective": "cross_entropy", "num_leaves": 15, "min_data_in_leaf": 200, "learning_rate": 0.05,
    "monotone_constraints_method": "basic", "use_missing": False, "deterministic": True, "num_threads": 1,
    "seed": 18011, "verbose": -1, "force_col_wise": True, "max_bin": 255,
}
MAX_ROUNDS = 3000
PATIENCE = 50


def scale() -> int:
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
    from shelfie_solver.dice.learned.win_model import COEF_SCALE

    return COEF_SCALE * WEIGHT_SCALE


# ---------------------------------------------------------------------------------------------- data


def source_positions(source: str, cache: str) -> tuple[list[Any], np.ndarray]:
    """The samples (``win_model.Sample``) of one source ``SEED:GAMES:POLICY`` and each one's game
    (module docstring), from ``cache`` when it holds them."""
    seed, games, policy = source.split(":", 2)
    path = Path(cache) / f"trees-samples-{seed}-{games}-{Path(policy).stem}.pkl"
    if path.exists():
        samples, game = pickle.loads(path.read_bytes())
        return samples, game
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.learned.win_fit import game_positions, self_play_seat
    from shelfie_solver.dice.learned.win_model import load_win_model
    from shelfie_solver.dice.rules import DEFAULT_RULES

    board = load_board(None, DEFAULT_RULES)
    seat = self_play_seat("learned") if policy == "learned" else self_play_seat("win", load_win_model(ROOT / policy))
    seeds = np.random.SeedSequence(int(seed)).spawn(5)[2].spawn(int(games))  # as win_fit.self_play_positions
    samples: list[Any] = []
    game: list[int] = []
    for g, s in enumerate(seeds):
        part = game_positions(play_seeded(board, DEFAULT_RULES, [seat] * 2, s))
        samples += part
        game += [g] * len(part)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_bytes(pickle.dumps((samples, np.array(game))))
    temp.replace(path)
    return samples, np.array(game)


def rounds_of(x: np.ndarray) -> np.ndarray:
    """``int (N,)``: the round of 2-player design rows ``x (N, 2, F)``: the other seat plays next,
    so its "plays next x r" is ``WEIGHT_SCALE * r`` (the spec)."""
    from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE

    assert (x[:, 1, 7] == WEIGHT_SCALE).all(), "the other seat of a 2-player position plays next"
    out: np.ndarray = x[:, 1, 8] // WEIGHT_SCALE
    return out


def linear_gaps(coefficients: np.ndarray, phase: np.ndarray, x: np.ndarray, rounds: np.ndarray) -> np.ndarray:
    """``int64 (N,)``: ``z_0 - z_1`` (strength numerators, the monotone projection included) of
    2-player positions under the 2-player ``coefficients``."""
    from shelfie_solver.dice.learned.win_model import strength_numerators

    out = np.zeros(len(phase), dtype=np.int64)
    for r in np.unique(rounds):
        at = rounds == r
        z = strength_numerators(coefficients, phase[at], x[at], int(r))
        out[at] = np.asarray(z[:, 0] - z[:, 1], dtype=np.int64)
    return out


def tree_inputs(phase: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``int64 (N, 2F+1)`` twice: ``u_0`` and ``u_1`` of the spec (``x (N, 2, F)`` raw design)."""
    p = phase.astype(np.int64)[:, None]
    u0 = np.concatenate([x[:, 0], x[:, 1], p], axis=1).astype(np.int64)
    u1 = np.concatenate([x[:, 1], x[:, 0], p], axis=1).astype(np.int64)
    return u0, u1


def monotone_vector(features: int) -> list[int]:
    """LightGBM's ``monotone_constraints`` over ``u`` (``features`` = F)."""
    out = [0] * (2 * features + 1)
    for f in OWN:
        out[f], out[features + f] = 1, -1
    return out


# -------------------------------------------------------------------------------------------- export


def export(booster: Any) -> dict[str, list[int]]:
    """The spec's flat node lists of a LightGBM booster (``<=`` decisions on integer inputs: the
    threshold floored; leaf values in strength units, ``round(v * COEF_SCALE * WEIGHT_SCALE / 2)``).

    Raises:
        ValueError: a decision other than ``<=``, or a categorical split.
    """
    out: dict[str, list[int]] = {"feature": [], "threshold": [], "left": [], "right": [], "value": [], "roots": []}
    half = scale() / 2

    def add(node: dict[str, Any]) -> int:
        at = len(out["feature"])
        for key in ("feature", "threshold", "left", "right", "value"):
            out[key].append(0)
        if "leaf_value" in node:
            out["feature"][at], out["left"][at], out["right"][at] = -1, -1, -1
            out["value"][at] = int(round(node["leaf_value"] * half))
            return at
        if node["decision_type"] != "<=":
            raise ValueError(f"decision {node['decision_type']!r}")
        out["feature"][at] = int(node["split_feature"])
        out["threshold"][at] = int(math.floor(float(node["threshold"])))
        out["left"][at] = add(node["left_child"])
        out["right"][at] = add(node["right_child"])
        return at

    for tree in booster.dump_model()["tree_info"]:
        out["roots"].append(add(tree["tree_structure"]))
    return out


def tree_terms(block: dict[str, Any], u: np.ndarray) -> np.ndarray:
    """``int64 (N,)``: the spec's ``T`` of each row of ``u (N, 2F+1)``: the sum over the trees of
    the value of the leaf reached (left where ``u[feature] <= threshold``), in plain numpy integers."""
    feature, threshold = np.array(block["feature"]), np.array(block["threshold"], dtype=np.int64)
    left, right, value = np.array(block["left"]), np.array(block["right"]), np.array(block["value"], dtype=np.int64)
    out = np.zeros(len(u), dtype=np.int64)
    rows = np.arange(len(u))
    for root in block["roots"]:
        node = np.full(len(u), root)
        while True:
            inner = feature[node] >= 0
            if not inner.any():
                break
            f = np.where(inner, feature[node], 0)
            go_left = u[rows, f] <= threshold[node]
            node = np.where(inner, np.where(go_left, left[node], right[node]), node)
        out += value[node]
    return out


def monotone_ok(block: dict[str, Any], features: int) -> bool:
    """The spec's sufficient condition: at every node splitting on an own column ``f`` in ``OWN``,
    max(leaves left) <= min(leaves right); on ``F + f``, min(left) >= max(right)."""
    feature, left, right, value = block["feature"], block["left"], block["right"], block["value"]
    span: dict[int, tuple[int, int]] = {}

    def walk(i: int) -> tuple[int, int]:
        if feature[i] < 0:
            span[i] = (value[i], value[i])
        else:
            a, b = walk(left[i]), walk(right[i])
            span[i] = (min(a[0], b[0]), max(a[1], b[1]))
        return span[i]

    for root in block["roots"]:
        walk(root)
    for i, f in enumerate(feature):
        if f < 0:
            continue
        lo_l, hi_l = span[left[i]]
        lo_r, hi_r = span[right[i]]
        if f in OWN and hi_l > lo_r:
            return False
        if f >= features and f - features in OWN and f < 2 * features and lo_l < hi_r:
            return False
    return True


def acyclic_ok(block: dict[str, Any]) -> bool:
    """Every child index greater than its parent's (the spec)."""
    return all((f < 0) or (block["left"][i] > i and block["right"][i] > i) for i, f in enumerate(block["feature"]))


# ------------------------------------------------------------------------------------------- chances


def file_parts(path: str) -> tuple[np.ndarray, dict[str, Any] | None]:
    """A model file's 2-player coefficients and its trees block for 2 players (None: none)."""
    data = json.loads(Path(path).read_text("utf-8"))
    coefficients = np.array(data["coefficients"]["2"], dtype=np.int64)
    if len(coefficients[0]) < 56:  # formats 2 and 3: the sheet coefficients 0
        coefficients = np.concatenate([coefficients, np.zeros((3, 56 - len(coefficients[0])), np.int64)], axis=1)
    return coefficients, (data.get("trees") or {}).get("2")


def gaps_of(path: str, phase: np.ndarray, x: np.ndarray, rounds: np.ndarray) -> np.ndarray:
    """``int64 (N,)``: ``z_0 - z_1`` of 2-player positions under the model file ``path`` (trees
    included)."""
    coefficients, block = file_parts(path)
    gap = linear_gaps(coefficients, phase, x, rounds)
    if block is not None:
        u0, u1 = tree_inputs(phase, x)
        gap = gap + tree_terms(block, u0) - tree_terms(block, u1)
    return gap


def chances_of(path: str, data: dict[str, np.ndarray], players: int = 2) -> np.ndarray:
    """``float (N, 2)``: :func:`win_first.chances_of` for a file of any format 2-5 (2 players):
    the mover's chance ``round(CHANCE_SCALE / (1 + exp(-(z_0 - z_1))))`` over ``CHANCE_SCALE``
    (``win_model._softmax_shares``), the other's likewise."""
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, _softmax_shares

    if players != 2:
        return win_first_chances_of(path, data, players)
    gap = gaps_of(path, data["phase"], data["x"], data["round"])
    out = np.zeros((len(gap), 2))
    out[:, 0] = _softmax_shares(np.stack([np.zeros_like(gap), -gap], axis=1), own_first=True) / CHANCE_SCALE
    out[:, 1] = _softmax_shares(np.stack([np.zeros_like(gap), gap], axis=1), own_first=True) / CHANCE_SCALE
    return out


win_first_chances_of = win_first.chances_of


# ------------------------------------------------------------------------------------------------ fit


def fit(args: argparse.Namespace) -> None:
    import lightgbm as lgb

    from shelfie_solver.dice.learned.win_model import FEATURES

    start = time.process_time()
    F = len(FEATURES)
    parts, records = [], []
    offset = 0
    for source in args.sources.split(","):
        samples, game = source_positions(source, args.cache)
        parts.append((samples, game + offset))
        seed, games, policy = source.split(":", 2)
        records.append({"seed": int(seed), "games": int(games), "played_by": policy if policy == "learned"
                        else f"win by {policy}", "positions": len(samples)})
        offset += int(games)
        print(f"  {source}: {len(samples)} positions", flush=True)
    made = time.process_time() - start
    samples = [s for p, _ in parts for s in p]
    game = np.concatenate([g for _, g in parts])
    phase = np.array([s[1] for s in samples], dtype=np.int64)
    x = np.array([s[2] for s in samples], dtype=np.int64)
    y = np.array([s[3][0] for s in samples], dtype=np.float64)
    rounds = rounds_of(x)
    base, _ = file_parts(str(ROOT / args.base))
    gap = linear_gaps(base, phase, x, rounds) / scale()
    u0, u1 = tree_inputs(phase, x)
    u = np.concatenate([u0, u1]).astype(np.float64)
    assert np.array_equal(u[: len(u0)].astype(np.int64), u0), "inputs beyond float64's exact integers"
    label, init, games2 = np.concatenate([y, 1 - y]), np.concatenate([gap, -gap]), np.concatenate([game, game])
    rng = np.random.default_rng(0)
    held = rng.permutation(offset)[: offset // 5]
    valid = np.isin(games2, held)
    params = {**PARAMS, "monotone_constraints": monotone_vector(F), "learning_rate": args.learning_rate,
              "num_leaves": args.leaves}
    print(f"{len(samples)} positions of {offset} games, {len(u)} rows; {made:.0f} CPU s the positions", flush=True)
    train = lgb.Dataset(u[~valid], label[~valid], init_score=init[~valid], free_raw_data=False)
    check = lgb.Dataset(u[valid], label[valid], init_score=init[valid], reference=train)
    t0 = time.process_time()
    booster = lgb.train(params, train, args.max_trees, valid_sets=[check],
                        callbacks=[lgb.early_stopping(PATIENCE, verbose=False), lgb.log_evaluation(100)])
    best = booster.best_iteration or booster.num_trees()
    loss0 = cross_entropy(label[valid], init[valid])
    loss1 = cross_entropy(label[valid], init[valid] + booster.predict(u[valid], num_iteration=best, raw_score=True))
    print(f"early stopping: {best} iterations; validation log loss {loss0:.5f} linear, {loss1:.5f} with trees "
          f"({time.process_time() - t0:.0f} CPU s)", flush=True)
    # the export checked on the held-back games (the first booster, its best iteration)
    if args.refit:
        t0 = time.process_time()
        every = lgb.Dataset(u, label, init_score=init)
        booster = lgb.train(params, every, best)
        print(f"refitted on every game: {booster.num_trees()} trees ({time.process_time() - t0:.0f} CPU s)", flush=True)
    else:
        booster = lgb.train(params, train, best)  # the same trees, without the extra ones
    block = export(booster)
    raw = booster.predict(u[valid], raw_score=True)
    mine = tree_terms(block, u[valid].astype(np.int64)) / (scale() / 2)
    print(f"export: {len(block['feature'])} nodes in {len(block['roots'])} trees; |tree term exported - "
          f"LightGBM's raw score| at most {np.abs(mine - raw).max():.2e} logit (rounding bound "
          f"{len(block['roots']) / scale():.1e}), mean {np.abs(mine - raw).mean():.2e}; monotone condition "
          f"{'holds' if monotone_ok(block, F) else 'FAILS'}; acyclic {acyclic_ok(block)}", flush=True)
    assert monotone_ok(block, F) and acyclic_ok(block)
    bound = sum(max(abs(block["value"][i]) for i in leaves(block, r)) for r in block["roots"])
    assert bound < 1 << 61
    block["fitted"] = {
        "sources": records, "positions": len(samples), "games": offset, "rows": int(len(u)),
        "base": args.base, "init_score": "the seat's logit z_i - z_j of the base's 2-player coefficients",
        "labels": "the seat's share of victory (D20), objective cross_entropy", "lightgbm": lgb.__version__,
        "params": {k: v for k, v in params.items() if k != "monotone_constraints"},
        "monotone": f"+1 on u[f], -1 on u[F+f] for f in {list(OWN)}", "iterations": int(best), "max_trees": args.max_trees,
        "early_stopping": f"log loss of 20% of the games (numpy seed 0), patience {PATIENCE}",
        "refitted_on_every_game": bool(args.refit), "benchmark": "benchmarks/win_trees.py fit",
        "docs": "docs/win-chance.md, Both sheets: trees on the line states (2 players; 2026-12-07)",
    }
    data = json.loads((ROOT / args.base).read_text("utf-8"))
    data["format"] = TREES_FORMAT
    data["trees"] = {"2": block}
    temp = Path(args.output + ".tmp")
    temp.write_text(json.dumps(data, separators=(",", ":")) + "\n", "utf-8")
    temp.replace(args.output)
    print(f"written {args.output}; {time.process_time() - start:.0f} CPU s in all")


def leaves(block: dict[str, Any], root: int) -> list[int]:
    """The leaf indices of the tree at ``root``."""
    out, stack = [], [root]
    while stack:
        i = stack.pop()
        if block["feature"][i] < 0:
            out.append(i)
        else:
            stack += [block["left"][i], block["right"][i]]
    return out


def cross_entropy(y: np.ndarray, logit: np.ndarray) -> float:
    p = 1 / (1 + np.exp(-logit))
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def positions(args: argparse.Namespace) -> None:
    for source in args.sources.split(","):
        start = time.process_time()
        samples, game = source_positions(source, args.cache)
        print(f"{source}: {len(samples)} positions of {game.max() + 1} games; {time.process_time() - start:.0f} CPU s",
              flush=True)


def speed(args: argparse.Namespace) -> None:
    """``benchmarks/bench_rollout.py``'s rows (``win`` against ``win`` play-outs per CPU second,
    [fast]) with ``win`` playing by ``--new``."""
    from bench import load, machine
    from bench_rollout import run

    win_first.use_model(str(ROOT / args.new))
    print(f"Machine: {machine()}; load {load()}; win by {args.new}")
    for row in run(None):
        print("| " + " | ".join(row) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("positions", "fit", "heldout", "rollouts", "versus", "speed"))
    parser.add_argument("--sources", default="", help="SEED:GAMES:POLICY,... (POLICY a model file or learned)")
    parser.add_argument("--cache", default="/tmp/treefit")
    parser.add_argument("--base", default=SHIPPED, help="fit: the linear model the trees are fitted on top of")
    parser.add_argument("--output", default=TREES)
    parser.add_argument("--refit", action=argparse.BooleanOptionalAction, default=True,
                        help="fit: refit on every game with the early-stopped iterations")
    parser.add_argument("--learning-rate", type=float, default=PARAMS["learning_rate"], help="fit: LightGBM's")
    parser.add_argument("--leaves", type=int, default=PARAMS["num_leaves"], help="fit: LightGBM's num_leaves")
    parser.add_argument("--max-trees", type=int, default=MAX_ROUNDS, help="fit: at most this many iterations")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=lambda t: tuple(int(v) for v in t.split(",")), default=(2,))
    parser.add_argument("--play-model", default=SHIPPED)
    parser.add_argument("--old", default=SHIPPED)
    parser.add_argument("--new", default=TREES)
    parser.add_argument("--log", default="")
    parser.add_argument("--log-model", default="", help="rollouts: the model file the log's games were played by")
    parser.add_argument("--per-game", type=int, default=4)
    parser.add_argument("--plot", default="")
    args = parser.parse_args()
    os.chdir(ROOT)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    win_first.chances_of = chances_of  # every figure of win_first's measurements through the trees
    commands = {"positions": positions, "fit": fit, "heldout": win_first.heldout, "rollouts": win_first.rollouts,
                "versus": win_first.versus, "speed": speed}
    commands[args.command](args)


if __name__ == "__main__":
    main()
