"""With final dice and three or more players, every seat's chance is its figure right after the
advised choice (``play.report._advised_end``; docs/win-chance.md, "Final dice: every seat as
after the advised choice"): nothing random is left in the turn (D7), so a failed result (D13)
that triggers the end (D17) on the round's last seat ends the game at once (D18), and every
share is exact (D20), not the turn start's ratios scaled to what the mover leaves.

The hand-worked game (tiny-2x3, three players A, B, C, A first; the end at both shelves closed):

    play new t.json --players A,B,C --first A --board examples/boards/tiny-2x3.toml
    play mark t.json r1c1 r1c2 r1c3 --unchecked   # A completes shelf 1: 1 + 2 + 4 = 7 (D19);
                                                  # B's and C's shelf 1 eliminated (D15)
    play mark t.json r2c1 --unchecked             # B: 0 points, r2c2 and r2c3 still available
    play roll t.json PPBBAA                       # C: no game, cat or Joker die
    play stop t.json                              # final dice: nothing can be marked (D13)

C must give up shelf 2, its last shelf with an available item: its second closed shelf
triggers the end (D17), and C plays last in the round, so the game ends at once (D18) with A 7,
B 0, C 0: A wins alone (D20), though B's sheet could still reach 2 + 3 + 5 = 10 with another
turn. Before, ``play status`` showed A 68.1% (model), B 31.9% (model), C 0% (exact).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from conftest import EXAMPLES, cli, cli_json


def _game(tmp_path: Path) -> str:
    path = str(tmp_path / "t.json")
    cli("play", "new", path, "--players", "A,B,C", "--first", "A", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"))
    cli("play", "mark", path, "r1c1", "r1c2", "r1c3", "--unchecked")
    cli("play", "mark", path, "r2c1", "--unchecked")
    cli("play", "roll", path, "PPBBAA")
    cli("play", "stop", path)
    return path


def _chances(path: str) -> list[tuple[str, bool]]:
    return [(s["win_chance"], s["win_chance_exact"]) for s in cli_json("play", "status", path)["sheets"]]


def test_a_failed_result_that_ends_the_game_settles_every_seat(tmp_path: Path) -> None:
    path = _game(tmp_path)
    status = cli_json("play", "status", path)
    assert [s["score"] for s in status["sheets"]] == [7, 0, 0]
    assert not status["turn"]["end_triggered"]
    assert _chances(path) == [("1/1", True), ("0/1", True), ("0/1", True)]
    # and the game once C gives up shelf 2 says the same (D17, D18, D20)
    cli("play", "fail", path, "--shelf", "2")
    assert _chances(path) == [("1/1", True), ("0/1", True), ("0/1", True)]


def test_final_dice_show_every_seat_as_after_the_advised_marking(tmp_path: Path) -> None:
    """Default board, three players: A's final dice CCBJPP; every seat's figure before the marking
    equals its figure once ``play mark GAME best`` (the advice's top marking) is recorded."""
    path = str(tmp_path / "g.json")
    cli("play", "new", path, "--players", "A,B,C", "--first", "A")
    cli("play", "roll", path, "CCBJPP")
    cli("play", "stop", path)
    before = _chances(path)
    assert sum(Fraction(c) for c, _ in before) == 1
    cli("play", "mark", path, "best", "--objective", "win")
    assert _chances(path) == before
