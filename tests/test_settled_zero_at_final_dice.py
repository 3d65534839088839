"""A seat settled at an exact 0 stays an exact 0 at the mover's final dice (D13, D15, D20: scores
never fall, so a seat that cannot reach another seat's score now never wins).

With three or more players, final dice show every seat as right after the advised choice
(report._advised_end); where the choices may leave the others differently, the others' exact
flags were dropped (report._certain_only), and the model's floor then lifted a seat settled at 0
at the turn's start to 1/1000000 (model): ``benchmarks/exact_claims_sweep.py --seeds 18904-18943
--boards tiny-2x3,tiny-3x2,small-3x4 --players 3,4`` found 35 such figures in 240 games (the
first: tiny-3x2, 3 players, seed 18930, the third turn's final dice, seat P0). Checked against how
the games end: every seat shown an exact 0 has a final share of 0, and stays an exact 0 after.
"""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, load_benchmark


@pytest.mark.parametrize("board, players, seed", [("tiny-3x2", 3, 18930), ("small-3x4", 3, 18905),
                                                  ("small-3x4", 4, 18916)])
def test_an_exact_zero_stays_exact_to_the_end(board, players, seed):
    sweep = load_benchmark("exact_claims_sweep")
    positions, final = sweep.play_one(str(EXAMPLES / "boards" / f"{board}.toml"), players, seed)
    zero_since: dict[int, int] = {}
    for at, (_, _, chances, _) in enumerate(positions):
        for seat, (chance, exact) in enumerate(chances):
            if seat in zero_since:
                assert (chance, exact) == (0, True), (seat, at, chance, exact)
            elif exact and chance == 0:
                zero_since[seat] = at
    assert zero_since, "the game shows a seat settled at 0 (what the test is about)"
    assert all(final[seat] == 0 for seat in zero_since)
