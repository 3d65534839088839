"""A win model's line states and trees on the board shape they were fitted on only
(learned/win_model.WinModel.for_board, the keys ``shape`` and ``other_shapes``; docs/formats.md
"Win-model file", docs/win-chance.md "Off the fitted board's shape"): on a board of another shape
the shipped model gives exactly the figures of the format-3 files it names there, on the default
board exactly those it gave before; a file is written back byte for byte; a malformed block is
refused in one line; ``train --win-model`` writes both."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, ROOT, assert_one_line_error, load_benchmark

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board, Marks, load_board
from shelfie_solver.dice.game.events import GameState
from shelfie_solver.dice.learned.win_fit import train_win_model
from shelfie_solver.dice.learned.win_model import (
    DEFAULT_WIN_PATH,
    FEATURES,
    FORMER_FEATURES,
    OTHER_SHAPES_KEY,
    SHAPE_KEY,
    WinModel,
    WinModelError,
    assemble,
    compiled_win_values,
    fit,
    load_win_model,
    model_from_dict,
    model_text,
    sized_model,
    win_objective,
)
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.rules import DEFAULT_RULES

SMALL = load_board(EXAMPLES / "boards" / "small-4x3.toml", DEFAULT_RULES)
DEFAULT = load_board(None, DEFAULT_RULES)


def random_state(rng: np.random.Generator, board: Board, players: int) -> GameState:
    """A random table of ``players`` seats on ``board`` (each item marked, eliminated or
    available at random; the active seat with an available item)."""
    bits = 1 << np.arange(board.n_cells, dtype=object)

    def sheet() -> Marks:
        state = rng.choice(3, size=board.n_cells, p=rng.dirichlet((1.0, 0.4, 1.0)))
        return Marks(board.n_shelves, board.n_columns, int((bits * (state == 1)).sum()),
                     int((bits * (state == 2)).sum()))

    sheets = [sheet() for _ in range(players)]
    active = int(rng.integers(players))
    while not sheets[active].available:
        sheets[active] = sheet()
    first = int(rng.integers(players))
    turn = players * int(rng.integers(0, 6)) + (active - first) % players
    return GameState(board, DEFAULT_RULES, tuple(sheets), active, first, turn, bool(rng.integers(2)))


def figures(state: GameState, model: WinModel) -> tuple[list[int], list[tuple[int, int]]]:
    """Every item set's chance and the failed result's shelves at ``state`` (numpy path)."""
    from shelfie_solver.dice.allocate import feasibility_arrays

    objective = win_objective(state, model)
    arrays = StateArrays(state.board, state.rules, state.marks)
    sets = feasibility_arrays(state.board, state.rules).sets
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    return objective.values(arrays, sets.take(usable)).tolist(), objective.shelf_values(arrays)


def test_the_shipped_file_names_format_three_files_for_other_shapes():
    """data/win.json's other shapes are the format-3 files its block names, each count's rows and
    record (win_model.assemble of that count alone) as its file's: 2 players examples/win-first.json
    (fitted on the default board), 3 and 4 examples/win-other-shapes-34-sized.json (fitted on random
    boards of many shapes, points read at the size factor: docs/win-chance.md "In the board's own
    points"), no line state; the block's points exponent 3/4."""
    shipped = load_win_model(DEFAULT_WIN_PATH)
    assert shipped.shape == (DEFAULT.n_shelves, DEFAULT.n_columns) == (5, 5)
    other = shipped.other_shapes
    assert other is not None and not other.trees
    files = {n: record["file"] for n, record in other.info["fitted"].items()}
    assert files == {"2": "examples/win-first.json", "3": "examples/win-other-shapes-34-sized.json",
                     "4": "examples/win-other-shapes-34-sized.json"}
    assert other.points_exponent == Fraction(3, 4)
    for n, name in files.items():
        source = json.loads((ROOT / name).read_text("utf-8"))
        assert source["format"] == "shelfie-solve win 3"  # no line states in the file at all
        assert other.coefficients[int(n)][:, :len(FORMER_FEATURES)].tolist() == source["coefficients"][n]
        assert not other.coefficients[int(n)][:, len(FORMER_FEATURES):].any()
        alone = assemble({int(n): (load_win_model(ROOT / name), name)})
        assert other.info["fitted"][n] == alone.info["fitted"][n]
    # fitted on different boards: the block's own board names neither, the records each their own
    assert other.info["fitted"]["2"]["board"] == "shelfie-solve default"
    assert "random boards" in other.info["fitted"]["3"]["board"] and other.info["board"] != "shelfie-solve default"
    again = WinModel({int(n): load_win_model(ROOT / name).coefficients[int(n)] for n, name in files.items()},
                     other.info, points_exponent=Fraction(3, 4))
    assert model_text(replace(shipped, other_shapes=again)) == DEFAULT_WIN_PATH.read_text("utf-8")


def test_the_many_shapes_example_files():
    """examples/win-other-shapes.json (2 players, measured, not shipped),
    examples/win-other-shapes-34.json (3 and 4, shipped for other shapes until 2026-12-07) and
    examples/win-other-shapes-34-sized.json (3 and 4, shipped since, docs/win-chance.md "In the
    board's own points"): format 3, the other
    counts at even chances, fitted on boards none of which is a board of examples/boards or has
    the default board's shape 5 x 5, up to relabelling (benchmarks/win_shapes.py)."""
    from shelfie_solver.dice.wholegame.random_boards import canonical

    shapes = load_benchmark("win_shapes")
    for name, counts in (("win-other-shapes.json", (2,)), ("win-other-shapes-34.json", (3, 4)),
                         ("win-other-shapes-34-sized.json", (3, 4))):
        data = json.loads((EXAMPLES / name).read_text("utf-8"))
        assert data["format"] == "shelfie-solve win 3" and data["players"] == list(counts)
        model = load_win_model(EXAMPLES / name)
        for n in (2, 3, 4):
            assert model.coefficients[n].any() == (n in counts)
        assert data["positions"] == sum(s["positions"] for s in data["sources"])
        boards = shapes.draw_boards(data["seed"], data["boards"])
        assert len(boards) == data["boards"] and all((b.n_shelves, b.n_columns) != (5, 5) for b in boards)
        tests = {canonical(*layout) for layout in shapes.test_layouts()}
        assert len(tests) >= 19 and not tests & {canonical(b.columns, b.values) for b in boards}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_another_shape_gets_the_format_three_figures(players):
    """On a 4 x 3 board every chance of every item set and shelf is the format-3 file's put in the
    board's points (win_model.sized_model at the exponent 3/4), on the numpy path and the compiled
    one (the line states and trees of 5 x 5 not read)."""
    shipped = load_win_model(DEFAULT_WIN_PATH)
    name = "win-first.json" if players == 2 else "win-other-shapes-34-sized.json"
    former = sized_model(replace(load_win_model(EXAMPLES / name), points_exponent=Fraction(3, 4)), SMALL)
    assert shipped.for_board(SMALL) is sized_model(shipped.other_shapes, SMALL) and shipped.for_board(DEFAULT) is shipped
    rng = np.random.default_rng(5300 + players)
    differ = 0
    for _ in range(15):
        state = random_state(rng, SMALL, players)
        assert figures(state, shipped) == figures(state, former)
        found, expected = compiled_win_values(state, shipped), compiled_win_values(state, former)
        if found is not None or expected is not None:
            assert found is not None and expected is not None
            assert np.array_equal(found[0], expected[0]) and found[2] == expected[2]
        # the rows of 5 x 5, read on this board, would give other figures
        differ += figures(state, replace(shipped, shape=None, other_shapes=None)) != figures(state, former)
    assert differ > 0


@pytest.mark.parametrize("players", [2, 3])
def test_the_default_board_keeps_its_figures(players):
    """On the default board (5 x 5) the block changes nothing: the same figures as the file
    without it."""
    shipped = load_win_model(DEFAULT_WIN_PATH)
    without = replace(shipped, shape=None, other_shapes=None)
    rng = np.random.default_rng(5310 + players)
    for _ in range(6):
        state = random_state(rng, DEFAULT, players)
        assert figures(state, shipped) == figures(state, without)


def test_a_model_without_a_shape_is_read_on_every_board():
    """Files before 2026-12-07 (no ``shape``): one model for every board, as they played."""
    former = load_win_model(EXAMPLES / "win-sheets.json")
    assert former.shape is None and former.for_board(SMALL) is former
    assert SHAPE_KEY not in json.loads(model_text(former))


def test_simulate_plays_the_format_three_file_on_another_shape(monkeypatch, tmp_path):
    """A user's run: ``simulate`` on a 2 x 3 board, the model playing (no exact table), plays
    the same games under the shipped model as under a format-3 file of examples/win-first.json's
    rows put in the board's points (win_model.sized_model; seeded; the same results)."""
    monkeypatch.setenv("SHELFIE_SOLVE_EXACT2_BUDGET", "0")

    def run(*extra: str) -> dict:
        result = CliRunner().invoke(main, ["simulate", "--players", "win,learned", "--games", "6", "--seed", "5",
                                           "--jobs", "1", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"),
                                           "--format", "json", *extra])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        data.pop("win_model", None)
        return data

    tiny = load_board(EXAMPLES / "boards" / "tiny-2x3.toml", DEFAULT_RULES)
    first = json.loads((EXAMPLES / "win-first.json").read_text("utf-8"))
    sized = sized_model(load_win_model(DEFAULT_WIN_PATH).other_shapes, tiny)
    first["coefficients"] = {str(n): c[:, :len(FORMER_FEATURES)].tolist() for n, c in sized.coefficients.items()}
    (tmp_path / "sized.json").write_text(json.dumps(first), "utf-8")
    assert run() == run("--win-model", str(tmp_path / "sized.json"))
    assert run() != run("--win-model", str(EXAMPLES / "win-first.json"))  # as they are: other games
    # the 5 x 5 rows, read on this board, play other games (the block is what changed them)
    data = _shipped_data()
    del data[SHAPE_KEY], data[OTHER_SHAPES_KEY]
    (tmp_path / "w.json").write_text(json.dumps(data), "utf-8")
    assert run() != run("--win-model", str(tmp_path / "w.json"))


def _shipped_data() -> dict:
    return json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))


@pytest.mark.parametrize("edit, fragment", [
    (lambda d: d.pop(OTHER_SHAPES_KEY), '"shape" and "other_shapes" come together'),
    (lambda d: d.pop(SHAPE_KEY), '"shape" and "other_shapes" come together'),
    (lambda d: d.update(shape=[5]), '"shape" must be [shelves, columns]'),
    (lambda d: d.update(shape=[5, 0]), '"shape" must be [shelves, columns]'),
    (lambda d: d.update(shape=[5, 5.0]), '"shape" must be [shelves, columns]'),
    (lambda d: d.update(shape="5x5"), '"shape" must be [shelves, columns]'),
    (lambda d: d.update(other_shapes=[]), '"other_shapes" must be an object'),
    (lambda d: d[OTHER_SHAPES_KEY].update(features=list(FEATURES)), '"other_shapes": "features" must be'),
    (lambda d: d[OTHER_SHAPES_KEY].pop("features"), '"other_shapes": "features" must be'),
    (lambda d: d[OTHER_SHAPES_KEY].update(coefficient=1), 'unknown key \'coefficient\'; did you mean "coefficients"'),
    (lambda d: d[OTHER_SHAPES_KEY]["coefficients"].pop("4"), 'no coefficients for 4 players'),
    (lambda d: d[OTHER_SHAPES_KEY]["coefficients"].update({"02": []}), 'has the key "02"'),
    (lambda d: d[OTHER_SHAPES_KEY]["coefficients"]["2"][0].append(1), "3 rows of 14 whole numbers"),
    (lambda d: d[OTHER_SHAPES_KEY]["coefficients"]["3"][1].__setitem__(0, 0.5), "3 rows of 14 whole numbers"),
    (lambda d: d[OTHER_SHAPES_KEY]["coefficients"]["3"][1].__setitem__(0, 2 ** 63), "out of range"),
    (lambda d: d.update(other_shape=1), 'did you mean "other_shapes"'),
])
def test_a_malformed_block_is_refused_in_one_line(edit, fragment, tmp_path):
    data = _shipped_data()
    edit(data)
    with pytest.raises(WinModelError, match=None) as error:
        model_from_dict(data, "w.json")
    assert fragment in str(error.value) and "\n" not in str(error.value)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data), "utf-8")
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--opponent", "o..../o..../o..../...../.....",
                                        "--win-model", str(path)])
    assert_one_line_error(result, "--win-model", fragment)


def test_a_file_with_the_block_is_written_back_byte_for_byte():
    text = DEFAULT_WIN_PATH.read_text("utf-8")
    assert model_text(model_from_dict(json.loads(text), "w.json")) == text


def test_a_model_of_other_shapes_has_format_three_features_only():
    shipped = load_win_model(DEFAULT_WIN_PATH)
    with pytest.raises(ValueError, match="come together"):
        replace(shipped, other_shapes=None)
    with pytest.raises(ValueError, match="format 3's features only"):
        replace(shipped, other_shapes=replace(shipped, shape=None, other_shapes=None))


def test_train_writes_the_shape_and_format_three_rows_for_other_shapes():
    """``train --win-model`` on a board: its full fit on boards of that shape, and format 3's
    features fitted to the same positions (:func:`win_model.fit` of 14 columns) elsewhere."""
    from shelfie_solver.dice.learned.win_fit import self_play_positions

    model = train_win_model(SMALL, DEFAULT_RULES, seed=8, games=20)
    assert model.shape == (4, 3) and model.other_shapes is not None
    samples = self_play_positions(SMALL, DEFAULT_RULES, 8, 20)
    for n in (2, 3, 4):
        assert np.array_equal(model.coefficients[n], fit(samples).coefficients[n])
        only = fit(samples, columns=len(FORMER_FEATURES)).coefficients[n]
        assert np.array_equal(model.other_shapes.coefficients[n], only) and not only[:, len(FORMER_FEATURES):].any()
        assert only.any()
    back = model_from_dict(json.loads(model_text(model)), "t.json")
    assert back.shape == (4, 3) and np.array_equal(back.other_shapes.coefficients[4], only)
    assert model.for_board(DEFAULT) is model.other_shapes and model.for_board(SMALL) is model


@pytest.mark.parametrize("fitted", [[1], "x", {"2": {}}, {"2": 1, "3": 1, "4": 1}, {"2": {}, "3": {}, "4": {}, "5": {}}])
def test_the_blocks_fitted_record_is_checked_as_the_files_own(fitted, tmp_path):
    """The "fitted" of "other_shapes" maps exactly the counts of its coefficients to records, as
    the file's own "fitted" must (one rule): a partial one would fail ``fitted_for`` later."""
    data = _shipped_data()
    data[OTHER_SHAPES_KEY]["fitted"] = fitted
    with pytest.raises(WinModelError) as error:
        model_from_dict(data, "w.json")
    assert '"other_shapes": "fitted" must map each number of players' in str(error.value)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data), "utf-8")
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--opponent", "o..../o..../o..../...../.....",
                                        "--win-model", str(path)])
    assert_one_line_error(result, "--win-model", '"fitted" must map')


@pytest.mark.parametrize("fmt, width", [("shelfie-solve win 3", 14), ("shelfie-solve win 2", 13)])
def test_a_former_format_with_a_shape_is_refused(fmt, width):
    """"shape" and "other_shapes" are of formats 4 and 5 only (docs/formats.md, "Win-model
    file"): a file of format 3 or 2 has no line states or trees for the shape to name, and no
    version wrote one with them (as "trees" outside format 5)."""
    data = _shipped_data()
    data.pop("trees")
    data.update(format=fmt, features=list(FEATURES[:width]),
                coefficients={n: [row[:width] for row in rows] for n, rows in data["coefficients"].items()})
    with pytest.raises(WinModelError, match='"shape" in a file of "format": "shelfie-solve win [23]"'):
        model_from_dict(data, "w.json")
    data.pop(SHAPE_KEY), data.pop(OTHER_SHAPES_KEY)
    assert model_from_dict(data, "w.json").shape is None


def test_a_block_of_deep_records_is_written_readable():
    """Records kept in "other_shapes" sit one level deeper than the file's own: a block assembled
    from a long chain of fits (benchmarks/win_sheets.py assemble, ``win_model.assemble``) is
    written within the 32 levels a file is read to, its newest levels kept."""
    from shelfie_solver.core.inputs import parse_json
    from shelfie_solver.dice.learned.win_model import played_by_record, replace_info

    chain = load_win_model(EXAMPLES / "win-first.json")
    for step in range(40):  # each step records the one before, as train --play-model does
        chain = replace_info(chain, played_by_info=played_by_record(chain), step=step)
    shipped = load_win_model(DEFAULT_WIN_PATH)
    model = replace(shipped, other_shapes=assemble({n: (chain, "chain.json") for n in (2, 3, 4)}, "other"))
    text = model_text(model)
    read = model_from_dict(parse_json(text, WinModelError, "w.json", "a win-model file"), "w.json")
    assert read.other_shapes is not None and read.other_shapes.info["fitted"]["2"]["step"] == 39
    assert model_text(read) == text


def test_the_note_says_which_coefficients_gave_the_figures():
    """``advise --opponent``: on the default board the model's note (its distance from rollouts
    measured there); on a 4 x 3 board the note of the other shapes' coefficients, naming the
    shape the line states were fitted on (the note had described the 5 x 5 model everywhere)."""
    def flat(*board: str) -> str:
        result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--opponent",
                                           "o../.../.../..." if board else "o..../o..../o..../...../.....", *board])
        assert result.exit_code == 0, result.output
        return " ".join(result.output.split())

    default = flat()
    assert "about 7 percentage points from rollouts" in default and "Off the fitted board's shape" not in default
    small = flat("--board", str(EXAMPLES / "boards" / "small-4x3.toml"))
    assert "without the sheets' line states and trees, which were fitted on 5 x 5 boards" in small
    assert "read in points of this board's size" in small and "on three boards of other shapes" in small
    assert "of the advised play" not in small and "rollouts on three boards" not in default
