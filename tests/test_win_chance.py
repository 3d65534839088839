"""The exact chance to win on the last turns (D17, D18, D20), checked against brute force: every
ordered roll of the dice and every hold sequence on small rulesets, every final roll on the
default board, and a two-player game where the opponent plays the last turn after the player."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

import pytest
from click.testing import CliRunner

from conftest import small_rules
from shelfie_solver.cli import main
from shelfie_solver.dice.advise.advice import advise
from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import Board, Marks, load_board, parse_marks, score
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES, Ruleset
from shelfie_solver.dice.win_chance import (BeforeLastWin, LastTurnWin, exact_objective, opponent_chance, share,
                                            still_to_play)


def counts_of(dice: tuple[int, ...], sides: int) -> tuple[int, ...]:
    return tuple(dice.count(s) for s in range(sides))


def brute_share(mine: int, others: tuple[int, ...]) -> Fraction:
    """D20 by hand: the highest total wins; a k-way tie at the top gives each 1/k."""
    everyone = (mine, *others)
    top = max(everyone)
    return Fraction(1, everyone.count(top)) if mine == top else Fraction(0)


def brute_chance(board: Board, rules: Ruleset, marks: Marks, final_value) -> Fraction:
    """The optimal expected value of ``final_value(sorted dice)`` over one turn, by brute force:
    every ordered roll of the dice (D6), every subset of dice positions held before each re-roll
    (D7, holding all = stopping), every ordered re-roll of the others."""
    sides, n = rules.n_sides, rules.dice

    @lru_cache(maxsize=None)
    def value(dice: tuple[int, ...], left: int) -> Fraction:
        best = final_value(dice)
        if left == 0:
            return best
        for size in range(n):  # keep `size` dice, re-roll the rest
            for kept in itertools.combinations(range(n), size):
                held = [dice[i] for i in kept]
                outcomes = list(itertools.product(range(sides), repeat=n - size))
                total = sum((value(tuple(sorted(held + list(o))), left - 1) for o in outcomes), Fraction(0))
                best = max(best, total / len(outcomes))
        return best

    rolls = list(itertools.product(range(sides), repeat=n))
    return sum((value(tuple(sorted(r)), rules.rerolls) for r in rolls), Fraction(0)) / len(rolls)


def last_turn_final(board: Board, rules: Ruleset, marks: Marks, others: tuple[int, ...]):
    now = score(board, marks, rules)

    def final(dice: tuple[int, ...]) -> Fraction:
        options = legal_markings(counts_of(dice, rules.n_sides), board, marks, rules)
        if not options:  # D13: a failed result keeps the score (marked items stay)
            return brute_share(now, others)
        return max(brute_share(score(board, marks.with_marked(o.cells), rules), others) for o in options)

    return final


SMALL = {
    "3 dice, 2 faces + Joker": (replace(small_rules(dice=3, faces=2), scoring_threshold=2),
                                Board("b", (2, 1, 3), ((0, 1), (1,)), ((2, 1, 6), (3, 1, 4)))),
    "3 dice, 3 faces": (replace(small_rules(dice=3, faces=3, joker=False, combos=2), scoring_threshold=2),
                        Board("c", (1, 2), ((0,), (1,), (2,)), ((1, 4), (2, 3), (1, 5)))),
}


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("others", [(0,), (3,), (5,), (7, 7), (4, 9, 2)])
def test_last_turn_chance_is_the_brute_force_optimum(name, others):
    rules, board = SMALL[name]
    marks = parse_marks("o../...", board) if board.n_shelves == 2 else parse_marks("o./../..", board)
    final = last_turn_final(board, rules, marks, others)
    expected = brute_chance(board, rules, marks, final)
    assert opponent_chance(board, rules, marks, others) == expected
    # every hold of every first roll, through advise, against the brute force one level down
    space = space_for(rules)
    solution = solve_turn(board, marks, rules, LastTurnWin(others))
    for roll in space.rolls[:6]:
        dice = tuple(s for s in range(rules.n_sides) for _ in range(roll[s]))
        result = advise(roll, board, marks, rules, LastTurnWin(others), 1)
        for hold in result.holds:
            kept = [s for s in range(rules.n_sides) for _ in range(hold.keep[s])]
            outcomes = list(itertools.product(range(rules.n_sides), repeat=rules.dice - len(kept)))
            by_hand = sum((final(tuple(sorted(kept + list(o)))) for o in outcomes), Fraction(0)) / len(outcomes)
            assert hold.value == by_hand == solution.hold_value(hold.keep, 1), (dice, hold.keep)


def test_every_final_roll_on_the_default_board(board, rules):
    """The issue's table: 45 points to the opponent's 69, the end triggered, last to play."""
    marks = parse_marks("oox../xox../oooo./oox../ooxox", board)
    others = (69,)
    final = last_turn_final(board, rules, marks, others)
    solution = solve_turn(board, marks, rules, LastTurnWin(others))
    space = space_for(rules)
    for roll in space.rolls:
        dice = tuple(s for s in range(rules.n_sides) for _ in range(roll[s]))
        assert solution.roll_value(roll, 0) == final(dice), dice
    # one re-roll of four dice keeping CC (cat = side 4), by every ordered outcome
    keep = (0, 0, 0, 0, 2, 0)
    outcomes = list(itertools.product(range(rules.n_sides), repeat=4))
    by_hand = sum((final(tuple(sorted([4, 4, *o]))) for o in outcomes), Fraction(0)) / len(outcomes)
    assert solution.hold_value(keep, 1) == by_hand


@pytest.mark.parametrize("mine, others, expected", [
    (10, (9,), 1), (9, (9,), Fraction(1, 2)), (8, (9,), 0), (9, (9, 9), Fraction(1, 3)),
    (9, (9, 9, 9), Fraction(1, 4)), (9, (9, 3, 9), Fraction(1, 3)), (12, (), 1),
])
def test_share_of_victory(mine, others, expected):
    assert share(mine, others) == expected == (brute_share(mine, others) if others else 1)


def _state(board, rules, sheets, active, first, triggered):
    n = len(sheets)
    return GameState(board, rules, tuple(sheets), active, first, 4 * n + (active - first) % n, triggered)


def one_turn_best(board: Board, rules: Ruleset, marks: Marks) -> int:
    """Brute force: the best score ``marks`` can have after one turn (every final roll's every
    legal marking, D8-D12; a failed result keeps the score, D13; D19)."""
    return max([score(board, marks, rules)] + [score(board, marks.with_marked(m.cells), rules)
                                               for roll in space_for(rules).rolls
                                               for m in legal_markings(roll, board, marks, rules)])


def test_which_turns_are_exact(board, rules):
    empty = Marks.empty(board)
    closed = parse_marks("ooooo/xxxxx/...../...../.....", board)
    # last of the round, end triggered: every other score is final (D18)
    state = _state(board, rules, (closed, empty, empty), 2, 0, True)
    assert still_to_play(state) == () and isinstance(exact_objective(state), LastTurnWin)
    # two players, the opponent plays last after this turn: exact one step earlier
    nothing = parse_marks("oxxxx/xxxxx/...../...../.....", board)  # 0 points: the opponent can still win
    state = _state(board, rules, (empty, nothing), 1, 1, True)
    assert still_to_play(state) == (0,) and isinstance(exact_objective(state), BeforeLastWin)
    # ... unless the opponent's one turn cannot reach the player's score now (it has lost,
    # lost_seats): then its turn changes no share, a last turn against the scores now (D18, D20)
    state = _state(board, rules, (empty, closed), 1, 1, True)
    assert score(board, closed, rules) > one_turn_best(board, rules, empty)
    assert still_to_play(state) == (0,) and isinstance(exact_objective(state), LastTurnWin)
    # three players with two still to play, or the end not triggered: not exact
    assert exact_objective(_state(board, rules, (empty, nothing, empty), 1, 1, True)) is None
    # (with the player's score now above their one-turn reach both have lost: a last turn)
    assert isinstance(exact_objective(_state(board, rules, (empty, closed, empty), 1, 1, True)), LastTurnWin)
    assert exact_objective(_state(board, rules, (empty, empty), 0, 0, False)) is None
    assert exact_objective(_state(board, rules, (empty,), 0, 0, True)) is None


def _block(board: Board, mine: Marks, theirs: Marks) -> Marks:
    """D15 by hand: every line complete on ``mine`` loses its available items on ``theirs``."""
    for line in board.lines:
        if all(mine.state(c).name == "MARKED" for c in line):
            theirs = theirs.with_eliminated([c for c in line if theirs.is_available(c)])
    return theirs


def test_before_the_last_turn_two_players_brute_force():
    """The opponent plays the game's last turn after the player's (D18): the player's chance is 1
    minus the opponent's best chance against the score the player leaves, on the opponent's sheet
    after the player's blocking (D15), by brute force on both turns."""
    rules, board = SMALL["3 dice, 2 faces + Joker"]
    mine, theirs = parse_marks("oo./...", board), parse_marks("o../.o.", board)
    now = score(board, mine, rules)

    @lru_cache(maxsize=None)
    def theirs_after(cells: tuple[int, ...]) -> Fraction:
        after = mine.with_marked(cells)
        sheet = _block(board, after, theirs)
        s = score(board, after, rules)
        if not sheet.available:
            return brute_share(score(board, sheet, rules), (s,))
        return brute_chance(board, rules, sheet, last_turn_final(board, rules, sheet, (s,)))

    def final(dice: tuple[int, ...]) -> Fraction:
        options = legal_markings(counts_of(dice, rules.n_sides), board, mine, rules)
        if not options:
            return 1 - theirs_after(())
        return max(1 - theirs_after(o.cells) for o in options)

    expected = brute_chance(board, rules, mine, final)
    objective = BeforeLastWin(theirs, (mine, theirs))
    got = solve_turn(board, mine, rules, objective).start_values()[0]
    assert got == expected and 0 < got < 1
    assert now == score(board, mine, rules)


def _advise(*args: str) -> dict:
    result = CliRunner().invoke(main, ["advise", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_advise_json_gives_the_exact_chance(board, rules):
    marks = "oox../xox../oooo./oox../ooxox"
    data = _advise("--dice", "PPAACC", "--marks", marks, "--opponent", "ooo../oooxx/oxo../oooxx/ooo..",
                   "--order", "2", "--round", "7")
    assert data["win_chance_exact"] is True
    by_hand = brute_share  # the table's value is the best hold's, each hold's its own
    assert by_hand(1, ()) == 1
    chances = [Fraction(h["win_chance"]) for h in data["holds"]]
    assert Fraction(data["win_chance"]) == max(chances) and data["win_chance_float"] == pytest.approx(float(max(chances)))
    assert all(h["win_chance_exact"] for h in data["holds"])
    # the chance of keeping CC is the brute-force one above (test_every_final_roll_on_the_default_board)
    solution = solve_turn(board, parse_marks(marks, board), rules, LastTurnWin((69,)))
    cc = next(h for h in data["holds"] if h["keep"] == "CC")
    assert Fraction(cc["win_chance"]) == solution.hold_value((0, 0, 0, 0, 2, 0), 2)
    # from the start of the turn (no dice yet) the figure: 57.17% to score 25+ in one turn
    assert round(float(opponent_chance(board, rules, parse_marks(marks, board), (69,))) * 100, 2) == 57.17


def test_final_dice_markings_carry_the_chance():
    data = _advise("--dice", "CCCCJP", "--rerolls", "0", "--marks", "oox../xox../oooo./oox../ooxox",
                   "--opponent", "ooo../oooxx/oxo../oooxx/ooo..", "--order", "2", "--round", "7")
    assert data["markings"] and all(m["win_chance_exact"] for m in data["markings"])
    for m in data["markings"]:
        assert Fraction(m["win_chance"]) == brute_share(m["score_after"], (69,))


def test_default_board_loads():
    assert load_board(None, DEFAULT_RULES).n_cells == 25
