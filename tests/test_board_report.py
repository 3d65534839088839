"""The board report for designers (``solve-game --report``, dice/design.py, docs/solve-game.md
"The board report"): checked against figures derived another way — the example board's
published optimum, the exact rational solver's optimum of a board typed in by hand, the
simulated optimal policy's interval around the optimum (D19 scores, D17/D18 end)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main

from conftest import EXAMPLES, assert_fits, assert_one_line_error

SMALL = str(EXAMPLES / "boards" / "small.toml")

BY_HAND = """\
name = "two shelves by hand"
columns = [1, 2, 3]
[[shelves]]
faces = ["cat"]
values = [2, 1, 3]
[[shelves]]
faces = ["game"]
values = [1, 3, 2]
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache folder of the test's own."""
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _report(args: list[str]) -> dict:
    result = CliRunner().invoke(main, ["solve-game", "--report", "--format", "json", "--jobs", "1", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
def test_the_report_on_the_example_board_matches_its_published_optimum(cache):
    # examples/boards/small.toml states its solitaire optimum: "about 41.71" (docs/solve-game.md)
    data = _report(["--board", SMALL, "--games", "300", "--duel-games", "20", "--seed", "3"])
    assert data["optimum"] == pytest.approx(41.71, abs=0.005)
    assert data["optimum_policy_simulated"] is True
    dist = data["distribution"]
    assert dist["ci95"][0] <= data["optimum"] <= dist["ci95"][1]  # the optimal policy, simulated
    for strategy in data["strategies"]:  # nothing beats the optimum beyond its interval
        assert strategy["ci95"][0] <= data["optimum"] + 1e-9
    # D19: on a full 3 x 3 sheet every item counts twice, in its shelf and in its column
    assert data["possible"] == 2 * (2 + 1 + 3 + 1 + 3 + 2 + 3 + 2 + 4) == 42


@pytest.mark.slow
def test_a_board_typed_by_hand_reports_the_exact_solvers_optimum(cache, tmp_path):
    board = tmp_path / "by-hand.toml"
    board.write_text(BY_HAND)
    exact = CliRunner().invoke(main, ["solve-game", "--board", str(board), "--format", "json"])
    assert exact.exit_code == 0, exact.output
    optimum = Fraction(json.loads(exact.stdout)["optimum"])  # the rational solver, not the float one
    png = tmp_path / "scores.png"
    data = _report(["--board", str(board), "--games", "200", "--duel-games", "10", "--histogram", str(png)])
    assert abs(Fraction(data["optimum"]) - optimum) <= Fraction(data["optimum_bound"]) + Fraction(1, 10**9)
    assert data["possible"] == 2 + 1 + 3 + 1 + 3 + 2  # both shelves; columns of 2 items score 0 (D19)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and data["histogram"] == str(png)
    text = CliRunner().invoke(main, ["solve-game", "--board", str(board), "--report", "--games", "20",
                                     "--duel-games", "4", "--jobs", "1"])
    assert text.exit_code == 0, text.output
    assert "Board report: 'two shelves by hand' (2 x 3" in text.stdout
    assert "optimal solitaire mean" in text.stdout and "of optimum" in text.stdout


@pytest.mark.parametrize("option", [["--games", "10"], ["--duel-games", "5"], ["--seed", "1"],
                                    ["--histogram", "x.png"]])
def test_report_options_without_report_are_refused(option, cache):
    result = CliRunner().invoke(main, ["solve-game", "--board", SMALL, *option])
    assert_one_line_error(result, option[0], "--report")


@pytest.mark.parametrize("games", ["0", "-3", "many"])
def test_bad_game_counts_are_refused(games, cache):
    result = CliRunner().invoke(main, ["solve-game", "--board", SMALL, "--report", "--games", games])
    assert_one_line_error(result, "--games")


def test_the_histogram_refuses_a_file_of_another_kind(cache, tmp_path):
    """--histogram over an existing file that is not a PNG (a game file named .png): refused in one
    line before any game, the file byte for byte; --force replaces it; a PNG is replaced as is."""
    png = tmp_path / "game.png"
    png.write_text('{"format": "shelfie-solve game 1"}')
    args = ["solve-game", "--report", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"), "--games", "3",
            "--duel-games", "1", "--histogram", str(png)]
    assert_one_line_error(CliRunner().invoke(main, args), "--histogram", "--force", "not a PNG image")
    assert png.read_text() == '{"format": "shelfie-solve game 1"}'
    for extra in (["--force"], []):
        result = CliRunner().invoke(main, [*args, *extra])
        assert result.exit_code == 0, result.output
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_duel_whose_interval_holds_half_says_it_is_not_settled():
    """18 wins of 40 (45%): the Wilson interval [30.7%, 60.1%] (closed form) holds 50%, so the row
    says the duel is not settled; 35 of 40 (87.5%, interval [73.9%, 94.5%]) does not."""
    from shelfie_solver.core.stats import estimate
    from shelfie_solver.dice.design import _unsettled_even, _unsettled_order

    unit = (Fraction(0), Fraction(1))
    even = estimate([1] * 18 + [0] * 22, bounds=unit)
    clear = estimate([1] * 35 + [0] * 5, bounds=unit)
    assert even.low < 0.5 < even.high and clear.low > 0.5
    assert _unsettled_even(even).startswith("a duel is not settled when its 95% interval holds 50%")
    assert _unsettled_even(clear) == ""
    assert _unsettled_order([even, estimate([1] * 20 + [0] * 20, bounds=unit)]).startswith("the stronger of the two")
    assert _unsettled_order([even, clear]) == ""


SQUARE = """\
name = "three by three by hand"
columns = [1, 2, 3]
[[shelves]]
faces = ["cat"]
values = [1, 2, 1]
[[shelves]]
faces = ["book"]
values = [2, 1, 2]
[[shelves]]
faces = ["plant"]
values = [1, 1, 3]
"""


def test_the_report_fits_80_columns_with_the_not_settled_reasons_under_the_table(cache, tmp_path):
    # 2 games a duel: even 2 wins of 2 have the Wilson interval [2 / (2 + 1.96^2), 1] = [0.34, 1],
    # which holds 50%, so both duels are not settled and (both holding 50%) their intervals overlap
    board = tmp_path / "square.toml"
    board.write_text(SQUARE)
    result = CliRunner().invoke(main, ["solve-game", "--board", str(board), "--report", "--games", "10",
                                       "--duel-games", "2", "--jobs", "1", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert_fits(result.stdout)
    rows = [line for line in result.stdout.splitlines()
            if line.startswith(("2 players:", "stronger of win and learned"))]
    assert len(rows) == 3 and all(row.endswith("won (not settled)") for row in rows)
    flat = " ".join(result.stdout.split())
    assert ("Not settled: a duel is not settled when its 95% interval holds 50%: these games have not shown "
            "either side stronger; the stronger of the two is not settled when the two duels' 95% intervals "
            "overlap (more --duel-games narrows them).") in flat


def test_a_board_where_nothing_can_score_says_so(cache, tmp_path):
    # 2 x 2: every line has 2 items, one short of the 3 marks a line needs to score (D19), so a
    # full sheet is worth 0 and the report says why instead of a page of bare zeros
    board = tmp_path / "two.toml"
    board.write_text('name = "two by two"\ncolumns = [1, 2]\n\n[[shelves]]\nfaces = ["cat"]\nvalues = [2, 3]\n\n'
                     '[[shelves]]\nfaces = ["book"]\nvalues = [1, 4]\n')
    result = CliRunner().invoke(main, ["solve-game", "--report", "--board", str(board), "--games", "10",
                                       "--duel-games", "2", "--seed", "1", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert "a full sheet is worth 0 points" in flat
    assert ("Nothing can score on this board: a line scores only with at least 3 marked items (D19), and its "
            "shelves have 2 items, its columns 2") in flat


def test_a_board_that_scores_has_no_such_note(cache, tmp_path):
    # 3 x 1: the one column has 3 items and scores 2 + 3 + 4 = 9 when full (D19); shelves of 1 item never
    board = tmp_path / "column.toml"
    board.write_text('name = "one column"\ncolumns = [1]\n' + "".join(
        f'\n[[shelves]]\nfaces = ["{face}"]\nvalues = [{value}]\n' for face, value in (("cat", 2), ("book", 3), ("plant", 4))))
    result = CliRunner().invoke(main, ["solve-game", "--report", "--board", str(board), "--games", "10",
                                       "--duel-games", "2", "--seed", "1", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.stdout.split())
    assert "Nothing can score" not in flat and "a full sheet is worth 9 points" in flat


def test_a_score_the_same_in_every_game_claims_no_certainty(cache):
    """tiny-2x3 (a full sheet is worth 17): ten games of the optimal policy at seed 0 all score 17,
    and the report said "17.00 [17.00, 17.00]" beside the exact optimum 16.93, an interval of zero
    width from ten games. There is no interval then (JSON ``ci95`` null); the row gives the value
    and the 95% bound on how often another score comes, z^2 / (n + z^2) at n = 10 (Wilson's upper
    end at none seen), and a note says what that is."""
    z = 1.959963984540054  # the normal 97.5% quantile
    tiny = str(EXAMPLES / "boards" / "tiny-2x3.toml")
    data = _report(["--board", tiny, "--games", "10", "--duel-games", "2"])
    dist = data["distribution"]
    assert dist["sd"] == 0 and dist["mean"] == 17  # the case: every game scored 17
    assert data["optimum"] < 17  # the exact optimum: not every game scores 17
    assert dist["ci95"] is None and dist["others_at_most"] == pytest.approx(z * z / (10 + z * z))
    result = CliRunner().invoke(main, ["solve-game", "--report", "--board", tiny, "--games", "10",
                                       "--duel-games", "2", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if line.startswith("simulated: optimal policy"))
    assert row.split(None, 3)[3] == f"17.00 [all 17; others <= {z * z / (10 + z * z) * 100:.1f}%]"
    assert "[17.00, 17.00]" not in result.stdout
    flat = " ".join(result.stdout.split())
    assert "All X; others <= p%: every game gave the same value X, so there is no Student t interval" in flat


def test_the_solitaire_states_line_says_the_count_once(cache):
    """The report's title said "Solitaire states: 176,392,511 solitaire states, over the exact
    budget of ..." on the default board (the route's reason repeated the label): the count is
    said once, then why the board is not solved exactly; a board within the budget as before."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.design import route_words
    from shelfie_solver.dice.rules import DEFAULT_RULES
    from shelfie_solver.dice.wholegame.exact_cache import exact_budget, route

    budget = exact_budget()
    default = route_words(route(load_board(None, DEFAULT_RULES), DEFAULT_RULES))
    assert default == f"176,392,511, over the exact budget of {budget:,} (SHELFIE_SOLVE_EXACT_BUDGET)"
    small = route_words(route(load_board(SMALL, DEFAULT_RULES), DEFAULT_RULES))
    assert small == "1,519, within the exact budget"
