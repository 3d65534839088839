"""A marking whose own blocks (D15) put SOME opponents out of the game (three or more players) leaves
them out of the joint model at that marking, as ``play status`` leaves them out right after it is
recorded (D17-D20; ``win_model.blocks_lost``, ``win_chance.lost_after_blocks``, numpy and compiled
paths alike). Before, only the reaches of the turn's start counted at the marking
(``win_chance.lost_bounds``), so the mover's figure was its share among every seat, the seat put
out included, while status at the next turn's start showed that seat at an exact 0 and the rest
shared among the others: one position, two figures.

Hand-worked on small-3x4 (shelves: game 2 1 3 5, award 1 3 2 6, cat 3 2 4 5; column ``c`` needs
``c`` dice, D3; a line scores from 3 marked items, D19), three players Ann, Ben, Cy in that order
(Ann first, D5), the end not triggered:

* Ann ``ox../oxxx/ox..``: column 1 2 + 1 + 3 = 6. Her ceiling (every available item marked):
  shelf 1 2 + 3 + 5 = 10, shelf 3 3 + 4 + 5 = 12, column 1 6 (columns 3 and 4 two items at most):
  28.
* Ben ``xx../xo../xxo.``: 0 points. With GGAAAJ he may mark r1c3 (3 game dice: GG and the
  Joker) and r2c3 (AAA): column 3 complete, 3 + 2 + 4 = 9 (shelf 2 two items: 0).
* Cy ``xo../xo../xo..``: column 2 1 + 3 + 2 = 6.

Ben's column 3 blocks Ann's r1c3 and r3c3 (D15): her ceiling falls to column 1's 6 (shelves 1
and 3 and column 4 two items at most), below Ben's 9: she can no longer win (D20). Cy's r1c3,
r2c3, r3c3 go too: column 2's 6 + column 4's 5 + 6 + 5 = 22, above 9: she can. Before the block
Ann's 28 was above 9, so the turn-start rule kept her in: the advice showed 55.3% (model) for
the marking, its share among all three seats, status right after it Ann 0% (exact) and Cy the
rest.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np
from conftest import EXAMPLES, joint_chances, mover_terminals

from shelfie_solver.dice.advise.advice import rank_markings
from shelfie_solver.dice.allocate import legal_markings
from shelfie_solver.dice.board import Board, Marks, highest_score, item_sets, load_board, parse_marks, score
from shelfie_solver.dice.game.events import GameState, Mark, Start, UncheckedMark
from shelfie_solver.dice.game.turn import play_seeded
from shelfie_solver.dice.learned.win_model import CHANCE_SCALE, compiled_win_values, win_objective
from shelfie_solver.dice.objectives import StateArrays
from shelfie_solver.dice.play.gamefile import KeptGame, act, split_actions, start_kept_game
from shelfie_solver.dice.play.report import table_chances
from shelfie_solver.dice.rolls import parse_dice, space_for
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.strategies import strategy_named

RULES = DEFAULT_RULES
SMALL = load_board(EXAMPLES / "boards" / "small-3x4.toml", RULES)
ANN, BEN, CY = ("ox../oxxx/ox..", "xx../xo../xxo.", "xo../xo../xo..")
COLUMN_3 = (SMALL.cell(0, 2), SMALL.cell(1, 2))  # Ben's r1c3 and r2c3


def ben_to_play() -> KeptGame:
    """Ann, Ben, Cy as the docstring has them, Ben to play: Ann's first turn marks her r1c1 (it
    completes her column 1, whose items on the other sheets are all eliminated: nothing blocked)."""
    texts = (".x../oxxx/ox..", BEN, CY)
    sheets = tuple(parse_marks(t, SMALL) for t in texts)
    kept = KeptGame(SMALL, RULES, ("Ann", "Ben", "Cy"), (Start(3, 0, texts),),
                    GameState(SMALL, RULES, sheets, 0, 0, 0, False))
    kept = act(kept, (UncheckedMark(0, (SMALL.cell(0, 0),)),))
    assert kept.active == 1 and kept.state.sheets == tuple(parse_marks(t, SMALL) for t in (ANN, BEN, CY))
    return kept


def test_the_hand_worked_scores_and_ceilings() -> None:
    ann, ben, cy = (parse_marks(t, SMALL) for t in (ANN, BEN, CY))
    assert [score(SMALL, m, RULES) for m in (ann, ben, cy)] == [6, 0, 6]
    assert score(SMALL, ben.with_marked(COLUMN_3), RULES) == 9
    assert highest_score(SMALL, ann, RULES) == 28
    assert highest_score(SMALL, parse_marks("oxx./oxxx/oxx.", SMALL), RULES) == 6  # Ann after the block
    assert highest_score(SMALL, parse_marks("xox./xox./xox.", SMALL), RULES) == 22  # Cy after the block


def test_the_marking_leaves_the_seat_it_puts_out_out_of_the_joint_model() -> None:
    state = ben_to_play().state
    objective = win_objective(state)
    options = rank_markings(parse_dice("GGAAAJ", RULES), SMALL, state.marks, RULES, objective)
    chosen = {o.marking.cells: o for o in options}
    assert COLUMN_3 in chosen and (SMALL.cell(1, 3),) in chosen  # r2c4 (AAA and the Joker): no line complete
    sets, usable, terminals, arrays, final, over = mover_terminals(SMALL, RULES, state)
    every = joint_chances(objective, arrays, terminals, SMALL)  # columns: Ben, Ann, Cy
    values = objective.values(arrays, terminals)
    rows = {tuple(c for c in row if c >= 0): i for i, row in enumerate(terminals.cells.tolist())}
    i, j = rows[COLUMN_3], rows[(SMALL.cell(1, 3),)]
    assert (final[i], over[i]) == (9, False)
    # Ann out: Ben's share among Ben and Cy (the softmax renormalised, within its rounding)
    among_two = every[i, 0] * CHANCE_SCALE / (every[i, 0] + every[i, 2])
    assert abs(values[i] - among_two) <= 3
    assert abs(values[i] - every[i, 0]) > 100_000  # all three counted: 55.3% before, 67.7% now
    assert chosen[COLUMN_3].value == Fraction(int(values[i]), CHANCE_SCALE) and not chosen[COLUMN_3].exact
    # r2c4 completes no line: nobody out, every seat counted
    assert abs(values[j] - every[j, 0]) <= 3
    # numpy == compiled, every usable item set and every shelf
    worth = np.zeros(len(sets.sizes) + 1, dtype=np.int64)
    worth[usable] = values
    for found in (objective.compiled_turn_values(arrays), compiled_win_values(state)):
        if found is not None:
            assert np.array_equal(found[0][usable], worth[usable])
            assert found[2] == objective.shelf_values(arrays)


def test_play_status_right_after_shows_the_same_figure_and_the_seat_out_at_an_exact_zero() -> None:
    kept = ben_to_play()
    state = kept.state
    objective = win_objective(state)
    option = next(o for o in rank_markings(parse_dice("GGAAAJ", RULES), SMALL, state.marks, RULES, objective)
                  if o.marking.cells == COLUMN_3)
    after = act(kept, (UncheckedMark(1, COLUMN_3),))
    assert after.active == 2 and after.state.sheets[0] == parse_marks("oxx./oxxx/oxx.", SMALL)  # the block (D15)
    chances = table_chances(after)  # play status at Cy's turn start
    assert chances[0] == (Fraction(0), True)
    assert chances[1] == (option.value, False)
    assert chances[2] == (1 - option.value, False)


def _ceiling(board: Board, marks: Marks) -> int:
    """The score with every available item marked (D19), by the board's own scoring."""
    everything = marks.marked | ~(marks.marked | marks.eliminated) & ((1 << marks.n_cells) - 1)
    return score(board, Marks(marks.n_shelves, marks.n_columns, everything, 0), RULES)


@lru_cache(maxsize=None)
def _one_turn(board: Board, marks: Marks) -> int:
    """The best score one turn can leave ``marks`` (D8-D14): every final roll's every legal marking,
    or the score as it is (a failed result, D13)."""
    return max([score(board, marks, RULES)] + [score(board, marks.with_marked(m.cells), RULES)
                                               for roll in space_for(RULES).rolls
                                               for m in legal_markings(roll, board, marks, RULES)])


def _out(state: GameState, mover: int) -> set[int]:
    """The seats but ``mover`` that can no longer win at ``state`` (D17, D18, D20), by brute force:
    the best score each can still end on (once the end is triggered its score if it has played
    its last turn or has nothing available, else the best of its one turn left; before, its
    ceiling) below another seat's score now (scores never fall)."""
    now = [score(state.board, sheet, RULES) for sheet in state.sheets]
    out = set()
    for j, sheet in enumerate(state.sheets):
        if j == mover:
            continue
        if state.end_triggered:
            final = not sheet.has_available or (j != state.active and not state.plays_later_this_round(j))
            reach = now[j] if final else _one_turn(state.board, sheet)
        else:
            reach = _ceiling(state.board, sheet)
        if any(s > reach for k, s in enumerate(now) if k != j):
            out.add(j)
    return out


def test_sweep_the_advice_figure_of_each_marking_is_the_share_status_counts() -> None:
    # seeded random play (3 and 4 players, tiny and small boards): at every marking whose value is
    # the model's, that value is the mover's joint-model share among the seats that can still win
    # right after it (brute force, as status finds them at the next turn's start), within the
    # softmax's rounding; where its own blocks put a seat out that was in at the turn's start,
    # status shows that seat at an exact 0 and the mover at the advice's figure
    positions = fired = 0
    for name, players in (("tiny-2x3", 3), ("tiny-3x2", 4), ("small-3x4", 3), ("small-3x4", 4)):
        board = load_board(EXAMPLES / "boards" / f"{name}.toml", RULES)
        sets = item_sets(board, RULES.combinations_per_turn)
        for seed in range(20):
            game = play_seeded(board, RULES, [strategy_named("random")] * players, 18700 + seed)
            kept = start_kept_game(board, RULES, tuple("ABCD"[:players]), game.events[0].first)
            for _, action in split_actions(game.events):
                before, kept = kept, act(kept, action)
                mark = action[0]
                if not isinstance(mark, Mark) or kept.over is not None:
                    continue
                state, me = before.state, before.state.active
                objective = win_objective(state)
                arrays = StateArrays(board, RULES, state.marks)
                row = np.array(tuple(sorted(mark.cells)) + (-1,) * (sets.cells.shape[1] - len(mark.cells)))
                index = np.flatnonzero((sets.cells == row).all(axis=1))
                one = sets.take(index)
                value = int(objective.values(arrays, one)[0])
                compiled = compiled_win_values(state)
                if compiled is not None:
                    assert compiled[0][index[0]] == value
                if objective.exact_markings(arrays, one)[0]:
                    continue
                positions += 1
                out, out_at_start = _out(kept.state, me), _out(state, me)
                every = joint_chances(objective, arrays, one, board)[0]
                live = [1 + i for i, j in enumerate(k for k in range(players) if k != me) if j not in out]
                assert abs(value - every[0] * CHANCE_SCALE / (every[0] + every[live].sum())) <= 3
                if out - out_at_start:
                    fired += 1
                    chances = table_chances(kept)
                    assert all(chances[j] == (Fraction(0), True) for j in out)
                    assert chances[me][0] == Fraction(value, CHANCE_SCALE)
    assert positions >= 300 and fired >= 5
