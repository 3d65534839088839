"""The possessive of a player's name, written in one place (:func:`core.report.possessive`): a
player may be named ``me`` (``play --help`` suggests ``--players Ann,Ben,me``), and every text that
says whose something is reads "my roll", never "me's roll"; ``you`` reads "your"; any other name
takes ``'s`` whatever its last letter ("Ross's"), as English writes it.

The texts: what ``undo`` took back (the step, the prompt; D6-D8), the blocking threat of ``play
status`` (D15) and of the session's screen (in full, then "N items of mine" when the items do not
fit the line), and the reason naming the items a block takes (D15).

Default board (shelfie_solver/dice/data/default_board.toml): shelf 1 takes cats, column 1 needs
one die; its values are those of docs/play.md's sheets (r1: 1 2 4 7 11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core.report import possessive
from shelfie_solver.dice.board import Board, Marks
from shelfie_solver.dice.rules import DEFAULT_RULES


@pytest.mark.parametrize("name, before_a_noun, alone", [
    ("me", "my", "mine"), ("Me", "my", "mine"), ("ME", "my", "mine"), ("I", "my", "mine"), ("i", "my", "mine"),
    ("you", "your", "yours"), ("You", "your", "yours"),
    ("Ben", "Ben's", "Ben's"), ("Ross", "Ross's", "Ross's"), ("Mei", "Mei's", "Mei's"),
    ("Iris", "Iris's", "Iris's"), ("the opponent", "the opponent's", "the opponent's"),
    ("opponent 2", "opponent 2's", "opponent 2's")])
def test_the_possessive_of_a_name(name: str, before_a_noun: str, alone: str):
    """English by hand: the pronouns me / I and you have their own possessives; a name takes 's."""
    assert possessive(name) == before_a_noun
    assert possessive(name, alone=True) == alone


def ok(*args: str, given: str | None = None) -> str:
    result = CliRunner().invoke(main, list(args), input=given)
    assert result.exit_code == 0, result.output
    return result.stdout


def new_game(tmp_path: Path, players: str, first: str) -> str:
    game = str(tmp_path / "game.json")
    ok("play", "new", game, "--players", players, "--first", first)
    return game


@pytest.mark.parametrize("name, whose", [("me", "my"), ("you", "your"), ("Ross", "Ross's")])
def test_undo_names_whose_action_it_took_back(tmp_path: Path, name: str, whose: str):
    """CCBJPP rolled, in side order PPBCCJ (D6): the step's and the prompt's undo say whose roll."""
    game = new_game(tmp_path, f"Ann,{name}", name)
    ok("play", "roll", game, "CCBJPP")
    assert ok("play", "undo", game).startswith(f"Undone: {whose} roll PPBCCJ.\n")
    out = ok("play", game, given="CCBJPP\nundo\nquit\n")
    assert f"Undone: {whose} roll PPBCCJ." in out, out
    assert "me's" not in out and "you's" not in out, out


def _threatened(tmp_path: Path) -> str:
    """Ann marks r1c1-r1c3 and me r2c1 (told, D8), then Ann r1c4: Ann is one item (r1c5) from
    shelf 1, whose five items are all still available on the sheet of me (D15), me to play."""
    game = new_game(tmp_path, "Ann,me", "Ann")
    for cells in (["r1c1", "r1c2", "r1c3"], ["r2c1"], ["r1c4"]):
        ok("play", "mark", game, "--unchecked", *cells)
    return game


def test_status_names_my_items_at_risk(tmp_path: Path):
    out = " ".join(ok("play", "status", _threatened(tmp_path)).split())
    assert ("Blocking threat (D15): Ann completes shelf 1 with one more item (r1c5): my r1c1, r1c2, r1c3, r1c4, "
            "r1c5 are at risk.") in out, out
    assert "me's" not in out


def test_the_screen_names_my_items_at_risk(tmp_path: Path):
    """The session's screen after Ann's r1c4 told at the prompt (the same position as above)."""
    game = new_game(tmp_path, "Ann,me", "Ann")
    for cells in (["r1c1", "r1c2", "r1c3"], ["r2c1"]):
        ok("play", "mark", game, "--unchecked", *cells)
    out = ok("play", game, given="told r1c4\nquit\n")
    assert "Threat: Ann needs r1c5 for shelf 1: my r1c1 r1c2 r1c3 r1c4 r1c5 at risk." in out, out
    assert "me's" not in out


def test_the_screen_counts_items_of_mine_when_they_do_not_fit(tmp_path: Path):
    """Ann one item from shelf 1 (r1c5) and from column 1 (r5c1): shelf 1 and column 1 of me are at
    risk, 5 + 5 - 1 (r1c1 in both) = 9 items, too many to name in 80 columns, so they are counted."""
    game = new_game(tmp_path, "Ann,me", "Ann")
    for cells in (["r1c1", "r1c2", "r1c3"], ["r3c3"], ["r2c1", "r3c1"], ["r3c4"]):
        ok("play", "mark", game, "--unchecked", *cells)
    out = ok("play", game, given="told r1c4 r4c1\nquit\n")
    assert "Threat: Ann needs r1c5 for shelf 1, r5c1 for column 1: 9 items of mine at risk." in out, out
    assert "me's" not in out


def _sheet(board: Board, marked: str) -> Marks:
    return Marks.empty(board).with_marked([board.parse_cell(name) for name in marked.split()])


@pytest.mark.parametrize("name, whose", [("me", "my"), ("Ross", "Ross's")])
def test_a_block_names_whose_items_it_takes(board, name: str, whose: str):
    """The player has r1c5-r4c5; AAAAAP marks r5c5 (five awards) and completes column 5, which
    eliminates the opponent's five available column-5 items (D15): the reason names them as the
    opponent's (tests/test_reasons.py builds the same position)."""
    from shelfie_solver.dice.advise.advice import advise_in_game
    from shelfie_solver.dice.advise.reasons import reason
    from shelfie_solver.dice.advise.seats import state_from_seats
    from shelfie_solver.dice.objectives import Points
    from shelfie_solver.dice.rolls import parse_dice

    state = state_from_seats(board, DEFAULT_RULES, _sheet(board, "r1c5 r2c5 r3c5 r4c5"),
                             (_sheet(board, "r1c1 r2c1"),), 1, 3)
    advice = advise_in_game(parse_dice("AAAAAP", DEFAULT_RULES), state, Points(), 0)
    said = reason(advice, ["Ann", name])
    assert f"completes column 5, blocking {whose} r1c5 r2c5 r3c5 r4c5 r5c5 (D15)" in said, said
