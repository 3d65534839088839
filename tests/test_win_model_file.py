"""A win-model file assembled per number of players (learned/win_model.assemble, the key
``fitted``; docs/formats.md "Win-model file", docs/win-chance.md "A file assembled per number of
players"): the shipped data/win.json is exactly the assembly of the fits it names, each count's
record is that fit's own, and a malformed record is refused."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from conftest import EXAMPLES, ROOT

from shelfie_solver.dice.learned.win_model import (
    DEFAULT_WIN_PATH,
    FEATURES,
    FITTED_KEY,
    ROWS,
    WinModel,
    WinModelError,
    assemble,
    load_win_model,
    model_from_dict,
    model_text,
)


def _model(value: int, **info) -> WinModel:
    return WinModel({n: np.full((len(ROWS), len(FEATURES)), value * 10 + n, dtype=np.int64) for n in (2, 3, 4)},
                    {"board": "b", **info})


def test_the_shipped_file_is_the_assembly_of_the_fits_it_names():
    shipped = load_win_model(DEFAULT_WIN_PATH)
    fitted = shipped.info[FITTED_KEY]
    assert set(fitted) == {"2", "3", "4"}
    parts = {int(n): (load_win_model(ROOT / record["file"]), record["file"]) for n, record in fitted.items()}
    again = assemble(parts, shipped.info["assembled"])
    # with the coefficients of other board shapes as the file has them (test_win_model_shapes)
    again = replace(again, shape=shipped.shape, other_shapes=shipped.other_shapes)
    assert model_text(again) == DEFAULT_WIN_PATH.read_text("utf-8")
    for n, (model, _) in parts.items():
        assert np.array_equal(shipped.coefficients[n], model.coefficients[n])


def test_each_count_keeps_its_own_fit_record():
    a, b = _model(1, seed=5, games=7, strategy="learned"), _model(2, seed=9, games=3, strategy="win", ridge=0.01)
    both = assemble({2: (b, "b.json"), 3: (a, "a.json"), 4: (a, "a.json")}, "note")
    assert both.coefficients[2][0, 0] == 22 and both.coefficients[3][0, 0] == 13 and both.coefficients[4][0, 0] == 14
    assert both.fitted_for(2) == {"board": "b", "seed": 9, "games": 3, "strategy": "win", "ridge": 0.01,
                                  "file": "b.json"}
    assert both.fitted_for(3) == {"board": "b", "seed": 5, "games": 7, "strategy": "learned", "file": "a.json"}
    assert both.info["players"] == [2, 3, 4] and both.info["assembled"] == "note"
    # written and read back: the same records; an assembly of an assembly keeps the inner record
    back = model_from_dict(json.loads(model_text(both)), "x.json")
    assert back.fitted_for(2) == both.fitted_for(2)
    again = assemble({2: (back, "x.json")})
    assert again.fitted_for(2) == {**both.fitted_for(2), "file": "x.json"}
    # a file of one fit: its own record for every count
    assert a.fitted_for(4) == {"board": "b", "seed": 5, "games": 7, "strategy": "learned"}
    with pytest.raises(KeyError):
        WinModel({2: a.coefficients[2]}, a.info).fitted_for(3)


def test_assemble_refuses_mixed_boards_and_missing_counts():
    with pytest.raises(ValueError, match="different boards"):
        assemble({2: (_model(1), "a"), 3: (_model(1, board="other"), "c")})
    with pytest.raises(ValueError, match="no coefficients"):
        assemble({3: (WinModel({2: _model(1).coefficients[2]}, {"board": "b"}), "only2.json")})
    with pytest.raises(ValueError, match="2-4"):
        assemble({})


@pytest.mark.parametrize("fitted", [
    [],  # not an object
    {"2": {}, "3": {}},  # a count of the coefficients without its record
    {"2": {}, "3": {}, "4": {}, "5": {}},  # a record of no coefficients
    {"2": {}, "3": {}, "4": 1},  # a record that is not an object
])
def test_a_malformed_fitted_record_is_refused(fitted):
    data = json.loads(model_text(_model(1)))
    data[FITTED_KEY] = fitted
    with pytest.raises(WinModelError, match='"fitted" must map each number of players') as caught:
        model_from_dict(data, "w.json")
    assert "\n" not in str(caught.value) and "w.json" in str(caught.value)


def test_the_example_fits_are_single_fits():
    for name in ("win-learned-play.json", "win-own-play.json", "win-vs-learned.json", "win-first.json",
                 "win-first-34.json", "win-other-shapes.json", "win-other-shapes-34.json"):
        model = load_win_model(EXAMPLES / name)
        assert FITTED_KEY not in model.info and set(model.coefficients) == {2, 3, 4}


# --- the reader refuses what it would otherwise read loosely (docs/formats.md "Win-model file") ---

def _good() -> dict:
    return json.loads(model_text(_model(1)))


def _with(**changes) -> dict:
    data = _good()
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


def _keyed(old: str, new: str) -> dict:
    data = _good()
    data["coefficients"][new] = data["coefficients"].pop(old)
    return data


def _only(*counts: str) -> dict:
    data = _good()
    data["coefficients"] = {n: data["coefficients"][n] for n in counts}
    return data


_LIST_ROWS = "[" + ", ".join(str(r) for r in ROWS) + "]"
BAD_FILES = [  # (data, fragments of the one line)
    (_keyed("2", "+2"), ['"+2"', '"2", "3", "4"']),  # int("+2") == 2: it would replace "2"
    (_keyed("2", " 2 "), ['" 2 "', '"2", "3", "4"']),
    (_keyed("2", "02"), ['"02"', '"2", "3", "4"']),
    (_keyed("2", "1"), ['"1"', '"2", "3", "4"']),
    (_only("3"), ["no coefficients for 2, 4 players", '"2", "3", "4"']),  # would play 2p by 3p rows
    (_only("2", "3"), ["no coefficients for 4 players"]),
    (_only(), ["no coefficients for 2, 3, 4 players"]),
    (_with(features=["bogus"]), ['"features" must be ["P", "P x r"', "train --win-model"]),
    (_with(features=list(reversed(FEATURES))), ['"features" must be']),  # names right, order wrong
    (_with(features=None), ['"features" must be']),
    (_with(rows=[9]), [f'"rows" must be {_LIST_ROWS}']),
    (_with(rows=[0, 3, 2]), ['"rows" must be']),
    (_with(chance_scale=7), ['"chance_scale" must be 1000000']),
    (_with(chance_scale=1_000_000.0), ['"chance_scale" must be 1000000']),  # a float equals the int
    (_with(chance_scale=None), ['"chance_scale" must be 1000000']),
    (_with(coef_scale=True), ['"coef_scale" must be 1000000']),
    (_with(coefficient={}), ['unknown key', 'did you mean "coefficients"']),  # a misspelling, not provenance
    (_with(Features=[]), ['did you mean "features"']),
    (_with(fited={}), ['did you mean "fitted"']),
    (_with(format="shelfie-solve win 6"), ['not a win-model file', '"shelfie-solve win 4"']),
    # the former formats have the 13 features before "a turn ahead" (2) and the 14 before the line
    # states (3), this one all of them
    (_with(format="shelfie-solve win 2"), ['"features" must be', '"lead x |lead| / 10 x r"]']),
    (_with(format="shelfie-solve win 3"), ['"features" must be', '"a turn ahead"]']),
    (_with(features=list(FEATURES[:13])), ['"features" must be', '"a turn ahead"']),
    (_with(features=list(FEATURES[:14])), ['"features" must be', '"columns m5 a0"']),
]


@pytest.mark.parametrize("data, fragments", BAD_FILES)
def test_the_reader_refuses_a_loose_file_in_one_line(data, fragments):
    with pytest.raises(WinModelError) as caught:
        model_from_dict(data, "w.json")
    line = str(caught.value)
    assert "\n" not in line and "w.json" in line
    for fragment in fragments:
        assert fragment in line, line


@pytest.mark.parametrize("data, fragments", BAD_FILES[:8:2] + BAD_FILES[10:17:3])
def test_play_model_refuses_a_loose_file_exit_2(data, fragments, tmp_path, monkeypatch):
    """``train --play-model FILE`` (the CLI path that reads a win-model file): the same refusal,
    one line and exit 2, before any game and with nothing written."""
    from click.testing import CliRunner
    from conftest import assert_one_line_error

    from shelfie_solver.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", "bad.json",
                                       "--seed", "1", "--games", "1", "--output", "w.json"])
    assert_one_line_error(result, "bad.json", *fragments)
    assert not (tmp_path / "w.json").exists()


def test_provenance_keys_are_kept_and_a_good_file_reads():
    """Keys the reader does not read and that are no misspelling of one it does record how the file
    was made and are kept (docs/formats.md); the three counts read as written."""
    data = _with(seed=5, played_by="x.json", note="hand-made", zzz=1)
    model = model_from_dict(data, "w.json")
    assert set(model.coefficients) == {2, 3, 4}
    assert model.coefficients[3][0, 0] == 13  # _model: value * 10 + players
    assert {k: model.info[k] for k in ("seed", "played_by", "note", "zzz", "board")} == {
        "seed": 5, "played_by": "x.json", "note": "hand-made", "zzz": 1, "board": "b"}


def _with_coefficient(value: int) -> dict:
    data = _good()
    data["coefficients"]["2"][1][2] = value  # phase 2, "score"
    return data


@pytest.mark.parametrize("value", [-(1 << 63), 1 << 63, -(1 << 70), 10 ** 30])
def test_a_coefficient_beyond_int64_magnitudes_is_refused_in_one_line(value, tmp_path, monkeypatch):
    """Every coefficient and its absolute value must be int64: -2**63 is int64 but its ``abs`` is
    not, so the int64 bounds before the strengths would wrap (docs/formats.md, "Win-model file").
    One line naming the coefficient and the range, exit 2 from ``train --play-model``."""
    from click.testing import CliRunner
    from conftest import assert_one_line_error

    from shelfie_solver.cli import main

    with pytest.raises(WinModelError) as caught:
        model_from_dict(_with_coefficient(value), "w.json")
    line = str(caught.value)
    assert "\n" not in line and "w.json" in line and str(value) in line
    assert "from -9223372036854775807 to 9223372036854775807" in line, line
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text(json.dumps(_with_coefficient(value)))
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", "bad.json",
                                       "--seed", "1", "--games", "1", "--output", "w.json"])
    assert_one_line_error(result, "bad.json", "out of range", "9223372036854775807")
    assert not (tmp_path / "w.json").exists()


@pytest.mark.parametrize("value", [-(1 << 63) + 1, (1 << 63) - 1])
def test_the_widest_coefficients_read_and_give_the_exact_strengths(value):
    """The widest coefficients accepted, +-(2**63 - 1), read as written, and a seat's strength is
    the Python-integer dot product of the row and its features (the "score" coefficient is in
    neither the slope in P nor the curve, so the monotone projection leaves it as it is)."""
    from shelfie_solver.dice.learned.win_model import design, strength_numerators

    model = model_from_dict(_with_coefficient(value), "w.json")
    c = model.coefficients[2]
    assert int(c[1, 2]) == value
    phase = np.array([2])
    seats = np.array([[[30_000_000, 20, 3, 0], [25_000_000, 15, 3, 1]]], dtype=np.int64)
    x = design(phase, seats, 4, to_play=1)
    z = strength_numerators(c, phase, x, 4)
    row = [int(v) for v in c[1]]
    assert [int(v) for v in z[0]] == [sum(a * int(b) for a, b in zip(row, seat)) for seat in x[0].tolist()]


def test_an_assembly_of_deeply_recorded_fits_stays_readable(tmp_path):
    """A part whose record nests as deep as a file is read (32, core/inputs.py: a long chain of
    ``--play-model`` steps) sits two levels lower under ``"fitted"``: the assembled file keeps
    the newest levels and stays readable."""
    from shelfie_solver.core.inputs import MAX_NESTING

    record: dict = {"seed": 0}
    for step in range(1, MAX_NESTING - 1):
        record = {"seed": step, "played_by_info": record}
    deep = _model(1, played_by_info=record)
    assembled = assemble({2: (deep, "deep.json"), 3: (_model(2), "b.json"), 4: (_model(2), "b.json")})
    (tmp_path / "w.json").write_text(model_text(assembled))
    again = load_win_model(tmp_path / "w.json")
    kept = again.info[FITTED_KEY]["2"]["played_by_info"]
    assert kept["seed"] == MAX_NESTING - 2 and kept["played_by_info"]["seed"] == MAX_NESTING - 3
    assert again.info[FITTED_KEY]["3"] == {"board": "b", "file": "b.json"}


def test_an_assembly_of_a_large_record_stays_readable(tmp_path):
    """Three parts each recorded with a note of 400 KB would make a file past the 1 MiB a file is
    read to: each record too large is kept as its board and file only, and the file reads back."""
    parts = {n: (_model(n, note="x" * 400_000), f"p{n}.json") for n in (2, 3, 4)}
    parts = {n: (WinModel(m.coefficients, {**m.info, "board": "b"}), name) for n, (m, name) in parts.items()}
    (tmp_path / "w.json").write_text(model_text(assemble(parts)))
    assert (tmp_path / "w.json").stat().st_size < 1 << 20
    again = load_win_model(tmp_path / "w.json")
    assert {n: (r["board"], r["file"], "not kept" in r["record"]) for n, r in again.info[FITTED_KEY].items()} == {
        "2": ("b", "p2.json", True), "3": ("b", "p3.json", True), "4": ("b", "p4.json", True)}
