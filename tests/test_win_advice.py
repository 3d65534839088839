"""Advice in the chance to win (D20): the reason line, ties ordered by points, review in
percentage points (an advised player loses 0), play status's chances, the 80-column table."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import assert_fits

from shelfie_solver.cli import main
from shelfie_solver.dice.board import parse_marks, score
from shelfie_solver.dice.game.record import game_to_dict
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.play.gamefile import kept_game_from_dict
from shelfie_solver.dice.review import BLUNDER, INACCURACY, MISTAKE, review, severity
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.win_chance import opponent_chance

LEADER = "ooo../oooxx/oxo../ooox./ooo.."  # 69 points, one closed shelf
BEHIND = "oox../xox../oooo./oox../ooxo."  # 45 points


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_failed_result_that_ends_the_game_gives_the_reason(board, rules):
    """BAAACC with no re-roll left marks nothing (D13); every shelf given up closes a second one and
    ends the game (D17); the opponent then plays the last turn (D18) and needs 69 - 45 + 1 = 25 points."""
    data = json.loads(run("advise", "--dice", "BAAACC", "--rerolls", "0", "--marks", LEADER, "--opponent", BEHIND,
                          "--order", "1", "--round", "7", "--format", "json").stdout)
    mine, theirs = parse_marks(LEADER, board), parse_marks(BEHIND, board)
    assert (score(board, mine, rules), score(board, theirs, rules)) == (69, 45)
    chance = opponent_chance(board, rules, theirs, (69,))
    assert data["reason"].startswith("giving up shelf")
    assert "ends the game (D17): you lead 69-45; the opponent then needs 25+ points in one turn" in data["reason"]
    assert f"({float(chance) * 100:.1f}%)" in data["reason"]
    # every shelf ends the game and blocks nothing, so each is worth 1 - the opponent's chance (rounded to 1e-6)
    for shelf in data["shelves"]:
        assert abs(shelf["win_chance_float"] - (1 - float(chance))) < 1e-6
        assert shelf["win_chance_exact"] is True  # an ending outcome (D17): exact, as an ending marking
    assert data["win_chance_exact"] is True  # the best choice's: it ends the game


def test_hopeless_last_turn_says_the_game_is_decided():
    """Last to play with the end triggered, 25 points against 184: the whole last shelf is worth at
    most 5 x 5 items' values short of 159 points, so no roll wins (D19, D20): the game is decided."""
    data = json.loads(run("advise", "--dice", "CCBJPP", "--marks", "ooooo/xxxxx/xxxxx/xxxxx/.....",
                          "--opponent", "xxxxx/ooooo/ooooo/ooooo/oooo.", "--order", "2", "--round", "9",
                          "--format", "json").stdout)
    assert data["win_chance"] == "0/1" and data["win_chance_exact"] is True
    assert data["reason"] == "you can no longer win, whatever you roll" and data["decided"] is True
    # exact ties are listed by expected points this turn, best first
    points = [Fraction(h["points"]) for h in data["holds"] if h["rank"] == 1]
    assert points == sorted(points, reverse=True)


def test_the_table_fits_80_columns():
    out = run("advise", "--dice", "PPAACC", "--marks", "oox../xox../oooo./oox../ooxox", "--opponent",
              "ooo../oooxx/oxo../oooxx/ooo..", "--order", "2", "--round", "7").stdout
    table = [line for line in out.splitlines() if line.startswith(("rank", "---", "1 ", "2"))]
    assert table and max(len(line) for line in table) <= 80
    assert "chance to win 65.0% (exact)" in out and "Why: " in out


def test_severity_thresholds():
    assert [severity(x) for x in (Fraction(0), Fraction(1, 100), INACCURACY, MISTAKE, BLUNDER, Fraction(1))] == \
        ["", "", "inaccuracy", "mistake", "blunder", "blunder"]


def _game(board, rules, seed: int, tmp_path: Path) -> Path:
    game = play_seeded(board, rules, [strategy_named("win"), strategy_named("greedy")], seed)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_to_dict(game)))
    return path


def test_review_of_an_advised_player_loses_nothing(board, rules, tmp_path):
    """A seat that followed every piece of play's advice (the strategy win plays it) loses 0 under
    review's default objective; the chance moves only by the dice and the others' turns:
    start + luck - loss + others = the result (D20)."""
    path = _game(board, rules, 4, tmp_path)
    table = kept_game_from_dict(json.loads(path.read_text()))
    result = review(table, 0)
    assert result.objective == "win" and result.win and result.decisions
    assert all(d.loss == 0 for d in result.decisions)
    assert result.result in (0, Fraction(1, 2), 1)
    assert result.start + result.luck - result.total_loss + result.others == result.result
    # the greedy seat loses win chance; its losses are classified
    greedy = review(table, 1)
    assert greedy.total_loss > 0 and sum(greedy.counts().values()) >= 1
    data = json.loads(run("review", str(path), "--player", "2", "--format", "json").stdout)
    assert data["unit"] == "win chance" and data["summary"]["over_threshold"] >= 1
    png = tmp_path / "curve.png"
    plotted = run("review", str(path), "--plot", str(png))
    out = plotted.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plotted.stderr == f"Wrote {png}\n"  # as cheatsheet says; stdout stays the report alone
    assert "Result: " in out and "luck (the dice)" in out


def test_the_win_review_says_percentage_points_not_bare_points(board, rules, tmp_path):
    """A change of win chance is in percentage points (docs/review.md): the title's luck, the
    classes' thresholds (2, 5, 10: INACCURACY, MISTAKE, BLUNDER) and the total loss say so, as the
    note under the table does; never bare "points", which the game's scores use (D19)."""
    path = _game(board, rules, 4, tmp_path)
    out = run("review", str(path), "--player", "2").stdout
    flat = " ".join(out.split())
    assert "luck (the dice) " in flat and " percentage points, decisions " in flat
    assert "(>= 2 percentage points)" in flat and "(>= 5)" in flat and "(>= 10)" in flat
    assert "total loss " in flat and flat.split("total loss ")[1].split(";")[0].endswith(" percentage points")
    assert flat.count(" points") == flat.count(" percentage points")
    assert_fits(out)


def test_plot_needs_a_chance_to_win(board, rules, tmp_path):
    path = _game(board, rules, 5, tmp_path)
    result = CliRunner().invoke(main, ["review", str(path), "--objective", "strategic", "--plot",
                                       str(tmp_path / "x.png")])
    assert result.exit_code == 2 and "Error: --plot draws the chance to win" in result.output
    assert not (tmp_path / "x.png").exists()


def test_play_status_gives_each_sheet_its_chance(tmp_path):
    path = str(tmp_path / "g.json")
    run("play", "new", path, "--players", "Ann,Sam", "--first", "Ann")
    run("play", "roll", path, "CCBJPP")
    data = json.loads(run("play", "status", path, "--format", "json").stdout)
    chances = [Fraction(s["win_chance"]) for s in data["sheets"]]
    assert len(chances) == 2 and sum(chances) == 1 and all(0 < c < 1 for c in chances)
    assert all(abs(s["win_chance_float"] - float(Fraction(s["win_chance"]))) < 1e-12 for s in data["sheets"])


def test_train_win_model_is_reproducible(tmp_path):
    """train --win-model from a seed gives the same file whatever --jobs is; the model's chance
    is an integer over its scale, so the engine's expectations stay exact under it."""
    from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, load_win_model

    out = []
    for jobs in ("1", "2"):
        path = tmp_path / f"w{jobs}.json"
        run("train", "--win-model", "--seed", "5", "--games", "2", "--jobs", jobs, "--output", str(path))
        out.append(path.read_text())
    assert out[0] == out[1]
    model = load_win_model(tmp_path / "w1.json")
    assert set(model.coefficients) == {2, 3, 4} and model.info["seed"] == 5
    assert CHANCE_SCALE == 10 ** 6


def test_win_objective_needs_opponents():
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--objective", "win"])
    assert result.exit_code == 2 and "Error: objective win is the chance to win against opponents" in result.output


def test_three_players_see_the_chance_in_percent():
    """With opponents every value is the chance to win (D20), here under the model (3 players,
    round 3: nobody's score is final), a probability for every hold."""
    data = json.loads(run("advise", "--dice", "CCBJPP", "--marks", "oo.../...../x..../...../.....",
                          "--opponent", "o..../o..../o..../...../.....", "--opponent", ".o.../...../...../...../.....",
                          "--order", "2", "--round", "3", "--format", "json").stdout)
    assert data["objective"] == "win" and data["win_chance_exact"] is False
    assert all(0 <= Fraction(h["win_chance"]) <= 1 for h in data["holds"])
    assert Fraction(data["win_chance"]) == max(Fraction(h["win_chance"]) for h in data["holds"])
    table = run("advise", "--dice", "CCBJPP", "--marks", "oo.../...../x..../...../.....",
                "--opponent", "o..../o..../o..../...../.....", "--opponent", ".o.../...../...../...../.....",
                "--order", "2", "--round", "3").stdout
    assert "(model)" in table and "win chance" in table


def test_the_model_note_words_its_error_in_percentage_points():
    # the model's error against rollouts is a difference of chances (docs/advise.md): percentage
    # points, not the game's points (D19), which the same screen shows beside it
    out = run("advise", "--dice", "CCBJPP", "--marks", "oo.../...../x..../...../.....", "--opponent",
              "o..../o..../o..../...../.....", "--order", "2", "--round", "3").stdout
    flat = " ".join(out.split())
    assert "(model)" in out and "about 7 percentage points from rollouts of the advised play" in flat


# A 2-player position far ahead in round 7, last to play in the round: after the best holds every
# roll ends the game (a marking or a failed result closes the second shelf, D13, D17, D18) with a
# final score above the other seat's, so each terminal is settled won (win_chance.settled_shares)
# and the hold's value is exactly 1; yet the advice flags it as the model's (win_chance_exact false).
FAR_AHEAD = ["advise", "--dice", "PPBBCA", "--marks", "ooo.o/oo.oo/xoxxx/oo.../o..o.",
             "--opponent", ".o.../ooo../o.o.o/..o../.o...", "--order", "2", "--round", "7", "--rerolls", "1",
             "--objective", "win"]


def test_a_certainty_is_never_labelled_as_the_model_s_estimate():
    """docs/advise.md: ``100%`` is exactly won; docs/play.md: ``0%`` and ``100%`` only when
    certain, so never with ``(model)``. A value of exactly 1 (every terminal settled won, D20)
    is a certainty, so it is not an estimate of the model."""
    data = json.loads(CliRunner().invoke(main, [*FAR_AHEAD, "--format", "json"]).output)
    assert Fraction(data["win_chance"]) == 1  # the premise: the best hold's value is exactly 1
    assert data["win_chance_exact"] is True
    text = CliRunner().invoke(main, FAR_AHEAD).output
    assert "100% (model)" not in text and "100% (exact)" in text
