"""With final dice and three or more players, every seat's chance is its figure right after the
advised choice (``play.report._advised_end``; docs/win-chance.md, "Final dice: every seat as
after the advised choice"): nothing random is left in the turn (D7), so a failed result (D13)
that triggers the end (D17) on the round's last seat ends the game at once (D18), and every
share is exact (D20), not the turn start's ratios scaled to what the mover leaves.

The hand-worked game (tiny-2x3, three players A, B, C, A first; the end at both shelves closed):

    play new t.json --players A,B,C --first A --board examples/boards/tiny-2x3.toml
    play mark t.json r1c1 r1c2 r1c3 --unchecked   # A completes shelf 1: 1 + 2 + 4 = 7 (D19);
                                                  # B's and C's shelf 1 eliminated (D15)
    play mark t.json r2c1 --unchecked             # B: 0 points, r2c2 and r2c3 still available
    play roll t.json PPBBAA                       # C: no game, cat or Joker die
    play stop t.json                              # final dice: nothing can be marked (D13)

C must give up shelf 2, its last shelf with an available item: its second closed shelf
triggers the end (D17), and C plays last in the round, so the game ends at once (D18) with A 7,
B 0, C 0: A wins alone (D20), though B's sheet could still reach 2 + 3 + 5 = 10 with another
turn. Before, ``play status`` showed A 68.1% (model), B 31.9% (model), C 0% (exact).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from conftest import EXAMPLES, cli, cli_json


def _game(tmp_path: Path) -> str:
    path = str(tmp_path / "t.json")
    cli("play", "new", path, "--players", "A,B,C", "--first", "A", "--board", str(EXAMPLES / "boards" / "tiny-2x3.toml"))
    cli("play", "mark", path, "r1c1", "r1c2", "r1c3", "--unchecked")
    cli("play", "mark", path, "r2c1", "--unchecked")
    cli("play", "roll", path, "PPBBAA")
    cli("play", "stop", path)
    return path


def _chances(path: str) -> list[tuple[str, bool]]:
    return [(s["win_chance"], s["win_chance_exact"]) for s in cli_json("play", "status", path)["sheets"]]


def test_a_failed_result_that_ends_the_game_settles_every_seat(tmp_path: Path) -> None:
    path = _game(tmp_path)
    status = cli_json("play", "status", path)
    assert [s["score"] for s in status["sheets"]] == [7, 0, 0]
    assert not status["turn"]["end_triggered"]
    assert _chances(path) == [("1/1", True), ("0/1", True), ("0/1", True)]
    # and the game once C gives up shelf 2 says the same (D17, D18, D20)
    cli("play", "fail", path, "--shelf", "2")
    assert _chances(path) == [("1/1", True), ("0/1", True), ("0/1", True)]


def test_final_dice_show_every_seat_as_after_the_advised_marking(tmp_path: Path) -> None:
    """Default board, three players: A's final dice CCBJPP; every seat's figure before the marking
    equals its figure once ``play mark GAME best`` (the advice's top marking) is recorded."""
    path = str(tmp_path / "g.json")
    cli("play", "new", path, "--players", "A,B,C", "--first", "A")
    cli("play", "roll", path, "CCBJPP")
    cli("play", "stop", path)
    before = _chances(path)
    assert sum(Fraction(c) for c, _ in before) == 1
    cli("play", "mark", path, "best", "--objective", "win")
    assert _chances(path) == before


# --- exact only when certain: the others' flags against every choice of the final dice ---------


def _kingmaker():
    """The breaker's position (small-3x4, A, B, C; A first): C to mark final dice AAAACJ after B's
    told r1c3; C cannot win with any marking (its figure an exact 0), and which marking it makes
    decides between A and B."""
    from shelfie_solver.dice.board import load_board, parse_marks
    from shelfie_solver.dice.game.events import GameState, Roll, Start, Stop, UncheckedMark
    from shelfie_solver.dice.play.gamefile import KeptGame, act
    from shelfie_solver.dice.rolls import parse_dice
    from shelfie_solver.dice.rules import DEFAULT_RULES

    board = load_board(EXAMPLES / "boards" / "small-3x4.toml", DEFAULT_RULES)
    texts = (".x../ox.o/.xoo", "oo../.oox/.ooo", "oxoo/.xo./.x.x")
    sheets = tuple(parse_marks(t, board) for t in texts)
    kept = KeptGame(board, DEFAULT_RULES, ("A", "B", "C"), (Start(3, 0, texts),),
                    GameState(board, DEFAULT_RULES, sheets, 1, 0, 4, False))
    kept = act(kept, (UncheckedMark(1, (2,)),))
    kept = act(kept, (Roll(2, parse_dice("AAAACJ", DEFAULT_RULES), 2),))
    return act(kept, (Stop(2),))


def _after_every_choice(kept):
    """``table_chances`` right after each legal marking of the final dice (else each shelf given up)."""
    from shelfie_solver.dice.game.events import Fail, Mark, legal_sets
    from shelfie_solver.dice.play.gamefile import act
    from shelfie_solver.dice.play.report import table_chances
    from shelfie_solver.dice.sheet_rules import failed_result_shelves

    seat = kept.active
    cells = legal_sets(kept.dice, kept.board, kept.state.marks, kept.rules).all_cells()
    choices = [(Mark(seat, c),) for c in cells] or [
        (Fail(seat, shelf, lost),) for shelf, lost in failed_result_shelves(kept.board, kept.state.marks).items()]
    return [table_chances(act(kept, choice)) for choice in choices]


def _assert_exact_only_when_certain(kept) -> int:
    """Every seat but the mover shown exact at final dice has that figure after every choice (the
    mover's own exact figure is its best choice's, the advice's); returns the exact others seen."""
    from shelfie_solver.dice.play.report import table_chances

    shown = table_chances(kept)
    afters = _after_every_choice(kept)
    exact_others = [j for j, (_, flag) in enumerate(shown) if flag and j != kept.active]
    for j in exact_others:
        if shown[kept.active] == (1, True):
            continue  # the mover wins whatever the others do, by its best choice
        assert all(after[j] == shown[j] for after in afters), (j, shown, afters)
    return len(exact_others)


def test_a_mover_out_of_the_game_makes_no_other_figure_exact() -> None:
    from shelfie_solver.dice.play.report import table_chances

    kept = _kingmaker()
    afters = _after_every_choice(kept)
    # the brute force: C's markings leave B different figures, so B's is not certain
    assert len({after[1] for after in afters}) > 1
    shown = table_chances(kept)
    assert shown[2] == (0, True)  # C out
    assert not shown[0][1] and not shown[1][1]  # was B 100% (exact), the advised marking's alone
    _assert_exact_only_when_certain(kept)


def test_final_dice_exact_figures_hold_for_every_choice_in_played_games(tmp_path: Path) -> None:
    """Seeded 3- and 4-player games on tiny boards (``simulate --save``), every final-dice position."""
    import json

    from shelfie_solver.dice.game.record import saved_game_parts
    from shelfie_solver.dice.play.gamefile import act, split_actions, start_kept_game

    from shelfie_solver.dice.play.report import _advised_end, status_chance_texts, table_chances

    checked = exact_others = same_texts = 0
    for board, players, seed in (("tiny-2x3", "win,win,win", 5), ("tiny-3x2", "win,random,win,random", 6)):
        saved = tmp_path / f"{board}.jsonl"
        cli("simulate", "--players", players, "--games", "8", "--seed", str(seed), "--jobs", "1", "--save", str(saved),
            "--board", str(EXAMPLES / "boards" / f"{board}.toml"))
        for line in saved.read_text().splitlines():
            rules, played_on, names, events = saved_game_parts(json.loads(line))
            kept = start_kept_game(played_on, rules, tuple(f"P{i}" for i in range(len(names))), events[0].first)
            for _, action in split_actions(events):
                if kept.dice is not None and (kept.stopped or not kept.rerolls_left) and kept.over is None:
                    exact_others += _assert_exact_only_when_certain(kept)
                    checked += 1
                    # where the figures are the advised choice's, so is the text (the seats rounded alone too)
                    advised = _advised_end(kept)
                    if advised is not None and table_chances(kept) == table_chances(advised):
                        assert status_chance_texts(kept) == status_chance_texts(advised)
                        same_texts += 1
                kept = act(kept, action)
    assert checked > 40 and exact_others > 0 and same_texts > 20, (checked, exact_others, same_texts)
