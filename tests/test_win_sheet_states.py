"""The sheet features of the win model (format 4, docs/win-chance.md "The sheets' line states"):
each seat's count of shelves and of columns in each line state ``(m, a)`` (items marked,
available, D4). Checked against their definition on hand-made sheets (closed forms), the compiled
kernel (learned.kernel._win_gaps, _win_turn) against the numpy path on random tables with random
sheet coefficients, and files of formats 2 and 3 still giving their figures."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from shelfie_solver.dice.board import Marks, load_board
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_bounds import LINE_STATE_CAP, LINE_STATES, line_state
from shelfie_solver.dice.learned.win_model import (
    BASE_FEATURES,
    FEATURES,
    ROWS,
    SHEET_COLUMNS,
    SHEET_FEATURES,
    WinModel,
    WinModelError,
    default_win_model,
    design,
    model_from_dict,
    opponent_seats,
    sheet_states,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES

BOARD, RULES = load_board(None, DEFAULT_RULES), DEFAULT_RULES


def brute_states(sheet: Marks) -> list[int]:
    """The line-state counts by their definition: per shelf, then per column, of the 5 x 5
    default board, count its marked and available items cell by cell (D4) and tally (m, a)."""
    marked, available = sheet.bit_arrays()
    out = [0] * (2 * LINE_STATES)
    n, c = BOARD.n_shelves, BOARD.n_columns
    for kind, lines in enumerate(([[s * c + j for j in range(c)] for s in range(n)],
                                  [[s * c + j for s in range(n)] for j in range(c)])):
        for cells in lines:
            m = sum(int(marked[x]) for x in cells)
            a = sum(int(available[x]) for x in cells)
            name = f"{('shelves', 'columns')[kind]} m{m} a{a}"
            out[SHEET_FEATURES.index(name)] += 1
    return out


def test_feature_names_and_state_numbers() -> None:
    """21 states (m, a) with m + a <= 5 per kind of line, numbered in the order of the names."""
    assert LINE_STATE_CAP == 5 and LINE_STATES == 21 and SHEET_COLUMNS == 42
    assert FEATURES == BASE_FEATURES + SHEET_FEATURES and len(BASE_FEATURES) == 14
    pairs = [(m, a) for m in range(6) for a in range(6 - m)]
    assert [line_state(m, a) for m, a in pairs] == list(range(21))
    assert [SHEET_FEATURES[line_state(m, a)] for m, a in pairs] == [f"shelves m{m} a{a}" for m, a in pairs]
    assert [SHEET_FEATURES[21 + line_state(m, a)] for m, a in pairs] == [f"columns m{m} a{a}" for m, a in pairs]


def test_states_of_hand_made_sheets() -> None:
    """An empty sheet: every line (m 0, a 5); a sheet with shelf 1 marked whole and the first
    column eliminated: shelf 1 (5, 0), the other shelves (0, 4), column 1 (1, 0), the other
    columns (1, 4)."""
    empty = Marks(5, 5, 0, 0)
    m, a, _, _ = StateArrays(BOARD, RULES, empty).line_totals
    got = sheet_states(m, a, 5).tolist()
    assert got[SHEET_FEATURES.index("shelves m0 a5")] == 5 and got[SHEET_FEATURES.index("columns m0 a5")] == 5
    assert sum(got) == 10
    shelf0 = sum(1 << j for j in range(5))
    column0 = sum(1 << (5 * s) for s in range(1, 5))
    sheet = Marks(5, 5, shelf0, column0)
    m, a, _, _ = StateArrays(BOARD, RULES, sheet).line_totals
    got = sheet_states(m, a, 5).tolist()
    expected = [0] * 42
    expected[SHEET_FEATURES.index("shelves m5 a0")] = 1
    expected[SHEET_FEATURES.index("shelves m0 a4")] = 4
    expected[SHEET_FEATURES.index("columns m1 a0")] = 1
    expected[SHEET_FEATURES.index("columns m1 a4")] = 4
    assert got == expected == brute_states(sheet)


def test_states_equal_their_definition_on_random_sheets() -> None:
    from test_win_kernel import random_sheet

    rng = np.random.default_rng(15199)
    for _ in range(200):
        sheet = random_sheet(rng)
        m, a, _, _ = StateArrays(BOARD, RULES, sheet).line_totals
        assert sheet_states(m, a, BOARD.n_shelves).tolist() == brute_states(sheet)


def test_capped_states_on_long_lines() -> None:
    """Lines longer than 5 (another board): m capped at 5, a at 5 - m (win_bounds.line_state)."""
    m = np.array([7, 2, 0, 3])
    a = np.array([1, 6, 9, 1])
    got = sheet_states(m, a, 2).tolist()
    expected = [0] * 42
    expected[line_state(5, 0)] += 1
    expected[line_state(2, 3)] += 1
    expected[21 + line_state(0, 5)] += 1
    expected[21 + line_state(3, 1)] += 1
    assert got == expected


def test_design_reads_the_states_times_the_weight_scale() -> None:
    """design's sheet columns are the counts times WEIGHT_SCALE; without counts they are 0 and
    the 14 base features are those of the counts' design."""
    rng = np.random.default_rng(15198)
    seats = np.zeros((3, 2, 4 + SHEET_COLUMNS), dtype=np.int64)
    seats[..., 0] = rng.integers(0, 120 * WEIGHT_SCALE, size=(3, 2))
    seats[..., 1] = rng.integers(0, 100, size=(3, 2))
    seats[..., 2] = rng.integers(0, 3, size=(3, 2))
    seats[:, 1, 3] = 1
    seats[..., 4:] = rng.integers(0, 6, size=(3, 2, SHEET_COLUMNS))
    phase = np.array([2, 3, 3])
    x = design(phase, seats, 4, to_play=1)
    assert x.shape == (3, 2, len(FEATURES))
    assert np.array_equal(x[..., 14:], seats[..., 4:] * WEIGHT_SCALE)
    assert np.array_equal(x[..., :14], design(phase, seats[..., :4], 4, to_play=1)[..., :14])
    assert not design(phase, seats[..., :4], 4, to_play=1)[..., 14:].any()
    with pytest.raises(ValueError):
        design(phase, seats[..., :10], 4, to_play=1)


def test_opponent_seats_carry_their_sheet_at_the_turn_start() -> None:
    from test_win_kernel import random_state

    rng = np.random.default_rng(15197)
    for players in (2, 3, 4):
        state = random_state(rng, players)
        rows = opponent_seats(state)
        others = [j for j in range(players) if j != state.active]
        assert rows.shape == (players - 1, 3 + SHEET_COLUMNS)
        for row, j in zip(rows.tolist(), others):
            assert row[3:] == brute_states(state.sheets[j])


def sheet_model(rng: np.random.Generator, players: int = 2) -> WinModel:
    """The shipped coefficients with random sheet coefficients (every count)."""
    base = default_win_model()
    out = {}
    for n, table in base.coefficients.items():
        t = table.copy()
        t[:, 14:] = rng.integers(-300_000, 300_000, size=(len(ROWS), SHEET_COLUMNS))
        out[n] = t
    return WinModel(out, dict(base.info))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_compiled_equals_numpy_with_sheet_coefficients(players: int) -> None:
    """The compiled front (learned.kernel._win_front, the candidate sheets' states moved line by
    line) and the whole turn from the table (_win_turn) against the numpy path (design of every
    candidate's line totals), with random sheet coefficients, end triggered or not (D17, D18)."""
    pytest.importorskip("numba")
    from test_win_kernel import assert_compiled_equals_numpy, random_state

    from shelfie_solver.dice.learned.win_model import compiled_win_values

    rng = np.random.default_rng(15190 + players)
    model = sheet_model(rng)
    for i in range(40 if players == 2 else 15):
        state = replace(random_state(rng, players), end_triggered=bool(i % 2))
        worth, shelves = assert_compiled_equals_numpy(win_objective(state, model), state)
        whole = compiled_win_values(state, model)
        assert whole is not None
        assert np.array_equal(whole[0], worth) and whole[2] == shelves


def test_sheet_coefficients_move_the_chance() -> None:
    """A positive coefficient on "shelves m5 a0" (a closed shelf marked whole) raises the chance
    of a candidate sheet that has one more such shelf than another: the feature is read."""
    from test_win_kernel import random_state

    rng = np.random.default_rng(15196)
    state = random_state(rng, 2)
    base = default_win_model()
    arrays = StateArrays(BOARD, RULES, state.marks)
    m, a, mp, ap = (x[None] for x in arrays.line_totals)
    plain = win_objective(state, base).chance_of(arrays, m, a, mp, ap)
    tables = {n: t.copy() for n, t in base.coefficients.items()}
    column = len(BASE_FEATURES) + SHEET_FEATURES.index("shelves m0 a5")
    for t in tables.values():
        t[:, column] = 500_000
    opened = win_objective(state, WinModel(tables, dict(base.info))).chance_of(arrays, m, a, mp, ap)
    mine = sheet_states(m[0], a[0], 5)[SHEET_FEATURES.index("shelves m0 a5")]
    theirs = opponent_seats(state)[0, 3 + SHEET_FEATURES.index("shelves m0 a5")]
    if mine > theirs:
        assert opened[0] > plain[0]
    elif mine < theirs:
        assert opened[0] < plain[0]
    else:
        assert opened[0] == plain[0]


def file_dict(fmt: str, width: int, value: int = 7) -> dict[str, object]:
    names = FEATURES[:width]
    return {"format": fmt, "coef_scale": 1_000_000, "chance_scale": 1_000_000, "rows": [0, 2, 3],
            "features": list(names), "coefficients": {str(n): [[value * (r + 1) + f for f in range(width)]
                                                            for r in range(3)] for n in (2, 3, 4)}}


@pytest.mark.parametrize(("fmt", "width"), [("shelfie-solve win 2", 13), ("shelfie-solve win 3", 14)])
def test_former_formats_read_with_the_sheet_coefficients_zero(fmt: str, width: int) -> None:
    model = model_from_dict(file_dict(fmt, width), "old.json")
    for n in (2, 3, 4):
        table = model.coefficients[n]
        assert table.shape == (3, len(FEATURES))
        assert table[:, :width].tolist() == [[7 * (r + 1) + f for f in range(width)] for r in range(3)]
        assert not table[:, width:].any()


def test_a_format_3_file_gives_its_old_figures() -> None:
    """The figures of a format-3 file do not depend on the sheets' states: two tables alike but
    for the sheets' states (same P, score, distances) give the same chances."""
    model = model_from_dict(json.loads(json.dumps({**file_dict("shelfie-solve win 3", 14, 0),
                                                   "coefficients": {str(n): default_win_model().coefficients[2][:, :14]
                                                                    .tolist() for n in (2, 3, 4)}})), "old.json")
    rng = np.random.default_rng(15195)
    seats = np.zeros((4, 2, 4 + SHEET_COLUMNS), dtype=np.int64)
    seats[..., 0] = rng.integers(0, 120 * WEIGHT_SCALE, size=(4, 2))
    seats[..., 1] = rng.integers(0, 100, size=(4, 2))
    seats[:, 1, 3] = 1
    other = seats.copy()
    other[..., 4:] = rng.integers(0, 6, size=(4, 2, SHEET_COLUMNS))
    from shelfie_solver.dice.learned.win_model import all_chances

    phase = np.array([2, 3, 3, 2])
    c = model.coefficients[2]
    assert np.array_equal(all_chances(c, phase, design(phase, seats, 3, to_play=0), 3),
                          all_chances(c, phase, design(phase, other, 3, to_play=0), 3))


def test_a_bad_format_4_file_is_refused_in_one_line() -> None:
    data = file_dict("shelfie-solve win 4", 14)  # format 4 with format 3's features
    with pytest.raises(WinModelError) as caught:
        model_from_dict(data, "bad.json")
    assert "\n" not in str(caught.value) and '"features"' in str(caught.value)
    data = file_dict("shelfie-solve win 4", len(FEATURES))
    data["coefficients"]["2"][1] = data["coefficients"]["2"][1][:-1]  # a row one short
    with pytest.raises(WinModelError) as caught:
        model_from_dict(data, "bad.json")
    assert "\n" not in str(caught.value) and "56 whole numbers" in str(caught.value)


def test_the_example_files_of_the_line_states() -> None:
    """examples/win-sheets.json (the 2-player coefficients of the line states, format 4) and
    examples/win-sheets-iter1.json (the first fit, whose games are half of its data) load, and so
    do examples/win-sheets-34.json (the 3- and 4-player rows with the line states, fitted to three
    policies' games) and examples/win-sheets-34-iter1.json (its first round, whose games are the
    third source). The shipped file's 2-player rows are win-sheets.json's (under its trees, format
    5: examples/win-trees-2-fast.json), its 4-player rows win-sheets-34.json's and its 3-player rows
    examples/win-sheets-3-own.json's (the same sets refitted, the shipped rows' own games weighted
    3: docs/win-chance.md, "The 3-player rows weighted toward their own play"), their line-state
    coefficients non-zero (docs/win-chance.md, "The sheets' line states with 3 and 4 players")."""
    from pathlib import Path

    from shelfie_solver.dice.learned.win_model import load_win_model

    root = Path(__file__).resolve().parent.parent / "examples"
    sheets, first = load_win_model(root / "win-sheets.json"), load_win_model(root / "win-sheets-iter1.json")
    rest, rest_first = load_win_model(root / "win-sheets-34.json"), load_win_model(root / "win-sheets-34-iter1.json")
    shipped = default_win_model()
    assert json.loads((root / "win-sheets-iter1.json").read_text("utf-8"))["format"] == "shelfie-solve win 4"
    assert first.coefficients[2][1:, 14:].any() and sheets.coefficients[2][1:, 14:].any()
    assert np.array_equal(shipped.coefficients[2], sheets.coefficients[2])
    own = load_win_model(root / "win-sheets-3-own.json")
    for n in (3, 4):
        assert np.array_equal(shipped.coefficients[n], (own if n == 3 else rest).coefficients[n])
        assert shipped.coefficients[n][:, 14:].any() and not np.array_equal(own.coefficients[3], rest.coefficients[3])
        assert rest_first.coefficients[n][:, 14:].any() and not np.array_equal(rest_first.coefficients[n], rest.coefficients[n])
    assert [s["seed"] for s in sheets.info["sources"]] == [15101, 15104]
    assert [(s["seed"], s["players"]) for s in rest.info["sources"]] == [
        (18101, 3), (18101, 4), (18102, 3), (18102, 4), (18111, 3), (18111, 4)]
    assert {s["played_by"] for s in rest.info["sources"] if s["seed"] == 18111} == {"examples/win-sheets-34-iter1.json"}


def test_a_features_list_unlike_the_format_s_names_where() -> None:
    """A "format" edited without the coefficients (a format-3 file of 56 features, a format-4 file
    of 14) is told which format its features are; a list in another order or case is told the
    first feature that differs (the 1-based place counted in FEATURES): one line each."""
    data = file_dict("shelfie-solve win 3", len(FEATURES))
    with pytest.raises(WinModelError) as caught:
        model_from_dict(data, "bad.json")
    assert str(caught.value).endswith('(the file\'s "features" are those of "format": "shelfie-solve win 4", '
                                      'not "shelfie-solve win 3")')
    data = file_dict("shelfie-solve win 4", 14)
    with pytest.raises(WinModelError) as caught:
        model_from_dict(data, "bad.json")
    assert '"format": "shelfie-solve win 3", not "shelfie-solve win 4"' in str(caught.value)
    data = file_dict("shelfie-solve win 4", len(FEATURES))
    names = list(FEATURES)
    names[14], names[15] = names[15], names[14]  # "shelves m0 a0" and "shelves m0 a1" swapped
    data["features"] = names
    with pytest.raises(WinModelError) as caught:
        model_from_dict(data, "bad.json")
    assert "\n" not in str(caught.value)
    assert str(caught.value).endswith('(feature 15 of the file is "shelves m0 a1", expected "shelves m0 a0"; '
                                      '56 features, expected 56)')


def test_the_round_3_example_file() -> None:
    """examples/win-sheets-34-iter3.json (round 3 of the 3- and 4-player rows with the line states,
    not shipped: docs/win-chance.md, "Calibration with 3 and 4 players: round 3 and where the gaps
    come from") loads as format 4, its sources the three sets of win-sheets-34.json and the games of
    win-sheets-34.json itself (seed 18521), and its rows are not the shipped ones."""
    from pathlib import Path

    from shelfie_solver.dice.learned.win_model import load_win_model

    root = Path(__file__).resolve().parent.parent / "examples"
    third = load_win_model(root / "win-sheets-34-iter3.json")
    assert json.loads((root / "win-sheets-34-iter3.json").read_text("utf-8"))["format"] == "shelfie-solve win 4"
    assert [(s["seed"], s["players"], s["played_by"]) for s in third.info["sources"]][-2:] == [
        (18521, 3, "examples/win-sheets-34.json"), (18521, 4, "examples/win-sheets-34.json")]
    assert [s["seed"] for s in third.info["sources"]][:6] == [18101, 18101, 18102, 18102, 18111, 18111]
    shipped = default_win_model()
    for n in (3, 4):
        assert third.coefficients[n][:, 14:].any() and not np.array_equal(third.coefficients[n], shipped.coefficients[n])
