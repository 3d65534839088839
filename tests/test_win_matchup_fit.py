"""The win model fitted on the positions of the matchup it is measured in: one ``win`` seat
against ``learned`` seats (learned/win_fit.py ``matchup_positions``, ``train_matchup_model``;
docs/win-chance.md "Fitted on the matchup"): who sits where, that the positions are those of the
seeded games whatever --jobs is, and what the fit records."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import EXAMPLES

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.win_fit import (
    EVEN,
    OWN_PLAY_RIDGE,
    game_positions,
    matchup_positions,
    matchup_seats,
    train_matchup_model,
)
from shelfie_solver.dice.learned.win_model import (
    fit,
    load_win_model,
    model_from_dict,
    model_text,
)
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import LearnedStrategy, StrategyError, WinStrategy


@pytest.fixture(scope="module")
def board():
    return load_board(None, DEFAULT_RULES)


def same_samples(a, b) -> bool:
    return len(a) == len(b) and all(
        x[0] == y[0] and x[1] == y[1] and np.array_equal(x[2], y[2]) and np.array_equal(x[3], y[3])
        for x, y in zip(a, b))


def test_the_win_seat_moves_round_the_table():
    names = [[s.name for s in matchup_seats(2, g, "learned")] for g in range(3)]
    assert names == [["win", "learned"], ["learned", "win"], ["win", "learned"]]
    assert [s.name for s in matchup_seats(3, 4, "learned")] == ["learned", "win", "learned"]  # 4 % 3 = 1
    assert [s.name for s in matchup_seats(4, 3, "solver")] == ["solver", "solver", "solver", "win"]
    seats = matchup_seats(2, 0, "learned", EVEN)
    assert isinstance(seats[0], WinStrategy) and seats[0].win_model is EVEN
    assert type(seats[1]) is LearnedStrategy


@pytest.mark.parametrize("players, against, error", [(1, "learned", ValueError), (5, "learned", ValueError),
                                                    (2, "nobody", StrategyError)])
def test_a_bad_matchup_is_refused_before_any_game(board, players, against, error):
    """A game has 2-4 seats with opponents (D1)."""
    with pytest.raises(error, match="2-4 players" if error is ValueError else None):
        matchup_positions(board, DEFAULT_RULES, 1, 1, players, against)


@pytest.mark.parametrize("seed, games", [(1, -1), (-1, 1)])
def test_a_negative_seed_or_count_is_refused(board, seed, games):
    with pytest.raises(ValueError, match="games >= 0 and a seed >= 0"):
        matchup_positions(board, DEFAULT_RULES, seed, games)


def test_a_fit_of_no_game_is_refused(board):
    with pytest.raises(ValueError, match="at least 1 game"):
        train_matchup_model(board, DEFAULT_RULES, 1, 0)


def test_the_positions_are_the_seeded_games(board):
    """Game g is played from SeedSequence(seed).spawn(games)[g], the win seat at g % 2, built
    here by hand; --jobs changes nothing, another seed changes the games."""
    seeds = np.random.SeedSequence(7).spawn(3)
    by_hand = []
    for g, seed in enumerate(seeds):
        seats = [WinStrategy(win_model=EVEN), LearnedStrategy()]
        if g % 2:
            seats.reverse()
        by_hand += game_positions(play_seeded(board, DEFAULT_RULES, seats, seed))
    one = matchup_positions(board, DEFAULT_RULES, 7, 3, win_model=EVEN, jobs=1)
    assert one and same_samples(one, by_hand)
    assert same_samples(one, matchup_positions(board, DEFAULT_RULES, 7, 3, win_model=EVEN, jobs=2))
    assert not same_samples(one, matchup_positions(board, DEFAULT_RULES, 8, 3, win_model=EVEN))
    assert {s[0] for s in one} == {2}


def test_the_fit_and_its_record(board):
    model = train_matchup_model(board, DEFAULT_RULES, 7, 3, win_model=EVEN, played_by="even")
    samples = matchup_positions(board, DEFAULT_RULES, 7, 3, win_model=EVEN)
    assert np.array_equal(model.coefficients[2], fit(samples, OWN_PLAY_RIDGE).coefficients[2])
    for n in (3, 4):  # not fitted: even chances
        assert not model.coefficients[n].any()
    assert model.info == {"seed": 7, "games": 3, "players": [2], "positions": len(samples), "strategy": "win",
                          "against": "learned", "played_by": "even", "played_by_info": {},
                          "ridge": OWN_PLAY_RIDGE, "board": board.name}
    back = model_from_dict(json.loads(model_text(model)), "m.json")  # a file the strict reader takes
    assert all(np.array_equal(back.coefficients[n], model.coefficients[n]) for n in (2, 3, 4))


def test_the_matchup_example_file():
    """examples/win-vs-learned.json (docs/win-chance.md "Fitted on the matchup") records how it
    was fitted: 3,000 games of seed 8302, win by the seed-26 fit against learned; its 3- and
    4-player coefficients are not fitted (0)."""
    model = load_win_model(EXAMPLES / "win-vs-learned.json")
    assert {k: model.info[k] for k in ("seed", "games", "players", "strategy", "against", "ridge")} == {
        "seed": 8302, "games": 3000, "players": [2], "strategy": "win", "against": "learned",
        "ridge": OWN_PLAY_RIDGE}
    assert model.info["played_by_info"] == load_win_model(EXAMPLES / "win-learned-play.json").info
    assert model.coefficients[2].any() and not model.coefficients[3].any() and not model.coefficients[4].any()
