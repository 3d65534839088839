"""A figure flagged exact is the exact rational wherever it is shown (D20): the ``win`` objective
keeps its terminals in the model's millionths for the engine (holds, D7), but a terminal whose
value is exact (a settled share 0, 1 or 1/k, a block that ends the game, two contenders left, a
marking that blocks every later seat out) shows its exact ``Fraction`` in the advice's markings
and shelves (text and JSON), in ``play status`` right after it and in the page's API (the same
JSON). Before the fix a three-way tie showed ``333333/1000000`` and a two-contender marking
``11683/15625``, both labelled exact.

The three-way tie (small-3x4, three players; C plays first, D5, so each round is C, A, B; the end
is triggered by B's two closed shelves, D17): A (0 points) marks r2c4 for shelf 2's
r2c2 + r2c3 + r2c4 = 3 + 2 + 6 = 11 (D19); C's 11 (shelf 1) is final (C has played this round,
D18); B has 11 (shelf 3: r3c2 + r3c3 + r3c4 = 2 + 4 + 5) and plays after A, but no line of its
sheet can reach 3 marked items, so its one turn left cannot change its score (brute force below):
A, B and C share the victory, 1/3 each (D20).

The two contenders: the breaker's game of tests/test_two_contenders.py (tiny-2x3, A, X, Y; A
first), through the CLI: A's r1c3 completes shelf 1 (7 points), blocks X out (lost at 0) and
leaves Y one last turn against 7; A's chance is 1 minus Y's chance to mark r2c2 and r2c3 beside
its r2c1 (10 points), computed here by brute force over Y's rolls.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import factorial

import numpy as np
from conftest import EXAMPLES

from shelfie_solver.dice.advise.advice import first_by_worth, rank_markings, shown_chances
from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Mark
from shelfie_solver.dice.game.events import legal_sets as legal_of
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE
from shelfie_solver.dice.objectives import Points, StateArrays
from shelfie_solver.dice.play.chances import after_turn_chances
from shelfie_solver.dice.rolls import space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.web.api import GameServer

RULES = DEFAULT_RULES
SMALL = EXAMPLES / "boards" / "small-3x4.toml"
TINY = EXAMPLES / "boards" / "tiny-2x3.toml"
BOARD = load_board(SMALL, RULES)
A, B, C = "xxxx/.oo./....", "xxxx/xx../xooo", "oooo/..../...."


from conftest import cli, cli_json  # noqa: E402


def one_turn_reach(marks) -> int:
    """Brute force: the best score ``marks`` can have after one turn on the small board (every
    final roll's every legal marking, D8-D12; a failed result keeps the score, D13; D19)."""
    return max([score(BOARD, marks, RULES)] + [score(BOARD, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, BOARD, marks, RULES)])


def test_the_three_way_tie_is_as_described() -> None:
    a, b, c = (parse_marks(t, BOARD) for t in (A, B, C))
    assert [score(BOARD, s, RULES) for s in (a, b, c)] == [0, 11, 11]
    assert one_turn_reach(b) == 11  # B can neither pass nor fall below 11
    assert b.has_available and b.closed_shelves() == 2  # B still plays; its sheet triggered the end
    assert score(BOARD, a.with_marked((BOARD.cell(1, 3),)), RULES) == 11


def test_a_three_way_tie_is_exactly_one_third_in_the_advice() -> None:
    args = ("advise", "--board", str(SMALL), "--dice", "AAAAPP", "--marks", A, "--opponent", B, "--opponent", C,
            "--order", "2", "--round", "5", "--rerolls", "0")
    data = cli_json(*args)
    best = data["markings"][0]
    assert best["cells"] == ["r2c4"] and best["score_after"] == 11
    assert (best["value"], best["win_chance"], best["win_chance_exact"]) == ("1/3", "1/3", True)
    assert (data["value"], data["win_chance"], data["win_chance_exact"]) == ("1/3", "1/3", True)
    assert data["markings"][1]["value"] == "0/1"  # r2c1: 6 points, below the 11s (exact 0)
    assert "33.3%" in cli(*args)


def test_status_right_after_the_tie_shows_the_same_third() -> None:
    a, b, c = (parse_marks(t, BOARD) for t in (A, B, C))
    before = GameState(BOARD, RULES, (a, b, c), active=0, first=2, turn=13, end_triggered=True)
    now = GameState(BOARD, RULES, (a.with_marked((BOARD.cell(1, 3),)), b, c), active=1, first=2, turn=14,
                    end_triggered=True)
    third = Fraction(1, 3)
    assert after_turn_chances(before, Mark(0, (BOARD.cell(1, 3),)), now) == [(third, True)] * 3
    shown = rank_markings((2, 0, 0, 4, 0, 0), BOARD, a, RULES, _win(before))  # PPAAAA, as the advice ranks it
    assert shown[0].marking.cells == (BOARD.cell(1, 3),) and shown[0].value == third and shown[0].exact


def _win(state: GameState):
    from shelfie_solver.dice.objective_names import advice_objective

    return advice_objective("win", state)


# --- two contenders -------------------------------------------------------------------------


def _y_last_turn() -> Fraction:
    """Y's exact chance to win its last turn (6 dice, 2 re-rolls, D6, D7) with the sheet
    ``xxx/o..`` against A's final 7, by brute force over its rolls: Y wins (10 points, D19) only by
    marking r2c2 and r2c3 in one turn (cat groups of 2 and 3 dice, each at most one joker and at
    least one cat, D8, D11; six jokers mark one item only, D12), i.e. with ``c`` cats and ``j``
    jokers, ``c >= 3`` and ``c + min(j, 2) >= 5``; any other final roll leaves it at 0 or 2 marks
    on shelf 2 (0 points; tiny-2x3's columns hold 2 items, never 3). Only cats and jokers matter,
    so a die is a cat (1/6), a joker (1/6) or another face (4/6); every hold of each kind is tried."""
    p = (Fraction(1, 6), Fraction(1, 6), Fraction(4, 6))

    def rolls(k: int):
        for c in range(k + 1):
            for j in range(k + 1 - c):
                o = k - c - j
                yield (c, j, o), factorial(k) // (factorial(c) * factorial(j) * factorial(o)) * p[0] ** c \
                    * p[1] ** j * p[2] ** o

    @cache
    def value(dice: tuple[int, int, int], left: int) -> Fraction:
        c, j, o = dice
        best = Fraction(int(c >= 3 and c + min(j, 2) >= 5))
        if left:
            for kc in range(c + 1):
                for kj in range(j + 1):
                    for ko in range(o + 1):
                        after = sum((q * value((kc + x, kj + y, ko + z), left - 1))
                                    for (x, y, z), q in rolls(6 - kc - kj - ko))
                        best = max(best, after)
        return best

    return sum((q * value(d, 2) for d, q in rolls(6)), Fraction(0))


def test_a_two_contender_marking_shows_its_exact_fraction(tmp_path) -> None:
    y = _y_last_turn()
    want = 1 - y
    assert 6 ** 18 % want.denominator == 0 and want.denominator > CHANCE_SCALE  # three rolls of 6 dice
    game = str(tmp_path / "x.json")
    cli("play", "new", game, "--players", "A,X,Y", "--first", "A", "--board", str(TINY))
    cli("play", "mark", game, "r1c1", "r1c2", "--unchecked")  # A
    cli("play", "fail", game, "--shelf", "2")  # X gives up shelf 2 (D13)
    cli("play", "mark", game, "r2c1", "--unchecked")  # Y
    cli("play", "roll", game, "GGGPPP")  # A
    cli("play", "stop", game)
    advice = cli_json("play", "advise", game)
    assert GameServer(game).state()["advice"] == advice  # the page's API: the same exact figures
    best = advice["markings"][0]
    assert best["cells"] == ["r1c3"] and best["win_chance_exact"]
    assert Fraction(best["value"]) == want and best["value"] == f"{want.numerator}/{want.denominator}"
    assert Fraction(advice["win_chance"]) == want
    cli("play", "mark", game, "r1c3")
    status = cli_json("play", "status", game)
    sheets = {s["name"]: s for s in status["sheets"]}
    assert (Fraction(sheets["A"]["win_chance"]), sheets["A"]["win_chance_exact"]) == (want, True)
    assert sheets["A"]["win_chance"] == best["win_chance"]  # the chance shown is the chance right after
    assert (Fraction(sheets["Y"]["win_chance"]), sheets["Y"]["win_chance_exact"]) == (y, True)
    assert (sheets["X"]["win_chance"], sheets["X"]["win_chance_exact"]) == ("0/1", True)
    assert GameServer(game).state()["status"] == status


def test_a_shelf_given_up_with_two_contenders_left_shows_its_exact_fraction() -> None:
    # tests/test_two_contenders.py's held-out-3x4-4153 position: seat 2 gives up a shelf that ends
    # its game at 6, seat 1 cannot reach 6 and seat 0 plays the last turn: seat 2's chance is
    # 1 minus seat 0's LastTurnWin start value against 6, here through the one-turn engine
    # (dp.solve_turn: not the batched numerators win_chance.two_contender_chances reads)
    from shelfie_solver.dice.advise.advice import failed_options, ranked_shelves
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.win_chance import LastTurnWin

    held = load_board(EXAMPLES / "boards" / "held-out-3x4-4153.toml", RULES)
    sheets = tuple(parse_marks(t, held) for t in ("xxxo/oo../.o..", ".x.o/xxxx/.o..", "xoxx/.o.o/.o.."))
    state = GameState(held, RULES, sheets, active=2, first=2, turn=9, end_triggered=False)
    want = 1 - solve_turn(held, sheets[0], RULES, LastTurnWin((6, 0))).start_values()[0]
    assert want.denominator > CHANCE_SCALE
    arrays = StateArrays(held, RULES, sheets[2])
    shelves = ranked_shelves(failed_options(held, sheets[2], RULES), arrays, _win(state))
    assert shelves and all(o.exact and o.value == want for o in shelves)


# --- the ranking: exact values refine the millionths, never the other way ---------------------


@dataclass(frozen=True)
class _Rounded:
    """A chance objective whose every marking is worth 333333 millionths, one of them (the sets
    holding ``cell``) exactly 1/3: the rounding ties it with the model's figures."""

    cell: int
    name: str = "win"
    win_chance_exact = False

    def scale(self, rules) -> int:
        return CHANCE_SCALE

    def values(self, state, sets) -> np.ndarray:
        return np.full(len(sets.sizes), CHANCE_SCALE // 3, dtype=np.int64)

    def exact_markings(self, state, sets) -> np.ndarray:
        return (sets.cells == self.cell).any(axis=1)

    def exact_values(self, state, sets) -> list[Fraction | None]:
        return [Fraction(1, 3) if hit else None for hit in self.exact_markings(state, sets).tolist()]

    def failed_value(self, state) -> int:
        return 0


def test_an_exact_third_ranks_above_a_model_figure_it_ties_in_millionths() -> None:
    board = load_board(None, RULES)
    marks = parse_marks("...../...../...../...../.....", board)
    dice = (2, 2, 2, 0, 0, 0)  # PPGGBB: many markings with different points now
    options = rank_markings(dice, board, marks, RULES, _Rounded(0))
    low = min(options, key=lambda o: o.points)  # the exact one scores least now: last by points alone
    objective = _Rounded(low.marking.cells[0])
    options = rank_markings(dice, board, marks, RULES, objective)
    exact = [o for o in options if o.exact]
    assert exact and options[0].exact and options[0].value == Fraction(1, 3) and options[0].rank == 1
    assert all(o.rank > 1 and o.value == Fraction(333333, CHANCE_SCALE) for o in options if not o.exact)
    assert [o.value for o in options] == sorted((o.value for o in options), reverse=True)
    # the strategies' choice from the compiled worth (advice.first_by_worth) is the advice's first
    legal = legal_of(dice, board, marks, RULES)
    worth = np.zeros(len(legal.every.sizes) + 1, dtype=np.int64)
    worth[legal.index] = CHANCE_SCALE // 3
    arrays = StateArrays(board, RULES, marks)
    assert Points().values(arrays, legal.sets).max() > low.points  # the points alone pick another
    assert first_by_worth(board, RULES, marks, legal, worth) != options[0].marking.cells  # (as they did)
    chosen = first_by_worth(board, RULES, marks, legal, worth,
                            lambda rows: shown_chances(objective, arrays, legal.sets.take(rows), worth[legal.index[rows]]))
    assert chosen == options[0].marking.cells
