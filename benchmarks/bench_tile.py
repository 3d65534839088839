"""The tile game (docs/tile.md): legal moves and the advisor's evaluation per position, ``tile advise``
wall time, and games per CPU second per strategy.

Run: ``python benchmarks/bench.py tile``.
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from shelfie_solver.tile import advise, gains, placements
from shelfie_solver.tile.state import apply_move, apply_refill, deal, draw_refill, legal_moves, needs_refill, start_state
from shelfie_solver.tile.game import play_game
from shelfie_solver.tile.rules import default_cards, default_layout, default_ruleset
from shelfie_solver.tile.strategies import TILE_STRATEGIES

ROOT = Path(__file__).resolve().parent.parent
RULES, LAYOUT, CARDS = default_ruleset(), default_layout(), default_cards()


def positions(count: int, seed: int = 1) -> list:
    """Positions from seeded greedy-vs-random 2-player games, every turn (early to late game)."""
    out = []
    rng = np.random.default_rng(seed)
    strategies = [TILE_STRATEGIES["greedy"](), TILE_STRATEGIES["random"]()]
    while len(out) < count:
        setup = deal(RULES, LAYOUT, CARDS, 2, rng)
        state = start_state(setup)
        state = apply_refill(setup, state, draw_refill(setup, state, rng))
        while not state.over and len(out) < count:
            out.append((setup, state))
            state, _ = apply_move(setup, state, strategies[state.turn].choose(setup, state, rng), check=False)
            if not state.over and needs_refill(state.board):
                state = apply_refill(setup, state, draw_refill(setup, state, rng))
    return out


def _median_ms(func, items) -> float:
    times = []
    for setup, state in items:
        start = time.process_time()
        func(setup, state)
        times.append(time.process_time() - start)
    return 1000 * statistics.median(times)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def games_per_second(names: list[str], games: int, seed: int = 3) -> float:
    """``games`` seeded games in this process, per CPU second (``time.process_time``)."""
    start = time.process_time()
    for child in np.random.SeedSequence(seed).spawn(games):
        play_game(RULES, LAYOUT, CARDS, [TILE_STRATEGIES[n]() for n in names], child)
    return games / (time.process_time() - start)


@contextmanager
def _whole_shelves():
    """Score placements with :func:`placements.full_value` (labels, potentials and goals recomputed on
    the whole shelf: the evaluation before the incremental one) instead of incrementally, also
    in :meth:`placements.Placements.sums` (the bound's and the next player's placements)."""
    value, immediate, sums = placements.Placements.value, placements.Placements.immediate, placements.Placements.sums

    def full(self, column, types):
        key = (column, types)
        if key not in self.cache:
            self.cache[key] = placements.full_value(self, column, types)
        return self.cache[key]

    def full_sums(self, key):  # every placement of the types through ``full`` (not tile by tile)
        if key not in self.sums_cache:
            self.sums_cache[key] = [(c, order, sum(full(self, c, order)[:4]), full(self, c, order)[4],
                                     full(self, c, order)[0])
                                    for c in range(5) if self.room[c] >= len(key) for order in gains.type_orders(key)]
        return self.sums_cache[key]

    placements.Placements.value = full  # type: ignore[method-assign]
    placements.Placements.immediate = lambda self, column, types: full(self, column, types)[0]  # type: ignore[method-assign]
    placements.Placements.sums = full_sums  # type: ignore[method-assign]
    try:
        yield
    finally:
        placements.Placements.value, placements.Placements.immediate = value, immediate  # type: ignore[method-assign]
        placements.Placements.sums = sums  # type: ignore[method-assign]


@contextmanager
def _every_move_scored():
    """The strategies without bound and prune (the baseline of the speed-up): every legal move
    scored by :func:`advise.score_moves` (the next player's best gain after every pick), greedy
    on every move, and each pick's best gain over every placement through ``immediate``."""
    from shelfie_solver.tile import strategies

    best_moves, best_immediate = strategies.best_moves, placements.Placements.best_immediate

    def every(setup, state, immediate_only=False, race=True):
        scored = advise.score_moves(setup, state, immediate_only, race=race)
        top = max(item[0] for item in scored)
        return [item[1] for item in scored if item[0] == top]

    def generic(self, types):
        key = tuple(sorted(types))
        if key not in self.best_cache:
            columns = [c for c in range(5) if self.room[c] >= len(key)]
            self.best_cache[key] = max(self.immediate(c, order) for order in gains.type_orders(key) for c in columns)
        return self.best_cache[key]

    strategies.best_moves = every
    placements.Placements.best_immediate = generic  # type: ignore[method-assign]
    try:
        yield
    finally:
        strategies.best_moves = best_moves
        placements.Placements.best_immediate = best_immediate  # type: ignore[method-assign]


def run() -> list[tuple[str, str, str]]:
    from bench import load, spread

    rows = [("tile: load average (1 min) at the start", load(), "")]
    items = positions(120)
    moves = statistics.median(len(legal_moves(s)) for _, s in items)
    rows.append((f"tile: legal moves of one position (120 positions of 2-player games, median {moves:.0f} moves)",
                 f"{_median_ms(lambda t, s: legal_moves(s), items):.2f} ms median", ""))
    fast = _median_ms(lambda t, s: advise.rank_moves(t, s), items)
    rows.append(("tile: legal moves + advisor evaluation of every move (`rank_moves`), median per position",
                 f"{fast:.1f} ms", "<= 50 ms"))
    with _whole_shelves(), _every_move_scored():
        slow = _median_ms(lambda t, s: advise.rank_moves(t, s), items)
    rows.append(("tile: the same with every placement scored on the whole shelf (`placements.full_value`, baseline)",
                 f"{slow:.1f} ms (ratio {slow / fast:.1f}x)", ""))
    walls, cpus = [], []
    for _ in range(5):
        start, used = time.perf_counter(), _children_cpu()
        subprocess.run([shutil.which("shelfie-solve") or "shelfie-solve", "tile", "advise",
                        str(ROOT / "examples" / "tile" / "position.toml")], check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - used)
    rows.append(("`shelfie-solve tile advise examples/tile/position.toml` incl. start-up, 5 runs, min / median / max: "
                 "wall (CPU of the process)", f"{spread(walls, unit='s')} ({spread(cpus, unit='s')} CPU)", "<= 1 s"))
    seeds = [int(np.random.SeedSequence().entropy) for _ in range(3)]  # type: ignore[arg-type]
    for names, games in ((["random", "random"], 100), (["greedy", "greedy"], 40), (["advisor", "greedy"], 40),
                         (["advisor", "advisor"], 40)):
        speeds, firsts = [], []
        for seed in seeds:  # interleaved: the advisor, then the first advisor (no race term), same seed
            speeds.append(games_per_second(names, games, seed))
            if "advisor" in names:
                firsts.append(games_per_second([n.replace("advisor", "advisor-v1") for n in names], games, seed))
        row = f"{spread(speeds, digits=1)} games per CPU second"
        if firsts:
            row += (f"; `advisor-v1` (no race term, interleaved, same seeds): {spread(firsts, digits=1)}, "
                    f"ratio {statistics.median(speeds) / statistics.median(firsts):.2f}x")
        if "advisor" in names:
            with _every_move_scored():
                base = [games_per_second(names, games, seed) for seed in seeds]
            row += (f"; every move scored (baseline, same seeds): {spread(base, digits=1)}, "
                    f"ratio {statistics.median(speeds) / statistics.median(base):.2f}x")
        rows.append((f"tile simulate: {' vs '.join(names)}, 2 players, 1 core, 3 runs of {games} games "
                     f"(min / median / max)", row, ">= 20 per core" if "advisor" in names else ""))
    with _whole_shelves(), _every_move_scored():
        slow_games = games_per_second(["advisor", "greedy"], 20, seeds[0])
    rows.append(("tile simulate: advisor vs greedy, every move scored and every placement on the whole shelf "
                 "(the first version's evaluation, 20 games)", f"{slow_games:.1f} games per CPU second", ""))
    rows.append(("tile: load average (1 min) at the end", load(), ""))
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
