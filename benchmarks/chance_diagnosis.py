"""Where do the gaps of the shown chances come from? Reads the per-seat dump of
``chance_calibration.py --dump`` (3 and 4 players) and prints, per number of players: the deciles
per role of the shown figure and of other constructions of it on the same positions, and the mean
shown minus won by role, round, the seat's place and the mover's place (docs/win-chance.md,
"Calibration with 3 and 4 players: round 3 and where the gaps come from").

Constructions (the mover's figure is always the advice value of its marking, as shown):

- ``shown``: what ``play status`` shows (:func:`play.chances.after_turn_chances`: the seat to roll
  its own start value, the others the rest in the joint model's proportions);
- ``proportional``: every seat but the mover the rest ``1 - mover`` in the joint model's proportions
  right after the mover's turn (:func:`play.chances.share_the_rest` alone, no roller's view);
- ``half``: the seat to roll the mean of its own value and its proportional figure, the others the
  rest in proportion to their proportional figures.

Positions where a figure is exact keep the shown figures in every construction. A measurement,
not a test. Run: ``python benchmarks/chance_diagnosis.py DUMP.npz [--resamples 400]``.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

ROLES = ("just moved", "to roll", "other")
FIELDS = ("players", "game", "shown", "exact", "outcome", "own", "round", "place", "mover_place", "model", "role")


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit 2."""
    print(f"chance_diagnosis.py: {message}", file=sys.stderr)
    sys.exit(2)


def constructions(d: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The figures of every construction for the ``n``-player rows of ``d`` (in the dump's order:
    ``n`` consecutive rows a position), each an array aligned with those rows."""
    sel = d["players"] == n
    shown = d["shown"][sel].reshape(-1, n)
    role = d["role"][sel].reshape(-1, n)
    model = d["model"][sel].reshape(-1, n)
    own = d["own"][sel].reshape(-1, n)
    exact = d["exact"][sel].reshape(-1, n).astype(bool)
    if not (role == 0).sum(axis=1).tolist() == [1] * len(role):
        fail(f"the dump's {n}-player rows are not one mover per {n} rows")
    mover = (role == 0)
    roller = (role == 1)
    mine = shown[mover]
    rest = np.where(mover, 0.0, model)
    total = rest.sum(axis=1, keepdims=True)
    proportional = np.where(mover, shown, (1 - mine)[:, None] * rest / np.where(total > 0, total, 1))
    any_exact = exact.any(axis=1, keepdims=True)
    proportional = np.where(any_exact, shown, proportional)
    own_roller = np.nanmax(np.where(roller, own, np.nan), axis=1)
    prop_roller = proportional[roller]
    half_roller = (own_roller + prop_roller) / 2
    left = 1 - mine - half_roller
    others = ~(mover | roller)
    other_total = np.where(others, proportional, 0).sum(axis=1)
    half = np.where(roller, half_roller[:, None], proportional)
    scale = np.where(other_total > 0, left / np.where(other_total > 0, other_total, 1), 0)
    half = np.where(others, proportional * scale[:, None], half)
    half = np.where(any_exact, shown, half)
    return {"shown": shown.ravel(), "proportional": proportional.ravel(), "half": half.ravel()}


def deciles(shown: np.ndarray, won: np.ndarray, game: np.ndarray, resamples: int) -> list[tuple[int, int, float, float, float, float, float]]:
    """``(decile, positions, mean shown, share won, low, high, sd)``: 95% interval of won minus
    shown and its standard deviation by a bootstrap over whole games (numpy seed 0)."""
    ids, inverse = np.unique(game, return_inverse=True)
    rng = np.random.default_rng(0)
    weights = np.stack([np.bincount(rng.integers(0, len(ids), len(ids)), minlength=len(ids)) for _ in range(resamples)])
    out = []
    which = np.minimum((shown * 10).astype(int), 9)
    for k in range(10):
        inside = which == k
        if not inside.any():
            continue
        w = weights[:, inverse[inside]]  # (resamples, rows)
        count = w.sum(axis=1)
        ok = count > 0
        gap = (w @ (won[inside] - shown[inside]))[ok] / count[ok]
        low, high = np.quantile(gap, [0.025, 0.975])
        out.append((k, int(inside.sum()), float(shown[inside].mean()), float(won[inside].mean()), float(low), float(high),
                    float(gap.std())))
    return out


def norm_sf(z: float) -> float:
    """The standard normal's upper tail at ``z``."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def mean_gap(values: np.ndarray, won: np.ndarray, game: np.ndarray) -> tuple[float, float, int]:
    """Mean of won minus ``values`` in points and its SE over games (cluster), with the count."""
    gap = won - values
    ids, inverse = np.unique(game, return_inverse=True)
    sums = np.bincount(inverse, weights=gap)
    counts = np.bincount(inverse)
    mean = gap.mean()
    se = np.sqrt(((sums - mean * counts) ** 2).sum()) / len(gap)
    return float(mean * 100), float(se * 100), len(gap)


def gap_tables(rounds: np.ndarray, places: np.ndarray, mover_places: np.ndarray, role: np.ndarray,
               won: np.ndarray, game: np.ndarray, shown: np.ndarray, among: np.ndarray, head: str) -> None:
    """Print, by the round, the seat's place and the mover's place, each role's won minus shown
    (points, SE over games, count) over the seat-positions ``among`` (a cell needs 30)."""
    for label, values in (("the round", rounds), ("the seat's place", places), ("the mover's place", mover_places)):
        print(f"{head}won minus shown (points, SE over games) by {label}:\n")
        print("| " + label + " | " + " | ".join(ROLES) + " |")
        print("|---|" + "---|" * len(ROLES))
        for v in sorted(set(values.tolist())):
            cells = []
            for r in range(len(ROLES)):
                m = (values == v) & (role == r) & among
                if m.sum() < 30:
                    cells.append("")
                    continue
                g, se, c = mean_gap(shown[m], won[m], game[m])
                cells.append(f"{g:+.1f} [{se:.1f}] ({c})")
            print(f"| {v} | " + " | ".join(cells) + " |")
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump")
    parser.add_argument("--resamples", type=int, default=400)
    parser.add_argument("--games-then", default="3:1000,4:800",
                        help="players:games of another run (default seed 18301's), for the deciles off by noise alone")
    args = parser.parse_args()
    try:
        then = {int(a): int(b) for a, b in (part.split(":") for part in args.games_then.split(","))}
    except ValueError:
        fail(f"--games-then must be players:games,... (got {args.games_then!r})")
    try:
        data = np.load(args.dump)
        d = {k: data[k] for k in data.files}
    except (OSError, ValueError, AttributeError) as error:
        fail(f"cannot read {args.dump} as a chance_calibration.py --dump file: {error}")
    missing = [k for k in FIELDS if k not in d]
    if missing:
        fail(f"{args.dump} lacks {', '.join(missing)} (not a chance_calibration.py --dump file)")
    for n in sorted(set(d["players"].tolist())):
        if n < 3:
            continue
        sel = d["players"] == n
        won, game, role = d["outcome"][sel], d["game"][sel], d["role"][sel]
        figures = constructions(d, n)
        print(f"## {n} players: {len(np.unique(game))} games, {sel.sum() // n} positions\n")
        print("| construction | role | Brier | deciles more than 2 points off (won minus shown) | beyond the interval "
              "| interval wholly beyond 2 points | more than 2 off by noise alone, expected | the same with the games then |")
        print("|---|---|---:|---|---:|---:|---:|---:|")
        for name, fig in figures.items():
            for r, label in enumerate(ROLES):
                m = role == r
                table = deciles(fig[m], won[m], game[m], args.resamples)
                off = [f"{k * 10}-{k * 10 + 10}% {100 * (w - s):+.1f}" for k, c, s, w, lo, hi, _ in table if abs(w - s) > 0.02]
                beyond = sum(1 for *_, lo, hi, _ in table if not lo <= 0 <= hi)
                surely = sum(1 for *_, lo, hi, _ in table if lo > 0.02 or hi < -0.02)
                # deciles more than 2 points off expected from noise alone were every decile calibrated,
                # here and with the games of --games-then (the sd scaled by the square root of the games' ratio)
                ratio = np.sqrt(len(np.unique(game)) / then[n]) if n in then else float("nan")
                noise = sum(2 * norm_sf(0.02 / sd) for *_, sd in table if sd > 0)
                noise_then = sum(2 * norm_sf(0.02 / (sd * ratio)) for *_, sd in table if sd > 0)
                brier = float(np.mean((fig[m] - won[m]) ** 2))
                print(f"| {name} | {label} | {brier:.4f} | {len(off)}{' (' + ', '.join(off) + ')' if off else ''} | {beyond} of {len(table)} | {surely} | {noise:.1f} | {noise_then:.1f} |")
        print()
        for name in ("shown", "proportional", "half"):
            for r, label in enumerate(ROLES):
                m = role == r
                print(f"{n} players, {name}, {label}:\n")
                print("| decile | positions | shown | won | won minus shown [95%] |")
                print("|---|---:|---:|---:|---|")
                for k, c, s, w, lo, hi, _ in deciles(figures[name][m], won[m], game[m], args.resamples):
                    print(f"| {k * 10}-{k * 10 + 10}% | {c} | {100 * s:.1f} | {100 * w:.1f} | {100 * (w - s):+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}] |")
                print()
        # the roller: its own value against the proportional figure
        m = role == 1
        own = d["own"][sel][m]
        prop = figures["proportional"][m]
        exact = d["exact"][sel][m].astype(bool)
        k = ~exact & ~np.isnan(own)
        print(f"The seat to roll ({k.sum()} model positions): own value minus proportional figure, mean "
              f"{100 * np.mean(own[k] - prop[k]):+.2f} points, mean absolute {100 * np.mean(np.abs(own[k] - prop[k])):.2f}; "
              f"won minus own {mean_gap(own[k], won[m][k], game[m][k])[0]:+.2f} (SE {mean_gap(own[k], won[m][k], game[m][k])[1]:.2f}), "
              f"won minus proportional {mean_gap(prop[k], won[m][k], game[m][k])[0]:+.2f} "
              f"(SE {mean_gap(prop[k], won[m][k], game[m][k])[1]:.2f}), won minus shown "
              f"{mean_gap(figures['shown'][m][k], won[m][k], game[m][k])[0]:+.2f}.\n")
        shown_all = figures["shown"]
        middle = (shown_all >= 0.3) & (shown_all < 0.6)
        gap_tables(d["round"][sel], d["place"][sel], d["mover_place"][sel], role, won, game, shown_all, middle,
                   f"{n} players, figures shown of 30-60%: ")
        gap_tables(d["round"][sel], d["place"][sel], d["mover_place"][sel], role, won, game, shown_all,
                   np.ones_like(middle), f"{n} players, ")


if __name__ == "__main__":
    main()
