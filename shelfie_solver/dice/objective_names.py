"""The objectives by name, as typed after ``--objective``: the registry above every objective.

The base objectives live in :mod:`objectives`, the game-aware ``learned`` one in
:mod:`learned.objective` and the exact ``table:FILE`` one in :mod:`wholegame.values`; this
module maps a name to one of them (docs/objectives.md), loading the last two only when they are
named (start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shelfie_solver.core.errors import close_word, shorten
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.errors import ObjectiveError
from shelfie_solver.dice.objectives import CellTarget, MarkCount, Objective, Points, Safe, Strategic, Tie

if TYPE_CHECKING:
    from shelfie_solver.dice.game.events import GameState
    from shelfie_solver.dice.rules import Ruleset

OBJECTIVE_NAMES = ("strategic", "learned", "learned:FILE", "win", "win-model", "points", "marks", "safe",
                   "cell:rXcY", "table:FILE", "exact2:FILE")


#: The objective names that see the whole table (:func:`sees_the_table`, :func:`is_two_player`):
#: the ones ``advise --opponent`` takes, as its help and its refusal name them.
TABLE_OBJECTIVE_NAMES = ("win", "win-model", "learned", "learned:FILE", "exact2:FILE")


def is_learned(name: str) -> bool:
    """Whether an objective or strategy name is ``learned`` or ``learned:FILE`` (any case), the
    objective that sees the whole table when it is given one (:func:`learned.objective.named_objective`)."""
    word = name.strip().lower()
    return word == "learned" or word.startswith("learned:")


def sees_the_table(name: str) -> bool:
    """Whether an objective name sees the whole table when given a game: ``learned``,
    ``learned:FILE`` (:func:`is_learned`) or ``win`` (the chance to win, :mod:`learned.win_model`)."""
    return is_learned(name) or name.strip().lower() in ("win", "win-model")


#: The objective names without a part after ``:`` (:func:`is_named`).
_PLAIN_NAMES = ("strategic", "learned", "win", "win-model", "points", "marks", "safe")
#: The prefixes of the objective names with a part after them (``learned:FILE``, ``cell:rXcY``...).
_PREFIXES = ("learned:", "cell:", "table:", "exact2:")


def is_named(name: str) -> bool:
    """Whether ``name`` is of one of the forms of :data:`OBJECTIVE_NAMES` (any case; the part
    after ``:`` not checked), so that a misspelling is refused as an unknown objective
    (:func:`unknown_objective`) before anything asks what it sees."""
    word = name.strip().lower()
    return word in _PLAIN_NAMES or word.startswith(_PREFIXES)


def unknown_objective(text: str) -> ObjectiveError:
    """The one-line refusal of a name that is no objective (:func:`parse_objective`)."""
    word = text.strip().lower()
    close = close_word(word, _PLAIN_NAMES)
    if close is None and ":" in word:  # 'cel:r1c1': the prefix mistyped, the part after it as given
        head, tail = text.strip().split(":", 1)
        prefix = close_word(head + ":", _PREFIXES)
        close = prefix + tail if prefix is not None else None
    hint = f" (did you mean {close!r}?)" if close and word.isascii() else ""
    return ObjectiveError(f"unknown objective {shorten(text)}{hint}; expected one of {', '.join(OBJECTIVE_NAMES)}")


def is_two_player(name: str) -> bool:
    """Whether an objective name is ``exact2:FILE``, a two-player table's chance to win, which sees
    the whole table of a two-player game (:func:`wholegame.two_player_table.two_player_objective`)."""
    return name.strip().lower().startswith("exact2:")


def solitaire_exact(word: str, board: Board, rules: Ruleset | None, state: GameState | None) -> Objective | None:
    """The objective ``exact optimum`` (:func:`wholegame.exact_cache.exact_objective`) that
    ``learned``, ``win`` and ``win-model`` (the shipped parameters, not ``learned:FILE``) become
    alone (``state`` of one player, or no state but the ``rules``) on a board whose solitaire
    game fits the exact budget; ``None`` otherwise (they stay ``learned``)."""
    if word not in ("learned", "win", "win-model") or (state is not None and state.players != 1):
        return None
    given = state.rules if state is not None else rules
    if given is None:
        return None
    from shelfie_solver.dice.wholegame.exact_cache import exact_objective

    return exact_objective(board, given)


def own_alone(word: str, board: Board, rules: Ruleset | None, state: GameState | None) -> Objective | None:
    """The objective ``learned`` (the shipped parameters, not ``learned:FILE``) alone (``state`` of
    one player, or no state but the ``rules``) on a board that gets its own table
    (:func:`learned.own_cache.own_model`, fitted on first use: docs/solve-game.md "Exact where it
    fits"); ``None`` otherwise (the shipped tables).

    Raises:
        OwnTableSettingError: a bad ``$SHELFIE_SOLVE_OWN_TABLE``.
    """
    if word != "learned" or (state is not None and state.players != 1):
        return None
    given = state.rules if state is not None else rules
    if given is None:
        return None
    from shelfie_solver.dice.learned.objective import solitaire_objective, state_objective
    from shelfie_solver.dice.learned.own_cache import own_model

    model = own_model(board, given)
    if model is None:
        return None
    return solitaire_objective(board, model) if state is None else state_objective(state, model)


def own_table_line(objective: str, board: Board, rules: Ruleset, state: GameState | None = None,
                   verb: str = "plays") -> str | None:
    """The note of :func:`learned.own_cache.own_table_note` where ``objective`` plays ``board``'s
    own table, as :func:`parse_objective` decides it: ``learned`` alone (no ``state``, or one of
    one player), or ``win`` and ``win-model`` in a game of one player (where they are ``learned``,
    as the advice's title names them: the note does too); ``None`` otherwise (the name is kept:
    ``learned``, not renamed). The table is fitted here on
    first use, so call it where the objective is used anyway (``advise``, ``play``, ``serve``).

    Raises:
        OwnTableSettingError: a bad ``$SHELFIE_SOLVE_OWN_TABLE``.
    """
    word = objective.strip().lower()
    alone = state is None or state.players == 1
    if not alone or not (word == "learned" or (state is not None and word in ("win", "win-model"))):
        return None
    from shelfie_solver.dice.learned.own_cache import own_table_note

    return own_table_note(board, rules, "learned", verb)  # win alone is learned: the advice's title names it so


def two_player_exact(word: str, state: GameState | None) -> Objective | None:
    """The objective ``exact two-player optimum`` (:func:`wholegame.exact2_cache.exact2_objective`)
    that ``win`` and ``win-model`` become in a two-player game on a board whose two-player game
    fits the exact budget (docs/solve-game.md "Exact where it fits"): the table's chance to win
    after every marking, at every turn; ``None`` otherwise (they stay on the model)."""
    if word not in ("win", "win-model") or state is None or state.players != 2:
        return None
    from shelfie_solver.dice.wholegame.exact2_cache import exact2_objective

    return exact2_objective(state)


def _solve_interrupted(board: Board, rules: Ruleset) -> bool:
    """Whether this process's exact solve of the board was interrupted (``win`` alone then falls
    back to ``learned``, as :data:`wholegame.exact_cache.INTERRUPTED_LINE` says)."""
    from shelfie_solver.dice.wholegame.exact_cache import interrupted

    return interrupted(board, rules)


def parse_objective(text: str, board: Board, state: GameState | None = None,
                    rules: Ruleset | None = None) -> Objective:
    """An objective from its name: ``strategic``, ``learned``, ``learned:FILE`` (parameters written by
    ``train``), ``points``, ``marks``, ``safe``, ``cell:r2c4``, ``table:FILE`` (an exact solitaire
    value table, :class:`wholegame.values.TableObjective`) or ``exact2:FILE`` (a two-player table's
    chance to win, given a two-player ``state``).

    ``state`` (a game in progress) is read by ``learned`` alone, which then sees the whole game
    (:func:`learned.objective.state_objective`); without it ``learned`` is the no-context form. Every other
    objective looks at the active sheet only.

    Alone (a one-player ``state``, or no state and the ``rules`` given), ``learned``, ``win`` and
    ``win-model`` are the exact optimum on a board whose solitaire game fits the exact budget
    (:func:`solitaire_exact`, docs/solve-game.md "Exact where it fits"); when that solve was
    interrupted in this process, ``win`` and ``win-model`` alone are ``learned`` (without
    opponents they are refused otherwise). In a two-player game, ``win`` and ``win-model`` are
    the exact two-player optimum on a board whose two-player game fits its budget
    (:func:`two_player_exact`); interrupted, the model.

    Raises:
        ObjectiveError: unknown name or an item not on the board. ModelError: a bad parameter file.
    """
    word = text.strip().lower()
    simple: dict[str, Objective] = {"strategic": Strategic(), "points": Points(), "marks": MarkCount(),
                                    "safe": Safe()}
    if word in simple:
        return simple[word]
    exact = solitaire_exact(word, board, rules, state) or two_player_exact(word, state)
    if exact is not None:
        return exact
    if is_learned(word):  # learned:FILE = train's output
        from shelfie_solver.dice.learned.objective import named_objective  # its parameters load only when asked for

        return own_alone(word, board, rules, state) or named_objective(text, board, state)
    if word in ("win", "win-model"):  # the chance to win: needs opponents; alone, learned's expected final score
        if state is not None and state.players == 1:  # as the win strategy alone: learned, its own table too
            from shelfie_solver.dice.learned.objective import named_objective

            return own_alone("learned", board, rules, state) or named_objective("learned", board, state)
        if state is None and rules is not None and _solve_interrupted(board, rules):  # alone: as INTERRUPTED_LINE says
            from shelfie_solver.dice.learned.objective import named_objective

            return named_objective("learned", board, None)
        if state is None:
            raise ObjectiveError(f"objective {word} is the chance to win against opponents; give their sheets with "
                                 "--opponent STATE (advise) or play a game of 2-4 players (play)")
        from shelfie_solver.dice.learned.win_model import MODEL_PLAYERS, win_objective

        if word == "win" and state.players not in MODEL_PLAYERS:  # the model plays worse there (measured)
            from dataclasses import replace

            from shelfie_solver.dice.learned.objective import named_objective

            return replace(named_objective("learned", board, state), name="win")
        return win_objective(state, name=word)
    if word.startswith("cell:"):
        try:
            return CellTarget(board.parse_cell(word[5:]))
        except ValueError as error:
            raise ObjectiveError(f"objective {shorten(text)}: {error}") from None
    if is_two_player(word):
        from shelfie_solver.dice.wholegame.two_player_table import two_player_objective

        return two_player_objective(text, state)
    if word.startswith("table:"):
        from shelfie_solver.dice.wholegame.values import table_objective

        return table_objective(text.strip()[6:], board)
    raise unknown_objective(text)


def advice_objective(name: str, state: GameState) -> Objective:
    """The objective that advice in a game (``play``, ``advise --opponent``) maximises and every
    seat's chance comes from (:mod:`play.chances`): ``win`` and ``win-model`` in a two-player game
    on a board that fits, the exact two-player table (:func:`two_player_exact`) at every turn; else
    for ``win``, ``learned`` or ``learned:FILE`` the exact chance to win where
    :func:`win_chance.exact_objective` applies (for ``win`` and ``win-model`` also a last turn decided
    whatever the player does: :func:`win_chance.decided_objective`), else the objective ``name`` of the state
    (:func:`objective_names.parse_objective`). On a board whose item values are all 0 the chance
    objectives (``win``, ``win-model``, ``exact2:FILE``) give :class:`objectives.Tie`: every game a
    tie (D19, D20), every seat's chance exactly 1/n.

    Raises:
        ObjectiveError: an unknown name. ModelError: a bad ``learned:FILE``.
    """
    from dataclasses import replace

    from shelfie_solver.dice.win_chance import decided_objective, exact_objective

    chosen = parse_objective(name, state.board, state)  # a bad name is refused on every turn
    chance = name.strip().lower() in ("win", "win-model") or is_two_player(name)
    if chance and state.players >= 2 and not any(any(row) for row in state.board.values):
        return Tie(chosen.name, state.players)  # every game a tie (D19, D20): exactly 1/n each
    if getattr(chosen, "whole_game", False):  # the two-player table: exact at every turn, its own figures
        return chosen
    if sees_the_table(name):
        exact = exact_objective(state)
        if exact is None and chance:  # a last turn decided whatever the player does (0 or 1)
            exact = decided_objective(state)
        if exact is not None:
            return replace(exact, name=chosen.name, base=chosen)  # reports name what was asked for
    return chosen
