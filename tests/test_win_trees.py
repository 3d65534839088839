"""The win model's both-sheets trees (format 5; learned.win_trees, learned.win_model, the compiled
learned.kernel._win_tree_term; docs/win-chance.md "Both sheets: trees in integers (format 5)",
docs/formats.md "Win-model file"): a hand-built block's term against a plain walk of its node
lists written here, the numpy path against that walk on random 2-player positions, the compiled
path against the numpy path (strengths, a turn's values, the values from the table), an empty
block equal to format 4, every malformed block refused in one line (exit 2 through the CLI), the
monotone rule (a seat's chance never falls as its own P rises, D20), the file written and read
back. Seeds 18001-18008 (18009: the synthetic benchmark file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.learned.model_file import WEIGHT_SCALE
from shelfie_solver.dice.learned.win_model import (
    COEF_SCALE,
    FEATURES,
    ROWS,
    TREES_FORMAT,
    WIN_FORMAT,
    WinModelError,
    all_chances,
    chances,
    default_win_model,
    design,
    model_from_dict,
    model_text,
    strength_numerators,
    win_objective,
)
from shelfie_solver.dice.learned.win_trees import OWN_COLUMNS, TREE_BOUND

from conftest import walk_trees as walk

W = WEIGHT_SCALE
F = len(FEATURES)
UNIT = COEF_SCALE * W  # one unit of strength
PHASE = 2 * F  # the input index of the phase
SHEET = FEATURES.index("shelves m0 a5")  # a sheet-state column: shelves with nothing marked, 5 available


def tiny_block() -> dict[str, Any]:
    """Three trees, by hand (nodes in one flat list, children after parents):

    tree 0 (nodes 0-4): own P <= 30 points -> leaf -0.2; else phase <= 2 -> 0.1, else 0.3
        (monotone: the left leaf -0.2 is below both right leaves)
    tree 1 (nodes 5-7): the other seat's P <= 35 points -> 0.15, else -0.25 (non-increasing)
    tree 2 (nodes 8-12): own sheet column "shelves m0 a5" <= 2 (times W) -> the other seat's lead
        curve <= 0 -> 0.05 or -0.05; else -0.1 (unconstrained column, a monotone inner split)
    """
    feature = [0, -1, PHASE, -1, -1, F + 0, -1, -1, SHEET, F + 11, -1, -1, -1]
    threshold = [30 * W, 0, 2, 0, 0, 35 * W, 0, 0, 2 * W, 0, 0, 0, 0]
    left = [1, -1, 3, -1, -1, 6, -1, -1, 9, 10, -1, -1, -1]
    right = [2, -1, 4, -1, -1, 7, -1, -1, 12, 11, -1, -1, -1]
    value = [0, -UNIT // 5, 0, UNIT // 10, 3 * UNIT // 10, 0, 15 * UNIT // 100, -UNIT // 4, 0, 0, UNIT // 20,
             -UNIT // 20, -UNIT // 10]
    return {"feature": feature, "threshold": threshold, "left": left, "right": right, "value": value,
            "roots": [0, 5, 8], "fitted": {"by": "hand"}}


def linear_model() -> Any:
    """The shipped model's coefficients without its trees (a format-4 model; data/win.json has had
    2-player trees since 2026-12-07)."""
    from dataclasses import replace

    return replace(default_win_model(), trees={})


def with_trees(block: Any, base: Any = None) -> dict[str, Any]:
    """The shipped model's coefficients as a format-5 file with ``"trees": {"2": block}``."""
    data = (base or linear_model()).to_dict()
    data["format"] = TREES_FORMAT
    data["trees"] = {"2": block}
    return data


def reference_terms(block: dict[str, Any], phase: np.ndarray, x: np.ndarray) -> list[list[int]]:
    """Each seat's term of every position, ``u_i = x_i + x_j + [phase]`` in Python integers."""
    out = []
    for k in range(len(x)):
        rows = [[int(v) for v in x[k, i]] for i in range(2)]
        out.append([walk(block, rows[i] + rows[1 - i] + [int(phase[k])]) for i in range(2)])
    return out


def random_seats(rng: np.random.Generator, k: int) -> np.ndarray:
    """``(k, 2, 4 + 42)`` two-player seats: P 0-90 points (over W), scores, shelves to the trigger
    (-1..3), turns until each plays (seat 0 just played), and line-state counts 0-5 per column."""
    p = rng.integers(0, 90 * W, size=(k, 2))
    s = rng.integers(0, 80, size=(k, 2))
    d = rng.integers(-1, 4, size=(k, 2))
    order = np.tile([0, 1], (k, 1))
    counts = rng.integers(0, 6, size=(k, 2, len(FEATURES) - 14))
    return np.concatenate([np.stack([p, s, d, order], axis=-1), counts], axis=-1).astype(np.int64)


def test_hand_worked_position() -> None:
    """One position worked by hand: seat 0 P 40, seat 1 P 20 (points), phase 3, seat 0 with 1
    shelf of state m0 a5, seat 1 with 4. Seat 0: tree 0 -> P 40 > 30, phase 3 > 2: 0.3; tree 1 ->
    other P 20 <= 35: 0.15; tree 2 -> 1 <= 2, the other's lead -20 (curve < 0) <= 0: 0.05; 0.5 in
    all. Seat 1: tree 0 -> P 20 <= 30: -0.2; tree 1 -> other P 40 > 35: -0.25; tree 2 -> 4 > 2:
    -0.1; -0.55 in all."""
    block = tiny_block()
    model = model_from_dict(with_trees(block), "tiny.json")
    seats = np.zeros((1, 2, 4 + len(FEATURES) - 14), dtype=np.int64)
    seats[0, :, :4] = [[40 * W, 10, 3, 0], [20 * W, 12, 3, 1]]
    seats[0, 0, 4 + SHEET - 14] = 1
    seats[0, 1, 4 + SHEET - 14] = 4
    phase = np.array([3])
    x = design(phase, seats, 4, to_play=0)
    c = model.for_players(2)
    trees = model.trees_for(2)
    gained = strength_numerators(c, phase, x, 4, trees) - strength_numerators(c, phase, x, 4)
    assert gained.tolist() == [[UNIT // 2, -55 * UNIT // 100]]
    assert reference_terms(block, phase, x) == gained.tolist()


@pytest.mark.parametrize("seed", [18001, 18002])
def test_numpy_terms_equal_the_walk(seed: int) -> None:
    """On random two-player positions of every phase and round, the numpy strengths with the
    trees minus those without are each seat's walked term (the tiny block, and a synthetic block
    of 40 trees of 15 leaves over every kind of input)."""
    from conftest import load_benchmark

    rng = np.random.default_rng(seed)
    synthetic = load_benchmark("win_trees_synthetic").synthetic_block(seed, 40, 15)
    for block in (tiny_block(), synthetic):
        model = model_from_dict(with_trees(block), "t.json")
        c, trees = model.for_players(2), model.trees_for(2)
        for r in (1, 5, 11):
            seats = random_seats(rng, 150)
            phase = rng.choice(ROWS, size=150)
            x = design(phase, seats, r, to_play=int(rng.integers(0, 2)))
            gained = strength_numerators(c, phase, x, r, trees) - strength_numerators(c, phase, x, r)
            assert gained.tolist() == reference_terms(block, phase, x)
            assert trees is not None and (trees.terms(phase, x) == gained).all()


def test_python_integers_beyond_int64_bounds() -> None:
    """Beyond design's int64 bounds (a score of 2**45 points) the features are Python integers
    and the trees compare them exactly: the same terms as the walk."""
    block = tiny_block()
    block["threshold"][0] = 1 << 50  # own P <= 2**50 / W points
    model = model_from_dict(with_trees(block), "big.json")
    seats = np.zeros((2, 2, 4), dtype=np.int64)
    seats[:, :, 0] = [[(1 << 50) + 1, 5 * W], [1 << 50, 3 * W]]
    seats[:, :, 1] = [[1 << 45, 2], [3, 1 << 45]]
    seats[:, :, 3] = [0, 1]
    phase = np.array([3, 2])
    x = design(phase, seats, 3, to_play=0)
    assert x.dtype == object
    z = strength_numerators(model.for_players(2), phase, x, 3, model.trees_for(2))
    base = strength_numerators(model.for_players(2), phase, x, 3)
    assert [[int(a) - int(b) for a, b in zip(r1, r0)] for r1, r0 in zip(z, base)] == reference_terms(block, phase, x)


def test_an_empty_block_gives_format_4() -> None:
    """A format-5 file whose block has no node gives exactly format 4's chances, writes format 5
    (it has a block) and reads back the same; data/win.json (format 5 since 2026-12-07) is written
    back byte for byte, and the same model without its trees writes format 4."""
    from shelfie_solver.dice.learned.win_model import DEFAULT_WIN_PATH

    empty = {"feature": [], "threshold": [], "left": [], "right": [], "value": [], "roots": []}
    model = model_from_dict(with_trees(empty), "empty.json")
    rng = np.random.default_rng(18003)
    seats = random_seats(rng, 200)
    phase = rng.choice(ROWS, size=200)
    x = design(phase, seats, 6, to_play=1)
    shipped, linear = default_win_model(), linear_model()
    assert model.trees_for(2) is None
    assert np.array_equal(all_chances(model.for_players(2), phase, x, 6),
                          all_chances(linear.for_players(2), phase, x, 6))
    assert json.loads(model_text(model))["format"] == TREES_FORMAT
    assert model_text(model_from_dict(json.loads(model_text(model)), "again.json")) == model_text(model)
    assert model_text(shipped) == DEFAULT_WIN_PATH.read_text()  # format 5 (its trees) read and written back
    assert json.loads(model_text(linear))["format"] == WIN_FORMAT


def test_written_and_read_back() -> None:
    block = tiny_block()
    model = model_from_dict(with_trees(block), "tiny.json")
    text = model_text(model)
    again = model_from_dict(json.loads(text), "again.json")
    assert json.loads(text)["trees"]["2"] == block
    assert model_text(again) == text
    assert again.trees_for(3) is None and again.trees_for(4) is None


def test_trees_only_with_two_seats() -> None:
    """3 and 4 players: no tree term (the chances of the coefficients alone)."""
    model = model_from_dict(with_trees(tiny_block()), "tiny.json")
    assert model.trees_for(3) is None
    rng = np.random.default_rng(18004)
    seats = random_seats(rng, 50)
    three = np.concatenate([seats, seats[:, :1]], axis=1)
    three[:, 2, 3] = 2
    phase = rng.choice(ROWS, size=50)
    x = design(phase, three, 4, to_play=0)
    assert np.array_equal(all_chances(model.for_players(3), phase, x, 4, model.trees.get(2)),
                          all_chances(model.for_players(3), phase, x, 4))


def node_mutation(key: str, at: int, value: Any) -> Any:
    def change(block: dict[str, Any]) -> None:
        block[key][at] = value
    return change


#: (how the tiny block is broken, a fragment of the one-line message)
BAD_BLOCKS: list[tuple[str, Any, str]] = [
    ("a float", node_mutation("threshold", 0, 1.5), "whole numbers"),
    ("a bool", node_mutation("value", 1, True), "whole numbers"),
    ("beyond int64", node_mutation("threshold", 0, 1 << 63), "whole numbers"),
    ("not a list", lambda b: b.update(left=3), "whole numbers"),
    ("a missing list", lambda b: b.pop("right"), '"right"'),
    ("lengths differ", lambda b: b["value"].append(0), "one length"),
    ("an unknown key", lambda b: b.update(weight=[1]), "unknown key"),
    ("a child before its parent", node_mutation("left", 2, 1), "child 1"),
    ("a child out of range", node_mutation("right", 9, 13), "child 13"),
    ("a leaf with children", node_mutation("left", 1, 3), "leaf"),
    ("a leaf with a threshold", node_mutation("threshold", 1, 7), "leaf"),
    ("an internal value", node_mutation("value", 0, 5), "internal"),
    ("a feature out of range", node_mutation("feature", 0, 2 * F + 1), "feature"),
    ("a feature below -1", node_mutation("feature", 0, -2), "feature"),
    ("a root out of range", lambda b: b["roots"].append(13), "roots"),
    ("a root twice", lambda b: b["roots"].append(5), "reached"),
    ("a node shared", node_mutation("right", 9, 10), "reached 2 times"),
    ("an orphan node", lambda b: b["roots"].remove(8), "reached 0 times"),
    ("leaves too large", lambda b: b["value"].__setitem__(1, -TREE_BOUND), "2**61"),
    ("not monotone in own P", node_mutation("value", 1, UNIT), "non-decreasing"),
    ("not monotone in the other's P", node_mutation("value", 7, UNIT), "non-increasing"),
    ("not monotone in the own curve", lambda b: (b["feature"].__setitem__(8, 11)), "non-decreasing"),
]


@pytest.mark.parametrize("case", BAD_BLOCKS, ids=[c[0] for c in BAD_BLOCKS])
def test_bad_blocks_refused_in_one_line(case: tuple[str, Any, str]) -> None:
    _, mutate, fragment = case
    block = tiny_block()
    mutate(block)
    with pytest.raises(WinModelError) as found:
        model_from_dict(with_trees(block), "bad.json")
    message = str(found.value)
    assert "\n" not in message and "bad.json" in message and fragment in message, message
    assert "Win-model file" in message  # where the form is described


@pytest.mark.parametrize("trees, fragment", [
    ({"3": {}}, 'the one key "2"'), ({"2": {}, "3": {}}, 'the one key "2"'), ([], 'the one key "2"'),
    ({"2": []}, "must be an object"),
])
def test_bad_trees_key_refused(trees: Any, fragment: str) -> None:
    data = with_trees(tiny_block())
    data["trees"] = trees
    with pytest.raises(WinModelError, match=fragment):
        model_from_dict(data, "bad.json")


def test_trees_need_format_5() -> None:
    data = with_trees(tiny_block())
    data["format"] = WIN_FORMAT
    with pytest.raises(WinModelError, match='"trees" in a file of "format": "shelfie-solve win 4"'):
        model_from_dict(data, "bad.json")


def test_the_monotone_rule_accepts_a_monotone_tree() -> None:
    """A split on the own P whose left leaf equals the right one (ties are monotone), a split on
    the other seat's curve with its right leaves below, and a column outside the rule with any
    leaves: accepted; swapping the leaves of the own-P split: refused."""
    block = {"feature": [1, -1, F + 12, -1, -1, 3, -1, -1], "threshold": [10 * W, 0, 0, 0, 0, 5 * W, 0, 0],
             "left": [1, -1, 3, -1, -1, 6, -1, -1], "right": [2, -1, 4, -1, -1, 7, -1, -1],
             "value": [0, 5, 0, 9, 5, 0, 100, -100], "roots": [0, 5]}
    assert model_from_dict(with_trees(block), "ok.json").trees_for(2) is not None
    block["value"][1] = 10
    with pytest.raises(WinModelError, match="own feature 1"):
        model_from_dict(with_trees(block), "bad.json")


def test_own_columns_are_those_that_rise_with_p() -> None:
    assert [FEATURES[f] for f in OWN_COLUMNS] == ["P", "P x r", "F x another seat near", "F x near",
                                                  "lead x |lead| / 10", "lead x |lead| / 10 x r"]


def test_a_seat_s_chance_never_falls_as_its_own_p_rises() -> None:
    """docs/win-chance.md "Monotone in the lead" with trees: tests/test_win_monotone's check on
    the tiny block and on a synthetic block of 60 monotone trees, every row, rounds 1-15."""
    from conftest import load_benchmark
    from test_win_monotone import check_monotone

    rng = np.random.default_rng(18005)
    synthetic = load_benchmark("win_trees_synthetic").synthetic_block(18005, 60, 15)
    for block in (tiny_block(), synthetic):
        model = model_from_dict(with_trees(block), "t.json")
        for r in range(1, 16, 2):
            check_monotone(model.for_players(2), rng, 2, r, trees=model.trees_for(2))


def test_bad_file_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A malformed format-5 file given to ``train --play-model FILE`` (the command that reads a
    model file): exit 2, one line, before any game and with nothing written."""
    from conftest import assert_one_line_error

    monkeypatch.chdir(tmp_path)
    block = tiny_block()
    block["value"][1] = UNIT  # not monotone in the own P
    (tmp_path / "bad.json").write_text(json.dumps(with_trees(block)))
    result = CliRunner().invoke(main, ["train", "--win-model", "--self-play", "win", "--play-model", "bad.json",
                                       "--seed", "1", "--games", "1", "--output", "w.json"])
    assert_one_line_error(result, "bad.json", "non-decreasing")
    assert not (tmp_path / "w.json").exists()


# ---- the compiled path (numba) against the numpy path ----

def test_compiled_strengths_equal_numpy() -> None:
    """learned.kernel._win_tree_strengths (the compiled z with the trees) equals the numpy
    strengths on random positions (the tiny block and a synthetic one)."""
    pytest.importorskip("numba")
    from shelfie_solver.dice.learned.kernel import kernel_function
    from conftest import load_benchmark

    strengths = kernel_function("_win_tree_strengths")
    rng = np.random.default_rng(18006)
    synthetic = load_benchmark("win_trees_synthetic").synthetic_block(18006, 50, 15)
    for block in (tiny_block(), synthetic):
        model = model_from_dict(with_trees(block), "t.json")
        c, trees = model.for_players(2), model.trees_for(2)
        assert trees is not None
        for _ in range(150):
            seats = random_seats(rng, 1)[0]
            phase, r = int(rng.choice(ROWS)), int(rng.integers(1, 16))
            to_play = int(rng.integers(0, 2))
            z = np.zeros(2, dtype=np.int64)
            strengths(seats, c[ROWS.index(phase)], r, to_play, W, z, phase, trees.nodes, trees.roots)
            x = design(np.array([phase]), seats[None], r, to_play=to_play)
            assert z.tolist() == [int(v) for v in strength_numerators(c, np.array([phase]), x, r, trees)[0]]


@pytest.mark.parametrize("seed", [18007, 18008])
def test_compiled_turn_values_equal_numpy(seed: int) -> None:
    """A 2-player turn's every item set and shelf (D13) valued by the compiled front
    (WinObjective.compiled_turn_values) and from the table (compiled_win_values) with a trees
    model: the numpy path's integers (tests/test_win_kernel.assert_compiled_equals_numpy), and
    not those of the coefficients alone (the trees are read)."""
    pytest.importorskip("numba")
    from shelfie_solver.dice.learned.win_model import compiled_win_values
    from shelfie_solver.dice.objectives import StateArrays
    from conftest import load_benchmark
    from test_win_kernel import BOARD, RULES, assert_compiled_equals_numpy, random_state

    from shelfie_solver.dice.allocate import feasibility_arrays

    rng = np.random.default_rng(seed)
    synthetic = load_benchmark("win_trees_synthetic").synthetic_block(seed, 30, 15)
    sets = feasibility_arrays(BOARD, RULES).sets
    differ = modelled = 0
    for block in (tiny_block(), synthetic):
        model = model_from_dict(with_trees(block), "t.json")
        for _ in range(12):
            state = random_state(rng, 2)
            objective = win_objective(state, model)
            assert objective.trees is model.trees_for(2)
            worth, shelves = assert_compiled_equals_numpy(objective, state)
            table = compiled_win_values(state, model)
            assert table is not None
            assert np.array_equal(table[0], worth) and table[2] == shelves
            plain = win_objective(state).compiled_turn_values(StateArrays(BOARD, RULES, state.marks))
            assert plain is not None
            # the trees change the model's values only: many random sheets settle every terminal
            # exactly (D20: e.g. both seats at 0 with no point within the opponent's reach, a
            # shared victory, win_chance.settled_bounds' ways), alike with and without trees
            arrays = StateArrays(BOARD, RULES, state.marks)
            rows = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
            free = rows[~objective.exact_markings(arrays, sets.take(rows))]
            if len(free):
                modelled += 1
                differ += not np.array_equal(plain[0][free], worth[free])
    assert modelled >= 6 and differ >= modelled - 1


def test_chances_with_trees_softmax_of_the_terms() -> None:
    """The mover's chance (chances) is all_chances' first column with the trees too."""
    model = model_from_dict(with_trees(tiny_block()), "tiny.json")
    rng = np.random.default_rng(18004)
    seats = random_seats(rng, 100)
    phase = rng.choice(ROWS, size=100)
    x = design(phase, seats, 7, to_play=1)
    c, trees = model.for_players(2), model.trees_for(2)
    assert np.array_equal(chances(c, phase, x, 7, trees), all_chances(c, phase, x, 7, trees)[:, 0])



def test_a_format_5_file_is_recognised_as_a_win_model_file() -> None:
    """files.check_overwrite replaces a win-model file of any format read (WIN_KIND), format 5 too."""
    from shelfie_solver.dice.learned.win_model import WIN_KIND

    text = model_text(model_from_dict(with_trees(tiny_block()), "tiny.json"))
    assert WIN_KIND.matches(text.encode()[:200])
    assert WIN_KIND.matches(model_text(default_win_model()).encode()[:200])


def test_assembled_with_the_count_s_trees() -> None:
    """win_model.assemble takes a count's trees with its coefficients (the 2-player part's)."""
    from shelfie_solver.dice.learned.win_model import assemble, replace_info

    shipped = replace_info(linear_model(), board="default")
    trees = model_from_dict(with_trees(tiny_block(), shipped), "tiny.json")
    out = assemble({2: (trees, "tiny.json"), 3: (shipped, "win.json"), 4: (shipped, "win.json")})
    assert out.trees_for(2) is trees.trees_for(2)
    out = assemble({2: (shipped, "win.json"), 3: (trees, "tiny.json"), 4: (shipped, "win.json")})
    assert out.trees_for(2) is shipped.trees_for(2)  # the shipped 2-player part's own trees, not tiny's


def test_bad_file_through_win_model_keeps_the_whole_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--win-model FILE`` (click's message, whose quoted values are shortened by
    core.errors.error_line) with a non-monotone block: the apostrophes of "the seat's own" are no
    quotes, so the line keeps its expected form whole (it read "...; ex'…s own P")."""
    from conftest import assert_one_line_error

    monkeypatch.chdir(tmp_path)
    block = tiny_block()
    block["value"][1] = UNIT  # not monotone in the own P
    (tmp_path / "bad.json").write_text(json.dumps(with_trees(block)))
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--opponent", "...../...../...../...../.....",
                                       "--objective", "win", "--win-model", "bad.json"])
    line = assert_one_line_error(result, "--win-model", "bad.json", "expected trees non-decreasing in the seat's own P")
    assert "…" not in line
