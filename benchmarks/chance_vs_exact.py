"""The chance to win every screen shows (docs/win-chance.md), measured against the exact
two-player truth on the small boards the two-player solver handles (``solve-game --players 2``,
:mod:`dice.wholegame.two_player`): each seat's chance under optimal play, every seat maximising
its own chance to win, ties one half (D20).

A table state (both sheets, the seat to move, whether the end is triggered) does not say which
round it is, and the model (``learned/win_model.py``) reads the round; so a *position* here is a
table state with one of the rounds at which it can be reached (the turns played, propagated
forward from the start over every legal turn: :func:`turns_played`; seat 0 opens every round,
D5). For each position:

* **start value**: ``seat_chances(state)[active]`` (what ``play status`` shows once that seat
  has the dice, before it rolls: the one-turn engine's start value under ``win``), against the
  table's value of the state (the mover's chance under optimal play);
* **after a marking**: for every marking the mover can make there (an item set some final roll
  allows, D8-D12), the value the advice gives it, which is the mover's figure
  ``after_turn_chances`` shows right after it (checked on a sample against that function),
  against the table's chance of the mover after it (blocking D15, the end trigger D17, the round
  played out D18, or the finished game's result D19-D20).

Every position when a board has at most ``--exhaustive`` of them, else a seeded uniform sample
of ``--sample`` (``SeedSequence([seed, crc32(board name), 0])``). Then seeded ``win`` against
``win`` games (``play_seeded``, one child of ``SeedSequence([seed, crc32(board name), 1])`` per
game, so a board's figures do not depend on the others run with it): at every turn start the exact chance of the seat to
move, its start value and the after-turn figure of the turn just ended. Differences in points
(100 x chance): mean signed (model minus exact), mean absolute, 95th percentile of the absolute,
per board and by phase: rounds 1, 2 and 3+ where the model is used, and the turns where
:mod:`win_chance` is exact (the figure is then the exact chance, up to the table's float bound).

These boards fit the two-player exact budget (``SHELFIE_SOLVE_EXACT2_BUDGET``,
:mod:`dice.wholegame.exact2_cache`), where ``win`` now shows and plays the cached two-player
table itself. The figures above measure the raw model (what the default board, which does not
fit, still uses): they are taken with the budget set to 0. A last column, **what ``win`` shows
now**, takes the start values of the first ``--shown`` positions again with the budget as the
environment sets it (default: the table, exact up to 2^-30 and its bound; ``model`` when the
board does not fit).

    python benchmarks/chance_vs_exact.py [--seed 26] [--games 300] [--sample 3000]
        [--exhaustive 80000] [--shown 300] [--markdown FILE] [BOARD.toml ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import zlib
from dataclasses import dataclass

import numpy as np

from shelfie_solver.dice.board import Board, Marks, item_sets, load_board
from shelfie_solver.dice.game.events import Event, GameState, Mark
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset
from shelfie_solver.dice.wholegame.two_player import (FIRST, LAST, Setup, TwoPlayerSolution, decided_count, outcomes,
                                                      setup_for, solve_two_player, state_key, unpack)

BOARDS = ("examples/boards/tiny-2x3.toml", "examples/boards/tiny-3x2.toml", "examples/boards/held-out-2x4-1245.toml")
PHASES = ("round 1", "round 2", "round 3+", "exact (win_chance)")


@dataclass(frozen=True)
class Row:
    """One figure against the truth: ``kind`` (start, after marking, game start, game after),
    the phase (:data:`PHASES`), the model's chance and the exact one (floats, for display)."""

    kind: str
    phase: str
    model: float
    exact: float


def turns_played(setup: Setup, solution: TwoPlayerSolution) -> np.ndarray:
    """``int64 (N,)``: per table state, bit ``t`` set when it can be reached after ``t`` turns
    (forward over every marking and shelf given up, layer by layer of decided items: each turn
    decides at least one item, so successors lie in later layers)."""
    keys = solution.keys
    masks = np.zeros(len(keys), dtype=np.int64)
    masks[np.searchsorted(keys, 0)] = 1
    depth = decided_count(setup.n, keys)
    for layer in range(2 * setup.n + 1):
        at = np.flatnonzero(depth == layer)
        for lo in range(0, len(at), 2048):
            part = at[lo:lo + 2048]
            out = outcomes(setup, keys[part])
            nxt = np.concatenate([out.set_next, out.shelf_next], axis=1)
            src = np.repeat(masks[part][:, None] << 1, nxt.shape[1], axis=1)
            ok = nxt >= 0
            np.bitwise_or.at(masks, np.searchsorted(keys, nxt[ok]), src[ok])
    return masks


def positions(setup: Setup, solution: TwoPlayerSolution) -> list[tuple[int, int]]:
    """Every (state index, turns played) pair reachable."""
    masks = turns_played(setup, solution)
    return [(i, t) for i in range(len(masks)) for t in range(2 * setup.n + 2) if masks[i] >> t & 1]


def game_state(board: Board, rules: Ruleset, key: int, turn: int) -> GameState:
    """The game state of table key ``key`` after ``turn`` turns, seat 0 first (D5)."""
    m, e, om, oe, phase = (int(x) for x in unpack(board.n_cells, key))
    mover = 0 if phase == FIRST else 1
    own, other = Marks(board.n_shelves, board.n_columns, m, e), Marks(board.n_shelves, board.n_columns, om, oe)
    sheets = (own, other) if mover == 0 else (other, own)
    state = GameState(board, rules, sheets, mover, 0, turn, phase == LAST)
    assert state_key(board, sheets, mover, 0, phase == LAST) == key
    return state


def phase_of(state: GameState, exact: bool) -> str:
    """The :data:`PHASES` bucket of a position."""
    return PHASES[3] if exact else PHASES[min(state.round, 3) - 1]


def position_rows(setup: Setup, solution: TwoPlayerSolution, pairs: list[tuple[int, int]],
                  check: int) -> list[Row]:
    """The start value and every marking's value at each position, against the table; the first
    ``check`` markings' values are checked against :func:`chances.after_turn_chances`."""
    from shelfie_solver.dice.objective_names import advice_objective
    from shelfie_solver.dice.objectives import StateArrays
    from shelfie_solver.dice.play.chances import CHANCE_OBJECTIVE, after_turn_chances, seat_chances

    board, rules = setup.board, setup.rules
    feasible = np.zeros(len(setup.set_masks), dtype=bool)
    feasible[setup.members[setup.members < len(feasible)]] = True
    sets = item_sets(board, rules.combinations_per_turn)
    rows: list[Row] = []
    for index, turn in pairs:
        key = int(solution.keys[index])
        state = game_state(board, rules, key, turn)
        mine, exact_flag = seat_chances(state)[state.active]
        rows.append(Row("start", phase_of(state, exact_flag), float(mine), float(solution.values[index])))
        out = outcomes(setup, np.array([key], dtype=np.int64))
        worth, _ = solution.worths(setup, out)
        usable = np.flatnonzero(out.set_ok[0] & feasible)
        if not len(usable):
            continue
        objective = advice_objective(CHANCE_OBJECTIVE, state)
        arrays = StateArrays(board, rules, state.marks)
        chosen = sets.take(usable)
        values = objective.values(arrays, chosen)
        scale = objective.scale(rules)
        exact_of = getattr(objective, "exact_markings", None)
        flags = exact_of(arrays, chosen) if callable(exact_of) else \
            np.full(len(usable), bool(getattr(objective, "win_chance_exact", False)))
        for j, k in enumerate(usable):
            model = float(int(values[j])) / scale
            if check > 0:
                cells = tuple(int(c) for c in sets.cells[k] if c >= 0)
                # with two players ``now`` only gives the seat count: the mover's figure is the marking's value
                shown = after_turn_chances(state, Mark(state.active, cells), state)[state.active][0]
                assert abs(float(shown) - model) < 1e-12, (key, cells, shown, model)
                check -= 1
            rows.append(Row("after marking", phase_of(state, bool(flags[j])), model, float(worth[0, k])))
    return rows


def game_rows(board: Board, rules: Ruleset, solution: TwoPlayerSolution, games: int, seed: list[int]) -> list[Row]:
    """Seeded ``win`` against ``win`` games: at every turn start the exact chance of the seat to
    move against its start value and (after the first turn) the after-turn figure."""
    from shelfie_solver.dice.game.turn import play_seeded
    from shelfie_solver.dice.play.chances import after_turn_chances, seat_chances
    from shelfie_solver.dice.strategies import strategy_named

    rows: list[Row] = []
    for child in np.random.SeedSequence(seed).spawn(games):
        game = play_seeded(board, rules, [strategy_named("win"), strategy_named("win")], child)
        played = game.played_turns()
        previous: tuple[GameState, Event] | None = None
        for state, action in played:
            key = state_key(board, (state.sheets[0], state.sheets[1]), state.active, state.first, state.end_triggered)
            truth = solution.value(key)
            mine, exact_flag = seat_chances(state)[state.active]
            rows.append(Row("game start", phase_of(state, exact_flag), float(mine), truth))
            if previous is not None:
                shown, flag = after_turn_chances(previous[0], previous[1], state)[state.active]
                rows.append(Row("game after", phase_of(state, flag), float(shown), truth))
            previous = (state, action)
    return rows


def shown_now(setup: Setup, solution: TwoPlayerSolution, pairs: list[tuple[int, int]], budget: str | None) -> str:
    """What ``win`` shows at the start of the positions ``pairs`` with the two-player budget
    ``budget`` (the environment's, ``None``: unset): ``exact two-player table`` or ``model``, and
    the largest difference from the table's value (points)."""
    from shelfie_solver.dice.objective_names import advice_objective
    from shelfie_solver.dice.play.chances import CHANCE_OBJECTIVE, seat_chances
    from shelfie_solver.dice.wholegame.exact2_cache import BUDGET_ENV

    _set_budget(BUDGET_ENV, budget)
    try:
        worst, names = 0.0, set()
        for index, turn in pairs:
            state = game_state(setup.board, setup.rules, int(solution.keys[index]), turn)
            names.add(advice_objective(CHANCE_OBJECTIVE, state).name)
            mine, _ = seat_chances(state)[state.active]
            worst = max(worst, abs(float(mine) - float(solution.values[index])) * 100)
    finally:
        _set_budget(BUDGET_ENV, "0")
    how = "the exact two-player table" if names == {"exact two-player optimum"} else "the model"
    return f"{how}: start values within {worst:.1e} points of the table ({len(pairs):,} positions)"


def _set_budget(variable: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(variable, None)
    else:
        os.environ[variable] = value


def summary(rows: list[Row]) -> str:
    """``n | exact mean | mean signed | mean absolute | 95th percentile`` cells (points)."""
    if not rows:
        return "0 | - | - | - | -"
    diff = np.array([r.model - r.exact for r in rows]) * 100
    truth = np.mean([r.exact for r in rows]) * 100
    return (f"{len(rows):,} | {truth:.1f}% | {diff.mean():+.2f} | {np.abs(diff).mean():.2f} | "
            f"{np.quantile(np.abs(diff), 0.95):.2f}")


def board_table(name: str, rows: list[Row], kinds: dict[str, str]) -> list[str]:
    """The Markdown rows of one board: per kind, every phase together then each phase."""
    lines = []
    for kind, label in kinds.items():
        mine = [r for r in rows if r.kind == kind]
        lines.append(f"| {name} | {label} | all | {summary(mine)} |")
        for phase in PHASES:
            part = [r for r in mine if r.phase == phase]
            if part:
                lines.append(f"| | | {phase} | {summary(part)} |")
    return lines


HEADER = ["| board | figure | phase | n | exact (mean) | model - exact | mean absolute | 95th pct |",
          "|---|---|---|---:|---:|---:|---:|---:|"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="*", default=list(BOARDS))
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--games", type=int, default=300, help="win vs win games per board")
    parser.add_argument("--sample", type=int, default=3000, help="positions sampled when not exhaustive")
    parser.add_argument("--exhaustive", type=int, default=80000, help="every position up to this many")
    parser.add_argument("--shown", type=int, default=300, help="positions for what win shows now")
    parser.add_argument("--markdown", default=None, help="also write the report to this file")
    args = parser.parse_args()
    rules = DEFAULT_RULES
    from shelfie_solver.dice.wholegame.exact2_cache import BUDGET_ENV

    budget = os.environ.get(BUDGET_ENV)
    os.environ[BUDGET_ENV] = "0"  # the raw model's figures (module docstring)
    every, played, notes = [], [], []
    for path in args.boards:
        clock = time.process_time()
        board = load_board(path, rules)
        number = zlib.crc32(board.name.encode())  # each board's seeds: [seed, number], whatever the order
        setup = setup_for(board, rules)
        solution = solve_two_player(board, rules)
        pairs = positions(setup, solution)
        total = len(pairs)
        if total > args.exhaustive:
            rng = np.random.default_rng(np.random.SeedSequence([args.seed, number, 0]))
            pairs = [pairs[i] for i in np.sort(rng.choice(total, args.sample, replace=False))]
            how = f"a uniform sample of {len(pairs):,}"
        else:
            how = "every one"
        rows = position_rows(setup, solution, pairs, check=200)
        sim = game_rows(board, rules, solution, args.games, [args.seed, number, 1])
        name = f"`{path}`"
        every += board_table(name, rows, {"start": "start value", "after marking": "after a marking"})
        played += board_table(name, sim, {"game start": "start value", "game after": "after the turn before"})
        now = shown_now(setup, solution, pairs[:args.shown], budget)
        notes.append(f"- {name}: {len(solution.keys):,} states, {total:,} positions (state, round), {how}; "
                     f"{args.games} games; {time.process_time() - clock:.0f} CPU-s. What `win` shows now: {now}.")
        print(notes[-1], flush=True)
    text = "\n".join(["Every position (or a sample), each figure of the raw model (the two-player exact "
                      "budget set to 0) against the table's exact chance of the seat to move (points):", "", *HEADER, *every, "",
                      "Positions of `win` against `win` games:", "", *HEADER, *played, "", *notes,
                      f"- {platform.machine()}, {os.cpu_count()} cores, `--seed {args.seed}`.", ""])
    print(text)
    if args.markdown:
        with open(args.markdown + ".tmp", "w") as handle:
            handle.write(text)
        os.replace(args.markdown + ".tmp", args.markdown)


if __name__ == "__main__":
    main()
