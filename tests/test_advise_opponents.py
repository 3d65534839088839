"""``advise --opponent``: advice that sees the table. The game state rebuilt from the sheets typed
(:func:`seats.state_from_seats`: seats, first player, turn, D17's trigger on any sheet) and the
``learned`` objective's last-turn values, which by D18/D20 may depend only on win, tie or loss."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.dice.board import Marks, parse_marks, score
from shelfie_solver.cli import main
from shelfie_solver.dice.advise.seats import SeatsError as ContextError
from shelfie_solver.dice.advise.seats import state_from_seats as table_state

from conftest import assert_one_line_error
from test_cli_advise import advise, advise_json  # the CliRunner helpers of advise's CLI tests

MINE = "oo.../...../x..../...../....."
FOUR = "o..../o..../o..../...../....."  # one column with three marks (D19)
CLOSED = "xxxxx/xxxxx/...../...../....."  # two shelves without an available item: D17's trigger


def test_seats_first_player_and_turn(rules, board):
    """D5: seat 0 is the player, seats 1.. follow in play order; place 2 of 3 means the player
    before them (seat 2, wrapping) plays first; turns already played in round 4 = 3 rounds x 3 + 1."""
    mine, a, b = (parse_marks(t, board) for t in (MINE, FOUR, "...../...../...../...../....."))
    state = table_state(board, rules, mine, (a, b), order=2, round_number=4)
    assert state.sheets == (mine, a, b)
    assert (state.active, state.first, state.turn) == (0, 2, 10)
    assert not state.end_triggered
    assert table_state(board, rules, mine, (a,), order=1).first == 0


@pytest.mark.parametrize("mine, theirs, fragment", [
    ("ooooo/...../...../...../.....", "o..../...../...../...../.....", "eliminated (D15)"),  # shelf 1 complete
    ("o..../o..../o..../o..../o....", "...../...../...../...../.....", "eliminated (D15)"),  # column 1 complete
    ("ooooo/...../...../...../.....", "ooooo/...../...../...../.....", "at most one player (D16)"),
])
def test_blocking_is_checked_between_sheets(rules, board, mine, theirs, fragment):
    """D15/D16 on the sheets typed: a completed line has no available item elsewhere."""
    with pytest.raises(ContextError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        table_state(board, rules, parse_marks(mine, board), (parse_marks(theirs, board),), order=2)
    ok = "xxxxx/...../...../...../....." if mine.startswith("ooooo") else "x..../x..../x..../x..../x...."
    table_state(board, rules, parse_marks(mine, board), (parse_marks(ok, board),), order=2)


def test_the_end_is_triggered_by_any_sheet(rules, board):
    """D17: any player's sheet with 2 closed shelves triggers the end, not only the advised one."""
    mine, closed = parse_marks(MINE, board), parse_marks(CLOSED, board)
    assert table_state(board, rules, mine, (closed,), order=2).end_triggered
    with pytest.raises(ContextError, match="game is over"):  # D18: the round that fired it was played out
        table_state(board, rules, mine, (closed,), order=1)


@pytest.mark.parametrize("opponents, order, round_number, fragment", [
    (4, 1, 1, "2-4 players"),        # D1
    (1, 3, 1, "--order 3: your place in the round must be 1-2"),
    (1, 0, 1, "--order 0: your place in the round must be 1-2"),
    (2, 1, 0, "rounds count from 1"),
])
def test_impossible_tables_are_refused(rules, board, opponents, order, round_number, fragment):
    empty = Marks.empty(board)
    with pytest.raises(ContextError, match=fragment):
        table_state(board, rules, empty, (empty,) * opponents, order, round_number)


@pytest.mark.parametrize("opponent, outcomes", [
    (FOUR, ("win", "loss")),                       # 4 points: 7 wins, 0 loses
    ("ooo../o..../xo.../...../.....", ("tie", "loss")),  # MINE after the 7-point marking: 7 ties (D20)
])
def test_last_turn_values_depend_only_on_the_outcome(opponent, outcomes):
    """The player is last in the round and the end is triggered (D17, D18): after the marking
    every score is final, so a marking is worth only whether it wins, ties or loses against the
    best opponent (D20), whatever the margin: one value per outcome, win > tie > loss."""
    data = advise_json("--dice", "CCBJPP", "--marks", MINE, "--rerolls", "0",
                       "--opponent", opponent, "--opponent", CLOSED, "--order", "3", "--round", "6")
    assert data["objective"] == "win" and data["end_triggered"]  # the default: the chance to win (D20)
    best = max(o["score"] for o in data["opponents"])
    by_outcome: dict[str, set[str]] = {}
    for marking in data["markings"]:
        gap = marking["score_after"] - best
        outcome = "win" if gap > 0 else "tie" if gap == 0 else "loss"
        by_outcome.setdefault(outcome, set()).add(marking["value"])
    assert set(by_outcome) == set(outcomes)
    assert all(len(values) == 1 for values in by_outcome.values())
    ranked = [next(iter(by_outcome[o])) for o in ("win", "tie", "loss") if o in by_outcome]
    assert [Fraction(v) for v in ranked] == sorted((Fraction(v) for v in ranked), reverse=True)
    assert len(set(ranked)) == len(ranked)


def test_the_report_names_the_table(board, rules):
    data = advise_json("--dice", "CCBJPP", "--marks", MINE, "--opponent", FOUR, "--order", "2", "--round", "3")
    assert data["opponents"] == [{"marks": FOUR, "score": score(board, parse_marks(FOUR, board), rules)}]
    assert (data["order"], data["round"], data["objective"]) == (2, 3, "win")
    table = advise("--dice", "CCBJPP", "--marks", MINE, "--opponent", FOUR, "--order", "2", "--round", "3")
    assert "Round 3, you are number 2 of 2 to play" in table.output


def test_without_opponents_nothing_changes():
    assert advise_json("--dice", "CCBJPP")["objective"] == "strategic"
    assert "opponents" not in advise_json("--dice", "CCBJPP", "--objective", "learned")


@pytest.mark.parametrize("args, fragment", [
    (["--order", "2"], "--opponent STATE"),
    (["--round", "3"], "--opponent STATE"),
    (["--opponent", FOUR, "--objective", "strategic"], "learned:FILE"),
    (["--opponent", FOUR, "--objective", "points"], "sees one sheet"),
    (["--opponent", "...../....."], "--opponent 1:"),
    (["--opponent", FOUR, "--opponent", "no-such-file.txt"], "--opponent 2:"),
    (["--opponent", FOUR] * 4, "2-4 players"),
    (["--opponent", FOUR, "--order", "3"], "--order 3: your place in the round must be 1-2"),
    (["--opponent", FOUR, "--order", "x"], "--order"),
    (["--opponent", FOUR, "--round", "0"], "--round"),
    (["--opponent", FOUR, "--round", "9223372036854775808"], "--round"),
    (["--opponent", FOUR, "--order", "0"], "--order"),
    (["--opponent", CLOSED], "game is over"),
    (["--opponent", FOUR, "--objective", "learned:/no/such.json"], "learned"),
    # a misspelt name is unknown, as without --opponent, not an objective "that sees one sheet"
    (["--opponent", FOUR, "--objective", "win-modle"], "unknown objective 'win-modle' (did you mean 'win-model'?); expected one of"),
    (["--opponent", FOUR, "--objective", "win-model:w.json"], "unknown objective 'win-model:w.json'"),
])
def test_bad_table_input_is_one_line(args, fragment):
    assert_one_line_error(advise("--dice", "CCBJPP", "--marks", MINE, *args), fragment)


@pytest.mark.parametrize("active, first, triggered", [(2, 1, False), (0, 1, True), (1, 1, False)])
def test_the_typed_table_is_the_game_seen_from_the_active_seat(rules, board, active, first, triggered):
    """The state ``advise --opponent`` rebuilds (the player in seat 0, opponents in play order
    after them) is the game's own state with the seats renumbered: the learned objective gives
    every marking and every failed-result shelf the same value either way (D5, D15, D17, D18)."""
    from shelfie_solver.dice.board import item_sets
    from shelfie_solver.dice.game.events import GameState
    from shelfie_solver.dice.learned.objective import state_objective
    from shelfie_solver.dice.objectives import StateArrays

    texts = ("ooo../o.o../..x../...../.....", "o..../oo.../o..../...o./.....",
             (CLOSED if triggered else "...o./...../.o.../o..../....."))
    sheets = tuple(parse_marks(t, board) for t in texts)
    n, round_number = len(sheets), 4
    position = (active - first) % n
    game = GameState(board, rules, sheets, active, first, (round_number - 1) * n + position, triggered)
    opponents = tuple(sheets[(active + k) % n] for k in range(1, n))
    typed = table_state(board, rules, sheets[active], opponents, position + 1, round_number)
    assert typed.end_triggered == triggered
    sets = item_sets(board, rules.combinations_per_turn)
    arrays = StateArrays(board, rules, sheets[active])
    ours, theirs = state_objective(typed), state_objective(game)
    assert np.array_equal(ours.values(arrays, sets), theirs.values(arrays, sets))
    assert ours.shelf_values(arrays) == theirs.shelf_values(arrays)


def test_closed_standard_input_is_one_line(tmp_path):
    """``--opponent -`` (and ``--marks -``) with standard input closed: one line, not a crash."""
    import os
    import subprocess
    import sys

    for option in ("--opponent", "--marks"):
        done = subprocess.run([sys.executable, "-c", "from shelfie_solver.cli import main; main()", "advise",
                               "--dice", "CCBJPP", option, "-"],
                              capture_output=True, text=True, preexec_fn=lambda: os.close(0))
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("Error: ") and done.stderr.count("\n") == 1 and "closed" in done.stderr


def test_a_file_without_weights_for_this_many_players_is_refused(tmp_path):
    """learned:FILE fitted for 1 player only is refused in a game of 2 (advise --opponent,
    simulate) instead of playing with another count's weights; alone it is used."""
    from shelfie_solver.dice.learned.model_file import LearnedModel, default_model
    from shelfie_solver.dice.learned.model_file import model_text

    shipped = default_model()
    path = tmp_path / "one.json"
    path.write_text(model_text(LearnedModel({1: shipped.weights[1]}, shipped.info)))
    objective = f"learned:{path}"
    assert advise("--dice", "CCBJPP", "--objective", objective).exit_code == 0
    assert_one_line_error(advise("--dice", "CCBJPP", "--opponent", FOUR, "--objective", objective),
                          "weights for 1 player", "train --players 2")
    result = CliRunner().invoke(main, ["simulate", "--players", f"{objective},solver", "--games", "1", "--seed", "1"])
    assert_one_line_error(result, "weights for 1 player")


def test_every_objective_name_is_named():
    """Each form the help lists (OBJECTIVE_NAMES) is a name; a misspelling or a form of another
    command (``win-model:FILE``) is not."""
    from shelfie_solver.dice.objective_names import OBJECTIVE_NAMES, is_named

    assert all(is_named(name.replace("FILE", "x.json").replace("rXcY", "r1c1")) for name in OBJECTIVE_NAMES)
    assert all(is_named(name.upper()) for name in OBJECTIVE_NAMES)
    assert not any(is_named(name) for name in ("win-modle", "win-model:x.json", "win:x.json", "", "exact2"))
