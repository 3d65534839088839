"""A board's own table on first use (dice/learned/own_cache.py, docs/solve-game.md "Exact where it
fits"): on a board over the exact budget whose sub-boards fit it, the shipped ``learned`` alone
plays the fit to the sub-boards' exact tables mixed with its shipped table, fitted once (an
estimate line), kept in the disk cache, read back, turned off by SHELFIE_SOLVE_OWN_TABLE, and an
interrupted fit keeps nothing. The small 3 x 3 board (1,519 states) stands for a board over the
budget with a budget of 1,000 states; its sub-boards (a shelf dropped: 2 x 3) have 161 states
each (7 * 7 with no shelf closed, 2 * 8 * 7 with one of the two closed, D17)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from shelfie_solver.cli import main
from shelfie_solver.core import diskcache
from shelfie_solver.dice.board import load_board
from shelfie_solver.dice.learned import own_cache
from shelfie_solver.dice.learned import own_table as ot
from shelfie_solver.dice.learned.fit_solved import board_float_sums, fit_table_sums
from shelfie_solver.dice.learned.model_file import default_model
from shelfie_solver.dice.objective_names import parse_objective
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import exact_cache

from conftest import EXAMPLES, assert_one_line_error

SMALL = str(EXAMPLES / "boards" / "small.toml")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A cache of the test's own, nothing in memory, a budget of 1,000 states and the 3 x 3 shape
    among the shapes that get an own table."""
    monkeypatch.setenv("SHELFIE_SOLVE_CACHE", str(tmp_path))
    monkeypatch.delenv("SHELFIE_SOLVE_CACHE_MAX", raising=False)
    monkeypatch.setenv(exact_cache.BUDGET_ENV, "1000")
    monkeypatch.delenv(own_cache.OWN_ENV, raising=False)
    monkeypatch.setattr(exact_cache, "_KNOWN", {})
    monkeypatch.setattr(own_cache, "_KNOWN", {})
    monkeypatch.setattr(own_cache, "_BY_OBJECT", {})
    monkeypatch.setattr(own_cache, "_MODELS", {})
    monkeypatch.setattr(own_cache, "OWN_SHAPES", ((3, 3),))
    # value iteration on the board itself, kept short here (its steps: tests/test_own_table.py)
    monkeypatch.setattr(ot, "ITERATIONS", 2)
    monkeypatch.setattr(ot, "ITERATION_GAMES", 40)
    from shelfie_solver.dice.strategies import strategy_named

    # the shared strategies keep their turns by game state, made under this process's settings (a
    # command's never change): earlier tests' turns of this board were played under other budgets
    strategy_named.cache_clear()
    yield tmp_path
    strategy_named.cache_clear()


def expected_table(board):
    """The own table by the per-state path (fit_solved.board_float_sums of each sub-board, hand
    listed: the 3 x 3 board with shelf 1, 2, 3 dropped), mixed half and half with the shipped table,
    then value iteration on the board with the design's settings (ot.iterate_weights, checked on
    its own in tests/test_own_table.py)."""
    from shelfie_solver.dice.board import Board

    subs = [Board("s", board.columns, board.shelf_faces[1:], board.values[1:]),
            Board("s", board.columns, board.shelf_faces[::2], board.values[::2]),
            Board("s", board.columns, board.shelf_faces[:2], board.values[:2])]
    fitted, _ = fit_table_sums([board_float_sums(sub, DEFAULT_RULES) for sub in subs], DEFAULT_RULES.scoring_threshold)
    base = default_model().for_board(1, board)
    iterated = ot.iterate_weights(board, DEFAULT_RULES, (fitted + base) // 2, ot.ITERATION_GAMES, ot.ITERATIONS,
                                  ot.ITERATION_SEED, ot.ITERATION_STEP, ot.ITERATION_POOLED, ot.ITERATION_SELECT)
    return iterated, base


def test_fitted_once_kept_and_read_back(cache, monkeypatch, capsys):
    board = load_board(SMALL, DEFAULT_RULES)
    expected, base = expected_table(board)
    assert not exact_cache.route(board, DEFAULT_RULES).exact and own_cache.applies(board, DEFAULT_RULES)
    first = own_cache.own_table_for(board, DEFAULT_RULES, base)
    assert first is not None and first.tolist() == expected.tolist()
    said = capsys.readouterr().err
    assert "Fitting learned's own table for board 'small example', once: 3 sub-boards of 483 states" in said
    assert [e.kind for e in diskcache.entries(cache)].count(own_cache.KIND) == 1
    listing = json.loads(CliRunner().invoke(main, ["cache", "--format", "json"]).stdout)
    assert listing["kinds"][own_cache.KIND]["entries"] == 1
    # a new process (memory cleared) reads it back without fitting
    monkeypatch.setattr(own_cache, "_KNOWN", {})
    monkeypatch.setattr(own_cache, "_BY_OBJECT", {})

    def refuse(*args, **kwargs):
        raise AssertionError("fitted again instead of read from the cache")

    monkeypatch.setattr(ot, "fit_sub_boards", refuse)
    again = own_cache.own_table_for(board, DEFAULT_RULES, base)
    assert again is not None and again.tolist() == expected.tolist() and capsys.readouterr().err == ""


def test_learned_alone_plays_it_and_learned_file_does_not(cache, tmp_path):
    board = load_board(SMALL, DEFAULT_RULES)
    expected, _ = expected_table(board)
    objective = parse_objective("learned", board, rules=DEFAULT_RULES)
    assert objective.name == "learned" and objective.weights.tolist() == expected.tolist()
    from shelfie_solver.dice.learned.model_file import DEFAULT_MODEL_PATH

    named = parse_objective(f"learned:{DEFAULT_MODEL_PATH}", board, rules=DEFAULT_RULES)
    assert named.weights.tolist() == default_model().for_board(1, board).tolist()


def test_simulate_plays_it_and_says_so(cache, tmp_path):
    """``simulate --players learned`` alone plays the very games of ``learned:FILE`` with the own
    table (computed by the per-state path) as the board shape's solitaire table."""
    from shelfie_solver.dice.learned.model_file import DEFAULT_MODEL_PATH, LearnedModel, model_text

    board = load_board(SMALL, DEFAULT_RULES)
    expected, _ = expected_table(board)
    path = tmp_path / "own.json"
    path.write_text(model_text(LearnedModel(dict(default_model().weights), {}, {(3, 3): expected})))
    games = {player: played(board, player) for player in ("learned", f"learned:{path}")}
    assert games["learned"] == games[f"learned:{path}"]
    assert played(board, f"learned:{DEFAULT_MODEL_PATH}") != games["learned"]  # the shipped table's differ
    text = CliRunner().invoke(main, ["simulate", "--board", SMALL, "--players", "learned", "--games", "2"])
    assert "learned played this board's own table here" in text.output
    # both parts of the fit named (docs/solve-game.md, "Exact where it fits")
    assert "value iteration on the board itself" in " ".join(text.output.split())
    for alone in ("win", "win-model"):  # alone they play learned's objective, its own table too
        assert played(board, alone) == games["learned"]
        text = CliRunner().invoke(main, ["simulate", "--board", SMALL, "--players", alone, "--games", "2"])
        assert f"{alone} played this board's own table here" in text.output
    advice = parse_objective("win", board, rules=DEFAULT_RULES, state=_alone_state(board))
    assert advice.weights.tolist() == expected.tolist()


def played(board, player):
    """The 30 solitaire games of seed 3 of ``player`` (each game's JSON without the players' names)."""
    from shelfie_solver.dice.simulate import simulate

    _, lines = simulate(board, DEFAULT_RULES, [player], 30, 3, save=True)
    games = [json.loads(line) for line in lines]
    for game in games:
        game.pop("players")
    return games


def _alone_state(board):
    """A one-player game at its start on ``board``."""
    from shelfie_solver.dice.board import Marks
    from shelfie_solver.dice.game.events import GameState

    return GameState(board, DEFAULT_RULES, (Marks(board.n_shelves, board.n_columns),), 0, 0, 0, False)


@pytest.mark.parametrize("setting", ["off", "0", "No", "false"])
def test_turned_off(cache, monkeypatch, setting):
    monkeypatch.setenv(own_cache.OWN_ENV, setting)
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None
    assert parse_objective("learned", board, rules=DEFAULT_RULES).weights.tolist() == base.tolist()
    assert all(e.kind != own_cache.KIND for e in diskcache.entries(cache))


def test_bad_setting_is_one_line(cache, monkeypatch):
    monkeypatch.setenv(own_cache.OWN_ENV, "maybe")
    with pytest.raises(own_cache.OwnTableSettingError):
        own_cache.own_enabled()
    result = CliRunner().invoke(main, ["advise", "--dice", "CCBJPP", "--board", SMALL, "--objective", "learned"])
    assert_one_line_error(result, own_cache.OWN_ENV, "neither on nor off")


def test_not_where_the_exact_table_fits_nor_beyond_the_sub_boards(cache, monkeypatch):
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    monkeypatch.setenv(exact_cache.BUDGET_ENV, "2000")  # the board fits: its exact table is played
    assert not own_cache.applies(board, DEFAULT_RULES)
    monkeypatch.setenv(exact_cache.BUDGET_ENV, "100")  # the sub-boards (161 states) do not fit either
    assert not own_cache.applies(board, DEFAULT_RULES)
    monkeypatch.setenv(exact_cache.BUDGET_ENV, "0")
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None
    monkeypatch.setenv(exact_cache.BUDGET_ENV, "1000")
    monkeypatch.setattr(own_cache, "OWN_SHAPES", ((5, 4),))  # not a shape that gets one
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None
    assert all(e.kind != own_cache.KIND for e in diskcache.entries(cache))


def test_interrupted_fit_keeps_nothing(cache, monkeypatch, capsys):
    """Ctrl-C during the fit: one line on stderr, no entry, the shipped table for the rest of the
    process (not fitted again)."""
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr("shelfie_solver.dice.wholegame.float_solver.solve_float", interrupted)
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None
    assert own_cache.INTERRUPTED_LINE in capsys.readouterr().err
    assert all(e.kind != own_cache.KIND for e in diskcache.entries(cache))
    assert parse_objective("learned", board, rules=DEFAULT_RULES).weights.tolist() == base.tolist()
    assert len(calls) == 1 and capsys.readouterr().err == ""


def test_evicted_like_other_entries(cache):
    import os

    board = load_board(SMALL, DEFAULT_RULES)
    assert own_cache.own_table_for(board, DEFAULT_RULES, default_model().for_board(1, board)) is not None
    found = diskcache.entries(cache)
    (entry,) = [e for e in found if e.kind == own_cache.KIND]
    os.utime(entry.path, ns=(1, 1))  # the least recently used entry
    removed = diskcache.evict(cache, sum(e.size for e in found) - 1)
    assert [e.kind for e in removed] == [own_cache.KIND] and not entry.path.exists()


def test_key_follows_the_base_table(cache):
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    assert own_cache._key(board, DEFAULT_RULES, base) != own_cache._key(board, DEFAULT_RULES, base + 1)
    assert np.array_equal(base, default_model().for_board(1, board))


def family_board(columns, shelves):
    """A board of the held-out family's kind: ``columns`` needs (D3), one face per shelf, values 1..."""
    from shelfie_solver.dice.board import Board

    return Board("b", tuple(columns), tuple((f,) for f in range(shelves)),
                 tuple(tuple(range(1 + len(columns) * s, 1 + len(columns) * (s + 1))) for s in range(shelves)))


@pytest.mark.parametrize(("columns", "shelves", "kind", "gets"), [
    ((4, 2, 1, 3, 3), 4, "many", True),  # a column of 4 (D3): the many-dice table
    ((2, 3, 2, 2), 5, "players", True),  # the pooled table (the shipped file has no 5 x 4 table)
    ((4, 4, 4, 2, 1), 4, "heavy", True),  # three columns of 4-5: the heavy table
    ((3, 3, 3, 5, 4), 4, "threes", False),  # 3s beside 4-5s: the threes table stays
    ((5, 1, 1, 1, 2), 4, "light_five", True),  # a 5 beside 1s: the light-five table
])
def test_which_boards_over_the_budget_get_it(monkeypatch, columns, shelves, kind, gets):
    """By the default budget and shapes (nothing fitted here): the 4 x 5 and 5 x 4 boards whose
    shipped table is not the threes one."""
    monkeypatch.delenv(exact_cache.BUDGET_ENV, raising=False)
    monkeypatch.delenv(own_cache.OWN_ENV, raising=False)
    board = family_board(columns, shelves)
    model = default_model()
    assert model.table_kind(1, board) == kind
    expected = model.for_players(1) if kind == "players" else getattr(model, kind)[(board.n_shelves, board.n_columns)]
    assert model.for_board(1, board) is expected
    assert model.table_kind(2, board) == "players"
    assert own_cache.applies(board, DEFAULT_RULES) is gets


def test_estimate_says_kept_only_when_the_whole_entry_fits_the_bound(cache, monkeypatch, capsys):
    """The estimate line's "kept in the table cache" is judged on the entry's real size (the key is
    stored in it, one int64 a byte: about 8 kB, where the weights alone are 2.5 kB), not on the
    weights alone: a bound between the two said "kept" and kept nothing, fitting again every run."""
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    key = own_cache._key(board, DEFAULT_RULES, base)
    size = diskcache.entry_bytes(own_cache.KIND, key, [base.shape])
    assert size > 2 * 8 * base.size
    for limit, kept in ((size - 1, False), (size, True)):
        diskcache.evict(cache, 0)
        monkeypatch.setattr(own_cache, "_KNOWN", {})
        monkeypatch.setattr(own_cache, "_BY_OBJECT", {})
        monkeypatch.setenv("SHELFIE_SOLVE_CACHE_MAX", str(limit))
        assert own_cache.own_table_for(board, DEFAULT_RULES, base) is not None
        said = capsys.readouterr().err
        assert ("kept in the table cache" in said) is kept
        assert ("not kept: larger than SHELFIE_SOLVE_CACHE_MAX" in said) is not kept
        found = [e for e in diskcache.entries(cache) if e.kind == own_cache.KIND]
        assert [e.size for e in found] == ([size] if kept else [])


def test_weights_past_the_bound_are_said_kept_so_and_not_fitted_again(cache, monkeypatch, capsys):
    """A fit whose weights pass the objective's bound (a board of large item values: the held-out
    4 x 5 board's values times 800, all within the board's 10,000, does it) leaves the shipped
    tables, says so in one line, and is kept as such: the next run neither fits it again nor says
    a table was kept."""
    from shelfie_solver.dice.learned import model_file

    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    bound = model_file.MAX_WEIGHT
    monkeypatch.setattr(model_file, "MAX_WEIGHT", 1)
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None
    said = capsys.readouterr().err.splitlines()
    assert said[-1] == own_cache.OVER_BOUND_LINE.format(name="small example")
    assert [e.kind for e in diskcache.entries(cache)].count(own_cache.KIND) == 1
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None and capsys.readouterr().err == ""
    # a new process (of the same bound) reads the entry: no fit, nothing said, the shipped table played
    monkeypatch.setattr(own_cache, "_KNOWN", {})
    monkeypatch.setattr(own_cache, "_BY_OBJECT", {})
    monkeypatch.setattr(own_cache, "_MODELS", {})

    def refuse(*args, **kwargs):
        raise AssertionError("fitted again instead of read from the cache")

    monkeypatch.setattr(ot, "fit_sub_boards", refuse)
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is None
    assert own_cache.own_model(board, DEFAULT_RULES) is None
    monkeypatch.setattr(model_file, "MAX_WEIGHT", bound)
    assert parse_objective("learned", board, rules=DEFAULT_RULES).weights.tolist() == base.tolist()
    assert capsys.readouterr().err == ""
    # a version with another bound fits it again (the entry records the bound it passed)
    calls = []
    monkeypatch.setattr(ot, "fit_sub_boards", lambda *args, **kwargs: calls.append(1) or np.zeros_like(base))
    monkeypatch.setattr(model_file, "MAX_WEIGHT", bound + 1)
    monkeypatch.setattr(own_cache, "_KNOWN", {})
    monkeypatch.setattr(own_cache, "_BY_OBJECT", {})
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is not None and calls == [1]


def test_key_follows_the_value_iteration_design(cache, monkeypatch):
    """Entries fitted before value iteration, or with other settings of it, are not read back."""
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    key = own_cache._key(board, DEFAULT_RULES, base)
    assert "value iteration 2 steps of 40 games" in key
    for name, value in (("ITERATIONS", 3), ("ITERATION_GAMES", 41), ("ITERATION_SEED", 1),
                        ("ITERATION_STEP", ot.Fraction(1, 2)), ("ITERATION_POOLED", not ot.ITERATION_POOLED),
                        ("ITERATION_SELECT", not ot.ITERATION_SELECT)):
        with monkeypatch.context() as patched:
            patched.setattr(ot, name, value)
            assert own_cache._key(board, DEFAULT_RULES, base) != key


def test_not_without_numba(cache, monkeypatch):
    """The value iteration solves its turns with the compiled kernel: without numba no board gets
    an own table (on 4 x 5 and 5 x 4 the sub-boards' solves need numba anyway)."""
    from shelfie_solver.dice.wholegame import float_kernel

    board = load_board(SMALL, DEFAULT_RULES)
    assert own_cache.applies(board, DEFAULT_RULES)
    monkeypatch.setattr(float_kernel, "has_numba", lambda: False)
    assert not own_cache.applies(board, DEFAULT_RULES)


def test_progress_bar_moves_with_the_estimated_time(cache, monkeypatch):
    """The fit's bar (states solved and summed, then games of value iteration) gives the games the
    share of its steps that the estimate gives their time (STATES_PER_SECOND for each state solved
    and summed, GAMES_PER_SECOND), so it does not stand near its end while the games are played;
    and its steps add up to its total."""
    from fractions import Fraction

    from shelfie_solver.dice.wholegame.solver import state_count

    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    seen = {}

    def first_use(known, key, announce, total, solve, line, label="x"):
        done = [0]
        seen["total"] = total

        def iterate(*args, **kwargs):
            seen["before games"] = done[0]
            return real_iterate(*args, **kwargs)

        monkeypatch.setattr(ot, "iterate_weights", iterate)
        out = solve(lambda _, n: done.__setitem__(0, done[0] + n))
        seen["done"] = done[0]
        return out

    real_iterate = ot.iterate_weights
    monkeypatch.setattr(exact_cache, "first_use_solve", first_use)
    assert own_cache.own_table_for(board, DEFAULT_RULES, base) is not None
    states = sum(state_count(sub, DEFAULT_RULES) for sub in ot.sub_boards(board))
    games = (ot.ITERATIONS + ot.ITERATION_SELECT) * ot.ITERATION_GAMES
    assert seen["done"] == seen["total"] and seen["before games"] == 2 * states
    games_time = Fraction(games, own_cache.GAMES_PER_SECOND)
    share = games_time / (Fraction(states, own_cache.STATES_PER_SECOND) + games_time)
    assert abs(Fraction(seen["total"] - seen["before games"], seen["total"]) - share) < Fraction(1, 100)


def test_key_names_the_share_of_the_board(cache, monkeypatch):
    """A board whose own share changes (``own_table.HEAVY_SHARES`` for boards of many heavy
    columns) gets another key: its entry of the earlier share is fitted again."""
    board = load_board(SMALL, DEFAULT_RULES)
    base = default_model().for_board(1, board)
    key = own_cache._key(board, DEFAULT_RULES, base)
    assert f"own share {ot.share_for(board)}" in key
    monkeypatch.setattr(ot, "HEAVY_SHARES", {(board.n_shelves, board.n_columns): ot.Fraction(1, 7)})
    monkeypatch.setattr(ot, "HEAVY_COLUMNS", 0)
    assert ot.share_for(board) == ot.Fraction(1, 7)
    again = own_cache._key(board, DEFAULT_RULES, base)
    assert again != key and "own share 1/7" in again
