"""One seat left to decide the game (D17, D18, D20): once the mover's game is over, where the next
seat plays the game's last turn that can change the outcome and every other seat has its final
score (its last turn played, or no available item) or has lost, the mover's chance is exact.

By hand (D20): let ``F`` be the final scores of the seats that have not lost (the mover's among
them), ``M`` their highest, ``k`` how many are on it, and ``y`` the last seat's share in one
outcome of its turn. ``y`` above ``M``: it wins alone, ``y = 1`` and each of the ``k`` has 0;
``y`` on ``M``: a ``(k + 1)``-way shared victory, ``y = 1/(k + 1)`` and each of the ``k`` has
``1/(k + 1)``; below: the ``k`` share it, ``y = 0`` and each has ``1/k``. In every outcome each
of the ``k`` has ``(1 - y) / k``, so its chance is ``(1 - c) / k`` with ``c`` the last seat's
chance under its best play, whichever of its equally good choices it takes; a seat below ``M``
has 0. Here ``c`` is the brute force of tests/test_win_chance.py (every roll, hold and re-roll).

Before, only "two contenders" (every other seat lost) was exact: a breaker's 3-player game on
the default board, Ben and Cy on final scores of 0 and Ann to play the last turn, showed Ann
53.2%, Ben <0.1%, Cy 46.8% (model) at Ann's turn start, where Ann's own value is exact and above
99.9%, and two seats in the same place were shown 0% and 47%.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_win_chance import SMALL, brute_chance, last_turn_final

from shelfie_solver.dice.board import parse_marks, score
from shelfie_solver.dice.win_chance import two_contender_chances

RULES, BOARD = SMALL["3 dice, 3 faces"]  # 3 shelves of 2 items; a line scores from 2 marked items


def marks(text: str):
    return parse_marks(text, BOARD)


NOTHING = marks("xx/xx/xx")  # no available item, 0 points: a final score of 0 (D13, D17)
THREE = marks("o./o./xx")  # column 1: r1c1 + r2c1 = 1 + 2 = 3 points (2 marked items score, here)
LAST = marks("../.x/x.")  # the last seat: 0 points, 4 items available, two of its lines gone


def last_seat_chance(finals: tuple[int, ...]) -> Fraction:
    """The last seat's chance against the final scores ``finals``, by brute force."""
    return brute_chance(BOARD, RULES, LAST, last_turn_final(BOARD, RULES, LAST, finals))


def test_the_sheets_score_as_the_test_says() -> None:
    assert [score(BOARD, m, RULES) for m in (NOTHING, THREE, LAST)] == [0, 3, 0]
    assert not NOTHING.has_available and LAST.has_available


@pytest.mark.parametrize("first_sheet, mover_sheet, mover_final, expected", [
    # seat 0 and the mover both on 0: a tie at the top, k = 2
    (NOTHING, NOTHING, 0, lambda: (1 - last_seat_chance((0, 0))) / 2),
    # the mover on 3 above seat 0's 0: k = 1 (seat 0 has not lost: the last seat may end below it)
    (NOTHING, THREE, 3, lambda: 1 - last_seat_chance((0, 3))),
    # the mover on 0 below seat 0's 3: never at the top (D20)
    (THREE, NOTHING, 0, lambda: Fraction(0)),
    # both on 3: k = 2
    (THREE, THREE, 3, lambda: (1 - last_seat_chance((3, 3))) / 2),
])
def test_the_mover_s_chance_is_its_share_of_what_the_last_seat_leaves(first_sheet, mover_sheet, mover_final,
                                                                      expected) -> None:
    # seats 0, 1, 2 play in that order (first = 0, D5); the end is triggered; seat 0 played its
    # last turn this round, seat 1 (the mover) has just played its own, seat 2 plays the last
    [chance] = two_contender_chances(BOARD, RULES, 1, 0, [((first_sheet, mover_sheet, LAST), mover_final)])
    assert chance == expected()
    assert 0 <= chance <= 1


def test_two_seats_still_to_play_are_not_exact_here() -> None:
    # the mover plays first in the round (seat 0): seats 1 and 2 both have a last turn with items
    # that can change the outcome, so one seat's turn does not decide it (left to the model)
    assert two_contender_chances(BOARD, RULES, 0, 0, [((NOTHING, LAST, LAST), 0)]) == [None]


def test_the_last_seat_s_chance_is_not_trivial_here() -> None:
    # the cases above are worth checking: the last seat may end above, on or below the top
    for finals in ((0, 0), (0, 3), (3, 3)):
        assert 0 < last_seat_chance(finals) < 1


def test_the_breaker_s_last_round_shows_every_seat_exactly(tmp_path) -> None:
    # default board, Ann, Ben, Cy with Ben first (D5): Ben gives up shelf 1 (told), Cy and Ann
    # mark one item each; Ben rolls six cats with shelf 1 gone (nothing to mark, D13), gives up
    # shelf 2: his second closed shelf triggers the end (D17) on 0 points; Cy marks r1c2 on her
    # last turn (0 points: two items in a line score nothing, D19). Ann plays the last turn (D18):
    # Ben and Cy are in the same place (final 0), so by D20 they have the same chance, each half
    # of what Ann leaves, every figure exact
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    game = str(tmp_path / "g.json")
    steps = [["new", game, "--players", "Ann,Ben,Cy", "--first", "Ben"], ["fail", game, "--shelf", "1"],
             ["mark", game, "--unchecked", "r1c1"], ["mark", game, "--unchecked", "r2c1"],
             ["roll", game, "CCCCCC"], ["stop", game], ["fail", game, "--shelf", "2"],
             ["roll", game, "PGBACJ"], ["stop", game], ["mark", game, "r1c2"]]
    runner = CliRunner()
    for step in steps:
        result = runner.invoke(main, ["play", *step])
        assert result.exit_code == 0, (step, result.output)
    import json

    status = json.loads(runner.invoke(main, ["play", "status", game, "--format", "json"]).stdout)
    assert status["turn"]["player"] == "Ann" and status["turn"]["end_triggered"]
    seats = {s["name"]: s for s in status["sheets"]}
    assert [seats[n]["score"] for n in ("Ann", "Ben", "Cy")] == [0, 0, 0]
    chances = {n: Fraction(seats[n]["win_chance"]) for n in seats}
    assert all(seats[n]["win_chance_exact"] for n in seats)
    assert chances["Ben"] == chances["Cy"] == (1 - chances["Ann"]) / 2
    assert chances["Ann"] > Fraction(999, 1000)  # she scores on almost any last turn (before: 53.2%, model)


def test_every_seat_is_exact_for_the_last_seat_s_turn_start_and_rolls(tmp_path) -> None:
    # a tester's game (small-3x4, Ann, Ben, Cy, Ann first): Ann and Ben on 6 points each, every
    # shelf of theirs closed (D17; Ann triggered the end), Ben's last turn a failed result; Cy, on
    # 0, plays the last turn. Ann and Ben are in the same place: each has half of what Cy leaves
    # (D20), exact at Cy's turn start and after each roll. Before, only the mover's (Ben's) figure
    # was exact: Ann 21.8% (model), Ben 20.8% (exact), Cy 57.4% (model); after Cy's roll CCGGPB
    # Ann 30.2%, Ben 28.8% (model)
    import json

    from click.testing import CliRunner
    from conftest import EXAMPLES

    from shelfie_solver.cli import main

    game, board = str(tmp_path / "g.json"), str(EXAMPLES / "boards" / "small-3x4.toml")
    steps = [["new", game, "--players", "Ann,Ben,Cy", "--first", "Ann", "--board", board],
             ["mark", game, "--unchecked", "r1c1", "r1c2", "r1c3"], ["mark", game, "--unchecked", "r1c1", "r1c2", "r1c3"],
             ["mark", game, "--unchecked", "r2c1", "r2c3"], ["fail", game, "--shelf", "2"], ["fail", game, "--shelf", "2"],
             ["fail", game, "--shelf", "3"], ["fail", game, "--shelf", "3"], ["roll", game, "PPBBAA"], ["stop", game]]
    runner = CliRunner()
    for step in steps:
        result = runner.invoke(main, ["play", *step])
        assert result.exit_code == 0, (step, result.output)
    ben = json.loads(runner.invoke(main, ["play", "advise", game, "--format", "json"]).stdout)["shelves"][0]
    assert runner.invoke(main, ["play", "fail", game, "--shelf", str(ben["shelf"])]).exit_code == 0

    def figures() -> dict[str, tuple[Fraction, bool]]:
        status = json.loads(runner.invoke(main, ["play", "status", game, "--format", "json"]).stdout)
        assert status["turn"]["player"] == "Cy" and status["turn"]["end_triggered"]
        assert [s["score"] for s in status["sheets"]] == [6, 6, 0]
        return {s["name"]: (Fraction(s["win_chance"]), s["win_chance_exact"]) for s in status["sheets"]}

    start = figures()
    assert all(exact for _, exact in start.values())
    assert start["Ann"][0] == start["Ben"][0] == (1 - start["Cy"][0]) / 2
    assert start["Ben"][0] == Fraction(ben["win_chance"])  # the advice's figure for Ben's choice
    assert runner.invoke(main, ["play", "roll", game, "CCGGPB"]).exit_code == 0
    rolled = figures()
    assert all(exact for _, exact in rolled.values())
    assert rolled["Ann"][0] == rolled["Ben"][0] == (1 - rolled["Cy"][0]) / 2 != start["Ann"][0]
