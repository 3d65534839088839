"""How much playing for the win is worth on small boards: the two-player game solved exactly
(float64 with a proven bound, ``solve-game --players 2 --versus solitaire``) on three boards,
printed as the Markdown table of docs/strategies.md ("Two players, solved").

For each board: the first player's chance to win (D5, ties one half, D20) (a) when both play for
the win, (b) when both play the solitaire optimum (each maximising its own expected final score
as if alone), (c) the first's best response to a solitaire-optimal second, and the mirror, (d) the
table's play (the both-optimal choices, ``exact2:FILE``) against a solitaire-optimal player, both
ways (boards of at most 200,000 states).

    python benchmarks/two_player_exact.py [BOARD.toml ...]
"""

from __future__ import annotations

import sys
import time

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame.two_player import full_sheet_points, reachable_states, setup_for
from shelfie_solver.dice.wholegame.two_player_report import versus

BOARDS = ("examples/boards/tiny-2x3.toml", "examples/boards/tiny-3x2.toml", "examples/boards/held-out-2x4-1245.toml")


def main(paths: list[str]) -> None:
    print("| board | states | both for the win | both solitaire | best response vs solitaire "
          "| solitaire vs best response | table vs solitaire | solitaire vs table | bound | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths or BOARDS:
        board = load_board(path, DEFAULT_RULES)
        start = time.process_time()
        states = len(reachable_states(setup_for(board, DEFAULT_RULES)))
        found = {p.key: p for p in versus(board, DEFAULT_RULES)}
        cells = [f"{100 * found[k].chance:.2f}%" if k in found else "-"
                 for k in ("optimal_vs_optimal", "solitaire_vs_solitaire", "optimal_vs_solitaire",
                           "solitaire_vs_optimal", "table_vs_solitaire", "solitaire_vs_table")]
        bound = max(p.bound for p in found.values())
        print(f"| {board.name} ({board.n_shelves} x {board.n_columns}, {full_sheet_points(board, DEFAULT_RULES)} "
              f"points) | {states:,} | {' | '.join(cells)} | {bound:.1e} | {time.process_time() - start:.0f} |",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
