"""The win model fitted on win's own play (``train --win-model --self-play win [--play-model FILE]``,
learned/win_fit.py; docs/win-chance.md "Fitted on its own play"): the positions depend on the
seed and the model that plays only, the CLI writes what the library functions fit, and bad
combinations are one-line errors (exit 2)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error

from shelfie_solver.cli import main
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.learned.win_fit import (
    EVEN,
    self_play_positions,
    self_play_seat,
)
from shelfie_solver.dice.learned.win_model import (
    DEFAULT_WIN_PATH,
    default_win_model,
    load_win_model,
    model_text,
)
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import WinStrategy, strategy_named


@pytest.fixture(scope="module")
def board():
    return load_board(None, DEFAULT_RULES)


def same_samples(a, b) -> bool:
    """Two lists of :data:`win_model.Sample` hold the same positions, features and outcomes."""
    return len(a) == len(b) and all(
        x[0] == y[0] and x[1] == y[1] and np.array_equal(x[2], y[2]) and np.array_equal(x[3], y[3])
        for x, y in zip(a, b))


def test_win_self_play_depends_on_the_seed_not_on_jobs(board):
    one = self_play_positions(board, DEFAULT_RULES, 3, 2, players=(2,), jobs=1, strategy="win")
    two = self_play_positions(board, DEFAULT_RULES, 3, 2, players=(2,), jobs=2, strategy="win")
    other = self_play_positions(board, DEFAULT_RULES, 4, 2, players=(2,), jobs=1, strategy="win")
    assert one and same_samples(one, two)
    assert not same_samples(one, other)


def test_the_given_model_plays(board):
    """A copy of the shipped model plays the games plain ``win`` plays; the even model (all
    coefficients 0) other games."""
    shipped = self_play_positions(board, DEFAULT_RULES, 3, 2, players=(2,), strategy="win")
    copy = load_win_model(DEFAULT_WIN_PATH)
    assert copy is not default_win_model()
    assert same_samples(shipped, self_play_positions(board, DEFAULT_RULES, 3, 2, players=(2,), strategy="win",
                                                     win_model=copy))
    assert not same_samples(shipped, self_play_positions(board, DEFAULT_RULES, 3, 2, players=(2,),
                                                         strategy="win", win_model=EVEN))


def test_self_play_seat():
    assert self_play_seat("win") is strategy_named("win")
    seat = self_play_seat("win", EVEN)
    assert isinstance(seat, WinStrategy) and seat.win_model is EVEN
    with pytest.raises(ValueError, match="win only"):
        self_play_seat("learned", EVEN)


def test_train_on_win_self_play_reproduces_its_functions(board, tmp_path):
    """The file ``train`` writes is the fit of :func:`self_play_positions` of ``win`` by the
    given model, whatever --jobs is; the file records who played."""
    played = tmp_path / "even.json"
    played.write_text(model_text(EVEN))
    out = []
    for jobs in ("1", "2"):
        path = tmp_path / f"w{jobs}.json"
        result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", str(played),
                                           "--seed", "5", "--games", "1", "--jobs", jobs, "--output", str(path)])
        assert result.exit_code == 0, result.output
        assert "self-play games of win (by even.json)" in result.output
        out.append(path.read_text())
    assert out[0] == out[1]
    from shelfie_solver.dice.learned.win_fit import OWN_PLAY_RIDGE
    from shelfie_solver.dice.learned.win_model import fit

    samples = self_play_positions(board, DEFAULT_RULES, 5, 1, strategy="win", win_model=EVEN)
    expected = fit(samples, OWN_PLAY_RIDGE)
    model = load_win_model(tmp_path / "w1.json")
    assert all(np.array_equal(model.coefficients[n], expected.coefficients[n]) for n in (2, 3, 4))
    info = json.loads(out[0])
    assert info["strategy"] == "win" and info["played_by"] == "even.json" and info["positions"] == len(samples)
    assert info["ridge"] == OWN_PLAY_RIDGE
    assert info["played_by_info"] == {}  # EVEN records nothing; the shipped model its own settings


@pytest.mark.parametrize("args, fragments", [
    (["--self-play", "win"], ("--self-play", "needs --win-model")),
    (["--play-model", "x.json"], ("--play-model", "needs --win-model")),
    (["--win-model", "--play-model", "x.json"], ("--play-model", "needs --self-play win")),
    (["--win-model", "--self-play", "learned", "--play-model", "x.json"], ("needs --self-play win",)),
    (["--win-model", "--self-play", "winner"], ("--self-play", "winner")),
    (["--table", "t.json", "--self-play", "win"], ("--self-play", "needs --win-model")),
])
def test_bad_combinations_are_one_line_errors(args, fragments, tmp_path):
    result = CliRunner().invoke(main, ["train", "--seed", "1", "--games", "1", *args,
                                       "--output", str(tmp_path / "w.json")])
    assert_one_line_error(result, *fragments)
    assert not (tmp_path / "w.json").exists()


@pytest.mark.parametrize("extra", [["--win-model"], ["--win-model", "--self-play", "win"],
                                   ["--win-model", "--self-play", "win", "--play-model", "x.json"]])
def test_win_model_with_table_is_refused(extra, tmp_path):
    """``--win-model --table T`` fitted the learned weights to T silently (no win model, no word
    of it): refused, one line naming the option, nothing written."""
    table = tmp_path / "t.json"
    table.write_text("{}")
    result = CliRunner().invoke(main, ["train", "--table", str(table), *extra, "--output", str(tmp_path / "w.json")])
    assert_one_line_error(result, "--win-model", "--table")
    assert not (tmp_path / "w.json").exists()


@pytest.mark.parametrize("content, fragment", [
    (None, "no such file"),
    ("{not json", "bad.json"),
    (json.dumps({"format": "shelfie-solve win 1"}), "format 1"),
    (json.dumps({"format": "shelfie-solve win 2", "coef_scale": 1000000, "coefficients": {"2": [[1]]}}),
     '"chance_scale" must be 1000000'),
])
def test_a_bad_play_model_is_refused_before_any_game(content, fragment, tmp_path):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", str(bad),
                                       "--seed", "1", "--games", "1", "--output", str(tmp_path / "w.json")])
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "w.json").exists()


def test_the_play_model_is_not_overwritten(tmp_path):
    played = tmp_path / "w.json"
    played.write_text(model_text(EVEN))
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", str(played),
                                       "--seed", "1", "--games", "1", "--output", str(played)])
    assert_one_line_error(result, "--output")
    assert played.read_text() == model_text(EVEN)


def test_the_own_play_example_file():
    """examples/win-own-play.json (docs/win-chance.md "Fitted on its own play") is a win-model
    file that records the settings it was fitted with: win's self-play by the model shipped then,
    the seed-26 fit on learned's games (examples/win-learned-play.json)."""
    from conftest import EXAMPLES

    from shelfie_solver.dice.learned.win_fit import OWN_PLAY_RIDGE

    model = load_win_model(EXAMPLES / "win-own-play.json")
    assert set(model.coefficients) == {2, 3, 4}
    assert {k: model.info[k] for k in ("seed", "games", "strategy", "ridge")} == {
        "seed": 31, "games": 600, "strategy": "win", "ridge": OWN_PLAY_RIDGE}
    assert model.info["played_by_info"] == load_win_model(EXAMPLES / "win-learned-play.json").info


def _depth(value) -> int:
    """How deep JSON containers nest in ``value`` (a dict of numbers: 1)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def test_a_long_chain_of_iterations_stays_readable(tmp_path):
    """Each step of policy iteration (``--play-model`` the previous step's file) records the model
    that played under ``played_by_info``, its own record nested inside: after some 30 steps the
    file written would be nested deeper than any file is read (32, core/inputs.py), and the next
    step could not read it. A play model readable at that limit still gives a readable file, its
    own record kept at the top of the chain."""
    from shelfie_solver.core.inputs import MAX_NESTING

    data = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    record: dict = {"seed": 0}
    for step in range(1, MAX_NESTING - 1):  # the file itself, then MAX_NESTING - 1 levels of records
        record = {"seed": step, "played_by_info": record}
    data.pop("fitted")  # provenance only, and nested less deep than the chain
    data["played_by_info"] = record
    assert _depth(data) == MAX_NESTING
    (tmp_path / "deep.json").write_text(json.dumps(data))
    load_win_model(tmp_path / "deep.json")  # readable: at the limit
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model",
                                       str(tmp_path / "deep.json"), "--seed", "1", "--games", "1",
                                       "--output", str(tmp_path / "next.json")])
    assert result.exit_code == 0, result.output
    written = load_win_model(tmp_path / "next.json")  # the next step can read it
    assert written.info["played_by_info"]["played_by_info"]["seed"] == MAX_NESTING - 2
    assert _depth(json.loads((tmp_path / "next.json").read_text("utf-8"))) <= MAX_NESTING


def test_a_play_model_of_a_large_record_gives_a_readable_file(tmp_path):
    """A play model as large as a file is read (1 MiB: here a long note of how it was made) is
    recorded under ``played_by_info`` of the file written: that record is not kept whole (it
    would take the file past 1 MiB, which the next step could not read), the file is read back."""
    data = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    data["note"] = ""
    data["note"] = "x" * ((1 << 20) - len(json.dumps(data)) - 100)
    (tmp_path / "fat.json").write_text(json.dumps(data))
    load_win_model(tmp_path / "fat.json")  # readable: just under the limit
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model",
                                       str(tmp_path / "fat.json"), "--seed", "1", "--games", "1",
                                       "--output", str(tmp_path / "next.json")])
    assert result.exit_code == 0, result.output
    written = load_win_model(tmp_path / "next.json")
    assert (tmp_path / "next.json").stat().st_size < 1 << 20
    assert "not kept" in written.info["played_by_info"]
