"""benchmarks/learned_vs_optimum.py's held-out family (docs/strategies.md, "`learned` on a
held-out family"): the boards drawn, written and read back, and a row of each kind (the exact
optimum within the budget, the fitted weights beyond it)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from conftest import load_benchmark

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import exact_cache
from shelfie_solver.dice.wholegame import random_boards as rb
from shelfie_solver.dice.wholegame.solver import state_count

ROOT = Path(__file__).resolve().parents[1]
SMALL = str(ROOT / "examples" / "boards" / "small.toml")


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("learned_vs_optimum")


def test_family_shapes_needs_and_distinct(bench):
    """Shapes in turn (3 x 6, 4 x 5, 5 x 4: within 42% of the default budget, or over it); even
    boards with a column needing 4 or 5 dice, odd ones 1-3 only (D3); values in the family's
    ranges; one face per shelf, all different; no HELD_OUT board, no two alike up to relabelling;
    the same boards from the same seed, others from another."""
    boards = bench.held_out_family(2027, 9)
    assert [(b.n_shelves, b.n_columns) for b in boards] == [(3, 6), (4, 5), (5, 4)] * 3
    for i, board in enumerate(boards):
        assert (max(board.columns) >= 4) == (i % 2 == 0) and min(board.columns) >= 1
        assert max(board.columns) <= (rb.MAX_NEED if i % 2 == 0 else 3)
        assert all(rb.VALUE_RANGES[n][0] <= v <= rb.VALUE_RANGES[n][1]
                   for row in board.values for n, v in zip(board.columns, row))
        faces = [f for (f,) in board.shelf_faces]
        assert len(set(faces)) == len(faces) and DEFAULT_RULES.joker_index not in faces
        states = state_count(board, DEFAULT_RULES)  # over the budget (4 x 5, 5 x 4) or near it (3 x 6)
        assert states > exact_cache.DEFAULT_BUDGET if board.n_shelves > 3 else 0.4 * exact_cache.DEFAULT_BUDGET < states
    keys = [rb.canonical(b.columns, b.values) for b in boards]
    held = {rb.canonical(*layout) for layout in rb.HELD_OUT}
    assert len(set(keys)) == len(keys) and not set(keys) & held
    assert bench.held_out_family(2027, 9) == boards
    assert bench.held_out_family(2028, 9) != boards


def test_family_written_as_board_files(bench, tmp_path):
    boards = bench.held_out_family(2027, 3)
    paths = bench.write_family(boards, tmp_path / "f")
    assert [Path(p).name for p in paths] == ["family-1.toml", "family-2.toml", "family-3.toml"]
    for path, board in zip(paths, boards):
        read = load_board(path, DEFAULT_RULES)
        assert (read.name, read.columns, read.shelf_faces, read.values) == (
            board.name, board.columns, board.shelf_faces, board.values)


def _args():
    return argparse.Namespace(games=3, seed=5, jobs=1)


@pytest.mark.parametrize("budget", ["", "0"])
def test_family_row_says_what_advice_plays(bench, tmp_path, monkeypatch, budget):
    """Within the budget: 'exact optimum', and the games of learned as advice plays it average
    the optimum's neighbourhood (3 games: within the full sheet's range); beyond it (budget 0):
    'learned', the two figures the same games of the fitted weights."""
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(exact_cache.BUDGET_ENV, budget)
    monkeypatch.setattr(exact_cache, "_KNOWN", {})
    (tmp_path / "optima").mkdir()
    row = bench.family_row(SMALL, _args(), tmp_path / "optima", None)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "`small.toml`" and cells[1] == "3 × 3" and cells[3] == "1,519"
    assert cells[4].startswith("exact optimum" if budget == "" else "learned (")
    assert cells[5].startswith("41.707")  # the example board's optimum (docs/solve-game.md)
    means = [float(re.match(r"[\d.]+", cells[k]).group()) for k in (6, 8)]
    assert all(0 <= m <= 42 for m in means)
    if budget == "0":
        assert cells[6] == cells[8] and cells[7] == cells[9]
    assert cells[10] in ("yes", "**no**", "not settled")


def test_family_shapes_option_draws_only_those_shapes(bench):
    """``--family-shapes 4x5,5x4``: only the shapes given, in turn, the needs rule as before
    (even boards with a column needing 4 or 5 dice); every board over the default exact budget
    (4,736,769 and 4,809,375 states, so advice plays the fitted weights there)."""
    shapes = bench.family_shapes(" 4x5, 5X4")
    assert shapes == ((4, 5), (5, 4))
    boards = bench.held_out_family(4242, 4, shapes)
    assert [(b.n_shelves, b.n_columns) for b in boards] == [(4, 5), (5, 4)] * 2
    assert [max(b.columns) >= 4 for b in boards] == [True, False, True, False]
    assert all(state_count(b, DEFAULT_RULES) > exact_cache.DEFAULT_BUDGET for b in boards)
    assert bench.held_out_family(2027, 3) == bench.held_out_family(2027, 3, bench.FAMILY_SHAPES)


@pytest.mark.parametrize("text", ["", "4x", "4x5,", "x5", "1x5", "4x8", "4*5", "4x5x1"])
def test_family_shapes_option_refuses_other_forms(bench, text):
    with pytest.raises(argparse.ArgumentTypeError, match="expected shapes such as 4x5,5x4"):
        bench.family_shapes(text)


def test_threes_family_is_the_first_boards_of_the_kind_of_each_shape(bench):
    """``--family-threes 2`` with ``--family-seed 5150`` draws the boards docs/strategies.md "A table
    for repeated 3s beside 4-5s" measured (its boards 99, 231, 53 and 625, in the order 5 x 4, 4 x
    5, 5 x 4, 4 x 5), each with no column under 3 dice and a quarter or more but under half of them
    needing 4-5 (D3), and no earlier board of its shape of that kind."""
    boards = bench.threes_family(5150, 2)
    assert [b.name for b in boards] == ["family 99", "family 53", "family 231", "family 625"]
    assert [(b.n_shelves, b.n_columns) for b in boards] == [(5, 4), (4, 5)] * 2
    assert [b.columns for b in boards] == [(3, 3, 4, 3), (3, 3, 3, 4, 5), (3, 3, 3, 4), (5, 5, 3, 3, 3)]
    pool = bench.held_out_family(5150, 625, bench.THREES_FAMILY_SHAPES)

    def kind(b):
        hard = sum(n >= 4 for n in b.columns)
        return min(b.columns) >= 3 and 4 * hard >= len(b.columns) > 2 * hard

    for board in boards:
        number = int(board.name.split()[1])
        assert kind(board) and pool[number - 1] == board
        assert not any(kind(b) and b.n_shelves == board.n_shelves for b in pool[: number - 1]
                       if b not in boards)
    assert bench.threes_family(5150, 1) == boards[:2]


def test_family_threes_refused_beside_family(bench, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["learned_vs_optimum.py", "--family", "2", "--family-threes", "1",
                                     "--family-dir", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        bench.main()
    assert stop.value.code == 2 and "expected one of them" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_light_five_family_is_the_first_4x5_boards_of_a_five_beside_ones(bench, tmp_path, monkeypatch, capsys):
    """``--family-light-five K`` draws the first K 4 x 5 boards of the held-out family with one
    column needing 5 dice, no other 4-5, and two or more needing 1 (D3; docs/strategies.md "A
    table for a 5 beside 1s"), counted here by hand over the pool; it is refused beside --family."""
    boards = bench.light_five_family(9603, 3)
    pool = bench.held_out_family(9603, 1000, ((4, 5),))

    def kind(b):
        return b.columns.count(5) == 1 and 4 not in b.columns and b.columns.count(1) >= 2

    expected = [b for b in pool if kind(b)][:3]
    assert boards == expected and len(boards) == 3
    # the diagnosis boards of docs/strategies.md "Two 5s beside 3s" (its lead): 9603 boards 27 and 75
    assert [(b.name, b.columns) for b in boards[:2]] == [("family 27", (1, 3, 3, 1, 5)), ("family 75", (2, 1, 5, 2, 1))]
    assert all((b.n_shelves, b.n_columns) == (4, 5) for b in boards)
    assert bench.light_five_family(9603, 1) == boards[:1]
    monkeypatch.setattr("sys.argv", ["learned_vs_optimum.py", "--family-threes", "2", "--family-light-five", "1",
                                     "--family-dir", str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        bench.main()
    assert stop.value.code == 2 and "expected one of them" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_table_used_names_the_boards_own_table_where_learned_plays_it(bench, monkeypatch):
    """The shipped ``learned`` on a board that gets its own table (``own_cache.applies``) is said
    to play that table; ``learned:FILE`` and boards without one keep the shipped file's name."""
    from shelfie_solver.dice.learned import own_cache

    board = bench.held_out_family(4242, 1, ((4, 5),))[0]
    monkeypatch.setattr(own_cache, "applies", lambda b, rules: True)
    assert bench.table_used("learned", board) == "4 × 5, the board's own table"
    monkeypatch.setattr(own_cache, "applies", lambda b, rules: False)
    assert "own table" not in bench.table_used("learned", board)
    monkeypatch.setattr(own_cache, "applies", lambda b, rules: True)
    from shelfie_solver.dice.design import fitted_name

    assert "own table" not in bench.table_used(fitted_name(), board)
