"""SIGTERM during a ``play`` step (a real subprocess, as ``kill PID`` would): one line naming what
became of the game file, exit 143 as ``simulate`` (tests/test_interrupt.py), the file byte for
byte as it was (written whole or not at all), no temporary file left. The step is made slow by
an empty table cache on ``small-3x4`` (12 items, over the two-player budget: the first command
counts its two-player states, several CPU seconds, dice/wholegame/exact2_cache.py) and the
signal is sent once the command has used more CPU than start-up takes. Before, the command died
silently (the shell said "Terminated")."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import EXAMPLES

psutil = pytest.importorskip("psutil")

BOARD = str(EXAMPLES / "boards" / "small-3x4.toml")
#: The dice before each step (small-3x4's shelves are game, award and cat: PPPBBB, plants and
#: books, can mark nothing, D8, so a failed result is a legal step after its stop, D13).
BEFORE = {"roll": [], "reroll": [["roll", "CCBJPP"]], "stop": [["roll", "CCBJPP"]], "mark": [["roll", "CCBJPP"]],
          "fail": [["roll", "PPPBBB"], ["stop"]], "undo": [["roll", "CCBJPP"]], "advise": [["roll", "CCBJPP"]],
          "status": [["roll", "CCBJPP"]]}
STEPS = {"roll": ["roll", "GAME", "CCBJPP"], "reroll": ["reroll", "GAME", "--keep", "CC", "PPBJ"],
         "stop": ["stop", "GAME"], "mark": ["mark", "GAME", "--best"], "fail": ["fail", "GAME", "--shelf", "1"],
         "undo": ["undo", "GAME"], "advise": ["advise", "GAME"], "status": ["status", "GAME"]}


def _command(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from shelfie_solver.cli import main; sys.argv[0] = 'shelfie-solve'; "
            "main()", *args]


def _env(cache: Path | str) -> dict[str, str]:
    env = {**os.environ, "SHELFIE_SOLVE_CACHE": str(cache), "OMP_NUM_THREADS": "1"}
    for name in ("SHELFIE_SOLVE_CACHE_MAX", "SHELFIE_SOLVE_EXACT_BUDGET", "SHELFIE_SOLVE_EXACT2_BUDGET"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding small-3x4's two-player count (so the steps before the one tested are quick)."""
    cache = tmp_path_factory.mktemp("warm-cache")
    game = cache.parent / "warm.json"
    for args in (["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann", "--board", BOARD],
                 ["play", "roll", str(game), "CCBJPP"]):
        subprocess.run(_command(*args), env=_env(cache), check=True, capture_output=True, timeout=600)
    return cache


def _game(tmp_path: Path, warm: Path, step: str) -> tuple[Path, bytes]:
    """The game file ready for ``step``, and its bytes as ``play new`` wrote them."""
    game = tmp_path / "game.json"
    cache = tmp_path / "warm"
    shutil.copytree(warm, cache)
    new = b""
    for args in [["new", "--players", "Ann,Ben", "--first", "Ann", "--board", BOARD], *BEFORE[step]]:
        subprocess.run(_command("play", args[0], str(game), *args[1:]), env=_env(cache), check=True,
                       capture_output=True, timeout=600)
        new = new or game.read_bytes()
    return game, new


@pytest.mark.parametrize("step", list(STEPS))
def test_sigterm_names_what_became_of_the_game_file(step, tmp_path, warm):
    """Every step but undo is interrupted before it writes (its advice, computed first, is what
    takes seconds): the file is unchanged. undo writes first and then shows the status (each seat's
    chance: the count), so it is interrupted after the write: the undo is saved, the file is the one
    before the roll, byte for byte."""
    game, new = _game(tmp_path, warm, step)
    before = game.read_bytes()
    empty = tmp_path / "empty-cache"  # the step counts small-3x4's two-player states again: seconds
    args = [str(game) if a == "GAME" else a for a in STEPS[step]]
    process = subprocess.Popen(_command("play", *args), env=_env(empty), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while psutil.Process(process.pid).cpu_times().user < 1.5:  # start-up takes about 0.5 s
            assert process.poll() is None and time.monotonic() < deadline, "the step ended before the signal"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)  # `kill PID`
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143, err  # 128 + 15, as simulate
    kept = f"the undo is saved in {game}" if step == "undo" else f"{game} unchanged"
    assert err.splitlines() == [f"Interrupted by SIGTERM: run stopped, {kept}."]
    assert out == ""
    assert game.read_bytes() == (new if step == "undo" else before)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["game.json"]  # no temporary file


def test_interrupted_after_the_write_says_the_step_is_saved(tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM) once the file holds the step (here right after the game file was
    replaced, before its advice is printed): the line says the step is saved, exit 130 for Ctrl-C,
    and the file holds the roll."""
    from shelfie_solver.cli import play as play_cli
    from shelfie_solver.dice.play.gamefile import read_kept_game

    monkeypatch.setenv("SHELFIE_SOLVE_EXACT_BUDGET", "0")  # no exact solve: nothing else on stderr
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "me", "--board", BOARD]).exit_code == 0
    assert read_kept_game(game).dice is None
    update_file = play_cli.update_file

    def written_then_interrupted(*args, **kwargs):
        update_file(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(play_cli, "update_file", written_then_interrupted)
    result = runner.invoke(main, ["play", "roll", game, "CCBJPP"])
    assert result.exit_code == 130, result.output
    assert result.stdout == ""
    assert result.stderr.splitlines() == [f"Interrupted by Ctrl-C (SIGINT): run stopped, the step is saved in {game}; "
                                          f"'play advise {game}' shows the advice."]
    assert read_kept_game(game).dice is not None  # the roll is in the file


def test_a_second_ctrl_c_while_the_file_is_read_again_does_not_say_unchanged(tmp_path, monkeypatch):
    """Ctrl-C pressed twice: the first once the file holds the roll, the second (a real SIGINT to
    this process) while the command reads the file again to say what became of it. The line must
    still say the step is saved (the file holds the roll); before, the second Ctrl-C cut the reading
    short and the line said the file was unchanged."""
    from shelfie_solver.cli import play as play_cli
    from shelfie_solver.dice.play.gamefile import read_kept_game

    monkeypatch.setenv("SHELFIE_SOLVE_EXACT_BUDGET", "0")  # no exact solve: nothing else on stderr
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "me", "--board", BOARD]).exit_code == 0
    update_file, holds = play_cli.update_file, play_cli._holds

    def written_then_interrupted(*args, **kwargs):
        update_file(*args, **kwargs)
        raise KeyboardInterrupt

    def second_ctrl_c(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # delivered at once unless ignored
        return holds(*args, **kwargs)

    monkeypatch.setattr(play_cli, "update_file", written_then_interrupted)
    monkeypatch.setattr(play_cli, "_holds", second_ctrl_c)
    result = runner.invoke(main, ["play", "roll", game, "CCBJPP"])
    assert read_kept_game(game).dice is not None  # the roll is in the file
    assert result.exit_code == 130, result.output
    assert result.stderr.splitlines() == [f"Interrupted by Ctrl-C (SIGINT): run stopped, the step is saved in {game}; "
                                          f"'play advise {game}' shows the advice."]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


@pytest.mark.parametrize("written", [False, True])
def test_the_session_says_whether_the_interrupted_line_was_recorded(tmp_path, monkeypatch, written):
    """The interactive session (``play GAME``): Ctrl-C while a typed line's action runs says
    whether that action is in the file (it is written whole or not at all); before, it said
    'saved in GAME' either way, and SIGTERM killed the session without a word."""
    from shelfie_solver.cli import play as play_cli
    from shelfie_solver.dice.play.gamefile import read_kept_game

    monkeypatch.setenv("SHELFIE_SOLVE_EXACT_BUDGET", "0")
    game = str(tmp_path / "game.json")
    runner = CliRunner()
    assert runner.invoke(main, ["play", "new", game, "--players", "me", "--board", BOARD]).exit_code == 0
    handle = play_cli.Session.handle

    def interrupted(self, line):
        if written:
            handle(self, line)
        raise KeyboardInterrupt

    monkeypatch.setattr(play_cli.Session, "handle", interrupted)
    result = runner.invoke(main, ["play", game], input="roll CCBJPP\n")
    assert (read_kept_game(game).dice is not None) == written
    said = (f"this line's action is saved in {game}" if written
            else f"this line's action is not recorded; {game} holds every action before it")
    assert f"Interrupted; {said}." in result.output


def test_sigterm_at_the_session_prompt_says_every_action_is_saved(tmp_path):
    """SIGTERM while the session waits for a line: one line, exit 143, the file as it was."""
    game = tmp_path / "game.json"
    subprocess.run(_command("play", "new", str(game), "--players", "me", "--board", BOARD), env=_env(tmp_path / "c"),
                   check=True, capture_output=True, timeout=600)
    before = game.read_bytes()
    env = {**_env(tmp_path / "c"), "SHELFIE_SOLVE_EXACT_BUDGET": "0"}  # no first-use exact solve
    process = subprocess.Popen(_command("play", str(game)), env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # start-up: 0.4 CPU s, or 15 s of waiting where a fast machine reaches its prompt on less
        # (it then waits for a line, using no CPU)
        settled = time.monotonic() + 15
        while psutil.Process(process.pid).cpu_times().user < 0.4 and time.monotonic() < settled:
            assert process.poll() is None
            time.sleep(0.05)
        time.sleep(3.0)  # at the prompt (the first advice takes well under a second)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143, err
    assert err.splitlines() == [f"Interrupted by SIGTERM: run stopped, every action is saved in {game}."]
    assert game.read_bytes() == before
