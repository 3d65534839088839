"""Every figure ``play status`` flags exact (D20) checked against how the game actually ends.

Plays games with ``win``'s advice in every seat (its best hold, its best marking or shelf given
up, D13; the dice alone make the games vary) through
``play.gamefile.act`` with :class:`GeneratorDice`, and records ``report.table_chances`` at every
position: each turn's start, after each roll, after the stop. At the game's end it checks:

1. a seat ever shown exactly 0 has final share 0 (it did not win, D18-D20);
2. a seat ever shown exactly 1 won alone (final share 1);
3. an exact 0 or exact 1 stays exact 0 / exact 1 at every later position of the game; an exact
   figure where every final score is already known (``chances.decided_chances``) equals the
   seat's final share (D20 shares);
4. at every position the seats' figures sum to exactly 1 and lie in [0, 1].

Every violation is printed with board, players, seed, turn number and seat. Exit 1 if any.

Run: ``python benchmarks/exact_claims_sweep.py [--seeds 1-500] [--boards tiny-2x3,...]
[--players 2,3,4]``; game ``i`` of the list (board x players x seed) uses
``numpy.random.default_rng(seed)`` for the first seat and the dice.

The figures are chances under the advice's play: a seat that holds against the advice may lose
an exact 1 (its own sure win needs its best hold), so only the advice's holds are played; with
``--deviate P`` a random hold replaces the advice's with chance P at each re-roll and only the
positions after a game's last such hold are checked.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.game.dice_sources import GeneratorDice
from shelfie_solver.dice.game.events import Fail, Hold, Mark, Roll, Stop
from shelfie_solver.dice.play.chances import decided_chances
from shelfie_solver.dice.play.gamefile import act, start_kept_game
from shelfie_solver.dice.play.report import step_advice, table_chances
from shelfie_solver.dice.rules import DEFAULT_RULES

BOARDS = Path(__file__).resolve().parent.parent / "examples" / "boards"


def play_one(board_path: str | None, players: int, seed: int, deviate: float = 0.0
             ) -> tuple[list[tuple[int, str, list[tuple[Fraction, bool]], bool]], list[Fraction]]:
    """One game; ``(positions, final shares)``, a position ``(turn, where, table_chances, decided)``
    (``decided``: every final score known at that position)."""
    rules = DEFAULT_RULES
    board = load_board(board_path, rules)
    rng = np.random.default_rng(seed)
    source = GeneratorDice(rng)
    names = tuple(f"P{i}" for i in range(players))
    kept = start_kept_game(board, rules, names, int(rng.integers(players)))
    positions = []
    turn = 0

    def record(where: str) -> None:
        positions.append((turn, where, table_chances(kept), decided_chances(kept.state) is not None))

    while kept.over is None:
        record("start")
        seat = kept.active
        dice = source.roll((0,) * rules.n_sides, rules)
        kept = act(kept, (Roll(seat, dice, rules.rerolls),))
        record("roll")
        while kept.rerolls_left:
            hold_advice = step_advice(kept, "win")
            assert hold_advice is not None and hold_advice.holds
            keep = hold_advice.holds[0].keep
            if deviate and rng.random() < deviate:  # a hold against the advice, drawn at random
                alt = tuple(int(rng.integers(d + 1)) for d in kept.dice)
                if alt != keep:
                    keep = alt
                    positions.append((turn, "DEVIATE", [], False))
            if keep == kept.dice:
                break
            dice = source.roll(keep, rules)
            kept = act(kept, (Hold(seat, keep), Roll(seat, dice, kept.rerolls_left - 1)))
            record("reroll")
        if kept.rerolls_left:
            kept = act(kept, (Stop(seat),))
            record("stop")
        advice = step_advice(kept, "win")
        assert advice is not None
        if advice.markings:
            action = Mark(seat, advice.markings[0].marking.cells)
        else:
            f = advice.failed[0]
            action = Fail(seat, f.shelf, f.lost_items)
        kept = act(kept, (action,))
        turn += 1
    final = [c for c, _ in table_chances(kept)]
    return positions, final


def check(positions, final, label: str, counts: Counter) -> list[str]:
    """The violations of one game (see the module's docstring), counting the claims checked."""
    bad = []
    if sum(final) != 1:
        bad.append(f"{label}: final shares sum {sum(final)}")
    pinned: dict[int, tuple[Fraction, int, str]] = {}
    last_dev = max((i for i, p in enumerate(positions) if p[1] == "DEVIATE"), default=-1)
    for i, (turn, where, chances, decided) in enumerate(positions):
        if i <= last_dev:  # a figure before a hold against the advice: not a claim about this game
            continue
        counts["positions"] += 1
        figs = [c for c, _ in chances]
        if sum(figs) != 1 or any(not 0 <= c <= 1 for c in figs):
            bad.append(f"{label} turn {turn} {where}: figures {[str(c) for c in figs]} sum {sum(figs)}")
        counts["sum checks"] += 1
        for seat, (c, exact) in enumerate(chances):
            if seat in pinned and (not exact or c != pinned[seat][0]):
                v, t0, w0 = pinned[seat]
                bad.append(f"{label} turn {turn} {where} seat {seat}: exact {v} at turn {t0} {w0} "
                           f"became {c}{' (exact)' if exact else ''}")
            if not exact:
                continue
            if c == 0:
                counts["exact 0"] += 1
                if final[seat] != 0:
                    bad.append(f"{label} turn {turn} {where} seat {seat}: exact 0, final share {final[seat]}")
            elif c == 1:
                counts["exact 1"] += 1
                if final[seat] != 1:
                    bad.append(f"{label} turn {turn} {where} seat {seat}: exact 1, final share {final[seat]}")
            elif decided:
                counts["exact share, decided"] += 1
                if final[seat] != c:
                    bad.append(f"{label} turn {turn} {where} seat {seat}: decided share {c}, final {final[seat]}")
            else:
                counts["exact chance, other"] += 1
            if c in (0, 1) and seat not in pinned:
                pinned[seat] = (c, turn, where)
            if decided and seat not in pinned:
                pinned[seat] = (c, turn, where)
    return bad


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="1-20", help="a range a-b of seeds (this sweep's: 1-500)")
    p.add_argument("--boards", default="tiny-2x3,tiny-3x2,small-3x4,small-4x3,held-out-3x4-4153",
                   help="board names in examples/boards, comma separated; 'default' the default board")
    p.add_argument("--players", default="3,4,2")
    p.add_argument("--deviate", type=float, default=0.0,
                   help="chance of a random hold at each re-roll (the positions after the last one are checked)")
    a = p.parse_args(argv)
    lo, hi = (int(x) for x in a.seeds.split("-"))
    counts: Counter = Counter()
    bad: list[str] = []
    t0 = time.process_time()
    for seed in range(lo, hi + 1):
        for name in a.boards.split(","):
            path = None if name == "default" else str(BOARDS / f"{name}.toml")
            for players in (int(x) for x in a.players.split(",")):
                label = f"{name} players={players} seed={seed}"
                positions, final = play_one(path, players, seed, a.deviate)
                counts["games"] += 1
                found = check(positions, final, label, counts)
                for line in found:
                    print("VIOLATION", line, flush=True)
                bad += found
        print(f"after seed {seed}:", dict(counts), f"violations {len(bad)}",
              f"CPU {time.process_time() - t0:.1f} s", flush=True)
    print(dict(counts), f"violations {len(bad)}", f"CPU {time.process_time() - t0:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
