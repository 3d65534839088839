"""``shelfie-solve rollout``: the chance to win of a kept game's position and of its top choices by
play-outs on common dice (docs/rollout.md).

The truths are worked out here by brute force, independently of the engine: on the game's last
turn (D18: the opponent's score is final) a marking's outcome is a sure win, a shared one or a
loss (D20), and a hold's chance with one re-roll left is the average, over every way the re-rolled
dice can fall (each sequence of faces equally likely, D2), of the best share a marking of the
final dice reaches.
"""

from __future__ import annotations

import itertools
import json
import re
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import ROOT, assert_one_line_error
from shelfie_solver.cli import main
from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import Board, Marks, score
from shelfie_solver.dice.engine.dp import solve_turn
from shelfie_solver.dice.game.events import Hold, Roll
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.play.gamefile import KeptGame, act, kept_game_to_text, split_actions, start_kept_game
from shelfie_solver.dice.rollout.run import batch_ends, rollout, settled
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.win_chance import LastTurnWin, opponent_chances

SEEDS = range(40)


def _share(mine: int, others: list[int]) -> Fraction:
    """D20 by hand: 1 above every other score, 1/k in a k-way tie at the top, else 0."""
    top = max(others)
    return Fraction(1) if mine > top else Fraction(0) if mine < top else Fraction(1, 1 + others.count(top))


def _best_share(board: Board, rules: Ruleset, marks: Marks, others: tuple[int, ...], dice: tuple[int, ...]) -> Fraction:
    """The best share a marking of the final ``dice`` reaches (a failed result keeps the score, D13)."""
    found = [score(board, marks.with_marked(m.cells), rules) for m in legal_markings(dice, board, marks, rules)]
    return max((_share(s, list(others)) for s in found), default=_share(score(board, marks, rules), list(others)))


def _hold_chance(board: Board, rules: Ruleset, marks: Marks, others: tuple[int, ...], keep: tuple[int, ...]) -> Fraction:
    """The chance of keeping ``keep`` and re-rolling the rest once, then marking the best: every
    sequence of faces of the re-rolled dice, equally likely (D2, D7)."""
    best = lru_cache(maxsize=None)(lambda dice: _best_share(board, rules, marks, others, dice))
    rolled = rules.dice - sum(keep)
    total = Fraction(0)
    for faces in itertools.product(range(rules.n_sides), repeat=rolled):
        dice = list(keep)
        for face in faces:
            dice[face] += 1
        total += best(tuple(dice))
    return total / rules.n_sides ** rolled


def _holds(dice: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every sub-multiset of the dice (keeping all = stopping, D7)."""
    return list(itertools.product(*(range(d + 1) for d in dice)))


def _last_turn_start(board: Board, rules: Ruleset, seed: int) -> KeptGame | None:
    """A greedy two-player game from ``seed`` replayed up to the start of its last turn (the end
    triggered, the last player of the round to play, D17, D18), or None."""
    played = play_seeded(board, rules, [strategy_named("greedy")] * 2, seed)
    kept = start_kept_game(board, rules, ("Ann", "Ben"), played.events[0].first)
    for _, action in split_actions(played.events):
        state = kept.state
        if kept.dice is None and state.end_triggered and state.is_last_in_round() and state.marks.available:
            return kept
        kept = act(kept, action)
    return None


def _roll(kept: KeptGame, rng: np.random.Generator, keep: tuple[int, ...] | None = None) -> KeptGame:
    """``kept`` after the initial roll (``keep`` None) or a re-roll keeping ``keep``, dice from ``rng``."""
    rules, seat = kept.rules, kept.active
    dice = list(keep or (0,) * rules.n_sides)
    for face in rng.integers(0, rules.n_sides, size=rules.dice - sum(dice)):
        dice[int(face)] += 1
    if keep is None:
        return act(kept, (Roll(seat, tuple(dice), rules.rerolls),))
    return act(kept, (Hold(seat, keep), Roll(seat, tuple(dice), kept.rerolls_left - 1)))


def _others(kept: KeptGame) -> tuple[int, ...]:
    return tuple(score(kept.board, m, kept.rules) for s, m in enumerate(kept.sheets) if s != kept.active)


@pytest.fixture(scope="module")
def last_turn_one_reroll(board, rules) -> tuple[KeptGame, Fraction]:
    """A last turn with one re-roll left whose best chance is neither 0 nor 1, with that chance."""
    for seed in SEEDS:
        start = _last_turn_start(board, rules, seed)
        if start is None:
            continue
        rng = np.random.default_rng(seed)
        kept = _roll(kept=start, rng=rng)
        kept = _roll(kept, rng, tuple(d // 2 for d in kept.dice))
        others, marks = _others(kept), kept.state.marks
        best = max(_hold_chance(board, rules, marks, others, h) for h in _holds(kept.dice))
        if Fraction(1, 10) < best < Fraction(9, 10):
            return kept, best
    pytest.fail("no last turn with an open outcome among the seeds")


@pytest.fixture(scope="module")
def last_turn_final(board, rules) -> KeptGame:
    """A last turn with final dice where one marking wins and another does not (a decided choice)."""
    for seed in SEEDS:
        start = _last_turn_start(board, rules, seed)
        if start is None:
            continue
        rng = np.random.default_rng(100 + seed)
        kept = _roll(start, rng)
        kept = _roll(kept, rng, tuple(d // 2 for d in kept.dice))
        kept = _roll(kept, rng, tuple(d // 2 for d in kept.dice))
        marks, others = kept.state.marks, _others(kept)
        shares = {_share(score(board, marks.with_marked(m.cells), rules), list(others))
                  for m in legal_markings(kept.dice, board, marks, rules)}
        if len(shares) > 1:
            return kept
    pytest.fail("no decided last marking among the seeds")


def test_hold_chances_contain_the_brute_force_truth(last_turn_one_reroll, board, rules):
    kept, best = last_turn_one_reroll
    result = rollout(kept, ("win", "win"), 1000, seed=2, top=3, early_stop=False)
    assert result.games == 1000
    mover, others = kept.active, _others(kept)
    low, high = result.position[mover].low, result.position[mover].high
    assert low <= best <= high, (float(best), low, high)
    for choice in result.choices:
        kind, keep = choice.root.choice
        assert kind == "hold"
        truth = _hold_chance(board, rules, kept.state.marks, others, keep)
        estimate = choice.seats[mover]
        assert estimate.low <= truth <= estimate.high, (choice.root.label, float(truth), estimate.low, estimate.high)
        # two players, no other outcome: the seats add up to 1 game by game
        assert choice.seats[0].mean + choice.seats[1].mean == 1


def test_decided_markings_are_sure_and_stop_early(last_turn_final, board, rules):
    kept = last_turn_final
    marks, others = kept.state.marks, _others(kept)
    result = rollout(kept, ("win", "win"), 1000, seed=5, top=10)
    truths = {m.cells: _share(score(board, marks.with_marked(m.cells), rules), list(others))
              for m in legal_markings(kept.dice, board, marks, rules)}
    for choice in result.choices:
        assert choice.seats[kept.active].mean == truths[choice.root.choice[1]]  # 100%, 50% or 0%: no luck left
    assert result.position[kept.active].mean == max(truths.values())
    means = [c.seats[kept.active].mean for c in result.choices]
    assert means == sorted(means, reverse=True)
    if len(set(means)) == len(means):  # every neighbour apart: settled at the first check
        assert result.settled and result.games == batch_ends(1000).__next__()


def test_batch_ends_and_the_stopping_rule():
    assert list(batch_ends(1000)) == [100, 200, 400, 800, 1000]
    assert list(batch_ends(50)) == [50]
    one, zero, half = (Fraction(1), Fraction(0)), (Fraction(0), Fraction(1)), (Fraction(1, 2), Fraction(1, 2))
    assert settled([[one] * 30, [zero] * 30], 0)  # every game apart: the difference is sure
    assert not settled([[one] * 30, [one] * 30], 0)  # alike game by game: never settled
    assert not settled([[one, zero] * 15, [zero, one] * 15], 0)  # as often ahead as behind
    assert not settled([[one] * 30], 0)  # one choice: nothing to order
    assert settled([[one] * 30, [half] * 30, [zero] * 30], 1)  # seat 2's order: the reverse, each step sure


def test_opponent_chances_equal_the_engine(board, rules):
    """The batched last-turn chances equal dp.solve_turn of LastTurnWin on random sheets."""
    rng = np.random.default_rng(7)
    for _ in range(12):
        cells = rng.permutation(board.n_cells)[:rng.integers(0, board.n_cells - 1)]
        k = int(rng.integers(0, len(cells) + 1))
        marks = Marks.empty(board).with_marked(tuple(sorted(int(c) for c in cells[:k])))
        if k < len(cells):
            marks = marks.with_eliminated(tuple(sorted(int(c) for c in cells[k:])))
        others = [(int(s),) for s in rng.integers(0, 120, size=4)]
        fast = opponent_chances(board, rules, marks, others)
        assert fast == [solve_turn(board, marks, rules, LastTurnWin(o)).start_values()[0] for o in others]


# --- the command ----------------------------------------------------------------------------


def _write(tmp_path, kept: KeptGame, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(kept_game_to_text(kept))
    return str(path)


def _json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["rollout", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _mid_game(board, rules) -> KeptGame:
    """A greedy game replayed to round 3, first player's dice rolled with re-rolls left."""
    played = play_seeded(board, rules, [strategy_named("greedy")] * 2, 2)
    kept = start_kept_game(board, rules, ("Ann", "Ben"), played.events[0].first)
    for _, action in split_actions(played.events):
        if kept.state.round == 3:
            break
        kept = act(kept, action)
    return _roll(kept, np.random.default_rng(0))


def test_json_keys(tmp_path, last_turn_one_reroll):
    kept, _ = last_turn_one_reroll
    data = _json(_write(tmp_path, kept), "--games", "50", "--seed", "1", "--top", "2")
    assert data["games"] == 50 and data["seed"] == 1 and data["mover"] == kept.active + 1
    for seats in [data["position"]["seats"]] + [c["seats"] for c in data["choices"]]:
        assert [s["player"] for s in seats] == ["Ann", "Ben"]
        for seat in seats:
            assert set(seat) >= {"win_chance", "win_chance_float", "ci95"}
            low, high = seat["ci95"]
            assert 0 <= low <= seat["win_chance_float"] <= high <= 1
        assert sum(Fraction(s["win_chance"]) for s in seats) == 1
    assert len(data["choices"]) == 2
    assert data["choices"][0]["versus_best"] is None and data["choices"][1]["versus_best"]["ci95"]


def test_same_results_for_one_and_two_jobs(tmp_path, board, rules):
    path = _write(tmp_path, _mid_game(board, rules))
    args = [path, "--games", "24", "--seed", "9", "--policy", "greedy", "--top", "2"]
    assert _json(*args, "--jobs", "1") == _json(*args, "--jobs", "2")


def test_table_output(tmp_path, last_turn_one_reroll):
    kept, _ = last_turn_one_reroll
    result = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "20", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "position" in result.stdout and "keep" in result.stdout and "Ann" in result.stdout


def test_bad_input(tmp_path, board, rules, last_turn_one_reroll):
    kept, _ = last_turn_one_reroll
    runner = CliRunner()
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert_one_line_error(runner.invoke(main, ["rollout", str(text)]), "not a saved game")
    finished = play_seeded(board, rules, [strategy_named("greedy")] * 2, 1)
    over = start_kept_game(board, rules, ("Ann", "Ben"), finished.events[0].first)
    for _, action in split_actions(finished.events):
        over = act(over, action)
    assert_one_line_error(runner.invoke(main, ["rollout", _write(tmp_path, over, "over.json")]), "game is over")
    path = _write(tmp_path, kept)
    for games in ("0", "100001", "many"):
        assert_one_line_error(runner.invoke(main, ["rollout", path, "--games", games]), "--games")
    assert_one_line_error(runner.invoke(main, ["rollout", path, "--policy", "win,win,win"]), "--policy")
    assert_one_line_error(runner.invoke(main, ["rollout", path, "--policy", "bogus"]), "unknown strategy")
    alone = start_kept_game(board, rules, ("Me",), 0)
    assert_one_line_error(runner.invoke(main, ["rollout", _write(tmp_path, alone, "alone.json")]), "one player")


def test_a_dask_cluster_gives_the_figures_of_one_job(board, rules):
    """On a dask LocalCluster started here (2 workers, threads), the same games as here."""
    distributed = pytest.importorskip("distributed")
    kept = _mid_game(board, rules)
    here = rollout(kept, ("greedy", "greedy"), 12, seed=4, top=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        there = rollout(kept, ("greedy", "greedy"), 12, seed=4, top=2, scheduler=cluster)
    assert there == here


def test_policy_errors_name_the_policy_option(tmp_path, last_turn_one_reroll):
    """A bad --policy is refused naming --policy, the option typed (not simulate's --players)."""
    kept, _ = last_turn_one_reroll
    path = _write(tmp_path, kept)
    runner = CliRunner()
    for text in ("", ",", "win,", "win,,win"):
        line = assert_one_line_error(runner.invoke(main, ["rollout", path, "--policy", text]), "--policy")
        assert "--players" not in line


def test_one_game_is_one_game(tmp_path, last_turn_one_reroll):
    """The title counts the games in English: '1 game', not '1 games'."""
    kept, _ = last_turn_one_reroll
    result = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "1", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "1 game (seed 1)" in result.stdout and "1 games" not in result.stdout


def test_the_table_says_its_rows_follow_the_played_out_chance(tmp_path, last_turn_one_reroll):
    # the rows 1, 2, ... are in the order of the mover's played-out chance (its column), and a
    # note says so, the advice column keeping its own figures (docs/rollout.md)
    kept, _ = last_turn_one_reroll
    result = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "20", "--seed", "1",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    mover = data["player"]
    chances = [next(Fraction(s["win_chance"]) for s in c["seats"] if s["player"] == mover) for c in data["choices"]]
    assert chances == sorted(chances, reverse=True)
    text = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "20", "--seed", "1"]).stdout
    assert " ".join(text.split()).count(f"ordered by the played-out chance of {mover}, best first, not by the advice") == 1


def test_the_notes_read_for_a_player_named_me(tmp_path, last_turn_one_reroll):
    # a player may be named "me" (play new --players Ann,Ben,me): the notes name the mover without
    # a possessive, so "95%: me's interval" never prints (docs/rollout.md)
    import dataclasses

    kept, _ = last_turn_one_reroll
    players = list(kept.players)
    players[kept.state.active] = "me"
    renamed = dataclasses.replace(kept, players=tuple(players))
    text = CliRunner().invoke(main, ["rollout", _write(tmp_path, renamed), "--games", "20", "--seed", "1"])
    assert text.exit_code == 0, text.output
    flat = " ".join(text.stdout.split())
    assert "me's" not in flat
    assert "95%: the 95% interval for me (Wilson; every seat's: --format json)." in flat
    assert "ordered by the played-out chance of me, best first" in flat
    assert "the best one's for me, in percentage points" in flat


def test_policy_forms_agree_in_help_error_and_docs(tmp_path, last_turn_one_reroll):
    # every FILE form the refusal lists is in --help and in docs/rollout.md's --policy row
    kept, _ = last_turn_one_reroll
    line = assert_one_line_error(CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--policy", "nosuch"]))
    forms = [w.strip(",") for w in line.split() if w.endswith(("FILE", "FILE,"))]
    assert {"exact:FILE", "exact2:FILE", "learned:FILE"} <= set(forms)
    helped = " ".join(CliRunner().invoke(main, ["rollout", "--help"]).output.split())
    row = next(r for r in (ROOT / "docs" / "rollout.md").read_text().splitlines() if r.startswith("| `--policy`"))
    for form in forms:
        assert form in helped and f"`{form}`" in row, form


def test_the_difference_is_worded_in_percentage_points(tmp_path, last_turn_one_reroll):
    # vs best is a difference of two chances: percentage points, never the game's points (D19)
    kept, _ = last_turn_one_reroll
    text = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "20", "--seed", "1"]).stdout
    flat = " ".join(text.split())
    assert "minus the best one's for Ann, in percentage points, paired on the same dice" in flat
    assert "in points," not in flat


def _note(text: str) -> str:
    flat = " ".join(text.split())
    if "The order of the choices is not settled at this many games" in flat:
        return "not settled"
    if "The order of the choices is settled at 20 games" in flat:
        return "settled"
    if "the same result in every game: the order of the choices cannot be settled by more games" in flat:
        return "never settles"
    return "no note"


def test_a_short_run_says_whether_its_order_is_settled(tmp_path, last_turn_one_reroll):
    # below the first check (100 games) the table still says whether its order is settled: with
    # two choices, settled exactly when the paired interval of best minus second lies above 0
    kept, _ = last_turn_one_reroll
    path = _write(tmp_path, kept)
    data = _json(path, "--games", "20", "--seed", "1", "--top", "2")
    low = data["choices"][1]["versus_best"]["ci95"][0]  # best - second, its 95% interval
    text = CliRunner().invoke(main, ["rollout", path, "--games", "20", "--seed", "1", "--top", "2"]).stdout
    assert _note(text) == ("settled" if low > 0 else "not settled"), (low, text)


def test_decided_markings_are_settled_at_twenty_games(tmp_path, last_turn_final, board, rules):
    # final dice on the last turn: each marking's share is sure (brute force over the final
    # scores, D19-D20), so two markings of different shares are settled at any count, equal ones never
    kept = last_turn_final
    marks, others = kept.state.marks, _others(kept)
    result = rollout(kept, ("win", "win"), 20, seed=5, top=2, early_stop=False)
    truths = [_share(score(board, marks.with_marked(c.root.choice[1]), rules), list(others)) for c in result.choices]
    text = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "20", "--seed", "5",
                                     "--top", "2"]).stdout
    assert _note(text) == ("settled" if truths[0] != truths[1] else "never settles"), (truths, text)


@pytest.fixture(scope="module")
def last_turn_alike(board, rules) -> KeptGame:
    """A last turn with final dice where every legal marking (two or more) gives the same share
    (D19-D20 by brute force over the final scores): the choices cannot be told apart."""
    for seed, draw in itertools.product(SEEDS, range(5)):
        start = _last_turn_start(board, rules, seed)
        if start is None:
            continue
        rng = np.random.default_rng(200 + seed + 1000 * draw)
        kept = _roll(start, rng)
        kept = _roll(kept, rng, tuple(d // 2 for d in kept.dice))
        kept = _roll(kept, rng, tuple(d // 2 for d in kept.dice))
        marks, others = kept.state.marks, _others(kept)
        found = legal_markings(kept.dice, board, marks, rules)
        shares = {_share(score(board, marks.with_marked(m.cells), rules), list(others)) for m in found}
        if len(found) > 2 and len(shares) == 1:
            return kept
    pytest.fail("no last marking among the seeds whose every marking gives one share")


def test_choices_alike_in_every_game_say_more_games_cannot_order_them(tmp_path, last_turn_alike):
    # every marking's share is one and the same sure value (brute force, the fixture): the paired
    # differences are 0 in every game, so no number of games settles their order; the note said
    # "not settled ... more --games narrow the intervals", now that they cannot be settled
    path = _write(tmp_path, last_turn_alike)
    text = CliRunner().invoke(main, ["rollout", path, "--games", "20", "--seed", "3", "--top", "3"]).stdout
    flat = " ".join(text.split())
    assert _note(text) == "never settles", text
    assert "more --games narrow" not in flat and "0.0 [every game]" in flat
    data = _json(path, "--games", "20", "--seed", "3", "--top", "3")
    assert data["alike_in_every_game"] == [[c["choice"] for c in data["choices"]]]


def test_a_simulated_games_columns_name_each_seats_policy(tmp_path, last_turn_one_reroll):
    """A game saved by ``simulate --players learned,learned --save`` names its seats by the strategies
    that played the simulation: every rollout column was titled "learned", though the rollout
    plays its --policy (win by default) in every seat. The columns now read ``seat N: POLICY``
    (seat by seat as --policy gives them); a game of named players keeps the names."""
    import dataclasses

    saved = tmp_path / "games.jsonl"
    made = CliRunner().invoke(main, ["simulate", "--players", "learned,learned", "--games", "1", "--seed", "3",
                                     "--jobs", "1", "--save", str(saved)])
    assert made.exit_code == 0, made.output
    record = json.loads(saved.read_text())
    assert record["players"] == ["learned", "learned"]  # what the saved file holds: the strategies
    turns = [i for i, event in enumerate(record["events"])  # each turn's initial roll (D6)
             if event["event"] == "roll" and event["rerolls_left"] == record["rules"]["rerolls"]]
    record["events"] = record["events"][:turns[2]]  # the start of the third turn, before its roll
    game = tmp_path / "game.json"
    game.write_text(json.dumps(record))
    for policy, titles in ((None, ["seat 1: win", "seat 2: win"]), ("win,learned", ["seat 1: win", "seat 2: learned"])):
        args = ["rollout", str(game), "--games", "3", "--top", "0", "--seed", "1", "--jobs", "1"]
        result = CliRunner().invoke(main, args + (["--policy", policy] if policy else []))
        assert result.exit_code == 0, result.output
        header = next(line for line in result.stdout.splitlines() if line.lstrip().startswith("choice"))
        columns = re.split(r"\s{2,}", header.strip())  # the mover's column first, then the others
        assert sorted(c for c in columns if c.startswith("seat")) == titles and "learned" not in columns, header

    kept, _ = last_turn_one_reroll  # named players: the columns keep the names
    text = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "5", "--seed", "1"]).stdout
    header = next(line for line in text.splitlines() if "choice" in line)
    assert "Ann" in header and "Ben" in header and "seat" not in header
    twice = dataclasses.replace(kept, players=("greedy", "greedy"))
    text = CliRunner().invoke(main, ["rollout", _write(tmp_path, twice), "--games", "5", "--seed", "1"]).stdout
    header = next(line for line in text.splitlines() if "choice" in line)
    assert "seat 1: win" in header and "seat 2: win" in header and "greedy" not in header


def test_a_sure_choice_reads_as_the_tables_read_a_certainty(tmp_path, last_turn_final, board, rules):
    # final dice on the last turn: each marking's share is sure (brute force, D19-D20), so over 20
    # games a losing marking is won in none of them, a winning one in all, a tie shared in each.
    # Wilson 95% (z = 1.959964, z^2 = 3.841459): 0 of 20 -> [0, 3.8415 / 23.8415 = 16.11%];
    # 20 of 20 -> [83.89%, 100%]; 1/2 -> 0.5 +- 1.96 / 1.19207 * sqrt(0.0125 + 0.0024007) = [29.9%, 70.1%]
    kept = last_turn_final
    marks, others = kept.state.marks, _others(kept)
    labels = {c.root.label: c.root.choice[1] for c in rollout(kept, ("win", "win"), 20, seed=5, top=10,
                                                               early_stop=False).choices}
    truths = {label: _share(score(board, marks.with_marked(cells), rules), list(others)) for label, cells in labels.items()}
    result = CliRunner().invoke(main, ["rollout", _write(tmp_path, kept), "--games", "20", "--seed", "5",
                                       "--top", "10", "--no-early-stop"])
    assert result.exit_code == 0, result.output
    expected = {Fraction(0): ("0%", "[0%, 16.1%]", "100%"), Fraction(1): ("100%", "[83.9%, 100%]", "0%"),
                Fraction(1, 2): ("50.0%", "[29.9%, 70.1%]", "50.0%")}
    rows = [re.split(r"\s{2,}", line) for line in result.stdout.splitlines() if re.match(r"\d+\s{2,}\S", line)]
    assert rows
    for rank, label, advice, mine, span, other, _ in rows:
        truth = truths[label]
        assert (mine, span, other) == expected[truth] and advice == {0: "0%", 1: "100%"}.get(truth, advice)
    assert "0.0%" not in result.stdout and "100.0%" not in result.stdout
    assert "0% and 100%: won none or all of the 20 games played: an estimate, not a\n  certainty" in result.stdout


def test_without_numba_the_rollout_says_why_it_is_slow(tmp_path, last_turn_one_reroll, monkeypatch):
    """The README's first install has no [fast] extra: the play-outs then run on the numpy path,
    and a note on standard error says so and how to install it (standard output unchanged)."""
    import shelfie_solver.cli.rollout as command

    kept, _ = last_turn_one_reroll
    args = ["rollout", _write(tmp_path, kept), "--games", "10", "--seed", "1", "--top", "1", "--policy", "greedy"]
    with_numba = CliRunner().invoke(main, args)
    monkeypatch.setattr(command, "import_numba", lambda: None)
    without = CliRunner().invoke(main, args)
    assert with_numba.exit_code == without.exit_code == 0
    assert "numba" not in with_numba.stderr
    assert "numba (the [fast] extra) is not installed" in without.stderr and "pip install '.[fast]'" in without.stderr
    assert without.stdout == with_numba.stdout


def _header(text: str) -> str:
    """The table's header line: the line above the first line of dashes."""
    lines = text.splitlines()
    return next(lines[i - 1] for i, line in enumerate(lines) if line.startswith("--"))


def test_every_column_of_the_table_has_a_header(tmp_path, last_turn_one_reroll):
    # the first column, the order of the choices by the played-out chance (1, 2, ...; blank on the
    # position's row), is headed "rank" as advise's tables head theirs; with --top 0 there is no
    # choice to rank and the column is left out, "choice" (the row: position) heading the table
    kept, _ = last_turn_one_reroll
    path = _write(tmp_path, kept)
    ranked = CliRunner().invoke(main, ["rollout", path, "--games", "5", "--seed", "1", "--top", "2"])
    assert ranked.exit_code == 0, ranked.output
    assert _header(ranked.stdout).split()[:3] == ["rank", "choice", "advice"], ranked.stdout
    rows = ranked.stdout.split(_header(ranked.stdout), 1)[1].splitlines()[3:5]  # after the dashes, the position
    assert [row.split()[0] for row in rows] == ["1", "2"], ranked.stdout  # under rank, the choices' order
    markdown = CliRunner().invoke(main, ["rollout", path, "--games", "5", "--seed", "1", "--top", "2",
                                         "--format", "markdown"]).stdout
    head = next(line for line in markdown.splitlines() if line.startswith("|"))
    assert [cell.strip() for cell in head.strip("|").split("|")][:2] == ["rank", "choice"], markdown
    alone = CliRunner().invoke(main, ["rollout", path, "--games", "5", "--seed", "1", "--top", "0"])
    assert alone.exit_code == 0, alone.output
    assert _header(alone.stdout).startswith("choice"), alone.stdout
    assert "rank" not in alone.stdout


def test_two_choices_alike_in_every_game_are_grouped_among_others():
    # the mover's shares over 4 games by hand: A wins games 1-2, B and C game 1 only, D game 2
    # only; B and C are alike game by game (their difference 0 in every game), D is not (it differs
    # from B in games 1 and 2), so B and C are the one group more games never order
    from shelfie_solver.dice.rollout.run import alike

    one, zero = (Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))
    shares = [[one, one, zero, zero], [one, zero, zero, zero], [zero, one, zero, zero], [one, zero, zero, zero]]
    ranked = [0, 1, 3, 2]  # A, B, C, D by the mover's total, ties in the given order
    assert alike(shares, ranked, 0) == ((1, 2),)
    assert alike([[one], [one]], [0, 1], 0) == ()  # one game: no claim
