"""The reports beside their game (docs/architecture.md): one tournament report for both games,
one wording of a value's unit for ``advise``, ``play`` and ``serve``, the tile score's matching
cells, and ``play new``'s one click-free start used by ``serve``'s page too."""

from __future__ import annotations

import statistics
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core.stats import summarise
from shelfie_solver.core.tournament_report import TournamentParts, tournament_report


def _games(wins: list[tuple[int, int]], scores: list[tuple[int, int]]) -> list[SimpleNamespace]:
    return [SimpleNamespace(rounds=5, seats=[SimpleNamespace(win=w, score=s) for w, s in zip(ws, ss)])
            for ws, ss in zip(wins, scores)]


def test_tournament_report_of_hand_made_games():
    """Four games, seat 1 wins three (a 75% win rate, so it leads); the margin line is the game's
    own words; the spread row is the sample standard deviation of the scores."""
    games = _games([(1, 0), (1, 0), (0, 1), (1, 0)], [(30, 20), (25, 24), (10, 40), (35, 15)])
    summary = summarise(games, ["alpha", "beta"], 7, [("win", "win rate"), ("score", "score")])
    parts = TournamentParts("bout", ("arena", "north"), [("win", "win rate"), ("score", "score")],
                            lambda m: f"score {float(m.score.mean):+.2f}", ["a note"], spread=frozenset({"score"}),
                            data={"extra": 1})
    report = tournament_report(summary, parts, saved="games.jsonl")
    assert report.title[0] == "4 bouts of alpha, beta on arena 'north', seed 7"
    # every game 5 rounds: no zero-width interval, but the 95% bound on how often another length
    # comes, z^2 / (n + z^2) at n = 4 (Wilson's upper end at none seen), and a note saying so
    z = 1.959963984540054
    others = z * z / (4 + z * z)
    assert report.title[1] == f"Game length: 5.00 [all 5; others <= {others * 100:.1f}%] rounds (95% interval)"
    assert report.title[2].startswith("Leader: seat 1: alpha, win rate 75.0% [")
    margin = (30 - 20 + 25 - 24 + 10 - 40 + 35 - 15) / 4  # seat 1 minus seat 2, per game
    assert report.title[3] == f"seat 1: alpha vs seat 2: beta: score {margin:+.2f}"
    assert report.headers == ["statistic", "seat 1: alpha", "seat 2: beta"]
    assert [row[0] for row in report.rows] == ["win rate", "score", "score standard deviation"]
    assert report.rows[2][1:] == [f"{statistics.stdev([30, 25, 10, 35]):.2f}", f"{statistics.stdev([20, 24, 40, 15]):.2f}"]
    assert list(report.data) == ["games", "players", "seed", "arena", "rounds", "leader", "seats", "extra"]
    assert report.data["seats"][0]["win"]["mean"] == "3/4" and report.data["leader"] == 1
    assert report.notes[0] == "a note" and report.notes[-1] == "Games saved to games.jsonl (JSON Lines, replayable)."
    assert len(report.notes) == 3 and report.notes[1].startswith("All X; others <= p%: every game gave the same value")
    assert report.data["rounds"]["ci95"] is None and report.data["rounds"]["others_at_most"] == pytest.approx(others)


def test_win_rates_side_by_side_add_up_to_100():
    """Three seats, each winning one of three games (D20: shares add up to 1 a game): three
    means of exactly 1/3, which rounded alone would read 33.3% three times (99.9%); rounded
    together (largest remainder, the earlier seat first on a tie) 33.4%, 33.3%, 33.3%. The
    leader's line reads its cell; the intervals are each seat's own (Wilson, unchanged)."""
    from fractions import Fraction

    from shelfie_solver.core.stats import estimate

    games = [SimpleNamespace(rounds=5, seats=[SimpleNamespace(win=int(i == g), score=10) for i in range(3)])
             for g in range(3)]
    summary = summarise(games, ["a", "b", "c"], 7, [("win", "win rate"), ("score", "score")])
    report = tournament_report(summary, TournamentParts("game", ("board", "b"), [("win", "win rate")],
                                                        lambda m: "", []))
    cells = report.rows[0][1:]
    assert [cell.split(" [")[0] for cell in cells] == ["33.4%", "33.3%", "33.3%"]
    alone = estimate([1, 0, 0], (Fraction(0), Fraction(1)))
    assert cells[1].split(" [")[1] == f"{alone.low * 100:.1f}%, {alone.high * 100:.1f}%]"
    assert report.title[2].endswith(f"win rate {cells[summary.leader]}")
    # a seat that never won reads 0.0% beside one that always won (exact: no rounding moved)
    games = [SimpleNamespace(rounds=5, seats=[SimpleNamespace(win=1, score=10), SimpleNamespace(win=0, score=0)])
             for _ in range(2)]
    report = tournament_report(summarise(games, ["a", "b"], 7, [("win", "win rate"), ("score", "score")]),
                               TournamentParts("game", ("board", "b"), [("win", "win rate")], lambda m: "", []))
    assert [cell.split(" [")[0] for cell in report.rows[0][1:]] == ["100.0%", "0.0%"]


def test_a_single_seat_has_no_leader_line():
    """Solitaire: nobody to beat, so no leader and no margins."""
    summary = summarise(_games([(0,), (0,)], [(10,), (14,)]), ["solo"], 1, [("score", "score")])
    report = tournament_report(summary, TournamentParts("game", ("board", "b"), [("score", "score")],
                                                        lambda m: "", []))
    assert len(report.title) == 2 and not any(line.startswith("Leader") for line in report.title)


@pytest.mark.parametrize("objective", ["points", "marks", "strategic", "learned"])
def test_the_pages_value_words_are_advises(objective: str):
    """serve's ``unit`` words and header are the ones ``advise`` prints after the best hold's
    value and over its value column (alone: no opponents)."""
    from shelfie_solver.web.api import value_unit

    unit = value_unit(objective, False)
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--objective", objective])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the title wraps at 80 columns
    best = text[text.index("Best:"):]
    assert unit["words"] and f"({' '.join(str(unit['words']).split())})" in best
    assert unit["label"] in result.output and "percent" not in unit


@pytest.mark.parametrize("objective", ["win", "win-model", "win (exact)"])
def test_every_win_objective_with_opponents_is_a_chance(objective: str):
    """With opponents ``win``, ``win-model`` and the exact last-turn chance all value a choice by
    the chance to win (D20), a probability: the page shows it in percent."""
    from shelfie_solver.dice.advise.report import value_words
    from shelfie_solver.web.api import value_unit

    assert value_unit(objective, True)["percent"] is True and value_words(objective, True).chance
    assert "percent" not in value_unit(objective, False)  # alone: learned's expected final score


def test_matching_cells_are_the_cards_cells_holding_their_type():
    """T21: a card's cell counts when it holds the type the card asks for there."""
    from shelfie_solver.tile.rules import EMPTY, default_cards
    from shelfie_solver.tile.report import matching_cells

    card = default_cards()[0]
    shelf = [EMPTY] * 30
    shelf[card.cells[0]] = 0  # the type asked for: a match
    shelf[card.cells[2]] = 2
    shelf[card.cells[1]] = 3  # another type: no match
    assert matching_cells(tuple(shelf), card) == [card.cells[0], card.cells[2]]


def test_new_game_draws_the_first_player_from_the_seed():
    """``play new`` and serve's page start a game through one function: names checked (D1), the
    first player chosen by name or drawn from the seed (D5), the same draw for the same seed."""
    from shelfie_solver.core.errors import ShelfieError
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.play.gamefile import draw_first
    from shelfie_solver.dice.play.newgame import new_game
    from shelfie_solver.dice.rules import DEFAULT_RULES

    board = load_board(None, DEFAULT_RULES)
    chosen = new_game(board, DEFAULT_RULES, ["Ann", "Ben", "Cy"], "cy", None)
    assert chosen.state.first == 2 and chosen.players == ("Ann", "Ben", "Cy")
    for seed in range(5):
        assert new_game(board, DEFAULT_RULES, ["Ann", "Ben", "Cy"], None, seed).state.first == draw_first(3, seed)
    with pytest.raises(ShelfieError):
        new_game(board, DEFAULT_RULES, ["Ann", "ann"], None, 0)
    with pytest.raises(ShelfieError):
        new_game(board, DEFAULT_RULES, ["Ann", "Ben"], "Dee", 0)
