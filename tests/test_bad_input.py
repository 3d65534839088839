"""Input that costs the parser or the engine, unreadable files, write errors on standard output,
click's own messages (docs/formats.md, "Limits"). Each kind: the literal example reported, plus the
general property (one line, exit 2 or a documented exit code, no traceback; bounded work)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice import workload
from shelfie_solver.dice.allocate import _set_options
from shelfie_solver.dice.board import board_from_dict, item_sets, load_board
from shelfie_solver.cli import main
from shelfie_solver.dice.rolls import DiceSpace
from shelfie_solver.dice.errors import RulesError
from shelfie_solver.dice.game.events import GameError
from shelfie_solver.dice.game.record import load_games
from shelfie_solver.core.inputs import MAX_FILE_BYTES, MAX_KEY_PARTS, MAX_NESTING, check_json_text, check_toml_text
from shelfie_solver.dice.rules import load_rules

from conftest import ROOT, assert_one_line_error, small_rules

RUNNER = CliRunner()


def cli(*args: str):
    return RUNNER.invoke(main, list(args))


# --- TOML that costs the parser ---------------------------------------------------------------


@pytest.mark.parametrize("option", ["--rules", "--board"])
def test_deeply_nested_toml_is_one_line(tmp_path, option):
    """The literal example: `dice = ` + 500 `[` + 500 `]` was a RecursionError."""
    path = tmp_path / "deep.toml"
    path.write_text("dice = " + "[" * 500 + "]" * 500 + "\n")
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", option, str(path)), "nested more than")


def test_long_dotted_key_is_refused_before_the_parser(tmp_path):
    """The literal example: a 200 KB `a.a.a....b = 1` took over 60 s in tomllib. Both the size
    cap and the key-depth bound refuse it; a 30 KB one is refused by the key depth at once."""
    path = tmp_path / "dots.toml"
    path.write_text("a." * 100_000 + "b = 1\n")
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--rules", str(path)), "larger than")
    path.write_text("a." * 15_000 + "b = 1\n")
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--rules", str(path)), "dotted key")


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 3 * MAX_NESTING), st.sampled_from("[{"), st.integers(1, 3 * MAX_KEY_PARTS))
def test_toml_bounds_are_exact(depth, opener, parts):
    """Property: nesting up to MAX_NESTING and keys up to MAX_KEY_PARTS parts pass the scan,
    one more is refused; brackets, dots and quotes inside strings and comments do not count."""
    closer = "]" if opener == "[" else "}"
    nested = "x = " + opener * depth + closer * depth + "\n"
    key = ".".join(["k"] * parts) + " = 1\n"
    noise = 's = "[[[[{{{{a.b.c.d.e.f.g.h.i.j" # ]]]] a.b.c.d.e.f.g.h.i.j.k\nt = \'[[[.\'\n'
    for text, ok in ((nested, depth <= MAX_NESTING), (key, parts <= MAX_KEY_PARTS)):
        if ok:
            check_toml_text(noise + text, RulesError, "t")
        else:
            with pytest.raises(RulesError):
                check_toml_text(noise + text, RulesError, "t")


def test_toml_size_cap_and_bom(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_FILE_BYTES + "\n")
    with pytest.raises(RulesError, match="larger than"):
        load_rules(big)
    bom = tmp_path / "bom.toml"  # team rule: a leading byte-order mark is accepted everywhere
    bom.write_bytes(b"\xef\xbb\xbfrerolls = 1\n")
    assert load_rules(bom).rerolls == 1
    board = tmp_path / "board.toml"
    board.write_bytes(b"\xef\xbb\xbf" + (ROOT / "examples/boards/default.toml").read_bytes())
    assert load_board(board) == load_board(None)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--rules", str(fifo)), "not a regular file")
    with pytest.raises(GameError, match="not a regular file"):
        list(load_games(str(fifo)))


def test_toml_with_bad_utf8_is_one_line(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--rules", str(path)), "not UTF-8")


# --- loading saved games -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("games") / "games.jsonl"
    assert cli("simulate", "--players", "greedy,random", "--games", "2", "--seed", "5", "--jobs", "1",
               "--save", str(path)).exit_code == 0
    return path


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty"),
    (b"\n\n  \n", "empty"),
    (b"[" * 5000 + b"]" * 5000 + b"\n", "nested more than"),
    (b'{"format": "shelfie-solve game 1", "seed": ' + b"5" * 5000 + b"}\n", "digits"),
    (b"\xff\xfe\n", "UTF-8"),
    (b"not json\n", "not valid JSON"),
    (b'{"format": "shelfie-solve game 1"}\n', "missing key"),
])
def test_bad_saved_games_raise_game_error(tmp_path, content, fragment):
    """The literal examples (deep nesting, a 5,000-digit seed, an empty file): one error type."""
    path = tmp_path / "games.jsonl"
    path.write_bytes(content)
    with pytest.raises(GameError, match=fragment):
        list(load_games(str(path)))


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null", "/"])
def test_devices_and_directories_are_not_saved_games(path):
    if not os.path.exists(path):
        pytest.skip(f"no {path}")
    with pytest.raises(GameError, match="not a regular file"):
        list(load_games(path))


def test_saved_games_with_a_bom_and_line_limit(saved, tmp_path):
    games = list(load_games(str(saved)))
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())
    assert list(load_games(str(bom))) == games
    long_line = tmp_path / "long.jsonl"
    long_line.write_bytes(b'{"x": "' + b"a" * (2 << 20) + b'"}\n')
    with pytest.raises(GameError, match="longer than"):
        list(load_games(str(long_line)))


def test_json_scan_skips_strings():
    check_json_text('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"["}', GameError, "t")
    check_json_text('{"seed": "' + "9" * 500 + '"}', GameError, "t")  # digits in a string are text


# --- work estimates before building tables -----------------------------------------------------


@pytest.mark.parametrize("dice, faces, joker", [(1, 1, False), (2, 2, True), (3, 2, True), (4, 3, False), (6, 5, True)])
def test_counts_match_the_tables_built(dice, faces, joker):
    """The closed forms equal the sizes of the tables the engine really builds."""
    rules = small_rules(dice=dice, faces=faces, joker=joker) if (dice, faces) != (6, 5) else load_rules()
    board = load_board(None) if (dice, faces) == (6, 5) else board_from_dict(
        {"columns": [1] * 3, "shelves": [{"faces": [rules.faces[i % faces].code, rules.faces[0].code],
                                          "values": [1, 2, 3]} for i in range(2)]}, rules)
    work = workload.estimate_work(board, rules)
    space = DiceSpace(rules.dice, rules.n_sides)
    assert (work.rolls, work.holds) == (len(space.rolls), len(space.holds))
    assert work.transitions == len(space.transitions[1])
    sets = item_sets(board, rules.combinations_per_turn)
    assert work.item_sets == len(sets.sizes)
    assert work.set_options == len(_set_options(sets.cells, board, rules)[2])


def test_work_bounds_literal_examples(tmp_path):
    """The reported runaways are refused in one line, before any table is built."""
    all_faces = {"columns": [1, 2, 3, 4, 5, 6, 1],
                 "shelves": [{"faces": ["P", "G", "B", "A", "C"], "values": [1] * 7}] * 7}
    rules = load_rules()
    with pytest.raises(workload.WorkError, match="MB"):
        workload.check_work(board_from_dict(all_faces, rules), rules)
    path = tmp_path / "many.toml"
    path.write_text("combinations_per_turn = 1000000000\n")
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--rules", str(path)), "MB")
    path.write_text("dice = 10\n")  # 10 dice: 97 MB peak with the default board; 164 MB with a 7 x 7 one
    board77 = tmp_path / "b77.toml"
    board77.write_text("columns = [1, 2, 3, 4, 5, 6, 1]\n" + "".join(
        f'[[shelves]]\nfaces = ["{face}"]\nvalues = [1, 2, 3, 4, 5, 6, 7]\n' for face in "PGBACPG"))
    assert_one_line_error(cli("advise", "--dice", "CCBJPPGGAA", "--rules", str(path), "--board", str(board77)),
                          "MB")
    path.write_text("dice = 12\ncombinations_per_turn = 12\nfaces = [{name = \"cat\", code = \"C\"}]\n")
    board = tmp_path / "cats.toml"
    board.write_text('columns = [1, 1, 1, 1, 1, 1, 1]\n' + '[[shelves]]\nfaces = ["cat"]\nvalues = [1, 1, 1, 1, 1, 1, 1]\n' * 7)
    assert_one_line_error(cli("advise", "--dice", "C" * 12, "--rules", str(path), "--board", str(board)), "MB")
    path.write_text("dice = 9\n")  # advise: 88 MB estimated, accepted; its cheat sheet keeps too much
    assert_one_line_error(cli("cheatsheet", "--rules", str(path), "--board", str(board77), "--output",
                              str(tmp_path / "out")), "cheat sheet", "MB of tables")
    assert not (tmp_path / "out").exists()
    with pytest.raises(workload.WorkError, match="billion steps"):  # 10 dice: about 0.03 billion a solve
        workload.check_work(load_board(None), dataclasses.replace(load_rules(), dice=10), solves=1000)


def test_every_accepted_default_variant_is_within_the_bound():
    """The shipped examples and the default setup stay well within the bounds."""
    for rules_name, board_name in [(None, None), ("five-dice", "five-dice"), ("classic-five-dice", "five-of-a-kind")]:
        rules = load_rules(None if rules_name is None else ROOT / f"examples/rules/{rules_name}.toml")
        board = load_board(None if board_name is None else ROOT / f"examples/boards/{board_name}.toml", rules)
        work = workload.check_work(board, rules, solves=80)
        assert work.peak_bytes < workload.MAX_BYTES / 2


def test_estimate_grows_with_every_count():
    """Property of the model: more dice, more combinations or more faces per item never lower
    the estimate."""
    base = load_rules()
    board = load_board(None)
    previous = 0
    for k in range(1, 7):
        rules = dataclasses.replace(base, combinations_per_turn=k)
        work = workload.estimate_work(board, rules)
        assert work.peak_bytes >= previous and work.set_options == sum(math.comb(25, j) for j in range(1, k + 1))
        previous = work.peak_bytes


def test_a_runaway_board_from_a_saved_game_is_refused_in_the_engine():
    """feasibility_arrays checks too, so library callers (simulate workers, load_games) are
    covered, not only the CLI."""
    from shelfie_solver.dice.allocate import feasibility_arrays as feasibility_table

    rules = load_rules()
    board = board_from_dict({"columns": [1, 2, 3, 4, 5, 6, 1],
                             "shelves": [{"faces": ["P", "G", "B", "A", "C"], "values": [1] * 7}] * 7}, rules)
    with pytest.raises(workload.WorkError):
        feasibility_table(board, rules)


# --- simulate counts, click's messages ---------------------------------------------------------


def test_huge_games_and_seeds_are_one_line():
    assert_one_line_error(cli("simulate", "--players", "greedy", "--games", "1" + "0" * 30), "--games")
    line = assert_one_line_error(cli("simulate", "--players", "greedy", "--seed", "5" * 5000), "--seed")
    assert len(line) < 250


@pytest.mark.parametrize("args", [
    ["advise", "--dice", "C" * 5000],
    ["advise", "--objective", "x" * 5000],
    ["advise", "--dice", "CCBJPP", "--format", "y" * 5000],
    ["advise", "--" + "z" * 5000],
    ["odds", "--target", "3" * 5000 + "C"],
    [("q" * 5000)],
])
def test_long_values_are_shortened_in_every_message(args):
    """errors.shorten's rule for click's own messages too: no 5,000-character echo."""
    result = cli(*args)
    assert result.exit_code == 2
    assert len(result.stderr) < 600 and len(result.stderr.splitlines()) == 1, result.stderr[:500]


# --- standard output, interruption -------------------------------------------------------------


CLI = [sys.executable, "-c", "from shelfie_solver.cli import main; main()"]


def _run(args: list[str], **kwargs):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*CLI, *args], env=env, stderr=subprocess.PIPE, text=True, timeout=120, **kwargs)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["advise", "--dice", "CCBJPP"], ["--help"], ["odds", "--target", "5*", "--format", "json"]])
def test_a_full_disk_on_stdout_is_one_line(args):
    """The literal example: `advise --dice CCBJPP > /dev/full` was an OSError traceback."""
    with open("/dev/full", "w") as full:
        result = _run(args, stdout=full)
    assert result.returncode == 1
    assert result.stderr.splitlines() == ["Error: cannot write to standard output: No space left on device"]


def test_a_closed_pipe_is_quiet():
    """`simulate ... | head -1`: the reader goes away; no message, no traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen([*CLI, "advise", "--dice", "CCBJPP",
                               "--format", "csv"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert writer.stdout is not None and writer.stderr is not None
    writer.stdout.close()  # closed before anything is read
    error = writer.stderr.read().decode()
    assert writer.wait(timeout=120) == 1
    assert error == ""


def test_aborted_is_one_line(monkeypatch):
    """Ctrl-C (KeyboardInterrupt) prints `Aborted.` alone, without click's empty line first."""
    from shelfie_solver.cli import advise as command

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "advise", interrupted)
    result = cli("advise", "--dice", "CCBJPP")
    assert result.exit_code == 130 and result.stderr == "Aborted.\n"


def test_combinations_of_nasty_inputs_never_trace(tmp_path):
    """A small sweep of the kinds above across commands: exit 2, one line, every time."""
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "{a = " * 40 + "1" + "}" * 40 + "\n")
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    for command, option in itertools.product(["advise --dice CCBJPP", "odds --target 5*", "simulate --players greedy"],
                                             ["--rules", "--board"]):
        for path in (deep, "/dev/zero", str(tmp_path)):
            result = cli(*command.split(), option, str(path))
            assert_one_line_error(result)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_cheatsheet_refuses_a_planted_link_before_the_work(tmp_path, monkeypatch):
    """The literal example: DIR/cheatsheet.md a link to a file elsewhere was overwritten."""
    from shelfie_solver.cli import cheatsheet as command

    def no_work(*args, **kwargs):
        raise AssertionError("the sheet was computed")

    monkeypatch.setattr(command, "generate", no_work)
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("precious")
    (out / "cheatsheet.md").symlink_to(elsewhere)
    assert_one_line_error(cli("cheatsheet", "--output", str(out)), "symbolic link", "outside")
    (out / "cheatsheet.md").unlink()
    (out / "item-odds.png").symlink_to(tmp_path / "nowhere" / "x.png")
    assert_one_line_error(cli("cheatsheet", "--output", str(out)), "symbolic link", "missing")
    assert elsewhere.read_text() == "precious" and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("shelf, fragments", [
    # one face is still a list (docs/formats.md): the string is named with the form to type
    ('faces = "cat"\nvalues = [1, 2, 3, 4, 5]', ['shelf 1', 'faces must be a list', 'faces = ["cat"]',
                                                 '(not faces = "cat")']),
    # a key a shelf does not have is named, with the keys it has
    ('faces = ["cat"]\nvalues = [1, 2, 3, 4, 5]\ncolour = "red"', ['shelf 1', "unknown key 'colour'",
                                                                   'faces = [...], values = [...]']),
])
def test_a_board_shelf_of_the_wrong_form_is_one_line(tmp_path, shelf, fragments):
    path = tmp_path / "board.toml"
    path.write_text(f"columns = [1, 2, 3, 4, 5]\n[[shelves]]\n{shelf}\n")
    assert_one_line_error(cli("advise", "--dice", "CCBJPP", "--board", str(path)), *fragments)
