"""How often a seat is out of the game before the end is triggered (D17) by its ceiling, the score
of its sheet with every available item marked (``board.highest_score``, D19), in saved games
(``simulate --save``; docs/win-chance.md, "A seat that can no longer win stays at an exact 0").

Before, a seat with an available item had no reach until the end was triggered, so it kept a
model figure (and a place in the joint model's softmax) however far behind it was. Counted, over
every played turn of every game (the states at the turn's start, ``Game.played_turns``) before
the end is triggered:

* start: turns where some opponent of the mover is out at the turn's start by the ceiling
  (``win_chance.lost_seats``) and was not by the old rule (its score if it had no available
  item, else none);
* mover: turns where the mover itself is out (its ceiling below another seat's score now) or
  sure to win (its score now above every other ceiling): ``win_chance.decided_objective`` before
  the end, a decided turn;
* terminal: turns where some usable item set of the mover that does not end its game puts an
  opponent out that the old rule kept in (``win_chance.lost_bounds``' column 1
  against the old one: the mover's score after it above the opponent's ceiling);
* earlier: per seat that is out at some turn start before the game's end, how many turns (of
  any seat) before the old rule would have put it out (the old rule's first turn, or the game's
  end where it never did).

A measurement, not a test. Run: ``python benchmarks/lost_ceiling.py GAMES.jsonl [...]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from shelfie_solver.dice.board import highest_score, item_sets, score
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.game.record import load_games
from shelfie_solver.dice.learned.objective import scores as line_scores
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.sheet_rules import end_trigger_shelves
from shelfie_solver.dice.win_chance import decided_objective, lost_bounds, lost_seats


def old_lost(state: GameState, seats: list[int]) -> set[int]:
    """The old rule before the end: seats of ``seats`` with no available item whose score is below
    another seat's score now."""
    now = [score(state.board, sheet, state.rules) for sheet in state.sheets]
    return {j for j in seats if not state.sheets[j].has_available
            and any(s > now[j] for k, s in enumerate(now) if k != j)}


def terminal_fires(state: GameState) -> bool:
    """Whether some terminal of the turn that leaves the mover's game going puts an opponent out
    by its ceiling that the old rule kept in (``lost_bounds`` column 1, the old one: the score if
    no available item, else none)."""
    board, rules = state.board, state.rules
    bounds = lost_bounds(state)[:, 1]
    others = [j for j in range(state.players) if j != state.active]
    old = [j for j in others if not state.sheets[j].has_available]
    if all(j in old for j in others):
        return False
    arrays = StateArrays(board, rules, state.marks)
    m, a, mp, _ = arrays.line_totals
    sets = item_sets(board, rules.combinations_per_turn)
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    after_m, after_a = m + chosen.line_count, a - chosen.line_count
    final = line_scores(after_m, mp + chosen.line_points, rules.scoring_threshold)
    going = end_trigger_shelves(board, rules) - (after_a[:, : board.n_shelves] == 0).sum(axis=1) > 0
    new = [i for i, j in enumerate(others) if j not in old]
    return bool((final[going, None] > bounds[new][None, :]).any())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", help="saved games (simulate --save), JSON Lines")
    args = parser.parse_args()
    for path in args.games:
        start = time.process_time()
        games = turns = early = fired = mover = terminal = hit_games = 0
        ahead: list[int] = []
        for game in load_games(path):
            games += 1
            played = game.played_turns()
            first_new: dict[int, int] = {}
            first_old: dict[int, int] = {}
            hit = False
            for index, (state, _) in enumerate(played):
                turns += 1
                board, rules = state.board, state.rules
                now = [score(board, sheet, rules) for sheet in state.sheets]
                others = [j for j in range(state.players) if j != state.active]
                if state.end_triggered:  # the same rule before and after
                    for j in lost_seats(state, now):
                        first_new.setdefault(j, index)
                        first_old.setdefault(j, index)
                    continue
                early += 1
                new, old = set(lost_seats(state, now)), old_lost(state, others)
                if highest_score(board, state.marks, rules) < max(now[j] for j in others):
                    new.add(state.active)  # the mover's own turn decided at 0
                for j in new:
                    first_new.setdefault(j, index)
                for j in old:
                    first_old.setdefault(j, index)
                fires = (0, 0, 0)
                if new - old - {state.active}:
                    fires = (1, 0, 0)
                if decided_objective(state) is not None:
                    fires = (fires[0], 1, 0)
                if terminal_fires(state):
                    fires = (fires[0], fires[1], 1)
                fired, mover, terminal = fired + fires[0], mover + fires[1], terminal + fires[2]
                hit = hit or any(fires)
            hit_games += hit
            for j, at in first_new.items():
                ahead.append(first_old.get(j, len(played)) - at)
        found = np.array(ahead) if ahead else np.zeros(1, dtype=np.int64)
        print(f"{path}: {games} games, {turns} turns, {early} before the end is triggered; "
              f"{time.process_time() - start:.0f} CPU s")
        print(f"  start: {fired} turns ({100 * fired / max(early, 1):.1f}% of those) with an opponent out by its "
              f"ceiling only; mover: {mover} decided turns; terminal: {terminal} turns with a terminal that "
              f"puts an opponent out by its ceiling; {hit_games} games with any of these")
        print(f"  earlier: {len(ahead)} seats out at a turn start, {(found > 0).sum()} of them earlier than "
              f"before, by {found[found > 0].mean() if (found > 0).any() else 0:.1f} turns on average "
              f"(at most {found.max()})")


if __name__ == "__main__":
    main()
