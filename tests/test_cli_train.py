"""``shelfie-solve train`` through click's CliRunner: reproducibility from a seed whatever
--jobs, checkpoints, and every bad-input path (exit 2, one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.learned.model_file import load_model

from conftest import assert_one_line_error

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args: str):
    return CliRunner().invoke(main, ["train", *args])


def test_same_parameters_with_one_or_two_jobs(tmp_path):
    # 12 solitaire games per iteration = 2 batches, so --jobs 2 really splits the work.
    args = ["--seed", "5", "--games", "12", "--iterations", "2", "--players", "1"]
    one = run(*args, "--jobs", "1", "--output", str(tmp_path / "one.json"))
    two = run(*args, "--jobs", "2", "--output", str(tmp_path / "two.json"))
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert (tmp_path / "one.json").read_text() == (tmp_path / "two.json").read_text()
    assert one.stdout.replace("one.json", "") == two.stdout.replace("two.json", "")
    assert "iteration 2, 1 player, phase 3" in one.stdout
    model = load_model(tmp_path / "one.json")
    assert set(model.weights) == {1} and model.info["trained"]["seed"] == 5
    checkpoint = json.loads((tmp_path / "one.json.checkpoint").read_text())
    assert len(checkpoint["iterations"]) == 2
    # a rerun resumes from the checkpoint (nothing left to play) and writes the same file
    again = run(*args, "--jobs", "1", "--output", str(tmp_path / "one.json"))
    assert again.exit_code == 0 and (tmp_path / "one.json").read_text() == (tmp_path / "two.json").read_text()


@pytest.mark.parametrize("args, fragment", [
    ([], "--seed"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "1", "--games", "0"], "--games"),
    (["--seed", "1", "--iterations", "0"], "--iterations"),
    (["--seed", "1", "--players", "5"], "--players"),
    (["--seed", "1", "--players", "1,,2"], "--players"),
    (["--seed", "1", "--players", "two"], "--players"),
    (["--seed", "1", "--jobs", "0"], "--jobs"),
    (["--seed", "1", "--output", ""], "--output"),
    (["--seed", "1", "--players", "2", "--solitaire-boards", "2"], "expected 1 among --players"),
    (["--seed", "1", "--players", "1", "--solitaire-hard", "3"], "expected --solitaire-boards N beside it"),
    (["--seed", "1", "--players", "1", "--solitaire-boards", "2", "--solitaire-hard", "-1"], "--solitaire-hard"),
    (["--seed", "1", "--players", "1", "--solitaire-float"], "--solitaire-boards"),
])
def test_bad_input(args, fragment, tmp_path):
    assert_one_line_error(run(*args), fragment)


def test_unwritable_output_and_bad_checkpoint(tmp_path):
    assert_one_line_error(run("--seed", "1", "--output", str(tmp_path)), "--output")
    assert_one_line_error(run("--seed", "1", "--output", str(tmp_path / "no" / "x.json")), "--output")
    bad = tmp_path / "bad.checkpoint"
    bad.write_text("{not json")
    assert_one_line_error(run("--seed", "1", "--games", "1", "--iterations", "1", "--players", "1",
                              "--output", str(tmp_path / "x.json"), "--checkpoint", str(bad)), "checkpoint")


def test_a_checkpoint_is_resumed_only_for_the_same_board_contents(tmp_path):
    """A board file edited under the same name makes a new run, not the old parameters; a
    checkpoint without weights for a number of players asked for, or nested too deeply, is
    refused in one line."""
    board = tmp_path / "board.toml"
    text = (EXAMPLES / "boards" / "small.toml").read_text()
    board.write_text(text)
    args = ["--seed", "4", "--games", "2", "--iterations", "1", "--players", "1", "--board", str(board),
            "--output", str(tmp_path / "p.json")]
    assert run(*args).exit_code == 0
    first = (tmp_path / "p.json").read_text()
    edited = text.replace("values = [2, 1, 3]", "values = [9, 1, 3]")
    assert edited != text
    board.write_text(edited)
    assert run(*args).exit_code == 0, "the edited board must still load"
    assert (tmp_path / "p.json").read_text() != first  # fitted again on the new values
    checkpoint = tmp_path / "p.json.checkpoint"
    data = json.loads(checkpoint.read_text())
    data["iterations"][0]["weights"] = {"2": data["iterations"][0]["weights"]["1"]}
    checkpoint.write_text(json.dumps(data))
    assert_one_line_error(run(*args), "checkpoint", "no weights for [1] players")
    checkpoint.write_text("[" * 100000 + "]" * 100000)
    assert_one_line_error(run(*args), "checkpoint", "nested more than 32 deep")


def test_progress_bar_on_a_terminal(tmp_path):
    # A real pseudo-terminal: the progress bar is drawn on stderr, then the fit lines.
    pexpect = pytest.importorskip("pexpect")
    import os
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = pexpect.spawn(sys.executable, ["-c", "from shelfie_solver.cli import main; main()", "train", "--seed", "1", "--games", "2",
                                           "--iterations", "1", "--players", "1", "--jobs", "1",
                                           "--output", str(tmp_path / "p.json")],
                          env=env, encoding="utf-8", timeout=60)
    child.expect("Self-play")
    child.expect("iteration 1, 1 player, phase 3")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and (tmp_path / "p.json").exists()


@pytest.fixture(scope="module")
def tiny_tables(tmp_path_factory):
    """Value tables of a 2 x 2 board (solve-game --save) under two scoring thresholds (D19)."""
    from shelfie_solver.dice.board import board_from_dict
    from shelfie_solver.dice.wholegame.solver import solve_game
    from shelfie_solver.dice.rules import rules_from_dict
    from shelfie_solver.dice.wholegame.values import save_table

    folder = tmp_path_factory.mktemp("tables")
    paths = []
    for threshold in (2, 3):
        rules = rules_from_dict({"name": "tiny", "dice": 3, "rerolls": 1, "combinations_per_turn": 3,
                                 "scoring_threshold": threshold, "end_trigger_shelves": 2,
                                 "faces": [{"name": "plant", "code": "P"}, {"name": "book", "code": "B"}]})
        board = board_from_dict({"name": "tiny", "columns": [1, 2],
                                 "shelves": [{"faces": ["plant"], "values": [1, 3]},
                                             {"faces": ["book"], "values": [2, 4]}]}, rules)
        path = folder / f"tiny-{threshold}.json"
        save_table(str(path), solve_game(board, rules))
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("option", [["--seed", "3"], ["--games", "5"], ["--iterations", "1"], ["--players", "1"],
                                    ["--jobs", "1"], ["--scheduler", "tcp://nowhere:1"], ["--checkpoint", "ck"],
                                    ["--board", str(EXAMPLES / "boards" / "small.toml")],
                                    ["--rules", str(EXAMPLES / "rules" / "five-dice.toml")]])
def test_table_refuses_self_play_options(option, tiny_tables, tmp_path):
    # self-play settings would be ignored silently with --table: refused, nothing written
    out = tmp_path / "fit.json"
    assert_one_line_error(run("--table", tiny_tables[0], *option, "--output", str(out)), option[0], "--table")
    assert not out.exists()


def test_table_output_is_not_the_table(tiny_tables, tmp_path):
    # --output naming the table read (directly or through another spelling) would destroy it
    table = tmp_path / "table.json"
    table.write_bytes(open(tiny_tables[0], "rb").read())
    before = table.read_bytes()
    for name in (str(table), str(tmp_path / "." / "table.json")):
        assert_one_line_error(run("--table", str(table), "--output", name), "--output", "also read")
    assert table.read_bytes() == before


def test_tables_of_different_thresholds(tiny_tables, tmp_path):
    # one weight per feature cannot fit scores of two D19 thresholds: refused, naming both
    out = tmp_path / "fit.json"
    assert_one_line_error(run("--table", tiny_tables[0], "--table", tiny_tables[1], "--output", str(out)),
                          "thresholds (2, 3")
    assert not out.exists()


def test_self_play_output_is_not_an_input(tmp_path):
    """--output the same file as --checkpoint (the parameters would replace the checkpoint) or the
    --board file, and --checkpoint naming the --board file: refused, nothing written."""
    board = tmp_path / "board.toml"
    board.write_bytes((EXAMPLES / "boards" / "small.toml").read_bytes())
    before = board.read_bytes()
    base = ["--seed", "1", "--games", "1", "--iterations", "1", "--players", "1", "--board", str(board)]
    same = str(tmp_path / "same.json")
    assert_one_line_error(run(*base, "--output", same, "--checkpoint", same), "--output", "also read")
    assert_one_line_error(run(*base, "--output", str(board)), "--output", "also read")
    assert_one_line_error(run(*base, "--output", same, "--checkpoint", str(board)), "--checkpoint", "also read")
    assert board.read_bytes() == before and not (tmp_path / "same.json").exists()


@pytest.mark.parametrize("value", ["-5/1", "1000/1"])
def test_table_with_a_value_no_game_can_score(value, tiny_tables, tmp_path):
    """Every value of a table is a final score to come, 0 to a full sheet's points (D19: the tiny
    board's full sheet is worth 1+3 + 2+4 + 3+7 = 20); a hand-edited -5 was fitted silently."""
    data = json.loads(open(tiny_tables[0]).read())
    first = next(iter(data["values"]))
    data["values"][first] = value
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "fit.json"
    assert_one_line_error(run("--table", str(path), "--output", str(out)), "outside 0 to 20", "D19")
    assert not out.exists()


def test_table_given_twice(tiny_tables, tmp_path):
    # pooled twice, one table would weigh double against the others: refused, whatever the spelling
    same = str(Path(tiny_tables[0]).parent / "." / Path(tiny_tables[0]).name)
    out = tmp_path / "fit.json"
    assert_one_line_error(run("--table", tiny_tables[0], "--table", same, "--output", str(out)), "--table", "more than once")
    assert not out.exists()
