"""``shelfie-solve play`` bad input through CliRunner (one line, exit 2, the game file kept)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import EXAMPLES, assert_one_line_error


@pytest.mark.parametrize("objective, fragment", [("nope", "unknown objective"), ("learned:", "no parameter file"),
                                                  ("learned:missing.json", "missing.json"),
                                                  ("table:missing.json", "missing.json")])
def test_advise_refuses_a_bad_objective_before_the_first_roll(objective, fragment, tmp_path):
    """Before anyone has rolled, 'play advise' shows no advice, and a bad --objective was
    accepted silently (exit 0); it is refused as after a roll."""
    game = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    before = game.read_bytes()
    assert_one_line_error(CliRunner().invoke(main, ["play", "advise", str(game), "--objective", objective]), fragment)
    assert game.read_bytes() == before
    assert CliRunner().invoke(main, ["play", "advise", str(game), "--objective", "learned"]).exit_code == 0


@pytest.mark.parametrize("names", ["A\x1b[31mB,Ben", "Ann," + "W" * 33, "Ann,\x07bell", "Ann,B\u200bx\x00"])
def test_new_refuses_control_characters_and_overlong_names(names, tmp_path):
    """'play new' takes names as labels at the table: printable, at most 32 characters; a name
    with an escape sequence or 33 characters is refused and no file is written."""
    game = tmp_path / "game.json"
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "new", str(game), "--players", names]),
                                 "printable", "32 characters")
    assert "\x1b" not in line and "\x07" not in line and not game.exists()


def test_new_takes_32_characters_and_wide_names(tmp_path):
    """The bound itself (32 characters) and names in other scripts are accepted."""
    game = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", "new", str(game), "--players", "W" * 32 + ",Çé,日本語名前", "--first", "Çé"])
    assert result.exit_code == 0, result.output


def _edited(tmp_path, change) -> str:
    """A new game of Ann and Ben, its JSON then edited by hand with ``change``."""
    import json

    game = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", str(game), "CCBJPP"]).exit_code == 0
    data = json.loads(game.read_text())
    change(data)
    game.write_text(json.dumps(data))
    return str(game)


@pytest.mark.parametrize("players, fragments", [
    ([1, 2], ['"players" must be a list of names', "[1, 2]"]),
    ("AB", ['"players" must be a list of names']),
    (["A\nB", "Ben"], ["without spaces", "A\\nB"]),
    (["Ann", "", "Ben"], ["without spaces: name 2 of 3 is empty"]),
    (["Ann Lee", "Ben"], ["'Ann Lee' has a space or a comma"]),
    (["A\x07", "Ben"], ["printable"]),
    (["Ann", "W" * 33], ["at most 32 characters"]),
])
@pytest.mark.parametrize("command", [["play", "status"], ["play", "advise"], ["rollout"]])
def test_a_game_file_keeps_the_name_rules_of_play_new(tmp_path, players, fragments, command):
    """A hand-edited "players" is refused by every reader of the game file as 'play new
    --players' refuses it (gamefile.check_names, the one home of the rules)."""
    game = _edited(tmp_path, lambda data: data.update(players=players))
    before = open(game, "rb").read()
    line = assert_one_line_error(CliRunner().invoke(main, [*command, game]), "game.json", *fragments)
    assert "\n" not in line and "\x07" not in line
    assert open(game, "rb").read() == before


@pytest.mark.parametrize("change, fragments", [
    (lambda d: d.update(events=None), ['"events" must be a list of events', "got None"]),
    (lambda d: d.update(events={}), ['"events" must be a list of events']),
    (lambda d: d["events"][1].update(dice=123), ["event 1", 'dice must be dice text such as "CCBJPP"', "got 123"]),
    (lambda d: d["events"][0].update(sheets=None), ["event 0", "sheets must be a list of sheets"]),
])
def test_a_malformed_game_file_is_named_in_its_own_terms(tmp_path, change, fragments):
    """A null "events" said "malformed ('NoneType' object is not iterable)", a number for the dice
    "'int' object has no attribute 'strip'": the refusal names the field and what it must be."""
    game = _edited(tmp_path, change)
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "status", game]), *fragments)
    assert "object" not in line.replace("an object", "") and "attribute" not in line


def test_a_simulated_game_of_one_strategy_twice_is_read_everywhere(tmp_path):
    """simulate --save names the seats by strategy (greedy,greedy): review, play and rollout read
    it (docs/play.md: a game of simulate --save can be followed on); the repeated name picks no
    seat (--player), as 'play new' would have refused it."""
    import json

    saved = tmp_path / "s.jsonl"
    done = CliRunner().invoke(main, ["simulate", "--players", "greedy,greedy", "--games", "1", "--seed", "3",
                                     "--jobs", "1", "--save", str(saved)])
    assert done.exit_code == 0, done.output
    assert json.loads(saved.read_text())["players"] == ["greedy", "greedy"]
    review = CliRunner().invoke(main, ["review", str(saved), "--player", "1"])
    assert review.exit_code == 0, review.output
    status = CliRunner().invoke(main, ["play", "status", str(saved)])
    assert status.exit_code == 0, status.output
    from shelfie_solver.dice.play.gamefile import KeptGameError, kept_game_from_text

    kept = kept_game_from_text(saved.read_text())
    with pytest.raises(KeptGameError, match="'greedy' names seats 1, 2"):
        kept.seat_of("greedy")


def _one_decimal_percent(chance) -> str:
    """A chance as docs/play.md says the tables print it, from its definition: 0% and 100% only
    when certain, else one decimal rounded half up, ``<0.1%`` / ``>99.9%`` short of a certainty."""
    from decimal import ROUND_HALF_UP, Decimal

    if chance in (0, 1):
        return f"{int(chance) * 100}%"
    tenths = (Decimal(chance.numerator) / Decimal(chance.denominator) * 1000).quantize(Decimal(1), ROUND_HALF_UP)
    if tenths >= 1000:
        return ">99.9%"
    if tenths <= 0:
        return "<0.1%"
    return f"{tenths / 10:.1f}%"


@pytest.mark.parametrize("steps", [[], [["roll", "CCBJPP"]], [["roll", "CCBJPP"], ["mark", "--best"]]])
def test_status_table_shows_each_seats_chance_to_win_as_the_json(steps, tmp_path):
    """'play status' (table) has a 'win chance' column per seat, the JSON's win_chance rounded as
    the advice rounds a chance (one decimal), with '(exact)' or '(model)' as win_chance_exact;
    at a turn's start, after a roll and after a marking of three players."""
    import json
    from fractions import Fraction

    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben,Cy", "--first", "Ann"]).exit_code == 0
    for step in steps:
        result = runner.invoke(main, ["play", step[0], game, *step[1:]])
        assert result.exit_code == 0, result.output
    table = runner.invoke(main, ["play", "status", game])
    data = json.loads(runner.invoke(main, ["play", "status", game, "--format", "json"]).output)
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("seat") and "win chance" in line)
    rows = lines[header + 2: header + 2 + len(data["sheets"])]
    shown = []
    for row, sheet in zip(rows, data["sheets"]):
        chance = Fraction(sheet["win_chance"])
        how = "exact" if sheet["win_chance_exact"] else "model"
        assert row.split()[:2] == [str(sheet["seat"]), sheet["name"]]
        cell, tail = row.split()[-2:]
        assert tail == f"({how})", row
        own = _one_decimal_percent(chance)
        if own == cell or cell in ("0%", "100%"):  # a certainty is printed as itself
            assert own == cell, row
        else:  # rounded with the other seats to add up to 100%: within 0.1 of its own rounding, never 0 or 100
            assert abs(Fraction(cell.rstrip("%")) - Fraction(own.strip("<>%"))) <= Fraction(1, 10), row
            assert 0 < Fraction(cell.rstrip("%")) < 100, row
        shown.append(Fraction(cell.rstrip("%")))
    total = sum(Fraction(s["win_chance"]) for s in data["sheets"])
    assert total > Fraction(99, 100)
    if total == 1:  # every seat's figure side by side adds up to 100% (docs/play.md)
        assert sum(shown) == 100, table.output


def test_status_table_of_one_player_has_no_chance_column(tmp_path):
    """Alone there is no chance to win to show (docs/play.md): the table keeps its columns."""
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann"]).exit_code == 0
    table = runner.invoke(main, ["play", "status", game])
    assert table.exit_code == 0 and "win chance" not in table.output


def test_a_failed_result_that_ends_the_game_is_an_exact_loss(tmp_path):
    # Ben plays first (D18: Ann last in the round). Ann has given up shelf 1 (a closed shelf) and
    # marked columns 1-2 of shelves 2-5; Ben leads (no line of his complete, so no block, D15).
    # Ann's PPGGBB (two of a face, no joker) covers no item of columns 3-5 (D3): a failed result
    # (D13) closes her second shelf whichever she gives up, the end (D17), over at once (D18), lost
    # on points (D19): exactly 0, not the model's estimate (D20)
    import json

    def unchecked(player, *cells):
        return {"event": "unchecked", "player": player, "cells": list(cells)}

    def fail(player, shelf):
        return {"event": "fail", "player": player, "shelf": shelf - 1, "cells": [f"r{shelf}c{c}" for c in range(1, 6)]}

    def change(data):
        data["players"] = ["Ann", "Ben"]
        data["events"] = [
            {"event": "start", "players": 2, "first": 1, "sheets": ["...../...../...../...../....."] * 2},
            unchecked(1, "r1c1", "r1c2", "r1c3"), fail(0, 1),
            unchecked(1, "r2c1", "r2c2", "r2c3"), unchecked(0, "r2c1", "r2c2", "r3c1"),
            unchecked(1, "r3c1", "r3c2", "r3c3"), unchecked(0, "r3c2", "r4c1", "r4c2"),
            fail(1, 5), unchecked(0, "r5c1", "r5c2"),
            unchecked(1, "r4c1", "r4c2", "r4c3"),
            {"event": "roll", "player": 0, "dice": "PPGGBB", "rerolls_left": 2},
            {"event": "stop", "player": 0}]

    game = _edited(tmp_path, change)
    text = CliRunner().invoke(main, ["play", "advise", game])
    assert text.exit_code == 0, text.output
    assert "(model)" not in text.output.split("win chance:")[0]
    assert "you can no longer win, whatever you give up (chance to win 0%, exact)" in text.output
    data = json.loads(CliRunner().invoke(main, ["play", "advise", game, "--format", "json"]).output)
    assert data["shelves"] and all(s["win_chance"] == "0/1" and s["win_chance_exact"] for s in data["shelves"])
    assert data["win_chance"] == "0/1" and data["win_chance_exact"] is True
    status = json.loads(CliRunner().invoke(main, ["play", "status", game, "--format", "json"]).output)
    assert [(s["win_chance"], s["win_chance_exact"]) for s in status["sheets"]] == [("0/1", True), ("1/1", True)]


@pytest.mark.parametrize("items, fragment", [
    # D9: at most 3 items a turn
    (["r3c1", "r3c2", "r1c2", "r2c1"], "(4 items: at most 3 a turn, D9)"),
    # shelf 3 is plant (docs/formats.md default board); columns 1, 2, 3 need 1 + 2 + 3 dice (D3)
    (["r3c1", "r3c2", "r3c3"], "(the items need 6 plant dice, the dice show 3, D8)"),
    # shelf 1 is cat: column 3 needs 3 cats, PPPBCC shows 2 (r2c1, a book, is covered)
    (["r1c3", "r2c1"], "(the items need 3 cat dice, the dice show 2, D8)"),
])
def test_an_illegal_marking_says_why(tmp_path, items, fragment):
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "PPPBCC"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "stop", game]).exit_code == 0
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "mark", game, *items]), "is not a legal marking of PPPBCC")
    assert fragment in line and "legal include: " in line


def test_two_items_with_six_jokers_cite_d12(tmp_path):
    # D12: six Jokers mark any one available item; two items (r1c1 r1c2, both cat) were refused as
    # "the items need 3 cat dice, the dice show 0 and 6 jokers, D8", the rule of other rolls
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "JJJJJJ"]).exit_code == 0
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "mark", game, "r1c1", "r1c2"]),
                                 "is not a legal marking of JJJJJJ")
    assert "(2 items: every die a Joker marks any one available item, D12)" in line
    assert CliRunner().invoke(main, ["play", "mark", game, "r1c2"]).exit_code == 0  # one item: legal


def test_a_failed_result_refused_by_d14_says_what_to_do(tmp_path):
    # PPPBCC can mark r1c1 (one cat, D3): a failed result is not a choice (D14), and the line is a
    # full sentence: what to do instead and when a failed result is possible
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "PPPBCC"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "stop", game]).exit_code == 0
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "fail", game, "--shelf", "1"]),
                                 "can mark an item, so it must (D14): mark one of its items")
    assert line.endswith("a failed result is only possible when no item can be marked")
    # the step's own commands, the file named (it said "('advise' lists them)", the session's word)
    assert f"mark one of its items: play mark {game} ITEM... (play advise {game} lists them);" in line
    assert "'advise'" not in line
    for shelf in ("best", ""):  # every form of the step says it alike
        other = assert_one_line_error(CliRunner().invoke(main, ["play", "fail", game, "--shelf", shelf]), "(D14)")
        assert f"play mark {game} ITEM... (play advise {game} lists them);" in other


def test_new_with_both_first_and_seed_is_refused(tmp_path):
    # docs/play.md: 'play new GAME --players ... [--first NAME | --seed S]': --seed only draws the
    # first player (D5), so beside --first it was silently ignored; now one line, no file written
    game = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann",
                                       "--seed", "3"])
    assert_one_line_error(result, "--seed", "--first", "give one of the two")
    assert not game.exists()
    for option in (["--first", "Ben"], ["--seed", "3"]):  # each alone still works
        assert CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", *option]).exit_code == 0
        game.unlink()


def test_fail_best_refused_by_d14_says_it_in_the_same_words(tmp_path):
    # 'play fail --shelf best' (and the session's 'fail best') with dice that can mark an item said
    # "these dice can mark an item, so they must (D14): no failed result", other words than the
    # refusal of 'fail --shelf 1' above for the same rule (D14): now the same line, dice named
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "PPPBCC"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "stop", game]).exit_code == 0
    before = Path(game).read_bytes()
    by_number = assert_one_line_error(CliRunner().invoke(main, ["play", "fail", game, "--shelf", "1"]), "(D14)")
    best = assert_one_line_error(CliRunner().invoke(main, ["play", "fail", game, "--shelf", "best"]), "(D14)")
    assert best == by_number and best.startswith("Error: PPPBCC can mark an item, so it must (D14)")
    assert Path(game).read_bytes() == before


def test_end_near_after_a_marking_names_the_player_not_you(tmp_path):
    # Ann plays first and gives up shelf 1 (D13): one closed shelf, one short of D17's trigger of 2.
    # Bob's marking is read by Bob with Ann to play next: "you have" would read as Bob, so she is named
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Bob", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "fail", game, "--shelf", "1"]).exit_code == 0
    marked = runner.invoke(main, ["play", "mark", game, "--unchecked", "r2c1"])
    assert marked.exit_code == 0, marked.output
    assert "Round 2, Ann to play" in marked.output
    assert "End near (D17): Ann has 1 closed shelf; one more triggers the last round." in marked.output
    assert "you have" not in marked.output


@pytest.mark.parametrize("command", [["status"], ["advise"], ["mark", "--unchecked", "r2c2"]])
def test_the_score_now_line_says_whose_side_it_is_from(tmp_path, command):
    # told without dice: Ann r3c1-r3c3, me r2c1, Ann r3c4 (Ann's shelf 3: 2 + 2 + 3 + 7 = 14 points,
    # D19; me 0, one item), me to play: the line follows the previous player's action and is read
    # by all, so it says from whose side the gap is, the player to play's (after me's r2c2, Ann's)
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,me", "--first", "Ann"]).exit_code == 0
    for cells in (["r3c1", "r3c2", "r3c3"], ["r2c1"], ["r3c4"]):
        assert runner.invoke(main, ["play", "mark", game, "--unchecked", *cells]).exit_code == 0
    result = runner.invoke(main, ["play", command[0], game, *command[1:]])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    expected = ("Score now for Ann (D19): 14, best opponent 0 (+14)." if command[0] == "mark" else
                "Score now for me (D19): 0, best opponent 14 (-14).")
    assert expected in flat, flat
    assert flat.count("Score now") == 1
    data = json.loads(runner.invoke(main, ["play", "status", game, "--format", "json"]).stdout)
    assert expected in data["warnings"]  # the JSON's key as before, the line as the table's


def test_nothing_to_mark_names_the_step_command_that_fails(tmp_path):
    """``play mark`` with dice that mark nothing (PPPPPP on small-4x3, whose shelves take games,
    awards, cats and books only, D4) and re-rolls left: the refusal names the step command of a
    failed result, ``play fail GAME --shelf N`` (D13), which then works; never the prompt's
    ``'fail N'``."""
    game = str(tmp_path / "game.json")
    board = str(EXAMPLES / "boards" / "small-4x3.toml")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann",
                                     "--board", board]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "PPPPPP"]).exit_code == 0
    for words in (["r1c1"], ["--best"]):
        line = assert_one_line_error(CliRunner().invoke(main, ["play", "mark", game, *words]),
                                     "nothing can be marked with PPPPPP", f"play fail {game} --shelf N gives up shelf N")
        assert "'fail N'" not in line
    done = CliRunner().invoke(main, ["play", "fail", game, "--shelf", "2"])
    assert done.exit_code == 0, done.output


def test_a_failed_result_told_without_dice_says_it_is_unchecked(tmp_path):
    """D13, D14: a failed result can only be checked against dice; 'play fail' before any roll of
    the turn is taken as told and says so, as a marking told without dice does; after six cats
    on a sheet whose cat shelf is blocked (nothing to mark, D14), the same step is checked and
    says nothing of the kind."""
    game, runner = str(tmp_path / "g.json"), CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    told = runner.invoke(main, ["play", "fail", game, "--shelf", "2"])
    assert told.exit_code == 0, told.output
    assert "Ann: failed result (D13), gave up shelf 2" in told.output
    assert "(unchecked: no dice recorded)" in " ".join(told.output.split())
    for step in (["mark", "--unchecked", "r3c1"], ["mark", "--unchecked", "r1c1", "r1c2", "r1c3"],
                 ["mark", "--unchecked", "r3c2"], ["mark", "--unchecked", "r1c4", "r1c5"],
                 ["roll", "CCCCCC"]):  # Ben's shelf 1 blocked by Ann's completed shelf 1 (D15)
        assert runner.invoke(main, ["play", step[0], game, *step[1:]]).exit_code == 0
    checked = runner.invoke(main, ["play", "fail", game, "--shelf", "3"])
    assert checked.exit_code == 0, checked.output
    assert "Ben: failed result (D13), gave up shelf 3" in checked.output and "unchecked" not in checked.output


def test_a_marking_told_without_dice_says_why_it_is_refused(tmp_path):
    """D4, D9: a told marking (no dice to check, --unchecked) of an item already marked, an item
    eliminated by a block (D15), or four items names the problem, as a checked marking does; it
    said '1 to 3 distinct available items (D4, D9)' for all."""
    game, runner = str(tmp_path / "g.json"), CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    for step in (["r1c1", "r1c2", "r1c3"], ["r2c1"], ["r1c4", "r1c5"], ["r3c1"]):
        # Ann completes shelf 1 (D15): Ben's r1c1-r1c5 are eliminated
        assert runner.invoke(main, ["play", "mark", game, "--unchecked", *step]).exit_code == 0
    before = Path(game).read_bytes()
    for cells, why in ((["r2c2", "r1c1"], "Ann cannot mark r1c1 r2c2: r1c1 is already marked: not available, D4"),
                       (["r2c2", "r2c3", "r2c4", "r2c5"], "4 items: at most 3 a turn, D9")):
        assert_one_line_error(runner.invoke(main, ["play", "mark", game, "--unchecked", *cells]), why)
    assert Path(game).read_bytes() == before
    # Ben's turn after Ann's: his r1c3 was eliminated by Ann's completed shelf 1
    assert runner.invoke(main, ["play", "mark", game, "--unchecked", "r4c1"]).exit_code == 0
    assert_one_line_error(runner.invoke(main, ["play", "mark", game, "--unchecked", "r1c3"]),
                          "Ben cannot mark r1c3: r1c3 is eliminated: not available, D4")


def test_a_refusal_names_the_game_file_not_a_placeholder(tmp_path):
    # a step's refusal that gives a command to run names the step's own file, quoted for the shell
    # where it needs it (a new user copied "play undo GAME" from the game-over refusal)
    game = str(tmp_path / "my game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "CCCBBJ"]).exit_code == 0
    quoted = "'" + game + "'"
    assert_one_line_error(CliRunner().invoke(main, ["play", "reroll", game, "--keep", "CCCBBJ"]),
                          f"keeping every die is stopping (D7): play stop {quoted}")  # --keep alone: no NEW needed
    assert_one_line_error(CliRunner().invoke(main, ["play", "reroll", game]),
                          f"expected the dice rolled again: play reroll {quoted} NEW [--keep DICE]")


@pytest.mark.parametrize("args, fragment", [
    (["play", "undo", "GAMEFILE", "-1"], "undo needs a count of 1 or more actions, not -1"),  # not "No such option"
    (["play", "undo", "GAMEFILE", "x"], "undo needs a count of 1 or more actions, not 'x'"),
    (["advise", "--dice", "CCBJPP", "--rerolls", "two"], "'two' is not a whole number; expected x>=0"),
    (["advise", "--dice", "CCBJPP", "--top", "abc"], "'abc' is not a whole number; expected x>=1"),
    (["review", "GAMEFILE", "--game", "abc"], "'abc' is not a whole number; expected one such as 3"),
    (["play", "undo", "GAMEFILE", "1_0"], "undo needs a count of 1 or more actions, not '1_0'"),  # int() read 10
    (["advise", "--dice", "CCBJPP", "--top", "\u0661"], "is not a whole number; expected x>=1"),  # an Arabic-Indic 1
])
def test_a_value_that_is_not_a_whole_number_says_so_with_the_range(tmp_path, args, fragment):
    # click's own words were "'two' is not a valid integer range" and, for -1, "No such option"
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    args = [game if a == "GAMEFILE" else a for a in args]
    line = assert_one_line_error(CliRunner().invoke(main, args), fragment)
    assert "integer range" not in line and "No such option" not in line


@pytest.mark.parametrize("typed, step", [
    ("keep CC new PPAJ", "PPAJ --keep CC"),
    ("keep CC PPAJ", "PPAJ --keep CC"),
    ("Keep cat cat new plant plant award joker", "'plant plant award joker' --keep 'cat cat'"),
    ("hold CC", "NEW --keep CC"),
])
def test_a_reroll_typed_in_the_prompts_words_names_the_step_form(tmp_path, typed, step):
    # a new user typed the interactive session's re-roll ("keep PP new CCBA") as the step's NEW and was
    # told "unknown face 'keep'": the refusal names the step's form with the same dice, and that form works
    game = str(tmp_path / "g.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "CCCBBJ"]).exit_code == 0
    before = Path(game).read_bytes()
    message = assert_one_line_error(CliRunner().invoke(main, ["play", "reroll", game, typed]),
                                    f"the step form is: play reroll {game} {step}", "interactive session")
    assert "unknown face" not in message and Path(game).read_bytes() == before
    if "NEW" not in step:
        done = CliRunner().invoke(main, ["play", "reroll", game, *shlex.split(step)])
        assert done.exit_code == 0, done.output
        assert "Ann kept CC and re-rolled 4 dice (D7).\nAnn rolled PPACCJ" in done.stdout  # faces in D2 order


@pytest.mark.parametrize("typed, expected", [
    (["keep", "CC", "new", "PPAJ"], "the step form is: play reroll GAME_PATH PPAJ --keep CC"),
    (["CC", "PPAJ"], "got unexpected extra arguments (PPAJ); expected one NEW"),
])
def test_a_reroll_typed_unquoted_in_several_words_is_refused_in_one_line(tmp_path, typed, expected):
    # the prompt's form typed without quotes reached click as extra arguments ("Got unexpected extra
    # arguments (CC new PPAJ)"): it now gets the step form too; other extra words one line naming them
    game = str(tmp_path / "g.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "CCCBBJ"]).exit_code == 0
    before = Path(game).read_bytes()
    assert_one_line_error(CliRunner().invoke(main, ["play", "reroll", game, *typed]),
                          expected.replace("GAME_PATH", game))
    assert Path(game).read_bytes() == before


def test_three_items_each_short_of_a_joker_cite_d11a_and_list_the_near_markings(tmp_path):
    # PGBCJJ: r1c2 (cat), r3c2 (plant) and r4c2 (game) each need 2 dice of their face (column 2, D3)
    # and the dice show 1 of each, so each needs a Joker (D11a: at most 1 per group) and only 2 show;
    # each face alone would do, so the refusal was a bare "(D8-D14)" with single items listed. Any
    # two of them with the 2 Jokers and a third item from the B (r2c1) are legal: listed first
    game = str(tmp_path / "game.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "roll", game, "PGBCJJ"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "stop", game]).exit_code == 0
    asked = {"r1c2", "r3c2", "r4c2"}
    line = assert_one_line_error(CliRunner().invoke(main, ["play", "mark", game, *sorted(asked)]),
                                 "the items need 2 cat, 2 plant and 2 game dice, the dice show 1 cat, 1 plant, "
                                 "1 game and 2 jokers: 3 Jokers would have to stand in", "D11a")
    listed = line.split("legal include: ")[1].removesuffix(" ...").split(", ")
    first = listed[0].split()
    assert len(first) == 3 and len(asked & set(first)) == 2, listed
    assert all(len(asked & set(m.split())) == 2 for m in listed)  # 2 of the 3 asked fit: those first
    done = CliRunner().invoke(main, ["play", "mark", game, *first])
    assert done.exit_code == 0, done.output
