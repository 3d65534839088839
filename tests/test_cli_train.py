"""``shelfie-solve train`` through click's CliRunner: reproducibility from a seed whatever
--jobs, checkpoints, and every bad-input path (exit 2, one line)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.learned import load_model

from conftest import assert_one_line_error


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
