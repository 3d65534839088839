"""A win-model file assembled per number of players (learned/win_model.assemble, the key
``fitted``; docs/formats.md "Win-model file", docs/win-chance.md "A file assembled per number of
players"): the shipped data/win.json is exactly the assembly of the fits it names, each count's
record is that fit's own, and a malformed record is refused."""

from __future__ import annotations

import json

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
    for name in ("win-learned-play.json", "win-own-play.json"):
        model = load_win_model(EXAMPLES / name)
        assert FITTED_KEY not in model.info and set(model.coefficients) == {2, 3, 4}
