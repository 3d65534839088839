"""``stop`` is binding in the game file (D7: the player keeps every die and ends the roll phase):
``play stop`` records a :class:`Stop`, a re-roll is then refused and the file left byte for
byte; ``undo`` takes the stop back as one action; two sessions on one file share it; a saved
game with stops replays (record.replay, kept_game_from_events) and reviews exactly as the same
game without them, the stop valued as the hold of every die."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.dice.game.events import Fail, GameError, Mark, Roll, Stop
from shelfie_solver.dice.game.record import game_from_dict, game_to_dict, replay
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.play.gamefile import KeptGameError, act, kept_game_from_dict, read_kept_game, undo
from shelfie_solver.dice.play.session import Session, stop_action
from shelfie_solver.dice.review import review
from shelfie_solver.dice.strategies import strategy_named


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def game(tmp_path: Path) -> str:
    path = str(tmp_path / "g.json")
    assert run("play", "new", path, "--players", "Ann,Ben", "--first", "Ann").exit_code == 0
    assert run("play", "roll", path, "CCBBPG").exit_code == 0  # 2 re-rolls left (D7)
    return path


def test_play_stop_is_recorded_and_a_reroll_is_then_refused(game: str):
    result = run("play", "stop", game)
    assert result.exit_code == 0, result.output
    assert "Ann stops with PGBBCC (D7)" in result.stdout
    events = json.loads(Path(game).read_text())["events"]
    assert events[-1] == {"event": "stop", "player": 0}  # the additive event of docs/formats.md
    table = read_kept_game(game)
    assert table.stopped and table.rerolls_left == 0 and table.dice is not None
    before = Path(game).read_bytes()
    for args in (["CCCC", "--keep", "CC"], ["CCCCCC"]):
        refused = run("play", "reroll", game, *args)
        assert refused.exit_code == 2, refused.output
        lines = refused.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: Ann stopped with PGBBCC (D7)")
        assert f"mark items: play mark {game} ITEM...; or take the stop back: play undo {game} 1" in lines[0]
        assert "Traceback" not in refused.output
        assert Path(game).read_bytes() == before
    again = run("play", "stop", game)  # stopped already: shows the markings, writes nothing
    assert again.exit_code == 0 and Path(game).read_bytes() == before
    assert run("play", "mark", game, "r1c1").exit_code == 0  # a cat: legal with PGBBCC (D8)
    assert read_kept_game(game).active == 1 and not read_kept_game(game).stopped


def test_undo_takes_the_stop_back_as_one_action(game: str):
    rolled = Path(game).read_bytes()
    assert run("play", "stop", game).exit_code == 0
    assert run("play", "undo", game).exit_code == 0
    assert Path(game).read_bytes() == rolled  # exactly the file before the stop
    table = read_kept_game(game)
    assert not table.stopped and table.rerolls_left == 2
    assert run("play", "reroll", game, "CCCC", "--keep", "CC").exit_code == 0  # re-rolling is allowed again


def test_stop_needs_dice_and_re_rolls_left(tmp_path: Path, game: str):
    fresh = str(tmp_path / "fresh.json")
    assert run("play", "new", fresh, "--players", "Ann").exit_code == 0
    refused = run("play", "stop", fresh)
    assert refused.exit_code == 2 and "has not rolled yet" in refused.output
    table = read_kept_game(game)
    stopped = act(table, stop_action(table))
    with pytest.raises(KeptGameError, match="stopped already"):
        act(stopped, stop_action(stopped))
    final = replace(table, rerolls_left=0)
    with pytest.raises(KeptGameError, match="no re-roll left"):
        act(final, stop_action(final))


def test_a_stop_typed_in_one_session_binds_the_next_and_the_step_commands(game: str):
    first = Session(game)
    assert first.handle("stop").startswith("Ann stops with PGBBCC: the dice are final")
    second = Session(game)  # a new session (or another terminal) on the same file
    assert second.prompt() == "Ann PGBBCC/stop> "
    assert second.handle("keep CC new CCCC").startswith("Error: Ann stopped with PGBBCC (D7)")
    assert run("play", "reroll", game, "CCCC", "--keep", "CC").exit_code == 2
    assert second.handle("stop").startswith("The dice PGBBCC are final already.")
    assert second.handle("undo").startswith("Undone: Ann's stop.")
    assert first.prompt() == "Ann PGBBCC/2> "  # the first session sees the undo too


def with_stops(data: dict) -> tuple[dict, int]:
    """A saved game with a Stop inserted wherever a player's roll with re-rolls left is followed
    by their marking or failed result (an implicit stop made explicit), and how many."""
    events, out, added = data["events"], [], 0
    for i, event in enumerate(events):
        out.append(event)
        after = events[i + 1] if i + 1 < len(events) else None
        if event["event"] == "roll" and event["rerolls_left"] > 0 and after is not None \
                and after["event"] in ("mark", "fail") and after["player"] == event["player"]:
            out.append({"event": "stop", "player": event["player"]})
            added += 1
    return {**data, "events": out}, added


def test_a_saved_game_with_stops_replays_and_reviews_as_keeping_every_die(board, rules):
    """greedy stops at once (D7): its explicit stops change nothing the rules derive (replay)
    and review charges each as the hold of every die, the same decisions and exact values."""
    game = play_seeded(board, rules, [strategy_named("greedy"), strategy_named("solver")], 3)
    plain = game_to_dict(game)
    stopped, added = with_stops(plain)
    assert added > 0
    again = game_from_dict(stopped)  # record.replay accepts and checks the stops
    assert sum(isinstance(e, Stop) for e in again.events) == added
    assert again.scores == game.scores and again.sheets == game.sheets
    assert game_from_dict(plain).events == game.events  # a file without stops reads as before
    old, new = kept_game_from_dict(plain), kept_game_from_dict(stopped)
    assert new.actions == old.actions + added and new.sheets == old.sheets
    for seat in (0, 1):
        a, b = review(old, seat, "strategic"), review(new, seat, "strategic")
        assert a.decisions == b.decisions and a.turns == b.turns and a.curve == b.curve
        assert a.luck == b.luck and a.others == b.others
    holds = [d for d in review(new, 0, "strategic").decisions if d.kind == "hold"]
    assert holds and all(d.chosen.endswith("(stop)") for d in holds)  # keeping every die


def test_a_stop_out_of_place_is_refused(board, rules):
    game = play_seeded(board, rules, [strategy_named("greedy")], 1)
    data = game_to_dict(game)
    events = data["events"]
    at = next(i for i, e in enumerate(events) if e["event"] == "mark")  # after the marking: too late
    bad = {**data, "events": events[:at + 1] + [{"event": "stop", "player": 0}] + events[at + 1:]}
    with pytest.raises(GameError, match="stop"):
        game_from_dict(bad)
    with pytest.raises(KeptGameError):
        kept_game_from_dict(bad)
    roll = next(e for e in game.events if isinstance(e, Roll))
    wrong_seat = replace(game, events=game.events[:2] + (Stop(roll.player + 1),) + game.events[2:])
    with pytest.raises(GameError):
        replay(wrong_seat)
    assert any(isinstance(e, (Mark, Fail)) for e in game.events)


def test_undo_of_a_stop_in_a_derived_game(game: str):
    table = read_kept_game(game)
    stopped = act(table, stop_action(table))
    assert undo(stopped, 1).events == table.events and undo(stopped, 1).rerolls_left == 2


def test_dice_typed_after_the_game_is_over_say_so(tmp_path: Path):
    """After the end (D17, D18) a line of dice is not an 'unknown command': the session says the
    game is over and what can still be done; a mistyped word stays an unknown command."""
    path = str(tmp_path / "solo.json")
    assert run("play", "new", path, "--players", "me").exit_code == 0
    for shelf in ("1", "2"):  # solitaire: two shelves given up close two shelves (D17): over
        assert run("play", "mark", path, "--unchecked", f"r{shelf}c1").exit_code == 0
    for shelf in ("1", "2"):
        assert run("play", "fail", path, "--shelf", shelf).exit_code == 0
    before = Path(path).read_bytes()
    session = Session(path)
    said = session.handle("CCBJPP")
    assert said.startswith("Error: the game is over (D18)") and "'status'" in said and "\n" not in said
    assert session.handle("stauts").startswith("Error: unknown command 'stauts'")
    assert Path(path).read_bytes() == before


def test_a_reroll_with_none_left_is_refused_as_such_before_the_dice_are_read(game: str, tmp_path: Path):
    # D7: two re-rolls, then the dice are final. Before, the dice typed were read first, and the
    # refusal named a form that is refused too: 'play stop GAME' (no re-roll left to stop
    # before) or 'play reroll GAME C --keep CCBBP' (no re-roll left); the page said "tap Stop"
    from conftest import assert_one_line_error

    from shelfie_solver.web.api import GameServer

    assert run("play", "reroll", game, "CCCC", "--keep", "CC").exit_code == 0  # 1 left
    assert run("play", "reroll", game, "CCCCBP", "--keep", "CCCC").exit_code == 0  # 0 left
    assert read_kept_game(game).rerolls_left == 0
    before = Path(game).read_bytes()
    for typed in (["CCCCBP"], ["CCCCBB"], ["P", "--keep", "CCCCB"]):
        line = assert_one_line_error(run("play", "reroll", game, *typed), "no re-roll left")
        assert "play stop" not in line and "--keep" not in line
    server = GameServer(game)
    revision = server.state()["revision"]
    for body in ({"keep": "CCCCBP", "new": ""}, {"keep": "CCCCB", "new": "C"}):
        with pytest.raises(KeptGameError, match="no re-roll left") as refused:
            server.write("reroll", {"revision": revision, **body})
        assert "tap Stop" not in str(refused.value)
    assert Path(game).read_bytes() == before
