"""Board layout (D3), marks (D4) and their text/TOML forms, and the precomputed item sets."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.board import (Board, CellState, Marks, board_from_dict, item_sets, load_board, load_marks,
                                  parse_marks, verify_marks_fit)
from shelfie_solver.dice.errors import BoardError, MarksError
from shelfie_solver.dice.rules import DEFAULT_RULES

from conftest import EXAMPLES


def test_item_names(board):
    """Items are r<shelf>c<column>, 1-based, shelf 1 at the top."""
    assert board.cell_name(0) == "r1c1" and board.cell_name(24) == "r5c5" and board.cell_name(7) == "r2c3"
    assert board.parse_cell("r2c3") == 7 and board.parse_cell("R5C5") == 24
    assert all(board.parse_cell(board.cell_name(c)) == c for c in range(25))
    assert board.need(board.parse_cell("r3c4")) == 4
    assert board.value(board.parse_cell("r3c5")) == 12


@pytest.mark.parametrize("name", ["r0c1", "r6c1", "r1c6", "r9c9", "c1r1", "r1", "x"])
def test_item_names_out_of_range(board, name):
    with pytest.raises(BoardError):
        board.parse_cell(name)


def test_lines_are_shelves_then_columns(board):
    assert len(board.lines) == 10
    assert board.lines[0] == (0, 1, 2, 3, 4) and board.lines[5] == (0, 5, 10, 15, 20)
    assert board.line_name(0) == "shelf 1" and board.line_name(9) == "column 5"


def test_marks_text_round_trip(board):
    """D4: '.' available, 'o' marked, 'x' eliminated; shelves separated by '/'."""
    text = "oo.../...../x..../...../....o"
    marks = parse_marks(text, board)
    assert str(marks) == text
    assert marks.state(0) is CellState.MARKED and marks.state(10) is CellState.ELIMINATED
    assert marks.state(2) is CellState.AVAILABLE and marks.state(24) is CellState.MARKED
    assert len(marks.available) == 21


def test_marks_from_lines_with_comments_and_spaces(board):
    text = "# a comment\no o . . .\n.....  # shelf 2\nx....\n.....\n.....\n"
    assert str(parse_marks(text, board)) == "oo.../...../x..../...../....."


def test_marks_from_file(board, tmp_path):
    assert str(load_marks(str(EXAMPLES / "marks" / "mid-game.txt"), board)) == "oo.o./o.o../xoxxx/.oo../o...."
    path = tmp_path / "state.txt"
    path.write_text("oo.../...../x..../...../.....\n")
    assert str(load_marks(str(path), board)) == "oo.../...../x..../...../....."
    assert load_marks(None, board) == Marks.empty(board)


@pytest.mark.parametrize("text", ["oo.../...../...../.....", "oo..../...../...../...../.....", "",
                                  "oo.../.....//..../.....",
                                  "oo.z./...../...../...../.....", "oo.1./...../...../...../....."])
def test_marks_malformed(board, text):
    with pytest.raises(MarksError):
        parse_marks(text, board)


def test_marks_must_fit_the_board(board):
    small = load_board(EXAMPLES / "boards" / "five-dice.toml", DEFAULT_RULES)
    with pytest.raises(MarksError):
        verify_marks_fit(Marks.empty(small), board)


def test_example_boards_load():
    for path in sorted((EXAMPLES / "boards").glob("*.toml")):
        if path.stem in ("five-dice", "five-of-a-kind"):
            continue  # these use their own rulesets (test_examples.py)
        board = load_board(path, DEFAULT_RULES)
        assert board.n_cells == len(board.columns) * len(board.shelf_faces)


def test_mixed_faces_board():
    """D3: a shelf may accept several faces (names or codes), columns in any order."""
    board = load_board(EXAMPLES / "boards" / "mixed-faces.toml", DEFAULT_RULES)
    rules = DEFAULT_RULES
    assert board.columns == (3, 1, 5, 2, 4)
    assert board.shelf_faces[0] == tuple(sorted((rules.face_index("cat"), rules.face_index("book"))))
    assert board.shelf_faces[3] == (rules.face_index("book"),)
    assert board.shelf_label(0, rules) == "book/cat"


def _board(**changes):
    data = {"name": "t", "columns": [1, 2], "shelves": [{"faces": ["cat"], "values": [1, 2]},
                                                          {"faces": ["book", "plant"], "values": [3, 4]}]}
    data.update(changes)
    return data


def test_board_from_dict_ok():
    board = board_from_dict(_board())
    assert board == Board("t", (1, 2), ((4,), (0, 2)), ((1, 2), (3, 4)))


@pytest.mark.parametrize("data, match", [
    (_board(colour="red"), "unknown key"),
    (_board(columns=[]), "columns"),
    (_board(columns=[1, 7]), "between 1 and 6"),
    (_board(columns=[0, 2]), "between 1 and 6"),
    (_board(columns="1,2"), "columns"),
    (_board(shelves=[]), "shelves"),
    (_board(shelves=[{"faces": ["dog"], "values": [1, 2]}]), "unknown face"),
    (_board(shelves=[{"faces": ["joker"], "values": [1, 2]}]), "Joker"),
    (_board(shelves=[{"faces": ["J"], "values": [1, 2]}]), "Joker"),
    (_board(shelves=[{"faces": [], "values": [1, 2]}]), "faces"),
    (_board(shelves=[{"faces": ["cat"], "values": [1, 2, 3]}]), "3 values"),
    (_board(shelves=[{"faces": ["cat"], "values": [1]}]), "1 values"),
    (_board(shelves=[{"faces": ["cat"], "values": [1, -2]}]), "from 0 to"),
    (_board(shelves=[{"faces": ["cat"], "values": [1, 2.5]}]), "whole numbers"),
    (_board(shelves=[{"faces": ["cat"], "values": [1, 2], "colour": 1}]), "unknown key 'colour'"),
])
def test_board_from_dict_errors(data, match):
    """Bad board files raise one-line BoardErrors naming the problem."""
    with pytest.raises(BoardError, match=match) as info:
        board_from_dict(data)
    assert "\n" not in str(info.value)


def test_board_file_not_toml(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("columns = [1, 2\n")
    with pytest.raises(BoardError, match="not valid TOML"):
        load_board(path)
    with pytest.raises(BoardError, match="cannot read"):
        load_board(tmp_path / "missing.toml")


@settings(max_examples=30, deadline=None)
@given(shelves=st.integers(1, 3), columns=st.integers(1, 3), k=st.integers(1, 4))
def test_item_sets_every_set_once(shelves, columns, k):
    """item_sets lists every set of 1..k items exactly once; line counts and points match."""
    board = Board("t", tuple(range(1, columns + 1)), tuple((0,) for _ in range(shelves)),
                  tuple(tuple(10 * s + c for c in range(columns)) for s in range(shelves)))
    sets = item_sets(board, k)
    listed = [tuple(int(c) for c in row if c >= 0) for row in sets.cells]
    n = board.n_cells
    expected = [c for size in range(1, min(k, n) + 1) for c in combinations(range(n), size)]
    assert sorted(listed) == sorted(expected) and len(listed) == len(set(listed))
    for i, chosen in enumerate(listed):
        assert sets.sizes[i] == len(chosen)
        for line, line_cells in enumerate(board.lines):
            inside = [c for c in chosen if c in line_cells]
            assert sets.line_count[i, line] == len(inside)
            assert sets.line_points[i, line] == sum(board.value(c) for c in inside)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, (1 << 25) - 1), st.integers(0, (1 << 25) - 1), st.integers(1, 5))
def test_score_breakdown_equals_the_lines_points(marked, eliminated, threshold):
    """score_breakdown (bit planes) against line_points line by line (D19) and the line totals
    (totals_breakdown of marked_line_totals), any marks and threshold."""
    from dataclasses import replace

    from shelfie_solver.dice.board import line_points, marked_line_totals, score_breakdown, totals_breakdown

    board = load_board(None, DEFAULT_RULES)
    rules = replace(DEFAULT_RULES, scoring_threshold=threshold)
    marks = Marks(board.n_shelves, board.n_columns, marked, eliminated & ~marked)
    shelves = sum(line_points(board, marks, line, threshold) for line in board.lines[: board.n_shelves])
    columns = sum(line_points(board, marks, line, threshold) for line in board.lines[board.n_shelves:])
    assert score_breakdown(board, marks, rules) == (shelves, columns)
    assert totals_breakdown(board, *marked_line_totals(board, marks), rules) == (shelves, columns)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.data())
def test_has_available_is_whether_any_item_is_available(shelves, columns, data):
    """Marks.has_available (from the bits) agrees with the listed available items (D4), sheets
    full, empty and in between."""
    cells = shelves * columns
    states = data.draw(st.lists(st.sampled_from((0, 1, 2)), min_size=cells, max_size=cells))
    marked = sum(1 << c for c, s in enumerate(states) if s == 1)
    eliminated = sum(1 << c for c, s in enumerate(states) if s == 2)
    marks = Marks(shelves, columns, marked, eliminated)
    assert marks.has_available == (len(marks.available) > 0) == (0 in states)
