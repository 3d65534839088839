"""Solitaire weights per board shape (``LearnedModel.shapes``, ``train --solitaire-shapes``) and the
large family (``random_boards.large_boards``, ``train --solitaire-large``): the parameter file's
``"solitaire_shapes"`` entry, which table a game uses (``for_board``), the per-shape fit against
the ``--table`` path, the sampled float sums, and the CLI options (docs/train.md)."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import assert_one_line_error, small_rules

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board, Marks, load_board
from shelfie_solver.dice.learned import fit_solved as fs
from shelfie_solver.dice.learned import train as tr
from shelfie_solver.dice.learned.fit_solved import (
    BOARD_STREAM,
    LARGE_STREAM,
    board_float_sums,
    fit_shapes,
    fit_table_sums,
    fit_value_tables,
    pooled_fit,
    solve_boards,
)
from shelfie_solver.dice.learned.fitting import Sums, TrainError
from shelfie_solver.dice.learned.model_file import (
    MAX_WEIGHT,
    N_FEATURES,
    PHASES,
    SHAPES_KEY,
    LearnedModel,
    ModelError,
    check_weights,
    load_model,
    model_from_dict,
    model_text,
    shape_key,
)
from shelfie_solver.dice.learned.objective import game_objective, solitaire_objective
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.sheet_rules import end_trigger_shelves
from shelfie_solver.dice.wholegame import random_boards as rb
from shelfie_solver.dice.wholegame.solver import GameSolution, solve_game, state_count
from shelfie_solver.dice.wholegame.state_index import state_index

ROOT = Path(__file__).resolve().parents[1]
BOARDS = ROOT / "examples" / "boards"
SHIPPED = ROOT / "shelfie_solver" / "dice" / "data" / "learned.json"
#: The family of tiny boards (2 x 2 only, 33 states each), as tests/test_random_boards.py.
TINY = 40
#: 2 x 2, 2 x 3 and 3 x 2 boards (at most 154 states): boards of several shapes in about a second.
MIXED = 200


def table(seed: int) -> np.ndarray:
    """Random ``int64 (3, N_FEATURES)`` weights well within MAX_WEIGHT."""
    return np.random.default_rng(seed).integers(-10**6, 10**6, size=(3, N_FEATURES), dtype=np.int64)


def shaped_model() -> LearnedModel:
    return LearnedModel({1: table(1), 2: table(2)}, {"trained": {"note": "x"}}, {(3, 3): table(3), (2, 5): table(4)})


def same_sums(a: dict[int, Sums], b: dict[int, Sums]) -> bool:
    return a.keys() == b.keys() and all(
        a[p].count == b[p].count and a[p].yy == b[p].yy and np.array_equal(a[p].xtx, b[p].xtx)
        and np.array_equal(a[p].xty, b[p].xty) for p in a)


def total(sums: dict[int, Sums]) -> int:
    return sum(s.count for s in sums.values())


# --- the parameter file -------------------------------------------------------------------------

def test_shapes_round_trip_through_the_file():
    model = shaped_model()
    text = model_text(model)
    data = json.loads(text)
    assert set(data[SHAPES_KEY]) == {"2x5", "3x3"}  # shelves x columns
    again = model_from_dict(data)
    assert again.shapes.keys() == model.shapes.keys() and again.weights.keys() == model.weights.keys()
    assert all(np.array_equal(again.shapes[s], model.shapes[s]) and again.shapes[s].dtype == np.int64
               for s in model.shapes)
    assert all(np.array_equal(again.weights[n], model.weights[n]) for n in model.weights)
    assert again.info == {"trained": {"note": "x"}}  # the shapes are not taken for info
    assert model_text(again) == text
    assert shape_key((5, 3)) == "5x3"


def test_a_model_without_shapes_writes_no_shapes_key_and_the_shipped_file_is_unchanged():
    plain = LearnedModel({1: table(1)}, {"trained": {"note": "x"}})
    assert SHAPES_KEY not in json.loads(model_text(plain))
    assert model_from_dict(json.loads(model_text(plain))).shapes == {}
    # the shipped parameters, read and written again, byte for byte
    text = SHIPPED.read_text()
    assert model_text(load_model(SHIPPED)) == text


@pytest.mark.parametrize("entry", [
    {"2x": "ROWS"}, {"0x5": "ROWS"}, {"8x2": "ROWS"}, {"2x8": "ROWS"}, {"02x5": "ROWS"}, {"a": "ROWS"},
    {"2x5x1": "ROWS"}, {" 2x5": "ROWS"},
    {"2x5": "SHORT"}, {"2x5": "HALF"}, {"2x5": [1, 2, 3]}, {"2x5": 7}, [1, 2], "2x5", None,
])
def test_bad_shape_entries_are_refused_in_one_line(entry):
    rows = {str(p): [0] * N_FEATURES for p in PHASES}

    def fill(value):
        if value == "ROWS":
            return rows
        if value == "SHORT":
            return {**rows, "2": [0] * (N_FEATURES - 1)}
        if value == "HALF":
            return {**rows, "3": [0.5] + [0] * (N_FEATURES - 1)}  # numpy would cut it to 0
        return value

    data = json.loads(model_text(LearnedModel({1: table(1)})))
    data[SHAPES_KEY] = {k: fill(v) for k, v in entry.items()} if isinstance(entry, dict) else entry
    with pytest.raises(ModelError) as error:
        model_from_dict(data, "f.json")
    message = str(error.value)
    assert "\n" not in message and message.startswith("f.json: ") and SHAPES_KEY in message


def test_a_shape_weight_beyond_the_bound_is_refused():
    data = json.loads(model_text(LearnedModel({1: table(1)})))
    data[SHAPES_KEY] = {"2x5": {str(p): [0] * N_FEATURES for p in PHASES}}
    data[SHAPES_KEY]["2x5"]["2"][0] = MAX_WEIGHT + 1
    with pytest.raises(ModelError, match="beyond"):
        model_from_dict(data, "f.json")
    data[SHAPES_KEY]["2x5"]["2"][0] = -MAX_WEIGHT  # the bound itself is allowed
    assert model_from_dict(data).shapes[(2, 5)][1, 0] == -MAX_WEIGHT
    # check_weights (what train runs before writing) covers the shape tables too
    big = table(3)
    big[2, 5] = MAX_WEIGHT + 1
    with pytest.raises(ModelError, match="beyond"):
        check_weights(LearnedModel({1: table(1)}, {}, {(2, 2): big}), "fitted")
    check_weights(LearnedModel({1: table(1)}, {}, {(2, 2): table(3)}), "fitted")


def test_learned_file_with_bad_shapes_through_the_cli(tmp_path):
    data = json.loads(SHIPPED.read_text())
    data[SHAPES_KEY] = {"02x5": data["weights"]["1"]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["simulate", "--players", f"learned:{path}", "--games", "1", "--seed", "1"])
    assert_one_line_error(result, SHAPES_KEY, "bad.json")


# --- which table a game uses ---------------------------------------------------------------------

def test_for_board_takes_the_shape_table_in_solitaire_only(board, rules):
    small = load_board(BOARDS / "small.toml", rules)  # 3 x 3
    assert (small.n_shelves, small.n_columns) == (3, 3) and (board.n_shelves, board.n_columns) == (5, 5)
    model = shaped_model()
    assert model.for_board(1, small) is model.shapes[(3, 3)]
    assert model.for_board(1, board) is model.weights[1]  # 5 x 5: no table of its own
    assert model.for_board(2, small) is model.weights[2]  # with opponents: the players' weights
    assert model.for_board(3, small) is model.weights[2]  # nearest count fitted, as for_players
    assert solitaire_objective(small, model).weights is model.shapes[(3, 3)]
    assert solitaire_objective(board, model).weights is model.weights[1]
    one = game_objective(small, rules, (Marks.empty(small),), 0, 0, False, model)
    two = game_objective(small, rules, (Marks.empty(small),) * 2, 0, 0, False, model)
    assert one.weights is model.shapes[(3, 3)] and two.weights is model.weights[2]


def test_a_shape_table_changes_the_advice_on_that_shape_only(board, rules):
    # The constant of the 3 x 3 table differs: solitaire values on small.toml differ by the
    # objective's before() (phase 3: the sheet is empty), those on the 5 x 5 board do not.
    from shelfie_solver.dice.learned.model_file import FEATURE_NAMES
    from shelfie_solver.dice.objectives import StateArrays

    small = load_board(BOARDS / "small.toml", rules)
    base = LearnedModel({1: table(1)})
    shifted = base.weights[1].copy()
    shifted[2, FEATURE_NAMES.index("constant")] += 10 * 100_000  # +10 points (WEIGHT_SCALE 100000)
    model = LearnedModel({1: table(1)}, {}, {(3, 3): shifted})
    assert (solitaire_objective(small, model).before(StateArrays(small, rules, Marks.empty(small)))
            - solitaire_objective(small, base).before(StateArrays(small, rules, Marks.empty(small)))) == 10 * 16
    assert (solitaire_objective(board, model).before(StateArrays(board, rules, Marks.empty(board)))
            == solitaire_objective(board, base).before(StateArrays(board, rules, Marks.empty(board))))


# --- the fits ------------------------------------------------------------------------------------

def test_fit_shapes_on_one_shape_is_the_pooled_fit():
    solved = solve_boards(DEFAULT_RULES, 2, 3, max_states=TINY)
    assert {(b.n_shelves, b.n_columns) for b, _ in solved} == {(2, 2)}
    lines: list[str] = []
    shapes = fit_shapes(solved, DEFAULT_RULES, 3, lines.append)
    assert shapes.keys() == {(2, 2)} and np.array_equal(shapes[(2, 2)], pooled_fit(solved, DEFAULT_RULES))
    assert len(lines) == 1 and lines[0].startswith("2 x 2 boards: 3 value tables, RMS error phase 2 ")
    assert fit_shapes(solved, DEFAULT_RULES, 4) == {}  # fewer boards than asked for
    said: list[str] = []  # and train says so rather than writing no table silently
    assert fit_shapes(solved, DEFAULT_RULES, 4, said.append) == {}
    assert said == [("no board shape has 4 or more of the 3 boards: the pooled table only (more "
                    "--solitaire-boards, or a lower --solitaire-shapes)")]


def test_fit_shapes_is_the_table_fit_of_each_shapes_boards():
    # seed 1, 4 boards of the 2 x 2 / 2 x 3 / 3 x 2 family: two 2 x 2, one 2 x 3, one 3 x 2
    boards = rb.random_boards(np.random.SeedSequence(1, spawn_key=(BOARD_STREAM,)), 4, DEFAULT_RULES, MIXED)
    counts = Counter((b.n_shelves, b.n_columns) for b in boards)
    assert counts == {(2, 2): 2, (2, 3): 1, (3, 2): 1}
    solved = solve_boards(DEFAULT_RULES, 1, 4, max_states=MIXED)
    assert sorted(b.name for b, _ in solved) == sorted(b.name for b in boards)
    shapes = fit_shapes(solved, DEFAULT_RULES, 2)
    assert shapes.keys() == {(2, 2)}  # the shapes with one board get none
    # the --table path: the exact value tables of the 2 x 2 boards solved directly, fitted alone
    square = [b for b in boards if (b.n_shelves, b.n_columns) == (2, 2)]
    model, _ = fit_value_tables([solve_game(b, DEFAULT_RULES) for b in square])
    assert np.array_equal(shapes[(2, 2)], model.weights[1])
    everything, _ = fit_value_tables([solve_game(b, DEFAULT_RULES) for b in boards])
    assert np.array_equal(pooled_fit(solved, DEFAULT_RULES), everything.weights[1])
    # on 2 x 2 boards no line reaches 3 marks (D19): their own fit is not the pooled one
    assert not np.array_equal(shapes[(2, 2)], everything.weights[1])
    # min_boards 1 (and 0, taken as 1): every shape
    assert fit_shapes(solved, DEFAULT_RULES, 1).keys() == set(counts) == fit_shapes(solved, DEFAULT_RULES, 0).keys()


def test_board_float_sums_sample():
    board = rb.random_boards(np.random.SeedSequence(2, spawn_key=(BOARD_STREAM,)), 1, DEFAULT_RULES, TINY)[0]
    count = state_count(board, DEFAULT_RULES)
    assert count == 33
    whole = board_float_sums(board, DEFAULT_RULES)
    assert total(whole) == count
    seed = np.random.SeedSequence(5)
    some = board_float_sums(board, DEFAULT_RULES, 10, seed)
    assert total(some) == 10
    assert same_sums(some, board_float_sums(board, DEFAULT_RULES, 10, np.random.SeedSequence(5)))
    assert not same_sums(some, board_float_sums(board, DEFAULT_RULES, 10, np.random.SeedSequence(6)))
    # a sample of at least the board's states is the whole board
    assert same_sums(board_float_sums(board, DEFAULT_RULES, count, seed), whole)
    assert same_sums(board_float_sums(board, DEFAULT_RULES, 10 * count, seed), whole)
    # The states drawn as documented (uniform without replacement, default_rng(seed), state_index
    # order): their phases counted by hand (D17: phase 2 one closed shelf short of the trigger) and
    # the fit to their exact values by the --table path (fit_value_tables); float targets: within 1 unit.
    index = state_index(board, DEFAULT_RULES)
    picks = sorted(int(i) for i in np.random.default_rng(np.random.SeedSequence(5)).choice(count, 10, replace=False))
    exact = solve_game(board, DEFAULT_RULES)
    chosen = [index.marks(i) for i in picks]
    trigger = end_trigger_shelves(board, DEFAULT_RULES)
    near = sum(trigger - m.closed_shelves() == 1 for m in chosen)
    assert (some[2].count, some[3].count) == (near, 10 - near)
    values: dict[tuple[int, int], Fraction] = {(m.marked, m.eliminated): exact.values[(m.marked, m.eliminated)]
                                               for m in chosen}
    model, _ = fit_value_tables([GameSolution(board, DEFAULT_RULES, values)])
    sampled, _ = fit_table_sums([some], DEFAULT_RULES.scoring_threshold)
    assert np.abs(model.weights[1] - sampled).max() <= 1


def test_solve_boards_adds_the_large_boards_sampled(monkeypatch):
    # Never a real large board in a test (4.7 million states): the family is replaced by two tiny
    # boards; each contributes LARGE_SAMPLE of its states, sampled from (LARGE_STREAM, 1)'s children.
    stand_ins = rb.random_boards(np.random.SeedSequence(99), 2, DEFAULT_RULES, TINY)
    calls = []

    def fake(seed, count, rules):
        calls.append((seed.entropy, seed.spawn_key, count))
        return stand_ins[:count]

    monkeypatch.setattr(rb, "large_boards", fake)
    monkeypatch.setattr(fs, "LARGE_SAMPLE", 12)
    steps: list[int] = []
    solved = solve_boards(DEFAULT_RULES, 3, 2, max_states=TINY, large=2, progress=steps.append)
    assert calls == [(3, (LARGE_STREAM,), 2)] and sum(steps) == 4
    assert [b for b, _ in solved[2:]] == stand_ins
    samples = np.random.SeedSequence(3, spawn_key=(LARGE_STREAM, 1)).spawn(2)
    for (board, sums), sample in zip(solved[2:], samples):
        assert total(sums) == 12
        assert same_sums(sums, board_float_sums(board, DEFAULT_RULES, 12, sample))
    # the small boards are those without large boards, solved exactly
    plain = solve_boards(DEFAULT_RULES, 3, 2, max_states=TINY)
    assert [b for b, _ in plain] == [b for b, _ in solved[:2]]
    assert all(same_sums(a, b) for (_, a), (_, b) in zip(plain, solved))
    assert total(solved[0][1]) == 33


# --- the large family ----------------------------------------------------------------------------

def test_large_boards_are_seeded_legal_different_and_never_held_out():
    one = rb.large_boards(np.random.SeedSequence(7), 12, DEFAULT_RULES)
    assert one == rb.large_boards(np.random.SeedSequence(7), 12, DEFAULT_RULES)
    assert one != rb.large_boards(np.random.SeedSequence(8), 12, DEFAULT_RULES)
    assert rb.LARGE_SHAPES == ((4, 5), (5, 4))
    assert [(b.n_shelves, b.n_columns) for b in one] == [(4, 5), (5, 4)] * 6  # in turn
    assert [b.name for b in one] == [f"large {i}" for i in range(1, 13)]
    items = {i for i in range(len(DEFAULT_RULES.faces)) if i != DEFAULT_RULES.joker_index}
    held = set()
    for name in ("held-out-4x5.toml", "held-out-5x4-2345.toml"):
        h = load_board(BOARDS / name, DEFAULT_RULES)
        held |= variants(h)
    seen: set = set()
    for board in one:
        # D3: each column needs a different number of dice, 1..5, increasing; one face per shelf
        assert list(board.columns) == sorted(set(board.columns)) and set(board.columns) <= {1, 2, 3, 4, 5}
        faces = [f for fs in board.shelf_faces for f in fs]
        assert all(len(fs) == 1 for fs in board.shelf_faces) and len(set(faces)) == len(faces) <= 5
        assert set(faces) <= items
        for row in board.values:
            for n, value in zip(board.columns, row):
                assert rb.VALUE_RANGES[n][0] <= value <= rb.VALUE_RANGES[n][1]
        mine = variants(board)
        assert not mine & held and not mine & seen  # no held-out board, no two alike, up to relabelling
        seen |= mine
    # D17: the trigger of a 4 x 5 / 5 x 4 board, about 4.7-4.8 million non-terminal states
    assert all(4_500_000 < state_count(b, DEFAULT_RULES) < 5_000_000 for b in one[:2])


def variants(board: Board) -> set:
    """Every relabelling (shelf and column orders) of a board's layout, by brute force."""
    return {(tuple(board.columns[c] for c in cols), tuple(tuple(board.values[s][c] for c in cols) for s in shelves))
            for cols in permutations(range(board.n_columns)) for shelves in permutations(range(board.n_shelves))}


def test_a_held_out_large_board_drawn_is_drawn_again(monkeypatch):
    held = load_board(BOARDS / "held-out-4x5.toml", DEFAULT_RULES)
    order = (4, 2, 0, 1, 3)
    disguised = Board("disguised", tuple(held.columns[c] for c in order), ((0,), (2,), (4,), (1,)),
                      tuple(tuple(held.values[s][c] for c in order) for s in (3, 1, 2, 0)))
    drawn = iter([disguised, held])
    real = rb.board_of_shape

    def fake(rng, items, name, shape):
        board = real(rng, items, name, shape)
        return next(drawn, board)

    monkeypatch.setattr(rb, "board_of_shape", fake)
    boards = rb.large_boards(np.random.SeedSequence(1), 2, DEFAULT_RULES)
    assert not any(variants(b) & variants(held) for b in boards)


def test_large_boards_need_five_item_faces():
    rules = small_rules(dice=5, faces=4)
    with pytest.raises(ValueError, match="5 item faces"):
        rb.large_boards(np.random.SeedSequence(1), 1, rules)
    with pytest.raises(ValueError, match="dice"):
        rb.large_boards(np.random.SeedSequence(1), 1, small_rules(dice=4, faces=5))
    # through solve_boards: refused before any board is solved
    steps: list[int] = []
    with pytest.raises(TrainError, match="--solitaire-large") as error:
        solve_boards(rules, 1, 2, max_states=TINY, large=1, progress=steps.append)
    assert "\n" not in str(error.value) and steps == []
    # without large boards that ruleset is fine for the small family
    assert len(solve_boards(rules, 1, 1, max_states=TINY)) == 1


# --- the CLI -------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, fragment", [
    (["--seed", "1", "--solitaire-shapes", "2"], "--solitaire-shapes"),
    (["--seed", "1", "--solitaire-large", "1"], "--solitaire-large"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-shapes", "-1"], "--solitaire-shapes"),
    (["--seed", "1", "--solitaire-boards", "2", "--solitaire-large", "-1"], "--solitaire-large"),
    (["--table", "x.json", "--solitaire-shapes", "2"], "--solitaire-shapes"),
    (["--table", "x.json", "--solitaire-large", "1"], "--solitaire-large"),
])
def test_bad_shape_and_large_options(args, fragment, tmp_path):
    assert_one_line_error(CliRunner().invoke(main, ["train", *args, "--output", str(tmp_path / "o.json")]),
                          fragment)


def test_train_refuses_negative_counts_and_lone_options(board, rules):
    for kwargs, fragment in [({"solitaire_shapes": 2}, "--solitaire-shapes"),
                             ({"solitaire_large": 1}, "--solitaire-large"),
                             ({"solitaire_boards": 2, "solitaire_shapes": -1}, "--solitaire-shapes"),
                             ({"solitaire_boards": 2, "solitaire_large": -1}, "--solitaire-large")]:
        with pytest.raises(TrainError, match=fragment):
            tr.train(board, rules, 1, 4, 1, 1, (1,), **kwargs)


def test_train_solitaire_shapes_writes_the_shape_tables_and_resumes(tmp_path, monkeypatch):
    # seed 6, 4 boards of the 2 x 2 / 2 x 3 / 3 x 2 family: two 2 x 3, one 2 x 2, one 3 x 2, so
    # with --solitaire-shapes 2 only 2 x 3 gets a table of its own.
    monkeypatch.setattr(rb, "MAX_STATES", MIXED)
    boards = rb.random_boards(np.random.SeedSequence(6, spawn_key=(BOARD_STREAM,)), 4, DEFAULT_RULES, MIXED)
    assert Counter((b.n_shelves, b.n_columns) for b in boards) == {(2, 3): 2, (2, 2): 1, (3, 2): 1}
    args = ["train", "--seed", "6", "--players", "1", "--iterations", "1", "--jobs", "1", "--solitaire-boards", "4",
            "--solitaire-shapes", "2", "--output", str(tmp_path / "s.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    model = load_model(tmp_path / "s.json")
    wide = [b for b in boards if (b.n_shelves, b.n_columns) == (2, 3)]
    expected, _ = fit_value_tables([solve_game(b, DEFAULT_RULES) for b in wide])
    assert model.shapes.keys() == {(2, 3)} and np.array_equal(model.shapes[(2, 3)], expected.weights[1])
    pooled, _ = fit_value_tables([solve_game(b, DEFAULT_RULES) for b in boards])
    assert np.array_equal(model.weights[1], pooled.weights[1])
    trained = model.info["trained"]
    assert trained["solitaire_shapes"] == 2 and trained["solitaire_boards"] == 4
    assert "solitaire_large" not in trained and "2x3" in trained["method"]
    assert "2 x 3 boards: 2 value tables, RMS error phase 2 " in result.stdout
    assert "2 x 2 boards" not in result.stdout and "3 x 2 boards" not in result.stdout
    assert "4 random boards' value tables, 1 player, phase 3" in result.stdout
    # a rerun resumes from the checkpoint (no board solved again) and writes the same file
    first = (tmp_path / "s.json").read_text()
    monkeypatch.setattr(fs, "board_table_sums", None)
    monkeypatch.setattr(tr, "solve_boards", None)
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert (tmp_path / "s.json").read_text() == first


# --- bad input found by probing (docs/train.md, "Tables per board shape") ------------------------

def shipped_with_shapes_text(entry: str) -> str:
    """The shipped file's text with its ``"solitaire_shapes"`` object replaced by the raw JSON ``entry``."""
    data = json.loads(SHIPPED.read_text())
    del data[SHAPES_KEY]
    return json.dumps(data)[:-1] + f', "{SHAPES_KEY}": {entry}}}'


def test_a_key_given_twice_in_a_parameter_file_is_refused(tmp_path):
    rows = json.dumps({str(p): [0] * N_FEATURES for p in PHASES})
    other = json.dumps({str(p): [1] * N_FEATURES for p in PHASES})
    path = tmp_path / "twice.json"
    path.write_text(shipped_with_shapes_text(f'{{"5x3": {rows}, "5x3": {other}}}'))  # JSON keeps the last
    with pytest.raises(ModelError, match="given twice") as error:
        load_model(path)
    assert "\n" not in str(error.value) and "'5x3'" in str(error.value)
    # the whole entry twice, through the CLI
    path.write_text(shipped_with_shapes_text(f'{{"5x3": {rows}}}')[:-1] + f', "{SHAPES_KEY}": {{}}}}')
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--objective", f"learned:{path}"])
    assert_one_line_error(result, "twice.json", SHAPES_KEY, "given twice")
    # once each: read as written
    path.write_text(shipped_with_shapes_text(f'{{"5x3": {rows}, "3x5": {other}}}'))
    assert load_model(path).shapes.keys() == {(5, 3), (3, 5)}


@pytest.mark.parametrize("change", ["extra phase", "01 players", "true weight", "true in weights"])
def test_junk_phases_players_and_booleans_are_refused(change):
    data = json.loads(model_text(LearnedModel({1: table(1)}, {}, {(2, 5): table(2)})))
    if change == "extra phase":  # a phase 4 would be ignored silently
        data[SHAPES_KEY]["2x5"]["4"] = [0] * N_FEATURES
    elif change == "01 players":  # would replace the "1" table silently
        data["weights"]["01"] = data["weights"]["1"]
    elif change == "true weight":  # True is an int in Python, but not a weight
        data[SHAPES_KEY]["2x5"]["1"][0] = True
    else:
        data["weights"]["1"]["3"][7] = True
    with pytest.raises(ModelError) as error:
        model_from_dict(data, "f.json")
    assert "\n" not in str(error.value) and str(error.value).startswith("f.json: ")


def test_train_refuses_shape_settings_that_fit_nothing(board, rules, monkeypatch):
    def reached(*args, **kwargs):
        raise AssertionError("reached the solve")

    monkeypatch.setattr(tr, "solve_boards", reached)
    for kwargs, fragment in [
            ({"solitaire_boards": 2, "solitaire_shapes": 3}, "at most their number"),  # 2 boards, none has 3
            ({"solitaire_boards": 1, "solitaire_hard": 1, "solitaire_shapes": 3}, "at most their number"),
            ({"solitaire_boards": 2, "solitaire_large": 2}, "--solitaire-shapes K beside it"),  # not pooled
            ({"solitaire_boards": 2, "solitaire_large": 2, "solitaire_shapes": 2}, "at least 4"),  # 1 + 1
            ({"solitaire_boards": 2, "solitaire_large": 3, "solitaire_shapes": 2}, "at least 4")]:  # 2 + 1
        with pytest.raises(TrainError, match=fragment) as error:
            tr.train(board, rules, 1, 4, 1, 1, (1,), **kwargs)
        assert "\n" not in str(error.value)
    for kwargs in [{"solitaire_boards": 2, "solitaire_shapes": 2},  # every large board feeds a table
                   {"solitaire_boards": 2, "solitaire_large": 1, "solitaire_shapes": 1},
                   {"solitaire_boards": 2, "solitaire_large": 4, "solitaire_shapes": 2}]:
        with pytest.raises(AssertionError, match="reached the solve"):
            tr.train(board, rules, 1, 4, 1, 1, (1,), **kwargs)


@pytest.mark.parametrize("args, fragment", [
    (["--win-model", "--solitaire-shapes", "3"], "--solitaire-shapes"),
    (["--win-model", "--solitaire-boards", "2", "--solitaire-large", "2"], "--solitaire-"),
    (["--solitaire-boards", "2", "--solitaire-large", "2"], "--solitaire-shapes"),
    (["--solitaire-boards", "2", "--solitaire-shapes", "5"], "--solitaire-shapes 5"),
])
def test_train_cli_refuses_ignored_shape_options(args, fragment, tmp_path):
    result = CliRunner().invoke(main, ["train", "--seed", "1", "--players", "1", *args,
                                       "--output", str(tmp_path / "o.json")])
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("extra, fragment", [
    (["--iterations", "3"], "--iterations"),
    (["--players", "2,3"], "--players"),
    (["--checkpoint", "c.json"], "--checkpoint"),
])
def test_win_model_refuses_the_self_play_options_it_would_ignore(extra, fragment, tmp_path):
    result = CliRunner().invoke(main, ["train", "--win-model", "--seed", "1", "--games", "2", *extra,
                                       "--output", str(tmp_path / "w.json")])
    assert_one_line_error(result, fragment, "has no effect with --win-model")
    assert not (tmp_path / "w.json").exists()


def test_learned_vs_optimum_bad_cache_seed_and_damaged_cache(tmp_path):
    import subprocess
    import sys

    script = ROOT / "benchmarks" / "learned_vs_optimum.py"
    board = BOARDS / "held-out-2x4-1245.toml"  # 705 states: solved in about a second
    plain = tmp_path / "plain"
    plain.write_text("")

    def run(*args):
        return subprocess.run([sys.executable, str(script), str(board), "--games", "2", *args],
                              check=False, capture_output=True, text=True, timeout=300, cwd=ROOT)

    for args in (["--cache", str(plain)], ["--cache", str(tmp_path / "c"), "--tables", str(plain)]):
        done = run(*args)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert len(done.stderr.splitlines()) == 1 and "plain" in done.stderr and "Traceback" not in done.stderr
    done = run("--seed", "-1", "--cache", str(tmp_path / "c"))
    assert done.returncode == 2 and "--seed" in done.stderr and "Traceback" not in done.stderr
    cache = tmp_path / "c"
    cache.mkdir(exist_ok=True)
    for damaged in ('{"board": ', "[1]", '{"board": "x", "optimum": "1"}'):
        (cache / "held-out-2x4-1245.json").write_text(damaged)
        done = run("--cache", str(cache))
        assert done.returncode == 0, done.stderr
        # solved again and rewritten whole
        assert json.loads((cache / "held-out-2x4-1245.json").read_text())["board"] == board.read_text()


def test_shipped_file_plays_the_pooled_table_over_the_exact_budget(rules):
    """The shipped solitaire tables per shape are those of the training family's shapes; 4 x 5
    and 5 x 4 boards (over the exact budget, where advice plays the fitted weights) use the
    pooled table unless their columns need many dice: their own tables, fitted to 3 sampled large
    boards each, lost to it on every board of the validation family (docs/strategies.md, "Pooled
    over the exact budget"); on those with a column of 4-5 dice, or needing 2.4 dice or more on
    average, the many-dice table (fitted with the spread family, ``train --solitaire-spread``)
    won there, on the others it lost; on boards of heavy needs (3 dice a column or more on average,
    half of the columns or more of 4-5; or no column under 3 dice and a quarter or more of 4-5) the heavy table
    (``train --solitaire-heavy``, docs/strategies.md "Boards of heavy needs", "Boards of repeated 3s beside
    4-5s"); on boards of repeated 3s beside 4-5s (no column under 3 dice, a quarter or more but under
    half of 4-5) the threes table (``train --solitaire-threes``, docs/strategies.md "A table for repeated
    3s beside 4-5s")."""
    model = load_model(SHIPPED)
    assert set(model.shapes) == set(rb.shapes(rules)) | {(2, 5), (3, 5)}
    assert set(model.many) == set(model.heavy) == set(model.threes) == {(4, 5), (5, 4)}
    for shape in ((4, 5), (5, 4)):
        shelves, columns = shape
        # 1, 2, ..: two of 4-5, of five on 4 x 5 (fewer than half: not heavy), of four on 5 x 4 (mean
        # 5/2): many dice; 5, 5, 1, ..: mean 13/5 on 4 x 5 (many dice), 3 on 5 x 4 (heavy)
        fives = model.many[shape] if columns == 5 else model.heavy[shape]
        # 3, 3, .., 5: one of five 4-5 on 4 x 5 (under a quarter: many dice), one of four on 5 x 4 (threes)
        threes = model.many[shape] if columns == 5 else model.threes[shape]
        # 3, .., 4, 5: two of five on 4 x 5 (threes), half on 5 x 4 (heavy)
        four_five = model.threes[shape] if columns == 5 else model.heavy[shape]
        for needs, table in ((tuple(range(1, columns + 1)), model.many[shape]), ((3,) * columns, model.many[shape]),
                             ((2,) * columns, model.weights[1]), ((5, 5) + (1,) * (columns - 2), fives),
                             ((5, 4, 4) + (3,) * (columns - 3), model.heavy[shape]),
                             ((3,) * (columns - 1) + (5,), threes), ((3,) * (columns - 2) + (4, 5), four_five)):
            board = Board("b", needs, tuple((i,) for i in range(shelves)),
                          tuple(tuple([1] * columns) for _ in range(shelves)))
            assert model.for_board(1, board) is table
