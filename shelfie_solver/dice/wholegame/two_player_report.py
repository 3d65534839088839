"""The report of ``solve-game --players 2`` (docs/solve-game.md "Two players"), click-free: the
first player's chance to win under optimal play by both (D5, D20) with its proven error bound,
and with ``--versus solitaire`` what playing for the win is worth: the same chance when both
play the solitaire optimum, and optimal against solitaire-optimal play, both ways
(:func:`versus`, :data:`PAIRINGS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shelfie_solver.core.report import Report
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.two_player import (MAX_STATES, OPTIMAL, SOLITAIRE, TABLE, TwoPlayerSolution,
                                                      full_sheet_points, reachable_states, round_up, setup_for,
                                                      solve_two_player)

#: The pairings of ``--versus solitaire``: (JSON key, label, seat 0's mode, seat 1's mode). "For
#: the win" against a solitaire player is the best response (it knows the other's play); "the
#: table's play" is the both-optimal choices (``exact2:FILE``), whoever the other is.
PAIRINGS = (
    ("optimal_vs_optimal", "both play for the win", OPTIMAL, OPTIMAL),
    ("solitaire_vs_solitaire", "both play the solitaire optimum", SOLITAIRE, SOLITAIRE),
    ("optimal_vs_solitaire", "first's best response to a solitaire second", OPTIMAL, SOLITAIRE),
    ("solitaire_vs_optimal", "second's best response to a solitaire first", SOLITAIRE, OPTIMAL),
    ("table_vs_solitaire", "first plays the table, second solitaire", TABLE, SOLITAIRE),
    ("solitaire_vs_table", "first solitaire, second plays the table", SOLITAIRE, TABLE),
)
#: Without numba the table's play is chosen in numpy (about 1 ms a state): then only on boards of
#: at most this many states.
TABLE_PAIRING_STATES = 200_000


@dataclass(frozen=True)
class Pairing:
    """One pairing's result: seat 0's chance to win, its bound, the time."""

    key: str
    label: str
    chance: float
    bound: float
    seconds: float


def versus(board: Board, rules: Ruleset, max_states: int = MAX_STATES,
           progress: Callable[[int, int], None] | None = None) -> list[Pairing]:
    """Every pairing of :data:`PAIRINGS` solved (:func:`two_player.solve_two_player`); those of the
    table's play, without numba, only on boards of at most :data:`TABLE_PAIRING_STATES` states.

    Raises:
        TwoPlayerError: the board is too large.
    """
    out = []
    from shelfie_solver.dice.wholegame.two_player_kernel import greedy_kernel

    small = greedy_kernel() is not None or len(reachable_states(setup_for(board, rules), max_states)) \
        <= TABLE_PAIRING_STATES
    for key, label, first, second in PAIRINGS:
        if TABLE in (first, second) and not small:
            continue
        solved = solve_two_player(board, rules, (first, second), max_states, progress)
        out.append(Pairing(key, label, solved.first_player_win_chance, round_up(solved.bound), solved.seconds))
    return out


def two_player_report(solution: TwoPlayerSolution, saved: str | None,
                      pairings: list[Pairing] | None = None) -> Report:
    """The report: the first player's chance (float64) and its proven bound, the states, the time;
    with ``pairings`` one row per pairing."""
    board = solution.board
    chance, bound = solution.first_player_win_chance, round_up(solution.bound)
    title = [f"Two-player game solved on board {board.name!r} ({board.n_shelves} x {board.n_columns}, a full "
             f"sheet is worth {full_sheet_points(board, solution.rules)} points)"]
    rows: list[list[Any]] = [
        ["first player's chance to win", f"{100 * chance:.4f}%"],
        ["float64", repr(chance)],
        ["rounding error at most", f"{bound:.3g} (proven bound)"],
        ["states", f"{len(solution.keys):,}"],
        ["time", f"{solution.seconds:.1f} s"],
    ]
    data: dict[str, Any] = {"board": board.name, "players": 2, "first_player_win_chance": chance,
                            "error_bound": bound, "states": len(solution.keys), "seconds": solution.seconds,
                            "saved": saved}
    if pairings:
        rows += [[f"first player, {p.label}", f"{100 * p.chance:.4f}%"] for p in pairings]
        data["versus"] = {p.key: {"first_player_win_chance": p.chance, "error_bound": p.bound} for p in pairings}
    notes = ["Each player maximises their own chance to win; a tie counts one half (D20). Seat 1 plays first "
             "(D5); once the end is triggered (D17) the round is played out (D18). Blocking (D15) included.",
             "Float64: the exact chance is within the bound of this value (docs/solve-game.md, two players)."]
    if pairings:
        notes.append("Solitaire optimum: each turn maximises the player's own expected final score as if alone "
                     "(D19), on its sheet as blocking left it; ties go to the engine's first choice. A best "
                     "response knows the other's play; the table's play is the both-optimal choices (exact2:FILE)"
                     + ("." if len(pairings) == len(PAIRINGS) else f", evaluated without numba only on boards "
                        f"of at most {TABLE_PAIRING_STATES:,} states."))
    if saved:
        notes.append(f"Value table saved to {saved} (strategy exact2:{saved}).")
    return Report(title, ["", "value"], rows, data, notes)
