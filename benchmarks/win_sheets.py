"""The 2-player win model with the sheets' line states (format 4; docs/win-chance.md, "The sheets'
line states"): its fit, the assembly of a model file, and its measurements against the file
shipped before it, on the same positions. A measurement, not a test.

``fit``, ``heldout``, ``rollouts`` and ``versus`` are those of ``benchmarks/win_first.py`` (its
docstring), run with this page's files (``rollouts --replay-model FILE``: the log's games were
played by ``FILE``, ``chance_vs_rollout.py --win-model FILE``, and are replayed by it): ``fit`` writes the 2-player coefficients of
``win_model.FEATURES`` (the 14 features and the 42 line-state counts) fitted by
:func:`win_fit.train_win_model` (``players=(2,)``, ``strategy="win"``, ridge ``OWN_PLAY_RIDGE``)
to ``--games`` games of ``win`` by ``--play-model``. ``fitmix``: the coefficients of ``--players``
(default 2; ``3,4`` for "The sheets' line states with 3 and 4 players") fitted to the games of
several policies at once (``--sources``, :func:`fit_mixed`).

``assemble``: a model file (``--output``, data/win.json by default) of the 2-player coefficients
of ``--two``, the 3-player ones of ``--three`` (``''``: ``--rest``'s) and the 4-player ones of
``--rest`` (any format: a file of format 2 or 3 has
its sheet coefficients 0, so those counts play and show exactly as with that file), by
:func:`win_model.assemble`; with the coefficients of boards of other shapes than 5 x 5 from
``--other-two`` and ``--other-rest`` (format 3 files; ``--other-two ''``: none; files fitted on
different boards: each count assembled alone and put together, :func:`assemble_others`), the block's
``"points_exponent"`` ``--points-exponent`` (docs/win-chance.md "In the board's own points").

Run: ``python benchmarks/win_sheets.py fit|assemble|heldout|rollouts|versus [options]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import win_first  # noqa: E402

ROOT = win_first.ROOT
#: The 2-player coefficients shipped before the line states (format 3, "Who played first in the round").
BEFORE = "examples/win-first.json"
SHEETS = "examples/win-sheets.json"
#: The 2-player file shipped (data/win.json's since 2026-12-07): SHEETS' coefficients and 14 trees on
#: both seats' features (format 5; docs/win-chance.md, "Both sheets: trees on the line states").
TWO = "examples/win-trees-2-fast.json"
#: The 3- and 4-player coefficients to assemble: fitted with the line states on the games of three policies
#: (docs/win-chance.md, "The sheets' line states with 3 and 4 players"); data/win.json's until then were
#: examples/win-first-34.json's ("A turn ahead with 3 and 4 players").
REST = "examples/win-sheets-34.json"
#: The 3-player coefficients to assemble (data/win.json's since 2026-12-07, "The 3-player rows weighted toward
#: their own play"): REST's sets refitted with the shipped rows' own games weighted 3; ``--three ''`` takes
#: REST's 3-player rows as before.
THREE = "examples/win-sheets-3-own.json"
#: The coefficients of boards of other shapes than the default board's 5 x 5 (format 3, no line states
#: and no trees: docs/win-chance.md, "Off the fitted board's shape"): 2 players from BEFORE
#: (data/win.json's until the line states), 3 and 4 from OTHER_REST, fitted on random boards of 15
#: shapes with every seat's points read at the board's size factor (benchmarks/win_shapes.py
#: --points-exponent 3/4; docs/win-chance.md "In the board's own points"; until then
#: examples/win-other-shapes-34.json, "Fitted on boards of many shapes", and before it
#: examples/win-first-34.json).
OTHER_REST = "examples/win-other-shapes-34-sized.json"
#: The other shapes' block's ``"points_exponent"`` (``"0"``: none, the coefficients read every board's
#: points as the default board's, as until 2026-12-07; docs/win-chance.md "In the board's own points").
OTHER_EXPONENT = "3/4"
#: The shape the line states and the trees were fitted on (the default board's, shelves x columns).
FITTED_SHAPE = (5, 5)


def assemble_file(args: argparse.Namespace) -> None:
    from shelfie_solver.core.files import write_text_atomically
    from shelfie_solver.dice.learned.win_model import assemble, load_win_model, model_text

    two, rest = args.two, args.rest
    three = args.three or rest  # the 3-player rows from another file than the 4-player ones (--three)
    parts = {2: (load_win_model(ROOT / two), two), 3: (load_win_model(ROOT / three), three),
             4: (load_win_model(ROOT / rest), rest)}
    note = (f"each number of players' coefficients from the fit recorded for it under fitted, whose file is named "
            f"there; 2 players: {two} (the line states' coefficients, format 4, with trees on both seats' "
            f"features where the file has them, format 5: docs/win-chance.md, Both sheets: trees on the line "
            f"states); 3 and 4 players: {rest} (the line states fitted to three policies' games: docs/win-chance.md, "
            f"The sheets' line states with 3 and 4 players)")
    if three != rest:
        note = (f"each number of players' coefficients from the fit recorded for it under fitted, whose file is "
                f"named there; 2 players: {two} (the line states' coefficients, with trees on both seats' "
                f"features: docs/win-chance.md, Both sheets: trees on the line states); 3 players: {three} "
                f"(docs/win-chance.md, The 3-player rows weighted toward their own play); 4 players: {rest} "
                f"(docs/win-chance.md, The sheets' line states with 3 and 4 players)")
    model = assemble(parts, note)
    if args.other_two:  # the line states and trees on FITTED_SHAPE only, format 3's rows elsewhere
        other_two, other_rest = args.other_two, args.other_rest
        others = {2: (load_win_model(ROOT / other_two), other_two), 3: (load_win_model(ROOT / other_rest), other_rest),
                  4: (load_win_model(ROOT / other_rest), other_rest)}
        other_note = (f"used on boards of any other shape than {FITTED_SHAPE[0]} x {FITTED_SHAPE[1]}: format 3's "
                      f"features, no line states and no trees (docs/win-chance.md, Off the fitted board's shape); "
                      f"2 players: {other_two}; 3 and 4 players: {other_rest}")
        from fractions import Fraction

        block = replace(assemble_others(others, other_note), points_exponent=Fraction(args.points_exponent))
        model = replace(model, shape=FITTED_SHAPE, other_shapes=block)
    write_text_atomically(Path(args.output), model_text(model))
    print(f"written {args.output}")


#: The other shapes' block's ``"board"`` when its counts were fitted on different boards (each
#: count's own is in its record under ``"fitted"``).
MIXED_BOARDS = "each number of players' own, under fitted"


def assemble_others(others: dict[int, tuple[Any, str]], note: str) -> Any:
    """The other shapes' block of ``others`` (players -> (model, file)): :func:`win_model.assemble`
    of them where their files were fitted on one board; else each count assembled alone and put
    together, ``"board"`` :data:`MIXED_BOARDS` (2 players' rows fitted on the default board, 3 and
    4 players' on random boards of many shapes: docs/win-chance.md, "Fitted on boards of many
    shapes")."""
    from shelfie_solver.dice.learned.win_model import WinModel, assemble

    singles = {n: assemble({n: part}) for n, part in sorted(others.items())}
    if len({single.info["board"] for single in singles.values()}) == 1:
        return assemble(others, note)
    info: dict[str, Any] = {"board": MIXED_BOARDS, "players": sorted(others), "assembled": note,
                            "fitted": {str(n): single.info["fitted"][str(n)] for n, single in singles.items()}}
    return WinModel({n: single.coefficients[n] for n, single in singles.items()}, info)


def fit_mixed(args: argparse.Namespace) -> None:
    """The coefficients of ``--players`` (default 2; e.g. ``3,4``) fitted to the positions of
    several sets of games at once (``--sources SEED:GAMES:PLAY_MODEL,...``: each ``GAMES`` games
    per number of players from ``SEED``, of ``win`` by the file ``PLAY_MODEL``, or of the strategy
    ``learned`` where ``PLAY_MODEL`` is ``learned``; as ``fit``; data aggregation over policies, so
    that a model is fitted on the positions its own play reaches and on those of other policies),
    positions cached per source and number of players in ``--cache``; written to ``--output``,
    the other counts' coefficients 0 (even chances)."""
    import pickle
    import time

    import numpy as np

    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.learned.win_fit import EVEN, OWN_PLAY_RIDGE, self_play_positions
    from shelfie_solver.dice.learned.win_model import WinModel, fit, load_win_model, model_text
    from shelfie_solver.dice.rules import DEFAULT_RULES

    start = time.process_time()
    board = load_board(None, DEFAULT_RULES)
    counts = tuple(args.players)
    samples, records, weights = [], [], []
    for source in args.sources.split(","):
        seed, games, play = source.split(":", 2)
        weight = 1.0
        if "@" in play:  # SEED:GAMES:PLAY_MODEL@WEIGHT: each of this set's positions counts WEIGHT times in the fit
            play, text = play.rsplit("@", 1)
            weight = float(text)
            if not weight > 0:
                raise SystemExit(f"win_sheets.py: the weight of {source} must be positive")
        for n in counts:
            tag = "" if n == 2 else f"-{n}p"  # the 2-player cache keeps its former name
            path = Path(args.cache or "/tmp") / f"win-samples-{seed}-{games}-{Path(play).stem}{tag}.pkl"
            if path.exists():
                part = pickle.loads(path.read_bytes())
            else:
                if play == "learned":
                    part = self_play_positions(board, DEFAULT_RULES, int(seed), int(games), (n,), 1, "learned")
                else:
                    part = self_play_positions(board, DEFAULT_RULES, int(seed), int(games), (n,), 1, "win",
                                               load_win_model(ROOT / play))
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(pickle.dumps(part))
            samples += part
            weights += [weight] * len(part)
            records.append({"seed": int(seed), "games": int(games), "players": n,
                            "played_by": "learned (the strategy)" if play == "learned" else play,
                            "positions": len(part), **({"weight": weight} if weight != 1.0 else {})})
            print(f"  {source}, {n} players: {len(part)} positions ({time.process_time() - start:.0f} CPU s)",
                  flush=True)
    model = fit(samples, OWN_PLAY_RIDGE) if set(weights) <= {1.0} else weighted_fit(samples, weights, OWN_PLAY_RIDGE)
    tables = {n: model.coefficients.get(n, EVEN.coefficients[n]).copy() for n in EVEN.coefficients}
    out = WinModel(tables, {"board": board.name, "players": list(counts), "strategy": "win",
                            "ridge": OWN_PLAY_RIDGE, "positions": len(samples), "sources": records})
    temp = Path(args.output + ".tmp")
    temp.write_text(model_text(out), "utf-8")
    temp.replace(args.output)
    print(f"{len(samples)} positions; {time.process_time() - start:.0f} CPU s")
    for n in counts:
        print(n, "players:")
        print(np.array(out.coefficients[n]))


def weighted_fit(samples: list, weights: list[float], ridge: float) -> "WinModel":
    """:func:`win_model.fit` with each sample's log-likelihood counted ``weights[i]`` times (the
    same L-BFGS from 0 on the same scaled features as :func:`win_model.fit_row`, the same rounding
    to integers over ``COEF_SCALE``; every weight 1 gives fit's coefficients); deterministic."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import log_softmax, softmax

    from shelfie_solver.dice.learned.win_model import COEF_SCALE, FEATURES, ROWS, WEIGHT_SCALE, WinModel

    out = {}
    for n in sorted({s[0] for s in samples}):
        table = np.zeros((len(ROWS), len(FEATURES)), dtype=np.int64)
        for row, phase in enumerate(ROWS):
            chosen = [i for i, s in enumerate(samples) if s[0] == n and s[1] == phase]
            if len(chosen) < 20:
                continue
            x = np.array([samples[i][2] for i in chosen]).astype(np.float64) / WEIGHT_SCALE
            y = np.array([samples[i][3] for i in chosen])
            wt = np.array([weights[i] for i in chosen])[:, None]
            spread = np.maximum(np.abs(x).max(axis=(0, 1)), 1e-9)
            xs = x / spread

            def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
                z = xs @ w
                value = float(-(wt * y * log_softmax(z, axis=1)).sum() + ridge * np.sum(w ** 2))
                grad = np.einsum("kif,ki->f", xs, wt * (softmax(z, axis=1) - y)) + 2 * ridge * w
                return value, grad

            w = minimize(loss, np.zeros(x.shape[-1]), jac=True, method="L-BFGS-B").x / spread
            table[row] = np.rint(w * COEF_SCALE).astype(np.int64)
        out[n] = table
    return WinModel(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("fit", "fitmix", "assemble", "heldout", "rollouts", "versus"))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--play-model", default=BEFORE)
    parser.add_argument("--output", default=None)
    parser.add_argument("--two", default=TWO, help="assemble: the 2-player file")
    parser.add_argument("--rest", default=REST, help="assemble: the file of the 3- and 4-player coefficients")
    parser.add_argument("--three", default=THREE, help="assemble: the file of the 3-player coefficients ('' for "
                        "--rest's)")
    parser.add_argument("--other-two", default=BEFORE,
                        help="assemble: the 2-player file of other shapes than 5 x 5 ('' for none)")
    parser.add_argument("--other-rest", default=OTHER_REST,
                        help="assemble: the 3- and 4-player file of other shapes than 5 x 5")
    parser.add_argument("--points-exponent", default=OTHER_EXPONENT,
                        help="assemble: the other shapes' block's points_exponent ('0': none; docs/win-chance.md "
                             "\"In the board's own points\")")
    parser.add_argument("--old", default=BEFORE)
    parser.add_argument("--new", default=SHEETS)
    parser.add_argument("--cache", default="")
    parser.add_argument("--log", default="")
    parser.add_argument("--per-game", type=int, default=4)
    parser.add_argument("--sources", default="", help="fitmix: SEED:GAMES:PLAY_MODEL,... (PLAY_MODEL a file or "
                        "learned)")
    parser.add_argument("--players", type=lambda t: tuple(int(x) for x in t.split(",")), default=(2,),
                        help="the numbers of players, comma-separated (fitmix: each fitted; else the first)")
    parser.add_argument("--replay-model", default="",
                        help="rollouts: the model file the log's games were played by (chance_vs_rollout.py "
                             "--win-model); default the shipped one")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.output is None:
        args.output = SHEETS if args.command in ("fit", "fitmix") else "shelfie_solver/dice/data/win.json"
    commands = {"fit": win_first.fit, "fitmix": fit_mixed, "assemble": assemble_file, "heldout": win_first.heldout,
                "rollouts": win_first.rollouts, "versus": win_first.versus}
    args.log_model = args.replay_model  # win_first.rollouts replays the log's games by this file (its --log-model)
    commands[args.command](args)


if __name__ == "__main__":
    main()
