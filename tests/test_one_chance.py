"""One position, one chance to win (D20): the chance the advice shows for the marking (or the shelf
given up, D13) a player makes is the chance ``play status`` shows right after it is recorded, and
every seat's chances add up to 1 — in fresh-seed games of 2, 3 and 4 players played by the advice.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from shelfie_solver.dice.board import item_sets, load_board
from shelfie_solver.dice.game.dice_sources import GeneratorDice
from shelfie_solver.dice.game.events import Fail, Hold, Mark, Roll, Stop
from shelfie_solver.dice.play.gamefile import act, start_kept_game
from shelfie_solver.dice.advise.words import chance_cell, chance_cells
from shelfie_solver.dice.play.report import shown_elsewhere, step_advice, table_chances
from shelfie_solver.dice.rules import DEFAULT_RULES


def play_by_the_advice(players: int, seed: int, board_path: str | None = None
                       ) -> list[tuple[Fraction, Fraction, list[Fraction]]]:
    """A game played by ``win``'s advice at the final dice (holds drawn at random from the seed, so
    the games vary) on ``board_path`` (default: the default board); per turn ``(chance shown for
    the choice, status right after, every seat's)``."""
    rules = DEFAULT_RULES
    board = load_board(board_path, rules)
    rng = np.random.default_rng(seed)
    source = GeneratorDice(rng)
    names = tuple(f"P{i}" for i in range(players))
    kept = start_kept_game(board, rules, names, int(rng.integers(players)))
    found = []
    while kept.over is None:
        seat = kept.active
        dice = source.roll((0,) * rules.n_sides, rules)
        kept = act(kept, (Roll(seat, dice, rules.rerolls),))
        while kept.rerolls_left and rng.random() < 0.6:
            keep = tuple(int(rng.integers(d + 1)) for d in kept.dice)
            if keep == kept.dice:
                break
            dice = source.roll(keep, rules)
            kept = act(kept, (Hold(seat, keep), Roll(seat, dice, kept.rerolls_left - 1)))
        if kept.rerolls_left:
            kept = act(kept, (Stop(seat),))
        advice = step_advice(kept, "win")
        assert advice is not None
        if advice.markings:
            best = advice.markings[0]
            shown, action = best.value, Mark(seat, best.marking.cells)
        else:
            best_shelf = advice.failed[0]
            shown, action = best_shelf.value, Fail(seat, best_shelf.shelf, best_shelf.lost_items)
        assert shown is not None
        kept = act(kept, (action,))
        chances = table_chances(kept)
        if kept.over is None and chances[seat][0] == shown:  # the texts too: as the advice prints it
            cells = chance_cells([c for c, _ in chances], pinned=shown_elsewhere(kept))
            assert cells[seat] == chance_cell(shown), (cells, float(shown))
        found.append((shown, chances[seat][0], [c for c, _ in chances]))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("players, seed", [(2, 11), (2, 12), (3, 13), (4, 14)])
def test_the_chance_shown_is_the_chance_right_after(players, seed):
    turns = play_by_the_advice(players, seed)
    assert len(turns) >= 2 * players
    for shown, status, seats in turns:
        assert abs(shown - status) <= Fraction(5, 1000)  # within 0.5 points (it is equal by construction)
        assert sum(seats) == 1
        assert all(0 <= c <= 1 for c in seats)


@pytest.mark.parametrize("board_name, seed", [("tiny-2x3.toml", 31), ("tiny-2x3.toml", 32), ("tiny-3x2.toml", 33)])
def test_on_a_board_that_fits_the_chance_shown_is_the_chance_right_after(board_name, seed):
    # two players on a board whose two-player game fits the exact budget: win's figures come from
    # the exact two-player table (docs/solve-game.md "Exact where it fits"), the same objective for
    # the advice and the status, so the chance shown is the status right after, to the last bit
    from conftest import EXAMPLES

    turns = play_by_the_advice(2, seed, str(EXAMPLES / "boards" / board_name))
    assert len(turns) >= 2
    for shown, status, seats in turns:
        assert shown == status
        assert sum(seats) == 1 and all(0 <= c <= 1 for c in seats)


def _turn_start(players: int, seed: int, turns: int):
    """A game of ``players`` seats after ``turns`` turns played by ``win``'s advice on random holds."""
    rules = DEFAULT_RULES
    board = load_board(None, rules)
    rng = np.random.default_rng(seed)
    source = GeneratorDice(rng)
    kept = start_kept_game(board, rules, tuple(f"P{i}" for i in range(players)), 0)
    for _ in range(turns):
        seat = kept.active
        kept = act(kept, (Roll(seat, source.roll((0,) * rules.n_sides, rules), rules.rerolls),))
        kept = act(kept, (Stop(seat),))
        advice = step_advice(kept, "win")
        assert advice is not None and kept.over is None
        action = (Mark(seat, advice.markings[0].marking.cells) if advice.markings
                  else Fail(seat, advice.failed[0].shelf, advice.failed[0].lost_items))
        kept = act(kept, (action,))
    return kept


def _rolls(n_dice: int, n_sides: int):
    """Every first roll as face counts with its exact probability (D2: fair six-sided dice),
    by brute force over the ordered rolls."""
    from itertools import product

    counts: dict[tuple[int, ...], int] = {}
    for ordered in product(range(n_sides), repeat=n_dice):
        key = tuple(ordered.count(face) for face in range(n_sides))
        counts[key] = counts.get(key, 0) + 1
    total = n_sides ** n_dice
    return [(dice, Fraction(c, total)) for dice, c in counts.items()]


@pytest.mark.slow
@pytest.mark.parametrize("turns, scaled", [(3, False), (7, True)])
def test_the_seat_about_to_roll_sees_the_chance_shown_for_it(turns, scaled):
    # three players: the figure shown at a turn's start for the seat about to roll is the mean,
    # over every first roll (brute force), of that seat's chance once it has rolled (its own view
    # of the position); the others keep their ratios while only the roller's dice change, and the
    # seats add up to 1 (D20). The exception (docs/win-chance.md "What is shown"): when the last
    # mover's figure is above the roller's view of it, the roller and the third seat share what
    # the mover leaves in the proportions of the roller's view, so the roller's figure is below
    # that mean. Both cases are pinned (seed 21: after 3 turns the first, after 7 the second).
    from shelfie_solver.dice.play.chances import seat_chances

    kept = _turn_start(3, seed=21, turns=turns)
    rules, roller = kept.rules, kept.active
    mover, third = (roller - 1) % 3, (roller + 1) % 3
    start = [c for c, _ in table_chances(kept)]
    view = [c for c, _ in seat_chances(kept.state)]  # the roller's own view of the position
    assert sum(start) == 1 and sum(view) == 1
    mean = Fraction(0)
    for dice, p in _rolls(rules.dice, rules.n_sides):
        after = [c for c, _ in table_chances(act(kept, (Roll(roller, dice, rules.rerolls),)))]
        assert sum(after) == 1
        others = [j for j in range(3) if j != roller]
        assert after[others[0]] * start[others[1]] == after[others[1]] * start[others[0]]
        mean += p * after[roller]
    assert mean == view[roller]
    assert (start[mover] > view[mover]) == scaled
    if scaled:
        assert start[roller] < mean
        assert start[roller] * view[third] == start[third] * view[roller]
    else:
        assert start[roller] == mean


#: Three players on the default board's x100 values, round 3, Ann (seat 1) to roll: Ann has two
#: shelves of three, Bob and Cy one item each. Bob can still win (a rollout gave him about 6%).
_FAR_AHEAD = ('{"format":"shelfie-solve game 1","players":["Ann","Bob","Cy"],"rules":{"name":"My Shelfie: The D'
              'ice Game (docs/rules.md, D1-D20)","dice":6,"rerolls":2,"combinations_per_turn":3,"scoring_thresh'
              'old":3,"end_trigger_shelves":2,"faces":[{"name":"plant","code":"P"},{"name":"game","code":"G"},{'
              '"name":"book","code":"B"},{"name":"award","code":"A"},{"name":"cat","code":"C"}],"joker":{"name"'
              ':"joker","code":"J","per_group":1,"alone":false,"all_jokers_mark_any":true}},"board":{"name":"my'
              ' sheet x100","columns":[1,2,3,4,5],"shelves":[{"faces":["award"],"values":[200,300,500,800,1200]'
              '},{"faces":["cat"],"values":[100,200,400,700,1000]},{"faces":["plant"],"values":[100,300,400,600'
              ',1100]},{"faces":["book"],"values":[200,200,300,700,1200]},{"faces":["game"],"values":[100,200,5'
              '00,600,900]}]},"events":[{"event":"start","players":3,"first":0,"sheets":["...../...../...../...'
              '../.....","...../...../...../...../.....","...../...../...../...../....."]},{"event":"unchecked"'
              ',"player":0,"cells":["r1c1","r1c2","r1c3"]},{"event":"unchecked","player":1,"cells":["r5c1"]},{"'
              'event":"unchecked","player":2,"cells":["r2c1"]},{"event":"unchecked","player":0,"cells":["r2c1",'
              '"r2c2","r2c3"]},{"event":"unchecked","player":1,"cells":["r4c1"]},{"event":"unchecked","player":'
              '2,"cells":["r3c1"]}]}')


def test_a_seat_far_behind_is_never_given_a_model_zero():
    # D20 with three players: Bob is far behind but not out, so the model's figure for him is
    # strictly between 0 and 1 (never "0% (model)"); the roller's figure is at most its own value
    # of the position, and the seats add up to 1
    from shelfie_solver.dice.play.chances import seat_chances
    from shelfie_solver.dice.play.gamefile import kept_game_from_text
    from shelfie_solver.dice.play.report import status_report

    kept = kept_game_from_text(_FAR_AHEAD)
    chances = table_chances(kept)
    assert sum(c for c, _ in chances) == 1
    assert all(0 < c < 1 and not e for c, e in chances)
    assert chances[0][0] <= seat_chances(kept.state)[0][0]
    cells = [row[-1] for row in status_report(kept).rows]
    assert not any(cell.startswith(("0%", "100%")) for cell in cells)


def test_model_floor_moves_one_millionth_from_the_largest_model_figure():
    # a model figure of 0 is shown as the model's smallest positive (1 / 1e6, docs/play.md),
    # taken from the largest model figure; an exact 0 stays 0
    from shelfie_solver.dice.play.chances import model_floor

    got = model_floor([(Fraction(1), False), (Fraction(0), False), (Fraction(0), True)])
    assert got == [(Fraction(999_999, 1_000_000), False), (Fraction(1, 1_000_000), False), (Fraction(0), True)]


def _certain_last_turn():
    """Three players on the default board, round 2: Ann (seat 0) gave up shelves 1 and 2 (D13:
    two shelves with no available item trigger the end, D17), Ben marked two items of column 1
    (no line of 3: 0 points, D19), Cy marked column 5's 11 + 10 + 12 = 33 points in round 1 and
    is the last to play of the last round (D18): whatever Cy rolls, the scores 0, 0 and at least
    33 are final, so Cy wins with certainty and Ann and Ben with none (D20)."""
    from shelfie_solver.dice.game.events import UncheckedMark

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    kept = start_kept_game(board, rules, ("Ann", "Ben", "Cy"), 0)

    def shelf(s: int) -> tuple[int, ...]:
        return tuple(board.cell(s, c) for c in range(board.n_columns))

    kept = act(kept, (Fail(0, 0, shelf(0)),))
    kept = act(kept, (UncheckedMark(1, (board.cell(0, 0),)),))
    kept = act(kept, (UncheckedMark(2, (board.cell(0, 4), board.cell(1, 4), board.cell(2, 4))),))
    kept = act(kept, (Fail(0, 1, shelf(1)),))
    kept = act(kept, (UncheckedMark(1, (board.cell(1, 0),)),))
    assert kept.active == 2 and kept.over is None
    return kept


@pytest.mark.parametrize("dice, rerolls", [((1, 1, 1, 1, 1, 1), 2), ((0, 2, 2, 0, 1, 1), 1), ((6, 0, 0, 0, 0, 0), 0)])
def test_a_certain_winner_leaves_the_others_an_exact_zero(dice, rerolls):
    # D20, three players, the very last turn: the roller's chance is exactly 1 (its figure is exact,
    # win_chance), so every other seat's is exactly 0 and shown as exact, never "0% (model)"
    from shelfie_solver.dice.play.report import status_report

    kept = _certain_last_turn()
    kept = act(kept, (Roll(2, dice, DEFAULT_RULES.rerolls),))
    while kept.rerolls_left > rerolls:
        kept = act(kept, (Hold(2, (0,) * 6), Roll(2, dice, kept.rerolls_left - 1)))
    assert table_chances(kept) == [(Fraction(0), True), (Fraction(0), True), (Fraction(1), True)]
    cells = [row[-1] for row in status_report(kept).rows]
    assert cells == ["0% (exact)", "0% (exact)", "100% (exact)"]


def test_a_certain_loser_on_the_last_turn_leaves_the_others_their_final_shares():
    # D18, D20, three players: Ann gave up shelves 1 and 2 (the end, D17) with 0 points, Ben holds
    # column 5's 33 points, and Cy, last to play with one item marked, can add at most 7 points
    # in one turn (three items of a shelf need 1 + 2 + 3 dice: r3's 2 + 2 + 3, D8, D19): Cy's
    # chance is exactly 0, Ann's and Ben's scores are final, so Ben wins with certainty, Ann never
    from shelfie_solver.dice.game.events import UncheckedMark
    from shelfie_solver.dice.play.report import status_report

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    kept = start_kept_game(board, rules, ("Ann", "Ben", "Cy"), 0)
    kept = act(kept, (Fail(0, 0, tuple(board.cell(0, c) for c in range(5))),))
    kept = act(kept, (UncheckedMark(1, (board.cell(0, 4), board.cell(1, 4), board.cell(2, 4))),))
    kept = act(kept, (UncheckedMark(2, (board.cell(0, 0),)),))
    kept = act(kept, (Fail(0, 1, tuple(board.cell(1, c) for c in range(5))),))
    kept = act(kept, (UncheckedMark(1, (board.cell(3, 0),)),))
    kept = act(kept, (Roll(2, (1, 1, 1, 1, 1, 1), rules.rerolls),))
    assert table_chances(kept) == [(Fraction(0), True), (Fraction(1), True), (Fraction(0), True)]
    cells = [row[-1] for row in status_report(kept).rows]
    assert cells == ["0% (exact)", "100% (exact)", "0% (exact)"]


def test_a_seat_settled_at_zero_stays_exact_zero_within_the_next_turn():
    """Three players: a seat whose chance was settled at exactly 0 at the turn's start (it can no
    longer win, D20) keeps an exact 0 while the next player rolls: a chance of 0 over every future
    stays 0 whatever those dice, so ``play status`` shows ``0% (exact)`` for it and not the
    model's floor ``<0.1% (model)`` (which it showed before). The others' ratios are kept: 1/2 and
    1/2 of what the roller's 3/5 leaves, 1/5 each, still the model's."""
    from shelfie_solver.dice.play.chances import model_floor, within_turn_chances
    from shelfie_solver.dice.play.report import win_chance_cell

    start = [(Fraction(0), True), (Fraction(1, 2), False), (Fraction(1, 2), False)]
    got = model_floor(within_turn_chances(start, 1, (Fraction(3, 5), False), [0, 10, 12], final=False))
    assert got == [(Fraction(0), True), (Fraction(3, 5), False), (Fraction(2, 5), False)]
    assert win_chance_cell(got[0][0], got[0][1]) == "0% (exact)"
    start = [(Fraction(1, 4), False), (Fraction(1, 4), False), (Fraction(1, 2), False)]  # a model figure: scaled, model
    got = within_turn_chances(start, 1, (Fraction(3, 5), False), [0, 10, 12], final=False)
    assert got == [(Fraction(2, 15), False), (Fraction(3, 5), False), (Fraction(4, 15), False)]


def _four_players_last_round(cy: tuple[tuple[int, int], ...] = ((0, 0),)):
    """Four players on the default board (Ann, Ben, Cy, Di; Ann first, D5): round 1 Ann gives up
    shelf 1 (D13), Ben marks column 5's 11 + 10 + 12 = 33 points (D19), Cy the items ``cy``
    ((shelf, column) pairs, 0-based; by default one item, 0 points) and Di one item (0 points);
    round 2 Ann gives up shelf 2, her second closed shelf: the end is triggered (D17) and the
    round is played out (D18). Ann's score, 0, is final (her last turn is played) and below Ben's
    33, which can only rise (D13, D15 and D19 never take a point away): Ann can no longer win
    (D20), whoever plays next."""
    from shelfie_solver.dice.game.events import UncheckedMark

    board, rules = load_board(None, DEFAULT_RULES), DEFAULT_RULES
    kept = start_kept_game(board, rules, ("Ann", "Ben", "Cy", "Di"), 0)

    def shelf(s: int) -> tuple[int, ...]:
        return tuple(board.cell(s, c) for c in range(board.n_columns))

    kept = act(kept, (Fail(0, 0, shelf(0)),))
    kept = act(kept, (UncheckedMark(1, (board.cell(0, 4), board.cell(1, 4), board.cell(2, 4))),))
    kept = act(kept, (UncheckedMark(2, tuple(board.cell(r, c) for r, c in cy)),))
    kept = act(kept, (UncheckedMark(3, (board.cell(1, 0),)),))
    kept = act(kept, (Fail(0, 1, shelf(1)),))
    assert kept.active == 1 and kept.over is None and kept.state.end_triggered
    return kept, board


def test_a_seat_that_can_no_longer_win_shows_an_exact_zero_at_every_turn_start_after():
    # D18, D20, four players: Ann's final 0 below Ben's 33 is an exact 0 right after her turn (her
    # own value, win_chance.settled_bounds: another seat's score now) and stays one at Cy's and
    # Di's turn starts (chances.share_the_rest: a lost seat has no share of the joint model's; it
    # had a positive model share there before); the seats add up to 1. Here Cy and Di cannot pass
    # Ben in their one last turn each (D18), so Ben's is an exact 1 and every other an exact 0
    from shelfie_solver.dice.allocate import legal_markings
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.game.events import UncheckedMark
    from shelfie_solver.dice.play.report import status_report
    from shelfie_solver.dice.rolls import space_for

    kept, board = _four_players_last_round()

    def one_turn_reach(seat: int) -> int:  # brute force over every final roll's legal markings
        marks = kept.state.sheets[seat]
        return max([score(board, marks, DEFAULT_RULES)] + [
            score(board, marks.with_marked(m.cells), DEFAULT_RULES)
            for roll in space_for(DEFAULT_RULES).rolls for m in legal_markings(roll, board, marks, DEFAULT_RULES)])

    # Cy and Di have one turn each left (D18) and no turn of theirs reaches Ben's 33: Ben wins alone
    # from his turn's start (win_chance.settled_bounds: the later seats' one-turn reach)
    assert max(one_turn_reach(2), one_turn_reach(3)) < 33
    seen = [table_chances(kept)]
    kept = act(kept, (UncheckedMark(1, (board.cell(3, 4),)),))  # Ben: 33 + 9 for column 5's 4th item
    seen.append(table_chances(kept))
    assert kept.active == 2
    for chances in seen:
        assert chances == [(Fraction(0), True), (Fraction(1), True), (Fraction(0), True), (Fraction(0), True)]
    cells = [row[-1] for row in status_report(kept).rows]
    assert cells == ["0% (exact)", "100% (exact)", "0% (exact)", "0% (exact)"]
    # Cy's last turn ends with 0 points (no line of 3), below Ben's 44 (lost too); Di, last to
    # play, cannot reach 44 in one turn (brute force over every final roll's legal markings,
    # D8-D12, D19): every seat but Ben is an exact 0, so Ben's is an exact 1 (they add up to 1)
    kept = act(kept, (UncheckedMark(2, (board.cell(1, 1),)),))
    assert kept.active == 3 and kept.over is None
    di = kept.state.sheets[3]
    reach = max(score(board, di.with_marked(m.cells), DEFAULT_RULES)
                for roll in space_for(DEFAULT_RULES).rolls for m in legal_markings(roll, board, di, DEFAULT_RULES))
    assert reach < 44 == score(board, kept.state.sheets[1], DEFAULT_RULES)
    assert table_chances(kept) == [(Fraction(0), True), (Fraction(1), True), (Fraction(0), True), (Fraction(0), True)]
    cells = [row[-1] for row in status_report(kept).rows]
    assert cells == ["0% (exact)", "100% (exact)", "0% (exact)", "0% (exact)"]


def test_a_seat_whose_last_turn_cannot_pass_a_score_now_is_an_exact_zero_while_two_contend():
    # D15, D18-D20, four players: Ann gives up shelves 1 and 2 (the end, D17, her final 0), Ben
    # ends on 33 + (r4c2) points, Cy (20: column 4's 7 + 6 + 7) is about to roll her last turn and
    # can pass him, Di (one item, 0 points) plays last and cannot reach 33 in one turn (brute force
    # over every final roll's legal markings): Di's chance is exactly 0 beside Ben and Cy, who
    # still contend (model figures adding up to 1; win_chance.lost_seats: a seat with one turn
    # left; it read 3.9% (model) before)
    from shelfie_solver.dice.allocate import legal_markings
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.game.events import UncheckedMark
    from shelfie_solver.dice.play.report import status_report
    from shelfie_solver.dice.rolls import space_for

    kept, board = _four_players_last_round(cy=((0, 3), (1, 3), (2, 3)))
    rules = DEFAULT_RULES
    kept = act(kept, (UncheckedMark(1, (board.cell(3, 1),)),))
    assert kept.active == 2 and kept.state.end_triggered

    def one_turn_reach(seat: int) -> int:
        marks = kept.state.sheets[seat]
        return max([score(board, marks, rules)] + [score(board, marks.with_marked(m.cells), rules)
                                                   for roll in space_for(rules).rolls
                                                   for m in legal_markings(roll, board, marks, rules)])

    ben = score(board, kept.state.sheets[1], rules)
    assert one_turn_reach(3) < ben < one_turn_reach(2)
    chances = table_chances(kept)
    assert chances[0] == (Fraction(0), True) and chances[3] == (Fraction(0), True)
    # Ben and Cy are the two contenders left, Cy plays next (D18): Ben's chance is 1 minus Cy's
    # exact last-turn chance against his final score (win_chance.two_contender_chances; the
    # model's figures before), as the exact fraction (not its millionths: test_exact_fractions.py)
    from shelfie_solver.dice.win_chance import opponent_chance

    ben_chance = 1 - opponent_chance(board, rules, kept.state.sheets[2], (ben,))
    assert chances[1] == (ben_chance, True)
    assert chances[2][1] and 0 < chances[2][0] < 1
    assert sum(c for c, _ in chances) == 1
    cells = [row[-1] for row in status_report(kept).rows]
    assert cells[0] == cells[3] == "0% (exact)"


def test_the_mover_s_model_chance_leaves_out_a_seat_that_can_no_longer_win():
    # D18-D20: at Ben's turn Ann (final 0, below Ben's 33) and Di (one turn left that cannot reach
    # 33) can no longer win, so Ben's model chance after each marking is the joint model's softmax
    # over Ben and Cy alone: his all-seat share over the share the two of them hold
    # (win_model.without_lost), within the one-millionth
    # roundings; the numpy and the compiled paths give the same integers
    from dataclasses import replace

    from shelfie_solver.dice.learned.win_model import (
        CHANCE_SCALE,
        all_chances,
        board_scale,
        compiled_win_values,
        design,
        lost_columns,
        win_objective,
    )
    from shelfie_solver.dice.objectives import StateArrays

    kept, board = _four_players_last_round()
    # Cy given Ben's sheet (33 points): its one last turn (D18) can pass most of Ben's final
    # scores, so they stay the model's (win_chance.settled_bounds: the later seats' one-turn reach)
    state = replace(kept.state, sheets=kept.state.sheets[:2] + (kept.state.sheets[1], kept.state.sheets[3]))
    # Ann (final 0) and Di, whose one last turn cannot reach Cy's 33 (brute force), can no longer
    # win: the first and third of Ben's opponents in seat order
    from shelfie_solver.dice.allocate import legal_markings
    from shelfie_solver.dice.board import score
    from shelfie_solver.dice.rolls import space_for

    di = state.sheets[3]
    assert max(score(board, di.with_marked(m.cells), DEFAULT_RULES) for roll in space_for(DEFAULT_RULES).rolls
               for m in legal_markings(roll, board, di, DEFAULT_RULES)) < 33
    assert lost_columns(state) == (1, 3)
    masked = win_objective(state)
    arrays = StateArrays(board, state.rules, state.marks)
    sets = item_sets(board, state.rules.combinations_per_turn)
    usable = np.flatnonzero(np.append(arrays.available, True)[sets.cells].all(axis=1))
    chosen = sets.take(usable)
    values = masked.values(arrays, chosen)
    exact = masked.exact_markings(arrays, chosen)
    m, a, mp, ap = arrays.line_totals
    after = (m + chosen.line_count, a - chosen.line_count, mp + chosen.line_points, ap - chosen.line_points)
    phase, seats = masked.seat_columns(arrays, *after)
    every = all_chances(masked.calibration, phase, design(phase, seats, masked.round_number, board_scale(board),
                                                          to_play=masked.to_play), masked.round_number, masked.trees)
    live = every[:, [0, 2]].sum(axis=1)
    expected = every[:, 0] * CHANCE_SCALE / live
    # every marking ends Ben's game (D18) with Ben and Cy the two contenders left, Cy next: exact
    # (win_chance.two_contender_chances), or settled below Cy's 33 or above its reach; the model's
    # own chance, the softmax without the lost seats, is what this test checks (chance_of)
    assert exact.all()
    model = masked.chance_of(arrays, *after)
    # where Ben's final score passes Cy's one-turn reach Cy is out too (win_chance.lost_at): those
    # rows are Ben's alone (settled at 1 above); the others are the share among Ben and Cy
    from shelfie_solver.dice.win_chance import best_score_range

    cy_out = seats[:, 0, 1] > best_score_range(board, DEFAULT_RULES, state.sheets[2])[1]
    assert cy_out.any() and (~cy_out).sum() > 100
    assert np.abs(model - expected)[~cy_out].max() <= 3  # three roundings of one millionth
    assert (model[cy_out] == CHANCE_SCALE - 1).all()
    unmasked = replace(masked, lost=np.zeros((0, 2), dtype=np.int64)).chance_of(arrays, *after)
    assert (model > unmasked).any() and (model >= unmasked).all()
    found = compiled_win_values(state)
    if found is not None:
        worth = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
        worth[usable] = values
        assert np.array_equal(found[0][usable], worth[usable])
