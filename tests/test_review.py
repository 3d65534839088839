"""``review``: the solver reviewing its own play loses 0 on every decision; losses are never
negative; weaker strategies lose more (the loss per turn ranks random > greedy > threshold >
solver over a few short 4-player games)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shelfie_solver.dice.game.record import game_to_dict
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.review import review
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.play.gamefile import kept_game_from_dict as table_from_dict

NAMES = ("random", "greedy", "threshold", "solver")


@pytest.fixture(scope="module")
def reviews(board, rules):
    """Every seat's review over 3 seeded games of random, greedy, threshold, solver."""
    out = {name: [] for name in NAMES}
    for seed in range(3):
        game = play_seeded(board, rules, [strategy_named(n) for n in NAMES], seed)
        table = table_from_dict(game_to_dict(game))
        for seat, name in enumerate(NAMES):
            out[name].append(review(table, seat, "strategic"))  # the solver's own objective
    return out


def test_solver_loses_nothing(reviews):
    decisions = [d for r in reviews["solver"] for d in r.decisions]
    assert decisions and all(d.loss == 0 for d in decisions)
    assert {d.kind for d in decisions} >= {"hold", "mark"}


def test_losses_are_exact_and_never_negative(reviews):
    for name in NAMES:
        for r in reviews[name]:
            for d in r.decisions:
                assert isinstance(d.loss, Fraction) and d.loss >= 0
                assert d.best_value >= d.chosen_value


def test_weaker_play_loses_more(reviews):
    per_turn = {name: sum((r.total_loss for r in rs), Fraction(0)) / sum(r.turns for r in rs)
                for name, rs in reviews.items()}
    per_decision = {name: sum((r.total_loss for r in rs), Fraction(0)) / sum(len(r.decisions) for r in rs)
                    for name, rs in reviews.items()}
    assert per_turn["random"] > per_turn["greedy"] > per_turn["threshold"] > per_turn["solver"] == 0
    assert min(per_decision["random"], per_decision["greedy"]) > per_decision["threshold"] > 0


def test_greedy_stops_at_once_and_its_stop_is_a_hold_decision(reviews):
    holds = [d for r in reviews["greedy"] for d in r.decisions if d.kind == "hold"]
    assert holds and all(d.chosen.endswith("(stop)") and d.rerolls_left == 2 for d in holds)


def test_game_numbers_count_from_one_in_file_order(tmp_path):
    """``review --game N`` reviews the N-th line of a ``simulate --save`` file, the one saved as
    ``"game": N-1`` (docs/review.md, docs/simulate.md): the same review as that line alone in a
    file of its own; the title and JSON say ``game N``; 0 and N past the end are one-line errors."""
    import json

    from click.testing import CliRunner

    from conftest import assert_one_line_error
    from shelfie_solver.cli import main

    saved = tmp_path / "sim.jsonl"
    run = CliRunner().invoke(main, ["simulate", "--players", "greedy,random", "--games", "3", "--seed", "5",
                                    "--jobs", "1", "--save", str(saved)])
    assert run.exit_code == 0, run.output
    lines = saved.read_text().splitlines()
    assert [json.loads(line)["game"] for line in lines] == [0, 1, 2]
    alone = tmp_path / "third.jsonl"
    alone.write_text(lines[2] + "\n")

    def reviewed(path, *args):
        result = CliRunner().invoke(main, ["review", str(path), "--player", "2", "--format", "json", *args])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    third = reviewed(saved, "--game", "3")
    assert third["game"] == 3 and reviewed(alone)["game"] == 1
    assert {**third, "game": 1} == reviewed(alone)
    assert reviewed(saved, "--game", "1")["decisions"] != third["decisions"]
    table = CliRunner().invoke(main, ["review", str(saved), "--game", "3"]).stdout
    assert table.startswith("Review of greedy (seat 1) in game 3, objective win")  # play's objective (D20)
    table = CliRunner().invoke(main, ["review", str(saved), "--game", "3", "--objective", "strategic"]).stdout
    assert table.startswith("Review of greedy (seat 1) in game 3, objective strategic")
    for number, fragment in (("0", "expected 1 or more"), ("-2", "expected 1 or more"), ("4", "expected --game 1..3")):
        assert_one_line_error(CliRunner().invoke(main, ["review", str(saved), "--game", number]), fragment,
                              'saved as "game": 0')


def test_win_review_never_shows_a_chance_short_of_certain_as_certain(board, rules):
    """The win review's chances go through the one percentage formatter (docs/formats.md,
    "Numbers"): 0.9996 would round to 100.0% and 0.0004 to 0.0% at one decimal, but neither is
    certain, so they read >99.9% and <0.1%; an exact 0 or 1 reads 0% or 100% without decimals, as
    every table prints a certainty (item 6: never "0.0%" beside "<0.1%")."""
    from shelfie_solver.dice.play.gamefile import new_kept_game
    from shelfie_solver.dice.review import Decision, Review
    from shelfie_solver.dice.review_report import review_report

    kept = new_kept_game(board, rules, ["Ann", "Ben"], 0)
    dice = (1, 1, 1, 1, 1, 1)
    near_one = Decision(3, "mark", dice, 0, "r1c1", "r1c1", Fraction(9996, 10000), Fraction(9996, 10000))
    near_zero = Decision(4, "mark", dice, 0, "r1c2", "r1c3", Fraction(4, 10000), Fraction(6, 10000))
    certain = Decision(5, "mark", dice, 0, "r1c4", "r1c4", Fraction(1), Fraction(1))
    result = Review("Ann", 0, "win", (near_one, near_zero, certain), 0, 3, win=True,
                    start=Fraction(9999, 10000), result=None)
    report = review_report(result, kept, Fraction(1, 100))
    chances = [row[report.headers.index("chance")] for row in report.rows]
    assert chances == [">99.9%", "<0.1%", "100%"]
    title = "\n".join(report.title)
    assert "Chance to win: >99.9% at the first turn, >99.9% now" in title  # no curve: now = start


def test_mid_turn_now_is_the_position_and_the_parts_add_up(tmp_path):
    """Reviewed part-way through a turn (docs/review.md: start + luck - loss + others = the
    chance now): right after a roll, "now" is the value of the dice showing (their luck counted),
    and after a recorded Stop (D7) the value of marking those dice at best, the Stop's loss counted
    once, not the roll's value with the Stop's loss taken off (a player's report: "47.4% now"
    beside parts adding up to 43.6). The values are the engine's own at that position, taken here
    straight from the one-turn DP, not from the review's bookkeeping."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main
    from shelfie_solver.dice.advise.advice import rank_markings
    from shelfie_solver.dice.engine.dp import solve_turn
    from shelfie_solver.dice.play.gamefile import objective_for
    from shelfie_solver.dice.play.gamefile import read_kept_game

    game, runner = str(tmp_path / "g.json"), CliRunner()
    for args in (["new", game, "--players", "Ann,Ben", "--first", "Ann"], ["roll", game, "CCBJPP"]):
        assert runner.invoke(main, ["play", *args]).exit_code == 0

    def check(expected_now):
        kept = read_kept_game(game)
        result = review(kept, 0, "win")
        now = result.curve[-1].value
        assert result.start + result.luck - result.total_loss + result.others == now
        assert now == expected_now(kept)

    def rolled(kept):
        objective = objective_for("win", kept.state)
        return solve_turn(kept.board, kept.state.marks, kept.rules, objective).roll_value(kept.dice, kept.rerolls_left)

    def marked_at_best(kept):
        objective = objective_for("win", kept.state)
        return rank_markings(kept.dice, kept.board, kept.state.marks, kept.rules, objective)[0].value

    check(rolled)
    assert runner.invoke(main, ["play", "stop", game]).exit_code == 0
    check(marked_at_best)


def test_the_parts_of_the_change_add_up_as_shown():
    """The title's parts (luck, decisions, the others' turns) are rounded together so that the
    rounded start plus them reads the rounded end: worked by hand. 59.14% -> 58.46% with all of
    it luck (-0.68 points) reads 59.1% -> 58.5%, so luck reads -0.6 (alone it would read -0.7);
    three parts of 1/3 point each from 50% to 51% read +0.4, +0.3, +0.3 (largest remainder, the
    earlier first on a tie)."""
    from shelfie_solver.dice.review_report import parts_in_tenths

    assert parts_in_tenths(Fraction(5914, 10000), Fraction(5846, 10000), [Fraction(-68, 10000), Fraction(0),
                                                                           Fraction(0)]) == [-6, 0, 0]
    third = Fraction(1, 300)
    assert parts_in_tenths(Fraction(1, 2), Fraction(51, 100), [third, third, third]) == [4, 3, 3]
    # the decisions keep their own rounding (the total loss the next line prints): 50% -> 50%,
    # luck +0.049, decisions -0.098 (reads -0.1), others +0.049: luck and others absorb it, +0.1 and +0.0
    half = Fraction(49, 100000)
    assert parts_in_tenths(Fraction(1, 2), Fraction(1, 2), [half, -2 * half, half], fixed=1) == [1, -1, 0]


def test_a_part_that_is_exactly_none_reads_0(tmp_path):
    """Before the opponent's first turn nothing came from the others' turns: that part is exactly
    0 and the title says ``0``, as the decisions' table prints no loss, not ``+0.0`` (which reads
    as something rounded away). Worked by hand: A rolls and marks at once on tiny-2x3, B has not
    played."""
    from conftest import EXAMPLES, cli

    game = str(tmp_path / "g.json")
    cli("play", "new", game, "--players", "A,B", "--first", "A", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"))
    cli("play", "roll", game, "GGGCCC")
    cli("play", "mark", game, "--best")
    title = " ".join(cli("review", game, "--player", "A").split())
    assert "the others' turns 0" in title and "+0.0" not in title, title


@settings(max_examples=300, deadline=None)
@given(st.fractions(0, 1), st.lists(st.fractions(-1, 1), min_size=3, max_size=3))
def test_rounded_parts_read_the_rounded_change(start, parts):
    """For any start and three parts (their end within [0, 1]): they add up to the rounded end
    minus the rounded start; all free, each part within one tenth of a point of its value; with
    the decisions' own rounding kept, each within one tenth where that can add up, else the
    largest other part takes up the rest (within a quarter point) and the others within one
    tenth; none only where both other parts are exactly none."""
    from shelfie_solver.core.report import rounded
    from shelfie_solver.dice.review_report import parts_in_tenths

    end = start + sum(parts, Fraction(0))
    assume(0 <= end <= 1)
    shown = [Fraction(rounded(x * 100, 1)) * 10 for x in (start, end)]
    for fixed in (None, 1):
        tenths = parts_in_tenths(start, end, parts, fixed)
        if tenths is None:
            assert fixed == 1 and parts[0] == parts[2] == 0
            continue
        assert sum(tenths) == shown[1] - shown[0]
        off = sorted(abs(t - p * 1000) for t, p in zip(tenths, parts))
        assert off[-1] < 3 and all(o < 1 for o in off[:-1])
        if fixed is None:
            assert off[-1] < 1


def test_the_title_s_printed_parts_add_up_to_its_printed_change(tmp_path):
    """A new user's game (59.1% at the first turn, 59.1% now, decisions -1.6 as the loss line
    prints it): the printed parts must add up to the printed change; luck, exactly +1.72,
    takes up the rest (+1.6), as docs/review.md says. The sum is read off the printed text."""
    import re

    from conftest import cli

    game = str(tmp_path / "rp.json")
    for step in (["new", game, "--players", "Ann,me", "--first", "me"], ["roll", game, "CCBJPP"],
                 ["reroll", game, "--keep", "CC", "PPAG"], ["reroll", game, "--keep", "CC", "CCJB"],
                 ["mark", game, "r1c1", "r1c4", "r2c1"]):
        cli("play", *step)
    title = " ".join(cli("review", game, "--player", "me").split())
    start, end = (Fraction(x) for x in re.search(r"Chance to win: ([\d.]+)% at the first turn, ([\d.]+)% now", title).groups())
    parts = re.search(r"luck \(the dice\) (\S+) percentage points, decisions (\S+), the others' turns ([^,\s]+)", title).groups()
    assert sum(Fraction(p.rstrip(",")) for p in parts) == end - start, title


def test_win_alone_is_named_as_the_objective_that_gave_the_values(tmp_path):
    """A one-player game reviewed under the default ``win``: the values are ``learned``'s (there
    is no one to beat, so ``play``'s title says ``objective learned``), and the review's title
    says so: ``objective win (learned)``; with opponents the name stays ``win``."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    runner = CliRunner()
    for players, expected in (("me", "objective win (learned):"), ("me,Ann", "objective win:")):
        game = str(tmp_path / f"{len(players)}.json")
        assert runner.invoke(main, ["play", "new", game, "--players", players, "--first", "me"]).exit_code == 0
        assert runner.invoke(main, ["play", "roll", game, "CCBJPP"]).exit_code == 0
        title = next(line for line in runner.invoke(main, ["play", "advise", game]).output.splitlines()
                     if line.startswith("Dice "))
        assert ("objective learned" in title) == (players == "me"), title
        assert runner.invoke(main, ["play", "mark", game, "--best"]).exit_code == 0
        result = runner.invoke(main, ["review", game, "--player", "me"])
        assert result.exit_code == 0, result.output
        assert expected in result.output.splitlines()[0], result.output


@pytest.mark.slow
def test_every_turn_start_of_the_curve_is_the_chance_play_status_shows_then(tmp_path):
    """One position, one figure (docs/win-chance.md): the review's chance at the start of each of
    the player's turns is the chance ``play status`` shows at that moment, read here from ``play
    status --format json`` on the game file cut at that moment (with two players 1 minus the
    figure the opponent's advice gave its marking, not the player's own start value: they
    differed by up to 15.9 points in 2-player games of ``win`` before), and the parts still add
    up: start + luck - loss + others = result (D20 share)."""
    import json

    from click.testing import CliRunner

    from shelfie_solver.cli import main
    from shelfie_solver.dice.game.events import Roll
    from shelfie_solver.dice.play.gamefile import create_file, kept_game_from_events, split_actions
    from shelfie_solver.dice.review import load_reviewable

    runner, saved = CliRunner(), str(tmp_path / "g.jsonl")
    out = runner.invoke(main, ["simulate", "--players", "win,win", "--games", "1", "--seed", "21",
                               "--jobs", "1", "--save", saved])
    assert out.exit_code == 0, out.output
    kept = load_reviewable(saved)
    for seat in range(2):
        result = review(kept, seat, "win")
        starts = [point.value for point in result.curve if point.what == "turn start"]
        shown = []
        for index, action in split_actions(kept.events):
            prefix = kept_game_from_events(kept.board, kept.rules, kept.players, kept.events[:index])
            if prefix.active == seat and isinstance(action[0], Roll) and prefix.dice is None:
                path = str(tmp_path / f"at{index}.json")
                create_file(path, prefix)
                status = json.loads(runner.invoke(main, ["play", "status", path, "--format", "json"]).output)
                shown.append(Fraction(status["sheets"][seat]["win_chance"]))
        assert starts == shown
        assert result.result is not None
        assert result.start + result.luck - result.total_loss + result.others == result.result


def test_a_review_gone_on_from_a_point_is_the_review_from_the_start(board, rules):
    """``serve``'s running review goes on from where each seat's last review stood
    (:func:`review_from`) instead of reviewing the game from its start: after every action of a
    seeded 3-player game (greedy, threshold, solver; ``win``: the chance to win, so the others'
    turns and the game's end, D18-D20, move the ``others`` part of a seat that did not act), every
    seat's review gone on from its points is field for field the review from the start (the
    decisions, luck, others, the curve, the result); an undo (the game at an earlier action,
    which the last points are not a prefix of) goes on from an earlier point, the same again."""
    from shelfie_solver.dice.play.gamefile import act, split_actions, start_kept_game
    from shelfie_solver.dice.review import review_from

    game = play_seeded(board, rules, [strategy_named(n) for n in ("greedy", "threshold", "solver")], 5)
    table = table_from_dict(game_to_dict(game))
    now = start_kept_game(table.board, table.rules, table.players, table.state.first)
    games = []
    for _, action in split_actions(table.events):
        now = act(now, action)
        games.append(now)
    assert games[-1].events == table.events and table.over is not None
    points = {seat: [] for seat in range(3)}
    checked = 0
    for i, kept in enumerate(games):
        for seat in range(3):
            resumed, point = review_from(kept, seat, "win", points[seat])
            points[seat].append(point)
            if i % 7 == 3 or i == len(games) - 1:  # from the start on some (each costs the whole game)
                assert resumed == review(kept, seat, "win"), (i, seat)
                checked += 1
    assert checked >= 9 and any(r.others != 0 for r in [review(games[-1], s, "win") for s in range(3)])
    for back in (len(games) // 2, 2):  # an undo: an earlier game, every later point not its prefix
        for seat in range(3):
            assert review_from(games[back], seat, "win", points[seat])[0] == review(games[back], seat, "win")


def test_now_between_the_player_s_turns_is_the_chance_play_status_shows(tmp_path):
    """A review asked while another seat plays (or before the player's next roll) ends on the
    chance ``play status`` shows now, the other seats' turns since the player's last one counted
    with the others' turns (a new user: status 58.7%, the review's title "55.5% now", the end of
    the player's last turn); the parts still add up to it."""
    import json

    from click.testing import CliRunner

    from shelfie_solver.cli import main
    from shelfie_solver.dice.play.gamefile import read_kept_game

    game, runner = str(tmp_path / "g.json"), CliRunner()
    for args in (["new", game, "--players", "Ann,me", "--first", "me"], ["roll", game, "CCBJPP"],
                 ["mark", game, "--best"], ["roll", game, "GGGAAP"], ["mark", game, "--best"],
                 ["roll", game, "PPBBCJ"]):
        assert runner.invoke(main, ["play", *args]).exit_code == 0, args
    for seat, name in ((1, "me"), (0, "Ann")):  # me between its turns; Ann part-way through hers
        status = json.loads(runner.invoke(main, ["play", "status", game, "--format", "json"]).output)
        shown = Fraction(status["sheets"][seat]["win_chance"])
        data = json.loads(runner.invoke(main, ["review", game, "--player", name, "--format", "json"]).output)
        assert Fraction(data["curve"][-1]["win_chance"]) == shown, name
        result = review(read_kept_game(game), seat, "win")
        assert result.start + result.luck - result.total_loss + result.others == shown


def test_at_every_moment_of_a_game_the_review_ends_on_play_status_s_figure(tmp_path):
    """A breaker's game (small-3x4, ``win`` against ``greedy``, seed 3): cut after every action,
    each seat's review ends on the chance ``play status`` shows it then (its own dice showing
    included: right after a roll whose value is its own start value, the curve had stayed on the
    turn start's figure, 20.9% where status showed 0%, and the parts did not add up to it), and
    start + luck - loss + others is that last value. Positions after a recorded stop are left out
    (there "now" is the stop's value, the hold's)."""
    import json

    from click.testing import CliRunner

    from conftest import EXAMPLES
    from shelfie_solver.cli import main
    from shelfie_solver.dice.play.gamefile import create_file, kept_game_from_events, split_actions
    from shelfie_solver.dice.review import load_reviewable

    runner, saved = CliRunner(), str(tmp_path / "g.jsonl")
    out = runner.invoke(main, ["simulate", "--players", "win,greedy", "--games", "1", "--seed", "3", "--jobs", "1",
                               "--board", str(EXAMPLES / "boards" / "small-3x4.toml"), "--save", saved])
    assert out.exit_code == 0, out.output
    kept = load_reviewable(saved)
    cuts = [index for index, _ in split_actions(kept.events)][1:]
    checked = 0
    for index in cuts:
        prefix = kept_game_from_events(kept.board, kept.rules, kept.players, kept.events[:index])
        if prefix.stopped or prefix.over is not None:
            continue
        path = str(tmp_path / f"at{index}.json")
        create_file(path, prefix)
        status = json.loads(runner.invoke(main, ["play", "status", path, "--format", "json"]).output)
        for seat in range(2):
            result = review(prefix, seat, "win")
            now = result.curve[-1].value
            if result.start is None:  # no turn yet: the one point, status's figure now
                assert len(result.curve) == 1 and now == Fraction(status["sheets"][seat]["win_chance"])
                continue
            assert now == Fraction(status["sheets"][seat]["win_chance"]), (index, seat)
            assert result.start + result.luck - result.total_loss + result.others == now, (index, seat)
            checked += 1
    assert checked > 20


def _status_texts(runner, path: str) -> dict[str, str]:
    """Each player's chance as ``play status``'s table prints it (its ``win chance`` column,
    before ``(exact)`` / ``(model)``), read from the rendered table."""
    from shelfie_solver.cli import main

    lines = runner.invoke(main, ["play", "status", path]).output.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("seat") and "win chance" in line)
    texts = {}
    for line in lines[head + 2:]:
        cells = line.split()
        if len(cells) < 3 or not cells[0].isdigit():
            break
        texts[cells[1]] = cells[-2]  # ... "33.4%" "(exact)"
    return texts


def _title_chances(text: str) -> tuple[str | None, str, str]:
    """``(start, end, moment)`` from the review table's "Chance to win:" line (wrapped at 80
    columns), ``start`` ``None`` before the player's first turn."""
    import re

    flat = " ".join(line.strip() for line in text.splitlines())
    found = re.search(r"Chance to win: (\S+) at the first turn, (\S+) (now|at the end):", flat)
    if found:
        return found.group(1), found.group(2), found.group(3)
    found = re.search(r"Chance to win: (\S+) now; (\S+) has not played a turn yet", flat)
    assert found, flat
    return None, found.group(1), "now"


def _every_cut_speaks_status(steps: list[list[str]], game: str, names: list[str]) -> dict[str, int]:
    """Play ``steps`` (``play`` commands on ``game``) and after each one (and before the first)
    check every player's review against ``play status`` at that moment: the title's "now" / "at
    the end" and the JSON's ``end_shown`` are the text status's table prints for the seat; its
    "at the first turn" and ``start_shown`` the text status printed at the first moment that
    player was to play; the curve ends on status's exact figure; and, from the first turn on,
    start + luck - loss + others + told = that figure. How many reviews of each kind were
    checked: ``started`` (a chance line with parts), ``before`` (no turn yet), ``told`` (a turn
    told without dice among them), ``end``."""
    import json

    from click.testing import CliRunner

    from shelfie_solver.cli import main
    from shelfie_solver.dice.play.gamefile import read_kept_game

    runner = CliRunner()
    first_shown: dict[str, str] = {}
    counts = {"started": 0, "before": 0, "told": 0, "end": 0}
    for step in [None, *steps]:
        if step is not None:
            out = runner.invoke(main, ["play", *step])
            assert out.exit_code == 0, (step, out.output)
        kept = read_kept_game(game)
        texts = _status_texts(runner, game)
        status = json.loads(runner.invoke(main, ["play", "status", game, "--format", "json"]).output)
        if kept.over is None and kept.dice is None:
            first_shown.setdefault(kept.active_name, texts[kept.active_name])
        for seat, name in enumerate(names):
            table = runner.invoke(main, ["review", game, "--player", name])
            assert table.exit_code == 0, table.output
            start, end, moment = _title_chances(table.output)
            data = json.loads(runner.invoke(main, ["review", game, "--player", name, "--format", "json"]).output)
            assert end == data["end_shown"] == texts[name], (step, name, table.output)
            assert moment == ("at the end" if kept.over is not None else "now")
            figure = Fraction(status["sheets"][seat]["win_chance"])
            assert Fraction(data["curve"][-1]["win_chance"]) == figure, (step, name)
            if start is None:
                assert data["start"] is None and len(data["curve"]) == 1, (step, name)
                counts["before"] += 1
                continue
            assert start == data["start_shown"] == first_shown[name], (step, name)
            told = Fraction(data["told"])
            parts = Fraction(data["start"]) + Fraction(data["luck"]) - Fraction(data["summary"]["total_loss"]) \
                + Fraction(data["others"]) + told
            assert parts == figure, (step, name)
            counts["started"] += 1
            counts["told"] += data["unchecked"] > 0
            counts["end"] += kept.over is not None
    return counts


def test_a_three_way_tie_and_told_turns_read_as_play_status_at_every_moment(tmp_path):
    """One position, one figure, one text (docs/review.md): tiny-2x3, three players, every turn a
    failed result (D13), so the game ends in a three-way tie of 0 points (D20: 1/3 each), which
    ``play status`` prints 33.4%, 33.3%, 33.3% so that its column adds up to 100% (the review
    printed 33.3% "at the end" for the first seat); B's turns are all told without dice (no
    checked turn: before, no chance line at all), C's second one too (before, "now" stayed at
    C's last checked marking). After every action each player's review prints the text status
    prints for it, and the parts, the turns told without dice among them, add up exactly."""
    from conftest import EXAMPLES

    game = str(tmp_path / "tie.json")
    board = str(EXAMPLES / "boards" / "tiny-2x3.toml")
    steps = [["new", game, "--players", "A,B,C", "--first", "A", "--board", board]]
    for shelf in ("1", "2"):
        steps += [["roll", game, "PPBBAA"], ["fail", game, "--shelf", shelf],  # A: checked
                  ["fail", game, "--shelf", shelf]]  # B: told (no dice)
        steps += [["roll", game, "PPBBAA"], ["fail", game, "--shelf", shelf]] if shelf == "1" else \
            [["fail", game, "--shelf", shelf]]  # C: checked, then told
    counts = _every_cut_speaks_status(steps[1:], game, _start(steps[0]))
    assert counts["end"] == 3 and counts["told"] >= 4 and counts["before"] >= 2, counts


def _start(new: list[str]) -> list[str]:
    """Run ``play new`` (``new``, its arguments) and return the players' names."""
    from click.testing import CliRunner

    from shelfie_solver.cli import main

    assert CliRunner().invoke(main, ["play", *new]).exit_code == 0
    return new[new.index("--players") + 1].split(",")


def test_after_a_told_turn_now_is_play_status_s_figure(tmp_path):
    """The breaker's game (small-3x4, three players): Ben's second turn is told without dice
    (``play mark --unchecked``); Ben's review said "28.3% now", the end of Ben's checked turn,
    where ``play status`` showed 21.7%. After every action every review's "now" is status's
    text, Cy's before Cy's first turn included (no chance line before)."""
    from conftest import EXAMPLES

    game = str(tmp_path / "d.json")
    new = ["new", game, "--players", "Ann,Ben,Cy", "--first", "Ann", "--board",
           str(EXAMPLES / "boards" / "small-3x4.toml")]
    steps = [["roll", game, "GGGAAC"], ["mark", game, "--best"], ["roll", game, "CCCAAG"], ["mark", game, "--best"],
             ["roll", game, "GGBBCC"], ["mark", game, "--best"], ["roll", game, "AAACCP"], ["mark", game, "--best"],
             ["mark", game, "r1c2", "--unchecked"]]
    counts = _every_cut_speaks_status(steps, game, _start(new))
    assert counts["told"] >= 1 and counts["before"] >= 3, counts


def test_a_loss_is_classed_as_the_table_prints_it():
    """The class reads the loss as printed (one decimal of a percentage point): a new user saw
    "5.0" classed "inaccuracy" beside the legend's "mistake (>= 5)"; worked by hand at each
    threshold (2, 5, 10 points: docs/review.md)."""
    from shelfie_solver.dice.review import severity

    points = {Fraction(4991, 1000): "mistake", Fraction(4949, 1000): "inaccuracy", Fraction(1995, 1000): "inaccuracy",
              Fraction(1949, 1000): "", Fraction(9951, 1000): "blunder", Fraction(9949, 1000): "mistake", Fraction(0): ""}
    assert {p: severity(p / 100) for p in points} == points
