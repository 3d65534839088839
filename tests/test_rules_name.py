"""The built-in ruleset's name cites docs/rules.md (D1-D20); saved games, value tables and
checkpoints written under its old name "(RULES.md)" still load and match, because rules are
compared by content, never by name."""

from __future__ import annotations

import dataclasses
import json

from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.wholegame.solver import fingerprint, same_setup
from shelfie_solver.dice.game.record import game_from_json, game_to_json, load_games, replay
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.rules import load_rules
from shelfie_solver.dice.strategies import strategy_named

OLD_NAME = "My Shelfie: The Dice Game (RULES.md)"


def test_the_default_name_cites_docs_rules_md():
    assert load_rules().name == "My Shelfie: The Dice Game (docs/rules.md, D1-D20)"


def test_a_game_saved_under_the_old_name_loads_and_replays(tmp_path):
    rules, board = load_rules(), load_board(None)
    game = play_seeded(board, rules, [strategy_named("greedy"), strategy_named("greedy")], 7)
    data = json.loads(game_to_json(game))
    data["rules"]["name"] = OLD_NAME  # as written before the rename
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(data) + "\n")
    (loaded,) = list(load_games(str(path)))
    assert loaded.rules.name == OLD_NAME
    assert dataclasses.replace(loaded.rules, name=rules.name) == rules  # same rules by content
    assert replay(loaded).events == game.events
    assert game_from_json(json.dumps(data)).events == game.events


def test_tables_solved_under_the_old_name_match_the_default_rules():
    rules, board = load_rules(), load_board(None)
    old = fingerprint(board, dataclasses.replace(rules, name=OLD_NAME))
    assert same_setup(old, fingerprint(board, rules))
    assert not same_setup(old, fingerprint(board, dataclasses.replace(rules, rerolls=1)))
    other = load_board(None)
    assert not same_setup({**old, "board": {**old["board"], "columns": [9]}}, fingerprint(other, rules))
