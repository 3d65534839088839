"""The exact two-player solver (``solve-game --players 2``, dice/wholegame/two_player.py): against
an independent brute force on the tiniest boards, its JSON keys and bad input, the table as
the strategy ``exact2:FILE``, and a seeded Monte Carlo of the optimal policies (D5-D20)."""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import EXAMPLES, assert_one_line_error
from shelfie_solver.cli import main
from shelfie_solver.dice.board import Board, Marks, board_from_dict
from shelfie_solver.dice.game.actions import Position, apply
from shelfie_solver.dice.game.events import Fail, GameState, Mark, Start, legal_sets
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.rules import Face, Ruleset
from shelfie_solver.dice.sheet_rules import failed_result_shelves
from shelfie_solver.dice.strategies import strategy_named
from shelfie_solver.dice.wholegame import two_player as tp
from shelfie_solver.dice.wholegame.two_player_table import TABLE_FORMAT, load_two_player, save_two_player

#: 3 dice of 3 sides (plant, cat, Joker), one re-roll, lines of 2 score: a game small enough to
#: expand every roll outcome in Fractions.
TINY = Ruleset(name="tiny", dice=3, faces=(Face("plant", "P"), Face("cat", "C")), rerolls=1, scoring_threshold=2)
TINY_TWO = Ruleset(name="tiny", dice=3, faces=(Face("plant", "P"), Face("cat", "C")), rerolls=2,
                   scoring_threshold=2)
BOARD_2X2 = board_from_dict({"name": "2x2", "columns": [1, 2], "shelves": [
    {"faces": ["plant"], "values": [1, 3]}, {"faces": ["cat"], "values": [2, 1]}]}, TINY)
BOARD_1X3 = board_from_dict({"name": "1x3", "columns": [1, 2, 1], "shelves": [
    {"faces": ["plant"], "values": [2, 1, 3]}]}, TINY)
TINY_2X3 = str(EXAMPLES / "boards" / "tiny-2x3.toml")
TINY_3X2 = str(EXAMPLES / "boards" / "tiny-3x2.toml")


# --- the brute force: a plain recursive expectimax over every roll outcome (Fractions) -------------


def brute_force(board: Board, rules: Ruleset) -> dict[tuple, Fraction]:
    """Every reachable position's chance to win for the player to move, by expanding every ordered
    roll of the dice and every hold, the rules applied by the game's own ``actions.apply``."""
    sides, dice = rules.n_sides, rules.dice

    @cache
    def outcomes(k: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
        counts = Counter(tuple(faces.count(f) for f in range(sides)) for faces in product(range(sides), repeat=k))
        return tuple((c, Fraction(w, sides**k)) for c, w in counts.items())

    memo: dict[tuple, Fraction] = {}

    def chance(state: GameState) -> Fraction:
        key = (state.sheets, state.active, state.end_triggered)
        if key not in memo:
            memo[key] = turn(state)
        return memo[key]

    def after(state: GameState, position: Position) -> Fraction:
        if position.over is not None:
            winners = position.over.winners
            return Fraction(1, len(winners)) if state.active in winners else Fraction(0)
        assert position.state.active != state.active
        return 1 - chance(position.state)

    def turn(state: GameState) -> Fraction:
        @cache
        def final(roll: tuple[int, ...]) -> Fraction:
            here = Position(state, roll, 0)
            legal = legal_sets(roll, board, state.marks, rules).all_cells()
            actions = [(Mark(state.active, cells),) for cells in legal] or [
                (Fail(state.active, shelf, cells),) for shelf, cells in failed_result_shelves(board, state.marks).items()]
            return max(after(state, apply(here, action)[0]) for action in actions)

        @cache
        def q(roll: tuple[int, ...], left: int) -> Fraction:
            best = final(roll)
            if left:
                for hold in product(*(range(c + 1) for c in roll)):
                    if hold == roll:
                        continue
                    value = sum(p * q(tuple(h + o for h, o in zip(hold, out)), left - 1)
                                for out, p in outcomes(dice - sum(hold)))
                    best = max(best, value)
            return best

        return sum(p * q(roll, rules.rerolls) for roll, p in outcomes(dice))

    start = GameState(board, rules, (Marks.empty(board), Marks.empty(board)), 0, 0, 0, False)
    chance(start)
    return memo


@pytest.mark.parametrize("board, rules", [(BOARD_2X2, TINY), (BOARD_1X3, TINY), (BOARD_2X2, TINY_TWO)],
                         ids=["2x2", "1x3", "2x2-two-rerolls"])
def test_every_position_against_the_brute_force(board, rules):
    exact = brute_force(board, rules)
    solved = tp.solve_two_player(board, rules)
    start = (Marks.empty(board), Marks.empty(board)), 0, False
    assert abs(Fraction(solved.first_player_win_chance) - exact[start]) <= solved.bound
    for (sheets, active, triggered), value in exact.items():
        key = tp.state_key(board, sheets, active, 0, triggered)
        assert abs(Fraction(solved.value(key)) - value) <= solved.bound
    assert 0 < solved.bound < 1e-12


def test_the_numpy_path_agrees_with_the_compiled_one(monkeypatch):
    from shelfie_solver.dice.wholegame import two_player_kernel

    modes = [(tp.OPTIMAL, tp.OPTIMAL), (tp.SOLITAIRE, tp.OPTIMAL)]
    compiled = [tp.solve_two_player(BOARD_2X2, TINY_TWO, m) for m in modes]
    monkeypatch.setattr(two_player_kernel, "kernel", lambda: None)
    for mode, fast in zip(modes, compiled):
        plain = tp.solve_two_player(BOARD_2X2, TINY_TWO, mode)
        assert np.array_equal(fast.keys, plain.keys)
        assert np.abs(fast.values - plain.values).max() <= 2 * float(fast.bound)


def test_solitaire_values_are_the_solitaire_optimum():
    """On the sheets of a solitaire game (whole shelves eliminated) the solitaire values are the
    exact solitaire solver's (dice/wholegame/solver.py)."""
    from shelfie_solver.dice.wholegame.solver import solve_game

    exact = solve_game(BOARD_2X2, TINY_TWO)
    table = tp.solitaire_values(BOARD_2X2, TINY_TWO)
    for (marked, eliminated), value in exact.values.items():
        got = table.worth(np.array([marked]), np.array([eliminated]))[0]
        assert abs(Fraction(float(got)) - value) <= table.bound


def test_playing_for_the_win_is_worth_at_least_the_solitaire_optimum():
    """Against a fixed opponent the first player's best response does at least as well as any
    fixed play, and the optimum by both lies between the two best responses (a zero-sum game)."""
    chances = {(a, b): tp.solve_two_player(BOARD_2X2, TINY_TWO, (a, b)).first_player_win_chance
               for a in tp.MODES for b in tp.MODES}
    o, s, t, slack = tp.OPTIMAL, tp.SOLITAIRE, tp.TABLE, 1e-9
    assert chances[s, o] <= chances[o, o] + slack <= chances[o, s] + 2 * slack
    assert chances[s, s] <= chances[o, s] + slack
    assert chances[s, o] <= chances[s, s] + slack
    assert abs(chances[t, t] - chances[o, o]) <= slack  # the table's play by both is the optimum
    assert chances[t, s] <= chances[o, s] + slack and chances[s, t] >= chances[s, o] - slack


def test_blocking_and_the_last_turn_as_the_game_applies_them():
    """Each turn's outcome (blocking, D15; the trigger on both sheets, D17; the round played out,
    D18) is the one ``actions.apply`` gives, on every reachable state of the 1 x 3 board."""
    setup = tp.setup_for(BOARD_1X3, TINY)
    keys = tp.reachable_states(setup)
    outs = tp.outcomes(setup, keys)
    n = setup.n
    for i, key in enumerate(keys.tolist()):
        m, e, om, oe, phase = tp.unpack(n, key)
        mover = 0 if phase == tp.FIRST else 1
        sheets = [None, None]
        sheets[mover], sheets[1 - mover] = Marks(1, 3, m, e), Marks(1, 3, om, oe)
        state = GameState(BOARD_1X3, TINY, tuple(sheets), mover, 0, 0 if mover == 0 else 1, phase == tp.LAST)
        for k, mask in enumerate(setup.set_masks.tolist()):
            if not outs.set_ok[i, k]:
                continue
            cells = tuple(c for c in range(n) if mask >> c & 1)
            position, _ = apply(Position(state), (_unchecked(mover, cells),))
            _same(BOARD_1X3, position, outs.set_next[i, k], outs.set_end[i, k], mover)


def _unchecked(player, cells):
    from shelfie_solver.dice.game.events import UncheckedMark

    return UncheckedMark(player, cells)


def _same(board, position, nxt, end, mover):
    if position.over is not None:
        winners = position.over.winners
        assert nxt == -1 and end == (1 / len(winners) if mover in winners else 0)
        return
    state = position.state
    assert nxt == tp.state_key(board, (state.sheets[0], state.sheets[1]), state.active, 0, state.end_triggered)


# --- the command ------------------------------------------------------------------------------------


def invoke(*args):
    return CliRunner().invoke(main, ["solve-game", *args])


def test_json_keys_and_the_saved_table(tmp_path):
    table = tmp_path / "t.json"
    result = invoke("--board", TINY_2X3, "--players", "2", "--format", "json", "--save", str(table))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert isinstance(data["first_player_win_chance"], float) and 0.5 < data["first_player_win_chance"] < 1
    assert 0 < data["error_bound"] < 1e-9 and data["players"] == 2 and data["states"] > 1000
    assert json.loads(table.read_text())["format"] == TABLE_FORMAT
    loaded = load_two_player(str(table))
    assert loaded.first_player_win_chance == data["first_player_win_chance"]
    again = invoke("--board", TINY_2X3, "--players", "2", "--save", str(table))  # its own kind: replaced
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize("args, words", [
    (["--players", "3"], "--players"),
    (["--players", "two"], "--players"),
    (["--versus", "solitaire"], "--versus"),
    (["--players", "2", "--versus", "greedy"], "--versus"),
    (["--players", "2", "--float"], "--float"),
    (["--players", "2"], "at most 14"),  # the default board: 25 items
    (["--players", "2", "--board", TINY_3X2, "--max-states", "1000"], "--max-states"),
    (["--players", "2", "--board", TINY_2X3, "--max-states", "100"], "under a CPU-second"),  # not "0 CPU-seconds"
    (["--players", "2", "--board", TINY_3X2, "--save", "t.npy"], ".json"),
])
def test_bad_input_is_one_line(args, words):
    result = invoke(*args)
    assert result.exit_code == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_save_refuses_a_file_of_another_kind(tmp_path):
    other = tmp_path / "notes.json"
    other.write_text('{"format": "something else"}')
    result = invoke("--board", TINY_2X3, "--players", "2", "--save", str(other))
    assert result.exit_code == 2 and "--force" in result.stderr
    assert other.read_text() == '{"format": "something else"}'


def test_a_bad_table_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": TABLE_FORMAT, "board": {}, "rules": {}}))
    result = CliRunner().invoke(main, ["simulate", "--board", TINY_2X3, "--players", f"exact2:{bad},solver",
                                       "--games", "2"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


# --- the table as a policy: a seeded Monte Carlo ------------------------------------------------


def first_player_share(board, rules, table, games, seed):
    strategies = [strategy_named(f"exact2:{table}")] * 2
    shares = []
    for game_seed in np.random.SeedSequence(seed).spawn(games):
        game = play_seeded(board, rules, strategies, game_seed)
        first = game.events[0]
        assert isinstance(first, Start)
        winners = game.winners
        shares.append(1 / len(winners) if first.first in winners else 0.0)
    return np.array(shares)


def test_monte_carlo_of_the_optimal_policies(tmp_path):
    table = tmp_path / "tiny.json"
    solved = tp.solve_two_player(BOARD_2X2, TINY_TWO)
    save_two_player(str(table), solved)
    shares = first_player_share(BOARD_2X2, TINY_TWO, table, 1500, 20261202)
    half = 2.576 * shares.std(ddof=1) / math.sqrt(len(shares))
    assert abs(shares.mean() - solved.first_player_win_chance) <= half


@pytest.mark.slow
def test_monte_carlo_on_the_2x3_board_through_simulate(tmp_path):
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES

    board = load_board(TINY_2X3, DEFAULT_RULES)
    table = tmp_path / "t.json"
    solved = tp.solve_two_player(board, DEFAULT_RULES)
    save_two_player(str(table), solved)
    shares = first_player_share(board, DEFAULT_RULES, table, 300, 7)
    half = 2.576 * shares.std(ddof=1) / math.sqrt(len(shares))
    assert abs(shares.mean() - solved.first_player_win_chance) <= half
    result = CliRunner().invoke(main, ["simulate", "--board", TINY_2X3, "--players", f"exact2:{table},solver",
                                       "--games", "20", "--seed", "3", "--format", "json"])
    assert result.exit_code == 0, result.output


# --- the table as the objective of advice in a game (advise --opponent, play) ----------------------


def test_advice_from_the_table_is_the_brute_force_chance(tmp_path):
    """The advice's value for final dice is the best marking's exact chance to win (brute force),
    to the objective's 2^-30 and the table's bound."""
    from shelfie_solver.dice.advise.advice import advise_in_game
    from shelfie_solver.dice.objective_names import advice_objective

    table = tmp_path / "t.json"
    save_two_player(str(table), tp.solve_two_player(BOARD_2X2, TINY))
    exact = brute_force(BOARD_2X2, TINY)
    empty = Marks.empty(BOARD_2X2)
    state = GameState(BOARD_2X2, TINY, (empty, empty), 0, 0, 0, False)
    for dice in [(2, 1, 0), (1, 1, 1), (0, 2, 1), (0, 0, 3)]:  # plant, cat, Joker counts
        advice = advise_in_game(dice, state, advice_objective(f"exact2:{table}", state), rerolls=0)
        best = Fraction(0)
        for cells in legal_sets(dice, BOARD_2X2, empty, TINY).all_cells():
            after, _ = apply(Position(state, dice, 0), (Mark(0, cells),))
            nxt = after.state
            best = max(best, 1 - exact[(nxt.sheets, nxt.active, nxt.end_triggered)])
        assert abs(advice.value - best) <= Fraction(1, 2**30) + Fraction(1, 10**12)


def test_advise_with_the_table_needs_the_opponent(tmp_path):
    table = tmp_path / "t.json"
    save_two_player(str(table), tp.solve_two_player(BOARD_2X2, TINY))
    result = CliRunner().invoke(main, ["advise", "--board", TINY_2X3, "--marks", ".../...", "--dice", "GGCCJB",
                                       "--objective", f"exact2:{table}"])
    assert result.exit_code == 2 and "--opponent" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_advise_with_the_table_in_a_position_it_cannot_hold(tmp_path):
    """Seat 2 to move while seat 1's sheet is empty is unreachable (D5: seat 1 opens; D13, D14: each
    turn marks or gives up an item): one line saying what the table holds, exit 2."""
    table = tmp_path / "t.json"
    assert invoke("--board", TINY_2X3, "--players", "2", "--save", str(table)).exit_code == 0
    base = ["advise", "--board", TINY_2X3, "--marks", ".../...", "--dice", "GGCCJB",
            "--objective", f"exact2:{table}"]
    refused = CliRunner().invoke(main, base + ["--opponent", ".../...", "--order", "2"])
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "reachable from two empty sheets" in refused.stderr and "seat 1's sheet is empty" in refused.stderr
    shown = CliRunner().invoke(main, base + ["--opponent", "o../...", "--order", "2"])
    assert shown.exit_code == 0, shown.output
    assert "a tie counts 1/2" in shown.stdout and "k-way" not in shown.stdout  # two players: a tie is 2-way


class SolitaireSeat:
    """The solitaire optimum's choices of :func:`two_player.solitaire_policy`, played in a game (the
    policy whose chance to win ``--versus solitaire`` evaluates)."""

    name = "solitaire optimum"

    def __init__(self, board, rules):
        self.setup, self.policy = tp.setup_for(board, rules), tp.solitaire_policy(board, rules)
        from shelfie_solver.dice.rolls import space_for

        self.space = space_for(rules)

    def _choices(self, state):
        marks = state.marks
        return self.policy.lookup(self.setup.n, np.array([marks.marked]), np.array([marks.eliminated]))

    def choose_hold(self, state, dice, rerolls_left, rng):
        _, _, holds = self._choices(state)
        return self.space.holds[int(holds[rerolls_left - 1, self.space.roll_index[dice], 0])]

    def choose_marking(self, state, dice, legal, rng):
        moves, _, _ = self._choices(state)
        mask = int(self.setup.set_masks[self.setup.members[moves[0, self.space.roll_index[dice]]]])
        return tuple(c for c in range(self.setup.n) if mask >> c & 1)

    def choose_shelf(self, state, dice, shelves, rng):
        _, shelf, _ = self._choices(state)
        return int(shelf[0])


def test_monte_carlo_of_optimal_against_the_solitaire_optimum(tmp_path):
    """Games of the table's play (``exact2:FILE``) against the solitaire optimum's choices: the first
    player's share is the evaluated chance (modes table and solitaire) within its 99% interval."""
    table = tmp_path / "t.json"
    save_two_player(str(table), tp.solve_two_player(BOARD_2X2, TINY_TWO))
    expected = tp.solve_two_player(BOARD_2X2, TINY_TWO, (tp.TABLE, tp.SOLITAIRE)).first_player_win_chance
    seats = [strategy_named(f"exact2:{table}"), SolitaireSeat(BOARD_2X2, TINY_TWO)]
    shares = []
    for seed in np.random.SeedSequence(99).spawn(1500):
        game = _seat_zero_first(seats, np.random.default_rng(seed))
        winners = game.winners
        shares.append(1 / len(winners) if 0 in winners else 0.0)
    shares = np.array(shares)
    half = 2.576 * shares.std(ddof=1) / math.sqrt(len(shares))
    assert abs(shares.mean() - expected) <= half


def _seat_zero_first(seats, rng):
    """One game with seat 0 opening every round (D5), its dice from ``rng``."""
    from shelfie_solver.dice.game.dice_sources import GeneratorDice
    from shelfie_solver.dice.game.turn import play_game

    class SeatZeroFirst(GeneratorDice):
        def first_player(self, players):
            return 0

    return play_game(BOARD_2X2, TINY_TWO, seats, SeatZeroFirst(rng), rngs=rng.spawn(2))


def test_versus_json_and_three_players_refused(tmp_path):
    rules, board = tmp_path / "tiny.toml", tmp_path / "2x2.toml"
    rules.write_text('name = "tiny"\ndice = 3\nrerolls = 2\nscoring_threshold = 2\n'
                     'faces = [{ name = "plant", code = "P" }, { name = "cat", code = "C" }]\n')
    board.write_text('name = "2x2"\ncolumns = [1, 2]\n[[shelves]]\nfaces = ["plant"]\nvalues = [1, 3]\n'
                     '[[shelves]]\nfaces = ["cat"]\nvalues = [2, 1]\n')
    result = invoke("--board", str(board), "--rules", str(rules), "--players", "2", "--versus", "solitaire",
                    "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    versus = data["versus"]
    assert set(versus) == {"optimal_vs_optimal", "solitaire_vs_solitaire", "optimal_vs_solitaire",
                           "solitaire_vs_optimal", "table_vs_solitaire", "solitaire_vs_table"}
    solved = tp.solve_two_player(BOARD_2X2, TINY_TWO)
    assert data["first_player_win_chance"] == solved.first_player_win_chance
    assert versus["solitaire_vs_optimal"]["first_player_win_chance"] < versus["optimal_vs_optimal"][
        "first_player_win_chance"] < versus["optimal_vs_solitaire"]["first_player_win_chance"]
    table = tmp_path / "t.json"
    save_two_player(str(table), tp.solve_two_player(BOARD_2X2, TINY))
    three = CliRunner().invoke(main, ["simulate", "--board", TINY_2X3, "--players",
                                      f"exact2:{table},solver,solver", "--games", "1"])
    assert three.exit_code == 2 and len(three.stderr.strip().splitlines()) == 1


def test_play_advises_with_the_table(tmp_path):
    table, game = tmp_path / "t.json", tmp_path / "game.json"
    assert invoke("--board", TINY_2X3, "--players", "2", "--save", str(table)).exit_code == 0
    runner = CliRunner()
    made = runner.invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ben", "--board",
                                TINY_2X3])
    assert made.exit_code == 0, made.output
    rolled = runner.invoke(main, ["play", "roll", str(game), "GGCCJB", "--objective", f"exact2:{table}",
                                  "--format", "json"])
    assert rolled.exit_code == 0, rolled.output
    assert "exact2" in rolled.stdout and "win_chance" in rolled.stdout


def test_checkpoints_resume_and_refuse_what_they_did_not_write(tmp_path):
    from shelfie_solver.dice.wholegame.two_player_checkpoints import TwoPlayerCheckpoints

    folder = tmp_path / "ck"

    def store():
        return TwoPlayerCheckpoints(BOARD_2X2, TINY_TWO, (tp.OPTIMAL, tp.OPTIMAL), str(folder))

    first = tp.solve_two_player(BOARD_2X2, TINY_TWO, checkpoints=store())
    layers = sorted(folder.glob("layer-*.json"))
    assert len(layers) == len(first.layers)
    again = tp.solve_two_player(BOARD_2X2, TINY_TWO, checkpoints=store())  # every layer loaded
    assert np.array_equal(first.values, again.values) and first.bound == again.bound
    with pytest.raises(tp.TwoPlayerError, match="another solve"):
        TwoPlayerCheckpoints(BOARD_2X2, TINY, (tp.OPTIMAL, tp.OPTIMAL), str(folder))
    with pytest.raises(tp.TwoPlayerError, match="another solve"):
        TwoPlayerCheckpoints(BOARD_2X2, TINY_TWO, (tp.SOLITAIRE, tp.OPTIMAL), str(folder))
    head = json.loads(layers[-1].read_text())
    head["bound"] = "1/1000"
    layers[-1].write_text(json.dumps(head))
    with pytest.raises(tp.TwoPlayerError, match="bound"):
        tp.solve_two_player(BOARD_2X2, TINY_TWO, checkpoints=store())
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "layer-000.json").write_text("{}")
    result = invoke("--board", TINY_2X3, "--players", "2", "--checkpoints", str(foreign))
    assert result.exit_code == 2 and "--force" in result.stderr


def test_an_edited_checkpoint_layer_is_refused_on_resume(tmp_path):
    # a layer's values edited in place (same shape, values in range) would be trusted by every
    # layer solved from it: the SHA-256 recorded beside the array refuses it
    from shelfie_solver.dice.wholegame.binary_table import npy_bytes
    from shelfie_solver.dice.wholegame.two_player_checkpoints import TwoPlayerCheckpoints

    folder = tmp_path / "ck"

    def store():
        return TwoPlayerCheckpoints(BOARD_2X2, TINY_TWO, (tp.OPTIMAL, tp.OPTIMAL), str(folder))

    tp.solve_two_player(BOARD_2X2, TINY_TWO, checkpoints=store())
    array = sorted(folder.glob("layer-*.npy"))[0]
    count = json.loads(array.with_suffix(".json").read_text())["states"]
    head, data = npy_bytes(np.full(count, 0.25, dtype="<f8"))
    array.write_bytes(head + bytes(data))
    with pytest.raises(tp.TwoPlayerError, match="not the ones written"):
        tp.solve_two_player(BOARD_2X2, TINY_TWO, checkpoints=store())


def test_the_table_choices_compiled_and_in_numpy_agree():
    from shelfie_solver.dice.wholegame import two_player_kernel

    if two_player_kernel.greedy_kernel() is None:
        pytest.skip("numba not installed")
    solved = tp.solve_two_player(BOARD_2X2, TINY_TWO)
    setup = tp.setup_for(BOARD_2X2, TINY_TWO)
    worth, fails = solved.worths(setup, tp.outcomes(setup, solved.keys))
    compiled = tp.table_choices(setup, worth, fails)
    plain = tp.greedy_choices(setup, worth, fails, tp.TABLE_TIE)
    for a, b in zip(compiled, plain):
        assert np.array_equal(a, b)


def test_a_table_of_another_board_names_both_in_a_rollout(tmp_path):
    """A rollout of a game on another board than the table's: one line naming the table's board
    and the game's (a game file has its board: no --board to pass); one seat is '1 player'."""
    table, game = tmp_path / "t.json", tmp_path / "game.json"
    save_two_player(str(table), tp.solve_two_player(BOARD_2X2, TINY))
    runner = CliRunner()
    made = runner.invoke(main, ["play", "new", str(game), "--players", "Ann,Ben", "--first", "Ann", "--board",
                                TINY_2X3])
    assert made.exit_code == 0, made.output
    line = assert_one_line_error(runner.invoke(main, ["rollout", str(game), "--policy", f"exact2:{table}",
                                                      "--games", "2"]), "'2x2'", "'tiny 2x3'")
    assert "this game's" in line
    alone = runner.invoke(main, ["simulate", "--board", TINY_2X3, "--players", f"exact2:{table}", "--games", "1"])
    assert alone.exit_code == 2 and "not 1 player" in alone.stderr and "1 players" not in alone.stderr


@pytest.mark.parametrize("seats", [1, 3, 4])
def test_a_table_in_a_game_of_other_than_two_is_refused_before_any_game(tmp_path, seats, monkeypatch):
    """``exact2:FILE`` among 1, 3 or 4 seats (simulate) or as every seat's policy of a 3-player
    rollout: one line naming the seat count, before any game is dealt (no game is played: a seat
    whose items are all eliminated by blocks, D15, before its first turn would never reach the
    table's own refusal at its first decision)."""
    from shelfie_solver.dice import simulate as simulate_module

    table, game = tmp_path / "t.json", tmp_path / "game.json"
    save_two_player(str(table), tp.solve_two_player(BOARD_2X2, TINY))
    monkeypatch.setattr(simulate_module, "run_games", lambda *a, **k: pytest.fail("a game was dealt"))
    players = ",".join([f"exact2:{table}"] + ["solver"] * (seats - 1))
    line = assert_one_line_error(CliRunner().invoke(main, ["simulate", "--board", TINY_2X3, "--players", players,
                                                           "--games", "5", "--seed", "1"]),
                                 "two-player games only", f"not {seats} player")
    assert "1 players" not in line
    made = CliRunner().invoke(main, ["play", "new", str(game), "--players", "Ann,Ben,Cy", "--first", "Ann",
                                     "--board", TINY_2X3])
    assert made.exit_code == 0, made.output
    assert_one_line_error(CliRunner().invoke(main, ["rollout", str(game), "--policy", f"exact2:{table}",
                                                    "--games", "2"]), "two-player games only", "not 3 players")


@pytest.mark.parametrize("command", [
    ["simulate", "--players", "exact2:,win", "--games", "1"],
    ["rollout", "{game}", "--policy", "exact2:", "--games", "1", "--jobs", "1"],
])
def test_exact2_with_no_file_named_says_so(tmp_path, command):
    # "exact2:" names no table: one line naming the form (as table: and learned: do), not
    # "cannot read : no such file"
    game = str(tmp_path / "g.json")
    assert CliRunner().invoke(main, ["play", "new", game, "--players", "Ann,Ben"]).exit_code == 0
    args = [a.replace("{game}", game) for a in command]
    line = assert_one_line_error(CliRunner().invoke(main, args), "no two-player table file named", "exact2:FILE")
    assert "cannot read :" not in line


@pytest.mark.parametrize("name", ["tiny-2x3", "tiny-3x2"])
def test_the_count_stops_at_the_limit_and_never_before(name):
    """``reachable_states`` with a limit: the states of a plain breadth-first search over each
    turn's outcomes (a set of keys, no layers) when there are at most ``limit``; refused one state
    short of the count, and refused early (before the last layer) far short of it, since the
    states waiting in later layers count."""
    from shelfie_solver.dice.board import load_board
    from shelfie_solver.dice.rules import DEFAULT_RULES

    board = load_board(EXAMPLES / "boards" / f"{name}.toml", DEFAULT_RULES)
    setup = tp.setup_for(board, DEFAULT_RULES)
    seen = {tp.start_key(board)}
    frontier = list(seen)
    while frontier:
        out = tp.outcomes(setup, np.array(frontier, dtype=np.int64))
        after = {int(k) for k in np.concatenate([out.set_next.ravel(), out.shelf_next.ravel()]) if k >= 0}
        frontier = list(after - seen)
        seen |= after
    count = len(seen)
    assert tp.reachable_states(setup, count).tolist() == sorted(seen)
    with pytest.raises(tp.TwoPlayerError, match=f"more than {count - 1:,} two-player states"):
        tp.reachable_states(setup, count - 1)
    with pytest.raises(tp.TwoPlayerError) as early:
        tp.reachable_states(setup, count // 4)
    layer = int(str(early.value).split("by layer ")[1].split()[0])
    assert layer < 2 * setup.n + 1
