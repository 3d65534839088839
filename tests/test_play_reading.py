"""Reading the dice typed after a re-roll (D7: the dice kept stay on the table, the rest are
rolled again), checked against the physical process enumerated: every hold of the dice before
and every result of the dice rolled again. And the session's click-free handling of the forms
(docs/play.md "After a re-roll"): a hold typed first, ``keep K new N``, face names, ``reroll
--keep``, ``stop`` binding and its undo."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.play.gamefile import read_kept_game
from shelfie_solver.dice.play.reading import PROMPT, STEP, ReadingError, read_reroll, readings
from shelfie_solver.dice.play.session import Session
from shelfie_solver.dice.rolls import dice_codes, multisets, parse_dice
from shelfie_solver.dice.rules import DEFAULT_RULES

from conftest import small_rules


def physical(before, n, typed_size):
    """Every (hold, dice after, new dice) the table can produce from ``before``: a hold that is
    not every die (that is stopping), then any result of the others."""
    sides = len(before)
    for hold in product(*(range(c + 1) for c in before)):
        if hold == before:
            continue
        for new in multisets(sides, n - sum(hold)):
            yield hold, tuple(h + r for h, r in zip(hold, new)), new


def check_against_the_table(rules, befores):
    n = rules.dice
    for before in befores:
        full: dict = {}
        partial: dict = {}
        for hold, after, new in physical(before, n, None):
            full.setdefault(after, set()).add((hold, after))
            partial.setdefault(new, set()).add((hold, after))
        for after, expected in full.items():  # all n dice typed
            assert set(readings(before, after, rules)) == expected, (before, after)
            unique = len(expected) == 1
            assert unique == all(min(b, a) == 0 for b, a in zip(before, after)), (before, after)
        for new, expected in partial.items():  # only the new dice typed
            if sum(new) < n:
                assert set(readings(before, new, rules)) == expected, (before, new)
        for hold, after, new in physical(before, n, None):  # a hold typed first: one reading
            if sum(hold):
                assert readings(before, after, rules, hold) == [(hold, after)]
            assert readings(before, new, rules, hold) == [(hold, after)]


def test_readings_are_the_table_s_on_a_small_ruleset():
    rules = small_rules(dice=3, faces=2)  # 3 sides with the joker
    check_against_the_table(rules, multisets(rules.n_sides, rules.dice))


def test_readings_are_the_table_s_on_the_default_dice():
    rules = DEFAULT_RULES
    befores = [parse_dice(d, rules) for d in ("CCBBPG", "CCCCCC", "PPBCCJ", "AAGGGP")]
    check_against_the_table(rules, befores)


@pytest.mark.parametrize("typed, keep, fragments", [
    ("AAABCJ", None, ["AAABCJ read as the 6 dice now showing after PGBBCC", "BC may have stayed", "(4 readings)",
                      "keep BC new AAAJ"]),
    ("ACG", None, ["ACG read as the 3 new dice, so 3 of PGBBCC were kept", "keep "]),
    ("AAAAAA", "CC", ["do not contain the kept CC", "type the 4 new dice or all 6"]),
    ("AAA", "CC", ["keeping CC re-rolls 4 dice, but 3 new dice were given"]),
    ("AAAA", "CCC", ["cannot keep CCC"]),
    ("", "PGBBCC", ["stopping"]),
])
def test_refusals_say_what_was_understood(typed, keep, fragments):
    rules = DEFAULT_RULES
    before = parse_dice("CCBBPG", rules)
    held = None if keep is None else parse_dice(keep, rules, count=-1)
    with pytest.raises(ReadingError) as error:
        read_reroll(before, parse_dice(typed, rules, count=-1), rules, held, typed)
    for fragment in fragments:
        assert fragment in str(error.value)
    assert "\n" not in str(error.value)


@pytest.fixture
def session(tmp_path: Path) -> Session:
    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCBBPG"]).exit_code == 0
    return Session(game, "strategic", 3)


def kept(session: Session) -> list:
    table = read_kept_game(session.path)
    return [(e.keep, table.dice) for e in table.events if e.kind == "hold"]


def counts(text: str):
    return parse_dice(text, DEFAULT_RULES, count=-1)


@pytest.mark.parametrize("lines, keep, after", [
    (["keep CCBB", "CP"], "CCBB", "CCBBCP"),  # a hold typed first, then the new dice
    (["keep CCBB", "BBCCPC"], "CCBB", "CCBBCP"),  # ... or all six
    (["keep cat cat book book", "cat plant"], "CCBB", "CCBBCP"),  # face names: the words are the hold
    (["keep cat cat new plant plant book book"], "CC", "CCPPBB"),  # 'new' separates kept from new
    (["keep CC new CCPPBB"], "CC", "CCPPBB"),  # the six after 'new', containing the kept
    (["keep CCBB CP"], "CCBB", "CCBBCP"),  # two runs of codes: kept, new (as before)
    (["reroll CP --keep CCBB"], "CCBB", "CCBBCP"),  # the step command's form
    (["reroll AJJJJJ"], "", "AJJJJJ"),  # no face in common with PGBBCC: all re-rolled
    (["keep - AAAAAA"], "", "AAAAAA"),
])
def test_re_roll_forms(session: Session, lines, keep, after):
    for line in lines:
        out = session.handle(line)
        assert not out.startswith("Error"), out
    assert kept(session) == [(counts(keep), counts(after))]


def test_a_refused_line_changes_nothing_and_the_hold_survives_it(session: Session):
    before = Path(session.path).read_bytes()
    assert session.handle("keep CC").startswith("Holding CC")
    assert session.handle("AAAAAA").startswith("Error: the 6 dice AAAAAA do not contain the kept CC")
    assert session.prompt() == "Ann PGBBCC/2 keep CC> "
    assert Path(session.path).read_bytes() == before
    assert session.handle("undo").startswith("Undone: the hold taken back.")
    assert session.prompt() == "Ann PGBBCC/2> "
    assert Path(session.path).read_bytes() == before


def test_stop_binds_until_undone_and_undo_counts_it(session: Session):
    session.handle("stop")
    assert session.prompt() == "Ann PGBBCC/stop> "
    assert session.handle("keep CC new CCCC").startswith("Error: Ann stopped with PGBBCC")
    assert "0 re-rolls left" in session.handle("status")
    out = session.handle("undo 2")  # the stop, then the roll
    assert out.startswith("Undone: 2 actions, Ann's roll PGBBCC; Ann's stop.")
    assert session.prompt() == "Ann roll> "


def test_marking_with_re_rolls_left_is_a_stop(session: Session):
    out = session.handle("mark r1c2 r2c2")
    assert out.splitlines()[0] == "Ann stopped with PGBBCC (2 re-rolls left unused). Ann marked r1c2 r2c2."


def test_fail_best_gives_up_the_shelf_the_game_s_objective_ranks_first(tmp_path: Path):
    """'fail best' in the session takes the first shelf of the advice the session shows (its
    objective, D13), not a fixed one: six cats with shelf 1 blocked (D15) mark nothing."""
    from shelfie_solver.dice.play.report import step_advice

    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    for step in (["mark", "--unchecked", "r1c1", "r1c2", "r1c3"], ["mark", "--unchecked", "r3c1"],
                 ["mark", "--unchecked", "r1c4", "r1c5"], ["roll", "CCCCCC"]):
        assert runner.invoke(main, ["play", step[0], game, *step[1:]]).exit_code == 0
    session = Session(game, "learned", 3)
    assert session.handle("stop").startswith("Ben stops with CCCCCC")
    advice = step_advice(session.shown(read_kept_game(game)), "learned")
    assert advice is not None and advice.failed
    out = session.handle("fail best")
    assert f"gave up shelf {advice.failed[0].shelf + 1} (failed result):" in out


def test_piped_lines_use_the_plain_reader(tmp_path: Path):
    """Standard input not a terminal (a pipe): the plain line reader, prompt_toolkit never
    imported; the forms of the prompt work the same."""
    import subprocess
    import sys

    from conftest import ROOT

    game = str(tmp_path / "g.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    script = ("import sys\nfrom shelfie_solver.cli import main\n"
              "try:\n    main(['play', sys.argv[1], '--objective', 'strategic'])\nexcept SystemExit:\n    pass\n"
              "print('prompt_toolkit' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script, game], input="CCBBPG\nkeep CCBB\nCCBBCP\nstop\nAAAAAA\nquit\n",
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    out = done.stdout
    assert "Ann kept BBCC and re-rolled 2 dice: PBBCCC (1 re-roll left)." in out
    assert "Ann PBBCCC/stop> Error: Ann stopped with" in out
    assert out.rstrip().splitlines()[-1] == "False"
    assert "Traceback" not in done.stderr


def test_the_reroll_step_reads_the_dice_as_the_prompt_does(tmp_path: Path):
    """``play reroll GAME NEW`` without --keep: NEW read against the dice showing; the one
    reading is recorded, several are refused with the step's form and the file unchanged."""
    from conftest import assert_one_line_error

    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCBBPG"]).exit_code == 0
    before = Path(game).read_bytes()
    assert_one_line_error(runner.invoke(main, ["play", "reroll", game, "AAABCJ"]), "(4 readings)",
                          f"play reroll {game} AAAJ --keep BC")
    assert Path(game).read_bytes() == before
    done = runner.invoke(main, ["play", "reroll", game, "AAAJJJ", "--objective", "strategic"])
    assert done.exit_code == 0 and "Ann re-rolled all 6 dice (D7)." in done.stdout
    done = runner.invoke(main, ["play", "reroll", game, "AJ", "--keep", "AAJJ", "--objective", "strategic"])
    assert done.exit_code == 0 and "Ann kept AAJJ and re-rolled 2 dice (D7)." in done.stdout
    assert kept(Session(game)) == [(counts(""), counts("AAAJJJ")), (counts("AAJJ"), counts("AAAJJJ"))]


def test_six_dice_that_several_holds_explain_are_read_with_the_advised_hold(session: Session):
    """docs/play.md "After a re-roll": a player who followed the advice types the six dice now
    showing without 'keep'; when the advised hold is one of several consistent readings (D7) the
    line is read with it, and the session says so (undo takes it back)."""
    from shelfie_solver.dice.play.report import step_advice

    table = read_kept_game(session.path)
    advice = step_advice(table, "strategic")
    assert advice is not None and advice.holds
    keep = advice.holds[0].keep
    assert 0 < sum(keep) < 6, "the test needs an advised hold of some dice but not all"
    face = next(i for i, k in enumerate(keep) if k)  # the new dice: a face the hold has, so it is ambiguous
    after = tuple(k + (6 - sum(keep) if i == face else 0) for i, k in enumerate(keep))
    typed = dice_codes(after, DEFAULT_RULES)
    assert len(readings(table.dice, after, DEFAULT_RULES)) > 1  # refused without the advice
    out = session.handle(typed)
    assert out.startswith(f"Read with the advised hold {dice_codes(keep, DEFAULT_RULES)} "), out
    assert kept(session) == [(keep, after)]
    rolled = dice_codes(tuple(a - k for a, k in zip(after, keep)), DEFAULT_RULES)
    assert session.handle("undo").startswith(
        f"Undone: Ann's re-roll (kept {dice_codes(keep, DEFAULT_RULES)}, rolled {rolled}).")
    assert kept(session) == []


def test_six_dice_the_advised_hold_does_not_explain_are_still_refused(session: Session):
    """The advice settles only a choice among consistent readings (D7): after PGBBCC the six
    dice BBAAAA may have kept nothing, B or BB (3 readings). Unless the advised hold is one of
    those, the line is refused as before and changes nothing."""
    from shelfie_solver.dice.play.report import step_advice

    table = read_kept_game(session.path)
    advice = step_advice(table, "strategic")
    assert advice is not None
    keep = advice.holds[0].keep
    before = Path(session.path).read_bytes()
    out = session.handle("BBAAAA")
    if keep not in (counts(""), counts("B"), counts("BB")):
        assert out.startswith("Error: BBAAAA read as the 6 dice now showing") and "(3 readings)" in out, out
        assert Path(session.path).read_bytes() == before
    else:
        assert out.startswith("Read with the advised hold"), out


def test_play_reroll_refusal_suggests_the_advised_hold_when_it_fits(tmp_path: Path):
    """docs/play.md "After a re-roll": `play reroll GAME NEW` never guesses, but when several
    holds explain NEW (D7) and the advised hold is one of them, the refusal gives the command
    for the advised hold; the file is unchanged."""
    from click.testing import CliRunner

    from conftest import assert_one_line_error
    from shelfie_solver.cli import main
    from shelfie_solver.dice.play.report import step_advice

    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCBBPG"]).exit_code == 0
    table = read_kept_game(game)
    advice = step_advice(table, "strategic")
    assert advice is not None and advice.holds
    keep = advice.holds[0].keep
    assert 0 < sum(keep) < 6, "the test needs an advised hold of some dice but not all"
    face = next(i for i, k in enumerate(keep) if k)  # new dice of a face the hold has: ambiguous
    after = tuple(k + (6 - sum(keep) if i == face else 0) for i, k in enumerate(keep))
    assert len(readings(table.dice, after, DEFAULT_RULES)) > 1
    before = Path(game).read_bytes()
    new = tuple(a - k for a, k in zip(after, keep))
    codes = dice_codes(keep, DEFAULT_RULES)
    assert_one_line_error(runner.invoke(main, ["play", "reroll", game, dice_codes(after, DEFAULT_RULES),
                                               "--objective", "strategic"]),
                          f"if you kept the advised {codes}: give the kept dice: play reroll {game} "
                          f"{dice_codes(new, DEFAULT_RULES)} --keep {codes}")
    assert Path(game).read_bytes() == before


def _readings_of_the_same_dice(dice: str) -> int:
    """The holds the six dice typed again after a re-roll of the same six fit (D7): every hold but
    all of them (that is stopping), each followed by the rest coming up as before: the product
    of (count + 1) over the faces, less one."""
    total = 1
    for face in set(dice):
        total *= dice.count(face) + 1
    return total - 1


def test_the_same_dice_typed_again_name_the_stop_not_a_re_roll_of_all(tmp_path: Path):
    """``play reroll GAME DICE`` with DICE the dice showing: the likelier meaning is that no die
    was re-rolled, which is stopping (D7: holding all six dice is the same as stopping), so the
    refusal names ``play stop GAME`` first; with the advice to stop (no re-roll reading fits it)
    the re-roll is named in its form (KEPT, NEW), not as ``--keep -`` (every die re-rolled and
    coming up the same, what the hint used to suggest). Each command named is one that runs."""
    from conftest import assert_one_line_error
    from shelfie_solver.dice.play.report import step_advice

    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCCCJA"]).exit_code == 0
    advice = step_advice(read_kept_game(game), "strategic")
    assert advice is not None and advice.holds[0].keep == counts("CCCCJA"), "the test needs the advice to stop"
    before = Path(game).read_bytes()
    line = assert_one_line_error(
        runner.invoke(main, ["play", "reroll", game, "CCCCJA", "--objective", "strategic"]),
        f"({_readings_of_the_same_dice('ACCCCJ')} readings)", f"keeping every die is stopping (D7): play stop {game}",
        f"give the kept dice: play reroll {game} NEW --keep KEPT")
    assert "--keep -" not in line and "type 'stop'" not in line
    assert Path(game).read_bytes() == before
    line = assert_one_line_error(runner.invoke(main, ["play", "reroll", game, "--keep", "CCCCJA", "J"]),
                                 f"keeping every die is stopping (D7): play stop {game}")
    assert "type 'stop'" not in line  # the prompt's word, not a step
    assert Path(game).read_bytes() == before
    done = runner.invoke(main, ["play", "stop", game, "--objective", "strategic"])
    assert done.exit_code == 0 and done.stdout.startswith("Ann stops with ACCCCJ (D7)")


def test_the_same_dice_typed_again_with_an_advised_hold_name_it_and_the_stop(tmp_path: Path):
    """The same dice typed again when the advice is to keep some: the refusal names the stop
    (D7) and the re-roll keeping the advised dice, whose command records that hold."""
    from conftest import assert_one_line_error
    from shelfie_solver.dice.play.report import step_advice

    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCBBPG"]).exit_code == 0
    advice = step_advice(read_kept_game(game), "strategic")
    assert advice is not None
    keep = advice.holds[0].keep
    assert 0 < sum(keep) < 6, "the test needs an advised hold of some dice but not all"
    codes = dice_codes(keep, DEFAULT_RULES)
    new = dice_codes(tuple(d - k for d, k in zip(counts("CCBBPG"), keep)), DEFAULT_RULES)
    line = assert_one_line_error(
        runner.invoke(main, ["play", "reroll", game, "CCBBPG", "--objective", "strategic"]),
        f"({_readings_of_the_same_dice('CCBBPG')} readings)", f"play stop {game}",
        f"if you kept the advised {codes} and the dice came up the same: give the kept dice: "
        f"play reroll {game} {new} --keep {codes}")
    assert "--keep -" not in line
    done = runner.invoke(main, ["play", "reroll", game, new, "--keep", codes, "--objective", "strategic"])
    assert done.exit_code == 0, done.output
    assert kept(Session(game)) == [(keep, counts("CCBBPG"))]


@pytest.mark.parametrize("form, stop, again", [
    (PROMPT, "type 'stop'", "type 'keep - new CCCCCC'"),
    (STEP, "play stop GAME", "play reroll GAME CCCCCC --keep -"),
])
def test_an_advised_re_roll_of_every_die_is_named_so(form, stop, again):
    """The advice to re-roll every die (the hold of nothing) is worded as such in a refusal,
    not as keeping 'nothing'; six cats typed again: the stop first (D7), then that re-roll."""
    rules = DEFAULT_RULES
    with pytest.raises(ReadingError) as error:
        read_reroll(counts("CCCCCC"), counts("CCCCCC"), rules, None, "CCCCCC", form, counts(""))
    text = str(error.value)
    assert "(6 readings)" in text and stop in text and again in text, text
    assert "if you re-rolled every die as advised and the dice came up the same" in text
    assert "advised nothing" not in text
    with pytest.raises(ReadingError) as error:  # C may have stayed: 2 readings, the advised one named
        read_reroll(counts("CCCCCC"), counts("CPPBBA"), rules, None, "CPPBBA", form, counts(""))
    assert "(2 readings); if you re-rolled every die as advised:" in str(error.value)


def test_a_prompt_line_of_the_same_dice_with_the_advice_to_stop_names_stop(tmp_path: Path):
    """At the prompt the advised hold settles a tie; the advice to stop is no re-roll reading
    (D7), so the same dice typed again are refused naming 'stop', the file unchanged."""
    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCCCJA"]).exit_code == 0
    before = Path(game).read_bytes()
    session = Session(game, "strategic", 3)
    out = session.handle("ACCCCJ")
    assert out.startswith("Error: ACCCCJ are the dice that showed before the re-roll (ACCCCJ)"), out
    assert "keeping every die is stopping (D7): type 'stop' or mark items" in out
    assert "type 'keep KEPT new NEW'" in out
    assert Path(game).read_bytes() == before
    assert session.handle("stop").startswith("Ann stops with ACCCCJ")


def test_a_prompt_line_of_the_same_dice_with_an_advised_hold_is_refused(tmp_path: Path):
    """At the prompt the advised hold settles a tie between readings, but not for the very dice
    that showed before the re-roll: those most likely mean no die was re-rolled (D7: that is
    stopping), so they are refused naming 'stop' and the advised hold's re-roll, the file
    unchanged, no re-roll used up (the prompt had read them as the advised hold kept)."""
    from shelfie_solver.dice.play.report import step_advice

    game = str(tmp_path / "g.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    assert runner.invoke(main, ["play", "roll", game, "CCBBPG"]).exit_code == 0
    advice = step_advice(read_kept_game(game), "strategic")
    assert advice is not None and 0 < sum(advice.holds[0].keep) < 6, "the test needs an advised hold of some dice"
    codes = dice_codes(advice.holds[0].keep, DEFAULT_RULES)
    before = Path(game).read_bytes()
    session = Session(game, "strategic", 3)
    out = session.handle("GPBBCC")
    assert out.startswith("Error: GPBBCC are the dice that showed before the re-roll"), out
    assert "type 'stop' or mark items" in out and f"if you kept the advised {codes}" in out
    assert Path(game).read_bytes() == before
    new = "PPGAJJ"[:6 - sum(advice.holds[0].keep)]  # a genuine re-roll still reads with the advised hold
    assert f"kept {codes} and re-rolled" in session.handle(new)


def test_the_session_says_a_failed_result_told_without_dice_is_unchecked(tmp_path: Path):
    """D13, D14: 'fail 2' at the session's prompt before the turn's roll is a failed result told
    without dice, said as a told marking is ('told, unchecked')."""
    game = str(tmp_path / "g.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben", "--first", "Ann"]).exit_code == 0
    out = Session(game, "learned", 3).handle("fail 2")
    assert "Ann gave up shelf 2 (failed result, told, unchecked):" in out


def test_new_dice_fewer_than_six_with_no_advised_reading_name_kept_not_a_guess():
    """A new user typed CCC after PPGBBA with PP advised: ten holds of three dice fit and none is
    advised, so the refusal gives the form with KEPT to fill in, never one of the ten (BBA was
    named, and copying it records a hold the player may not have made; reading.read_reroll's
    rule)."""
    rules = DEFAULT_RULES
    with pytest.raises(ReadingError) as error:
        read_reroll(counts("PPGBBA"), counts("CCC"), rules, None, "CCC", STEP, counts("PP"))
    text = str(error.value)
    assert "(10 readings)" in text and "play reroll GAME CCC --keep KEPT" in text, text
    assert "advised" not in text
