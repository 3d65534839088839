"""A model of other shapes put in the points of the board's own size (learned/win_model.size_factor,
sized_model, ``WinModel.points_exponent``, the other-shapes block's ``"points_exponent"``;
docs/formats.md "Win-model file", docs/win-chance.md "In the board's own points"): the factor
worked out by hand, exact and a function of the board alone; the coefficients divided by hand; the
key read, refused in one line when malformed, written back byte for byte; without it every figure
as before; numpy and compiled paths the same integers."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, assert_one_line_error
from test_win_model_shapes import figures, random_state

from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board, load_board
from shelfie_solver.dice.learned.win_model import (
    DEFAULT_WIN_PATH,
    FEATURES,
    OTHER_SHAPES_KEY,
    WinModel,
    WinModelError,
    _integer_root,
    board_scale,
    compiled_win_values,
    load_win_model,
    model_from_dict,
    model_text,
    size_factor,
    sized_model,
)
from shelfie_solver.dice.rules import DEFAULT_RULES

DEFAULT = load_board(None, DEFAULT_RULES)
SMALL_3X4 = load_board(EXAMPLES / "boards" / "small-3x4.toml", DEFAULT_RULES)


def times(board: Board, k: int) -> Board:
    """``board`` with every item value times ``k``."""
    return replace(board, values=tuple(tuple(v * k for v in row) for row in board.values))


def test_integer_root_by_brute_force():
    """``floor(value ** (1/degree))``: ``r ** d <= value < (r + 1) ** d`` for every small value and
    large random ones (200 bits, past a float's exactness)."""
    rng = np.random.default_rng(18107)
    values = list(range(3000)) + [int.from_bytes(rng.bytes(25), "big") for _ in range(300)]
    for value in values:
        for degree in (1, 2, 3, 4, 7, 12):
            r = _integer_root(value, degree)
            assert r ** degree <= value < (r + 1) ** degree


def test_the_factor_of_small_3x4_by_hand():
    """small-3x4's values sum to 37 (2+1+3+5, 1+3+2+6, 3+2+4+5), the default board's to 126; at the
    exponent 3/4 the factor is floor(1000 * (37/126) ** 0.75) / 1000 = 0.398 (0.39890..., worked out
    to 40 digits), at 1 floor(293.65...) / 1000, at 1/2 floor(541.90...) / 1000, at 0 exactly 1."""
    assert sum(v for row in SMALL_3X4.values for v in row) == 37
    getcontext().prec = 40
    for exponent, text, thousandths in ((Fraction(3, 4), "0.75", 398), (Fraction(1), "1", 293),
                                        (Fraction(1, 2), "0.5", 541)):
        assert int((Decimal(37) / Decimal(126)) ** Decimal(text) * 1000) == thousandths
        assert size_factor(SMALL_3X4, exponent) == Fraction(thousandths, 1000)
    assert size_factor(SMALL_3X4, Fraction(0)) == 1


@pytest.mark.parametrize("exponent", [Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(5, 4)])
def test_the_default_board_and_its_multiples(exponent):
    """The default board's factor is exactly 1 at every exponent (its values sum to 126), and so is
    that of its values times ``k`` (whose points :func:`design` divides by ``k`` already, docs/win-chance.md
    "Boards of high values"): a board of high values reads as the board it multiplies."""
    assert size_factor(DEFAULT, exponent) == 1
    for k in (2, 7, 800):
        big = times(DEFAULT, k)
        assert board_scale(big) == k and size_factor(big, exponent) == 1


def test_the_factor_of_a_board_of_high_values_is_its_base_boards(tmp_path):
    """A 3 x 5 board of the default board's last three shelves (a 12 among them: value scale 1)
    and the same times 9 (value scale 9): the same factor, floor(1000 * (77/126) ** 0.75) / 1000."""
    path = tmp_path / "three.toml"
    path.write_text('name = "three"\ncolumns = [1, 2, 3, 4, 5]\n' + "".join(
        f'[[shelves]]\nfaces = ["{face}"]\nvalues = {values}\n'
        for face, values in (("plant", [2, 2, 3, 7, 12]), ("game", [1, 2, 5, 6, 11]), ("award", [2, 3, 4, 8, 9]))),
        "utf-8")
    small = load_board(str(path), DEFAULT_RULES)
    assert board_scale(small) == 1 and board_scale(times(small, 9)) == 9
    getcontext().prec = 40
    assert int((Decimal(77) / Decimal(126)) ** Decimal("0.75") * 1000) == 691
    assert size_factor(small, Fraction(3, 4)) == size_factor(times(small, 9), Fraction(3, 4)) == Fraction(691, 1000)


def test_the_coefficients_divided_by_hand():
    """On small-3x4 at 3/4 (factor 0.398 = 199/500) a coefficient in points is divided by 0.398, one
    of the lead's square by 0.398 ** 2, rounded: 39225 -> 98555.28 -> 98555, 1556 -> 9823.36 ->
    9823, -274 -> -1729.75 -> -1730; a flag's as it is (-536925)."""
    full = np.zeros((3, len(FEATURES)), dtype=np.int64)
    full[2, [0, 11, 12, 13]] = [39225, 1556, -274, -536925]
    model = WinModel({n: full for n in (2, 3, 4)}, points_exponent=Fraction(3, 4))
    sized = sized_model(model, SMALL_3X4)
    assert sized.coefficients[2][2, [0, 11, 12, 13]].tolist() == [98555, 9823, -1730, -536925]
    assert sized_model(model, SMALL_3X4) is sized  # one table per board, kept
    assert sized_model(model, DEFAULT) is model


_ABSENT = object()


def _with_exponent(raw: object = _ABSENT) -> dict:
    """The shipped file with its other-shapes block's "points_exponent" ``raw`` (absent: none)."""
    data = json.loads(DEFAULT_WIN_PATH.read_text("utf-8"))
    data[OTHER_SHAPES_KEY].pop("points_exponent", None)
    if raw is not _ABSENT:
        data[OTHER_SHAPES_KEY]["points_exponent"] = raw
    return data


def test_the_key_is_read_and_written_back():
    """"points_exponent": "3/4" gives the other shapes' model that exponent (the 5 x 5 model 0,
    itself on the default board); the file is written back byte for byte; without the key 0 and
    the other shapes' model itself on every other board."""
    model = model_from_dict(_with_exponent("3/4"), "w.json")
    assert model.other_shapes is not None and model.other_shapes.points_exponent == Fraction(3, 4)
    assert model.points_exponent == 0 and model.for_board(DEFAULT) is model
    assert model.for_board(SMALL_3X4) is sized_model(model.other_shapes, SMALL_3X4) is not model.other_shapes
    text = model_text(model)
    assert model_text(model_from_dict(json.loads(text), "w.json")) == text
    without = model_from_dict(_with_exponent(), "w.json")
    assert without.other_shapes is not None and without.other_shapes.points_exponent == 0
    assert without.for_board(SMALL_3X4) is without.other_shapes


@pytest.mark.parametrize("raw", ["0.75", 0.75, 1, "3/40", "5/2", "-1/2", "1/0", "", "3 / 4", None, "\u0663/\u0664"])
def test_a_malformed_exponent_is_refused_in_one_line(raw, tmp_path):
    with pytest.raises(WinModelError) as error:
        model_from_dict(_with_exponent(raw), "w.json")
    assert '"points_exponent" must be a fraction as a string' in str(error.value) and "\n" not in str(error.value)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(_with_exponent(raw)), "utf-8")
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--opponent", "o..../o..../o..../...../.....",
                                       "--win-model", str(path)])
    assert_one_line_error(result, "--win-model", '"points_exponent"')


@pytest.mark.parametrize("players", [2, 3])
def test_the_exponent_changes_other_shapes_only(players):
    """With the exponent the figures on small-3x4 change (the board's points read larger), the
    numpy and compiled paths giving the same integers; on the default board every figure is the
    file's without it."""
    plain = model_from_dict(_with_exponent(), "w.json")
    sized = model_from_dict(_with_exponent("3/4"), "w.json")
    rng = np.random.default_rng(18107 + players)
    differ = compiled = 0
    for _ in range(8):
        state = random_state(rng, SMALL_3X4, players)
        differ += figures(state, sized) != figures(state, plain)
        found = compiled_win_values(state, sized)
        if found is not None:  # the numpy path's integers (figures: every usable item set's, the shelves')
            assert found[0][_usable(state)].tolist() == figures(state, sized)[0] and found[2] == figures(state, sized)[1]
            compiled += 1
        state = random_state(rng, DEFAULT, players)
        assert figures(state, sized) == figures(state, plain)
        assert _same(compiled_win_values(state, sized), compiled_win_values(state, plain))
    assert differ > 0
    try:
        import numba  # noqa: F401
    except ImportError:
        return
    assert compiled > 0


def _usable(state) -> np.ndarray:
    """The item sets :func:`test_win_model_shapes.figures` values (all their items available)."""
    from shelfie_solver.dice.allocate import feasibility_arrays
    from shelfie_solver.dice.objectives import StateArrays

    arrays = StateArrays(state.board, state.rules, state.marks)
    sets = feasibility_arrays(state.board, state.rules).sets
    return np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))


def _same(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is b
    assert isinstance(a, tuple) and isinstance(b, tuple)
    return bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2])


def test_a_model_of_one_shape_is_read_on_every_board_as_it_is():
    """A model without a shape is itself on every board (the exponent is an other-shapes block's)."""
    model = WinModel(load_win_model(EXAMPLES / "win-first.json").coefficients)
    for board in (DEFAULT, SMALL_3X4, times(DEFAULT, 7)):
        assert model.for_board(board) is model


def test_a_lead_of_16_on_small_3x4_reads_as_a_lead(monkeypatch, tmp_path):
    """The position of docs/win-chance.md "In the board's own points": small-3x4, 2 players, A has
    completed column 4 (16 points, D19) and B has two items of column 1 (0 points), B to play.
    Rollouts of ``win`` in every seat give A 72.8% [67.5, 77.5] (300 play-outs, seed 18107) and
    71.5% [66.1, 76.3] (300, another seed); the figure shown was 50.3% before the size factor. Now
    A's shown chance is above 2/3, under the rollouts' lower bounds' reach (and below 90%)."""
    monkeypatch.setenv("SHELFIE_SOLVE_EXACT2_BUDGET", "0")
    game = str(tmp_path / "g.json")
    steps = [["new", game, "--players", "A,B", "--first", "A", "--board", str(EXAMPLES / "boards" / "small-3x4.toml")]]
    for dice, item in (("GGGGAA", "r1c4"), ("GJJJJJ", "r1c1"), ("AAAAGC", "r2c4"), ("AJJJJJ", "r2c1"),
                       ("CCCCGA", "r3c4")):
        steps += [["roll", game, dice], ["stop", game], ["mark", game, item]]
    for step in steps:
        result = CliRunner().invoke(main, ["play", *step])
        assert result.exit_code == 0, result.output
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.play.gamefile import read_kept_game
    from shelfie_solver.dice.play.report import table_chances

    kept = read_kept_game(game)
    state = kept.state
    assert state.active == 1 and [score(state.board, s, state.rules) for s in state.sheets] == [16, 0]
    (a, exact_a), (b, _) = table_chances(kept)  # play status's figures
    assert not exact_a and Fraction(2, 3) < a < Fraction(9, 10) and a + b == 1
