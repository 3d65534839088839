"""The other shapes' ``"points_exponent"`` through every path that writes or reads a win-model
file (docs/formats.md "Win-model file", docs/train.md "The chance to win", docs/win-chance.md "In
the board's own points"): ``train --win-model --points-exponent E`` writes it as data/win.json
holds it and the file reads back to a model put in each board's points by the closed form of
``size_factor``; on a board whose factor is not 1 the block is fitted with the points read at that
factor; a bad value is one line, exit 2; and ``--win-model FILE`` (advise, play status, simulate in
one process and in workers) reads the exponent: a file with it gives exactly the figures of the
same file with its block divided by hand and no exponent; ``benchmarks/win_sheets.py assemble``
writes it (data/win.json byte for byte).

Every expected factor is worked out here with ``Decimal`` from the board's item values (the
closed form ``floor(1000 (V / 126) ** e) / 1000``), every expected coefficient by dividing by
hand (columns in points by ``f``, the lead's signed square by ``f ** 2``, rounded half up)."""

from __future__ import annotations

import json
import math
from decimal import Decimal, getcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, assert_one_line_error, load_benchmark

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board, load_board
from shelfie_solver.dice.learned.win_fit import self_play_positions, train_win_model
from shelfie_solver.dice.learned.win_model import (
    DEFAULT_WIN_PATH,
    FORMER_FEATURES,
    OTHER_SHAPES_KEY,
    fit,
    load_win_model,
    model_text,
)
from shelfie_solver.dice.rules import DEFAULT_RULES

DEFAULT = load_board(None, DEFAULT_RULES)
SMALL_3X4_PATH = str(EXAMPLES / "boards" / "small-3x4.toml")
SMALL_3X4 = load_board(SMALL_3X4_PATH, DEFAULT_RULES)
SMALL_4X3 = load_board(str(EXAMPLES / "boards" / "small-4x3.toml"), DEFAULT_RULES)
#: The columns of format 3's features in points (P, P x r, score, score x r, the two of F) and
#: those of the lead's signed square (docs/formats.md "Win-model file").
IN_POINTS, SQUARES = (0, 1, 2, 3, 5, 6), (11, 12)


def factor_by_hand(board: Board, exponent: str) -> Fraction:
    """``floor(1000 (V / 126) ** e) / 1000`` in 40-digit decimals (every board here of values up
    to 12: value scale 1; the default board's values sum to 126)."""
    assert max(v for row in board.values for v in row) <= 12
    getcontext().prec = 40
    total = sum(v for row in board.values for v in row)
    return Fraction(int((Decimal(total) / Decimal(126)) ** Decimal(exponent) * 1000), 1000)


def divided_by_hand(rows: np.ndarray | list[list[int]], f: Fraction) -> list[list[int]]:
    """Format 3's rows (3 x 14) put in the points of a board of factor ``f``: the columns in points
    over ``f``, the lead's square over ``f ** 2``, rounded half up; flags and turns as they are."""
    out = [list(map(int, row[:len(FORMER_FEATURES)])) for row in rows]
    for row in out:
        for column in IN_POINTS + SQUARES:
            divisor = f if column in IN_POINTS else f * f
            row[column] = math.floor(Fraction(row[column]) / divisor + Fraction(1, 2))
    return out


def test_the_factors_by_hand():
    """small-3x4's values sum to 37, small-4x3's to 28, the default board's to 126: at 3/4 the
    factors 0.398, 0.323 and 1."""
    assert factor_by_hand(SMALL_3X4, "0.75") == Fraction(398, 1000)
    assert factor_by_hand(SMALL_4X3, "0.75") == Fraction(323, 1000)
    assert factor_by_hand(DEFAULT, "0.75") == 1


def _train(tmp_path: Path, name: str, *options: str) -> tuple[str, str]:
    """``train --win-model`` on the default board, 2 games per count from seed 5: (its file's text, stdout)."""
    path = tmp_path / name
    result = CliRunner().invoke(main, ["train", "--win-model", "--seed", "5", "--games", "2", "--jobs", "1",
                                       "--output", str(path), *options])
    assert result.exit_code == 0, result.output
    return path.read_text("utf-8"), result.stdout


def test_train_writes_the_exponent_as_the_shipped_file_holds_it(tmp_path):
    """``train --win-model --points-exponent 3/4``: the block's ``"points_exponent": "3/4"``, right
    after its ``"features"`` as in data/win.json; the file read back is written back byte for byte;
    the 5 x 5 model itself on the default board, and on small-3x4 the block's rows divided by
    0.398 (the closed form), as data/win.json's block is there. On the default board (factor 1)
    the fit is the one without the option: the two files differ by that key alone."""
    text, said = _train(tmp_path, "sized.json", "--points-exponent", "3/4")
    plain, _ = _train(tmp_path, "plain.json")
    assert "exponent 3/4" in said
    data, shipped = json.loads(text), json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    block = data[OTHER_SHAPES_KEY]
    assert block["points_exponent"] == shipped[OTHER_SHAPES_KEY]["points_exponent"] == "3/4"
    assert list(block)[:2] == list(shipped[OTHER_SHAPES_KEY])[:2] == ["features", "points_exponent"]
    without = json.loads(plain)
    assert "points_exponent" not in without[OTHER_SHAPES_KEY]
    block.pop("points_exponent")
    assert data == without
    model = load_win_model(tmp_path / "sized.json")
    assert model.other_shapes is not None and model.other_shapes.points_exponent == Fraction(3, 4)
    assert model_text(model) == text
    assert model.for_board(DEFAULT) is model
    f = factor_by_hand(SMALL_3X4, "0.75")
    rows = block["coefficients"]
    assert any(rows[n][2][c] for n in rows for c in IN_POINTS + SQUARES)  # a fit, not even chances
    on_small = model.for_board(SMALL_3X4)
    for n in (2, 3, 4):
        assert on_small.coefficients[n][:, :len(FORMER_FEATURES)].tolist() == divided_by_hand(rows[str(n)], f)
        assert not on_small.coefficients[n][:, len(FORMER_FEATURES):].any()
    # data/win.json's block on the same board: divided by the same factor
    reference = load_win_model(DEFAULT_WIN_PATH)
    assert reference.other_shapes is not None
    for n in (2, 3, 4):
        assert reference.for_board(SMALL_3X4).coefficients[n][:, :len(FORMER_FEATURES)].tolist() == \
            divided_by_hand(shipped[OTHER_SHAPES_KEY]["coefficients"][str(n)], f)


@pytest.mark.parametrize("value", ["0.75", "3/40", "5/2", "-1/2", "1/0", "", " 3/4", "3 / 4", "x", "٣/٤"])
def test_a_bad_exponent_is_refused_in_one_line(value, tmp_path):
    out = tmp_path / "w.json"
    result = CliRunner().invoke(main, ["train", "--win-model", "--seed", "5", "--games", "2",
                                       "--points-exponent", value, "--output", str(out)])
    assert_one_line_error(result, "--points-exponent", "a fraction from \"0\" to \"2\"", "at most 12")
    assert not out.exists()


@pytest.mark.parametrize("args", [["--seed", "5"], ["--table", "t.json"]])
def test_the_exponent_needs_the_win_model(args):
    result = CliRunner().invoke(main, ["train", *args, "--points-exponent", "3/4"])
    assert_one_line_error(result, "--points-exponent", "needs --win-model")


def test_on_a_small_board_the_block_is_fitted_in_its_points():
    """``train_win_model`` on small-4x3 (factor 0.323 at 3/4): its own shape's coefficients are the
    fit without the exponent; the block is format 3's fit to the same positions with every seat's
    ``P`` read over the factor (floor of P / 0.323, by hand from the positions read as they are;
    flags and turns the same), so it differs from the block fitted without it."""
    sized_model = train_win_model(SMALL_4X3, DEFAULT_RULES, seed=8, games=20, points_exponent=Fraction(3, 4))
    plain_model = train_win_model(SMALL_4X3, DEFAULT_RULES, seed=8, games=20)
    assert sized_model.other_shapes is not None and plain_model.other_shapes is not None
    assert sized_model.other_shapes.points_exponent == Fraction(3, 4) and plain_model.other_shapes.points_exponent == 0
    plain = self_play_positions(SMALL_4X3, DEFAULT_RULES, 8, 20)
    sized = self_play_positions(SMALL_4X3, DEFAULT_RULES, 8, 20, points_exponent=Fraction(3, 4))
    f = factor_by_hand(SMALL_4X3, "0.75")
    assert len(plain) == len(sized) > 60
    for (n, phase, x, y), (n2, phase2, x2, y2) in zip(plain, sized):
        assert (n, phase) == (n2, phase2) and np.array_equal(y, y2)
        # P over the factor, floor (the seats' P in the default board's points: design's unit)
        assert x2[:, 0].tolist() == [math.floor(Fraction(int(p)) / f) for p in x[:, 0]]
        assert np.array_equal(x2[:, [4, 7, 8, 9, 10, 13]], x[:, [4, 7, 8, 9, 10, 13]])
        assert np.array_equal(x2[:, len(FORMER_FEATURES):], x[:, len(FORMER_FEATURES):])
    assert any(not np.array_equal(a[2], b[2]) for a, b in zip(plain, sized))
    for n in (2, 3, 4):
        assert np.array_equal(sized_model.coefficients[n], plain_model.coefficients[n])
        assert np.array_equal(sized_model.coefficients[n], fit(plain).coefficients[n])
        assert np.array_equal(sized_model.other_shapes.coefficients[n],
                              fit(sized, columns=len(FORMER_FEATURES)).coefficients[n])
    assert any(not np.array_equal(sized_model.other_shapes.coefficients[n], plain_model.other_shapes.coefficients[n])
               for n in (2, 3, 4))


# --- --win-model FILE ------------------------------------------------------------------------------

def _files(tmp_path: Path) -> dict[str, str]:
    """data/win.json as given (exponent 3/4), without the exponent, and without it but with its block
    divided by hand by small-3x4's factor (the figures the exponent must give on small-3x4)."""
    shipped = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    plain = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    plain[OTHER_SHAPES_KEY].pop("points_exponent")
    by_hand = json.loads(json.dumps(plain))
    f = factor_by_hand(SMALL_3X4, "0.75")
    by_hand[OTHER_SHAPES_KEY]["coefficients"] = {n: divided_by_hand(rows, f) for n, rows in
                                                  shipped[OTHER_SHAPES_KEY]["coefficients"].items()}
    out = {}
    for name, data in (("sized", shipped), ("plain", plain), ("by-hand", by_hand)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), "utf-8")
        out[name] = str(path)
    return out


def _figures(args: list[str], model: str) -> dict:
    """The command's JSON under ``--win-model model``, its ``"win_model"`` (the file's name) aside."""
    result = CliRunner().invoke(main, [*args, "--format", "json", "--win-model", model])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data.pop("win_model") == model
    return data


def test_every_command_reads_the_exponent_of_its_file(tmp_path, monkeypatch):
    """On small-3x4 (3 players: no exact two-player table) ``advise``, ``play status`` and
    ``simulate`` (one process and two workers, which read the file again) under the file with
    ``"points_exponent": "3/4"`` give exactly the figures of the file whose block is divided by
    hand and has no exponent, and not those of the file without the exponent."""
    monkeypatch.setenv("SHELFIE_SOLVE_EXACT2_BUDGET", "0")
    files = _files(tmp_path)
    game = str(tmp_path / "g.json")
    for step in (["new", game, "--players", "A,B,C", "--first", "A", "--board", SMALL_3X4_PATH],
                 ["roll", game, "GGGGAA"], ["stop", game], ["mark", game, "r1c4"], ["roll", game, "AAACCJ"]):
        result = CliRunner().invoke(main, ["play", *step])
        assert result.exit_code == 0, result.output
    before = Path(game).read_bytes()
    advise = ["advise", "--board", SMALL_3X4_PATH, "--dice", "GGAACJ", "--marks", "...o/..../....",
              "--opponent", "..../o.../....", "--opponent", "...o/...o/....", "--order", "2", "--round", "2"]
    commands = [advise, ["play", "status", game], ["play", "advise", game]]
    games = [["simulate", "--players", "win,learned,win", "--games", "2", "--seed", "18301", "--board", SMALL_3X4_PATH,
              "--jobs", jobs] for jobs in ("1", "2")]
    for command in commands:
        sized = _figures(command, files["sized"])
        assert sized == _figures(command, files["by-hand"]), command
        assert sized != _figures(command, files["plain"]), command
    simulated = [_figures(command, files["sized"]) for command in games]
    assert simulated[0] == simulated[1] == _figures(games[1], files["by-hand"])
    assert Path(game).read_bytes() == before


# --- the benchmarks that write a whole model file ------------------------------------------------

def test_the_assembly_of_the_shipped_file_writes_the_exponent(tmp_path):
    """``benchmarks/win_sheets.py assemble`` (its defaults: how data/win.json is made) writes
    data/win.json byte for byte, its block's ``"points_exponent": "3/4"`` included; with
    ``--points-exponent 0`` the same file without that key."""
    import argparse

    sheets = load_benchmark("win_sheets")
    for exponent, name in (("3/4", "sized.json"), ("0", "plain.json")):
        args = argparse.Namespace(two=sheets.TWO, rest=sheets.REST, three=sheets.THREE, other_two=sheets.BEFORE,
                                  other_rest=sheets.OTHER_REST, points_exponent=exponent,
                                  output=str(tmp_path / name))
        sheets.assemble_file(args)
    assert (tmp_path / "sized.json").read_bytes() == DEFAULT_WIN_PATH.read_bytes()
    plain = json.loads((tmp_path / "plain.json").read_text("utf-8"))
    shipped = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    assert shipped[OTHER_SHAPES_KEY].pop("points_exponent") == "3/4" and plain == shipped
