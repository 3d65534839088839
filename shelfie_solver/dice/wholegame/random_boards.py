"""Seeded random small boards: the training family of the solitaire weights (docs/train.md).

A board of the family has 2-5 shelves and 2-4 columns (D3) and at most :data:`MAX_STATES`
non-terminal solitaire states (:func:`solver.state_count`, so ``solve-game`` solves it in
minutes). Each column needs a different number of dice, 1 to 5, drawn without replacement and
put in increasing order like the example boards; each shelf shows one item face, drawn without
replacement from the ruleset's item faces; an item in a column needing ``n`` dice is worth a
whole number drawn uniformly from :data:`VALUE_RANGES` ``[n]``, the range the example boards
(``examples/boards/*.toml``) use for such columns.

The boards docs/strategies.md and docs/train.md measure on (``examples/boards/small.toml``,
``small-3x4.toml``, ``small-4x3.toml``, ``small-5x3.toml``, :data:`HELD_OUT`) are never drawn, up to relabelling:
a board equal to one of them after reordering shelves and columns and renaming faces (every
item face is alike on the dice, D2) is drawn again, and so is a board equal to an earlier one.
So weights fitted to the family are measured on those boards held out of the fit.

The **hard family** (:func:`hard_boards`, ``train --solitaire-hard``) adds boards whose columns
need many dice: 2-5 shelves x 2-5 columns with at most :data:`HARD_MAX_STATES` non-terminal
states (so 2 x 5, 3 x 5 and 5 x 3 too, solved with the float solver), drawn like the family's but
with at least one column needing 4 or 5 dice (:data:`HARD_NEEDS`, drawn again otherwise), and never
a :data:`HELD_OUT` board nor one of the boards given to exclude, up to relabelling.

The **large family** (:func:`large_boards`, ``train --solitaire-large``): 4 x 5 and 5 x 4 boards
drawn the same way (about 4.7-4.8 million states each, solved with the float solver in minutes),
for the boards beyond the other families' sizes (the default 5 x 5 board among them).

The **spread family** (:func:`spread_boards`, ``train --solitaire-spread``): boards drawn like
the held-out families of ``benchmarks/learned_vs_optimum.py --family`` (:func:`spread_board`):
column needs drawn *with* repetition (a 5 x 4 board may need 3, 1, 3, 3 dice), half of the boards
with a column needing 4 or 5 dice and the other half none, one item face per shelf; of the shapes
nearest the exact budget that solve in seconds (:data:`SPREAD_SHAPES`: 4 x 4, 3 x 5, 5 x 3) and
of the shapes over it (:data:`LARGE_SHAPES`, sampled states). The other families draw needs
without repetition, so a board with three columns of one kind was never in a fit.

The **heavy family** (:func:`heavy_boards`, ``train --solitaire-heavy``): boards of the spread
family's shapes whose needs, drawn with repetition, are heavy (:func:`is_heavy`: 3 dice a column or
more on average, two or more columns of 4-5 dice), the boards on which the other families' tables
lost most (docs/strategies.md, "Boards of heavy needs").

The **threes family** (:func:`threes_boards`, ``train --solitaire-threes``): boards of the spread
family's shapes whose needs, drawn with repetition, repeat 3s beside 4-5s (:func:`is_threes`: no
column under 3 dice, a quarter or more but under half of the columns of 4-5 dice), the boards that
neither the many-dice nor the heavy table held (docs/strategies.md, "A table for repeated 3s").

The **light-five family** (:func:`light_five_boards`, ``train --solitaire-light-five``): boards of
the spread family's shapes whose needs, drawn with repetition, put a 5 beside 1s
(:func:`is_light_five`: exactly one column needing 5 dice, no other 4-5, two or more needing 1),
the kind of board on which the many-dice table lost most in markings (docs/strategies.md, "Two 5s
beside 3s", its lead).

Randomness: board ``i`` is drawn from its own child ``i`` of the ``SeedSequence`` given, so the
boards depend on the seed only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import permutations

import numpy as np

from shelfie_solver.dice.board import Board
from shelfie_solver.dice.rules import Ruleset

#: Shelves and columns of the family.
SHELVES = (2, 3, 4, 5)
COLUMNS = (2, 3, 4)
#: The most non-terminal solitaire states a board of the family has (a 3 x 4 board has 14,175).
MAX_STATES = 15_000
#: Dice per column drawn from 1..5 (the default board's range, D3).
MAX_NEED = 5
#: Item values (points, inclusive) of a column needing ``n`` dice, from the example boards:
#: the small boards (1-3 for 1 and 2 dice, 2-4 for 3, 5-6 for 4) and the default 5 x 5 board
#: (1-2, 2-3, 3-5, 6-8, 9-12).
VALUE_RANGES = {1: (1, 3), 2: (1, 3), 3: (2, 5), 4: (4, 8), 5: (8, 12)}
#: The layouts (dice per column, values per shelf) of the boards docs/train.md measures on:
#: examples/boards/small.toml, small-3x4.toml, small-4x3.toml and small-5x3.toml.
HELD_OUT: tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...] = (
    ((1, 2, 3), ((2, 1, 3), (1, 3, 2), (3, 2, 4))),
    ((1, 2, 3, 4), ((2, 1, 3, 5), (1, 3, 2, 6), (3, 2, 4, 5))),
    ((1, 2, 3), ((2, 1, 3), (1, 3, 2), (3, 2, 4), (2, 2, 3))),
    ((1, 2, 3), ((2, 1, 3), (1, 3, 2), (3, 2, 4), (2, 2, 3), (3, 1, 2))),
    # examples/boards/held-out-*.toml (docs/strategies.md, "`learned` against the optimum on
    # boards of every shape"): 2 x 5, 3 x 4, 4 x 3, 5 x 3, 4 x 5 and 5 x 4
    ((1, 2, 3, 4, 5), ((1, 3, 4, 6, 10), (2, 2, 5, 7, 11))),
    ((4, 1, 5, 3), ((6, 2, 9, 3), (5, 1, 11, 4), (7, 3, 10, 2))),
    ((2, 4, 5), ((1, 6, 10), (3, 5, 9), (2, 7, 12), (1, 8, 11))),
    ((3, 4, 5), ((3, 6, 9), (4, 5, 11), (2, 7, 10), (5, 4, 12), (3, 8, 8))),
    ((1, 2, 3, 4, 5), ((2, 1, 3, 8, 9), (1, 2, 5, 6, 12), (3, 3, 4, 5, 10), (2, 1, 4, 7, 11))),
    ((2, 3, 4, 5), ((1, 4, 6, 10), (3, 3, 7, 9), (2, 5, 5, 12), (1, 2, 8, 11), (2, 4, 6, 8))),
    # four confirmation boards drawn after the per-shape tables were designed: 5 x 3, 3 x 5, 4 x 4, 2 x 4
    ((1, 2, 4), ((1, 3, 7), (1, 2, 4), (2, 2, 6), (2, 3, 4), (3, 3, 5))),
    ((1, 2, 3, 4, 5), ((2, 1, 5, 7, 8), (2, 1, 2, 7, 8), (1, 1, 3, 5, 11))),
    ((1, 2, 4, 5), ((2, 1, 6, 8), (3, 2, 8, 10), (2, 1, 5, 8), (3, 2, 7, 12))),
    ((1, 2, 4, 5), ((1, 2, 4, 8), (3, 1, 5, 11))),
)
#: Columns of the hard family (:func:`hard_boards`).
HARD_COLUMNS = (2, 3, 4, 5)
#: The most non-terminal states of a hard-family board (a 3 x 5 board has 122,047).
HARD_MAX_STATES = 125_000
#: Every hard-family board has a column needing one of these numbers of dice (D3).
HARD_NEEDS = (4, 5)

Layout = tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]


def shapes(rules: Ruleset, max_states: int | None = None,
           columns: tuple[int, ...] = COLUMNS) -> list[tuple[int, int]]:
    """``(shelves, columns)`` of the family: every pair of :data:`SHELVES` x ``columns`` (default
    :data:`COLUMNS`) with at most ``max_states`` (default :data:`MAX_STATES`) non-terminal
    states under ``rules`` (the trigger, D17)."""
    from shelfie_solver.dice.wholegame.solver import state_count

    limit = MAX_STATES if max_states is None else max_states
    out = []
    for s in SHELVES:
        for c in columns:
            probe = Board("probe", tuple(range(1, c + 1)), ((0,),) * s, ((1,) * c,) * s)
            if state_count(probe, rules) <= limit:
                out.append((s, c))
    return out


def canonical(columns: tuple[int, ...], values: tuple[tuple[int, ...], ...]) -> Layout:
    """The least of a layout's relabellings (shelves and columns reordered; faces are not part
    of it): two boards with one face per shelf, all different, are the same game up to renaming
    faces exactly when their canonical layouts are equal."""
    best: Layout | None = None
    for order in permutations(range(len(columns))):
        cols = tuple(columns[c] for c in order)
        rows = tuple(sorted(tuple(row[c] for c in order) for row in values))
        if best is None or (cols, rows) < best:
            best = (cols, rows)
    assert best is not None
    return best


def random_board(rng: np.random.Generator, rules: Ruleset, name: str, max_states: int | None = None,
                 columns: tuple[int, ...] = COLUMNS) -> Board:
    """One board of the family (module docstring; ``max_states`` and ``columns`` as :func:`shapes`)
    drawn with ``rng``.

    Raises:
        ValueError: the ruleset has fewer item faces than the family's largest shelf count or
            fewer dice than :data:`MAX_NEED`.
    """
    items = [i for i in range(len(rules.faces)) if i != rules.joker_index]
    family = [(s, c) for s, c in shapes(rules, max_states, columns) if s <= len(items)]
    if not family or rules.dice < MAX_NEED:
        raise ValueError(f"random boards need at least {min(SHELVES)} item faces and {MAX_NEED} dice")
    return board_of_shape(rng, items, name, family[int(rng.integers(len(family)))])


def board_of_shape(rng: np.random.Generator, items: list[int], name: str, shape: tuple[int, int]) -> Board:
    """A board of ``shape`` (shelves, columns) drawn with ``rng`` as the family's (module
    docstring): columns needing different numbers of dice from 1..:data:`MAX_NEED` in increasing
    order, one item face per shelf from ``items`` (face indices), values from :data:`VALUE_RANGES`."""
    s, c = shape
    columns = tuple(sorted(int(n) for n in rng.choice(np.arange(1, MAX_NEED + 1), size=c, replace=False)))
    faces = tuple((int(f),) for f in rng.choice(items, size=s, replace=False))
    values = tuple(tuple(int(rng.integers(VALUE_RANGES[n][0], VALUE_RANGES[n][1] + 1)) for n in columns)
                   for _ in range(s))
    return Board(name, columns, faces, values)


def random_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset,
                  max_states: int | None = None) -> list[Board]:
    """``count`` different boards of the family (``max_states`` as :func:`shapes`), none of them
    a :data:`HELD_OUT` board up to relabelling; board ``i`` (named ``random i``, 1-based) is
    drawn from child ``i`` of ``seed`` (drawn again from the same generator while it is excluded).

    Raises:
        ValueError: as :func:`random_board`.
    """
    return _distinct_boards(seed, count, lambda rng, i: random_board(rng, rules, f"random {i + 1}", max_states))


def hard_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset,
                exclude: Iterable[Board] = ()) -> list[Board]:
    """``count`` different boards of the hard family (module docstring), none of them a
    :data:`HELD_OUT` board or a board of ``exclude`` up to relabelling; board ``i`` (named
    ``hard i``, 1-based) is drawn from child ``i`` of ``seed`` (drawn again from the same
    generator while it is excluded or has no column needing :data:`HARD_NEEDS` dice).

    Raises:
        ValueError: as :func:`random_board`.
    """
    return _distinct_boards(seed, count,
                            lambda rng, i: random_board(rng, rules, f"hard {i + 1}", HARD_MAX_STATES, HARD_COLUMNS),
                            exclude, lambda board: bool(set(board.columns) & set(HARD_NEEDS)))


#: Shapes of the large family (:func:`large_boards`), taken in turn: 4 x 5 and 5 x 4, about 4.7
#: and 4.8 million non-terminal states (D17).
LARGE_SHAPES = ((4, 5), (5, 4))


def large_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset) -> list[Board]:
    """``count`` different boards of the **large family** (``train --solitaire-large``): board ``i``
    (named ``large i``, 1-based) has shape ``LARGE_SHAPES[i % 2]`` and is drawn like the family's
    (:func:`board_of_shape`) from child ``i`` of ``seed``, again while it is a :data:`HELD_OUT`
    board or an earlier one up to relabelling.

    Raises:
        ValueError: the ruleset has fewer than 5 item faces or fewer than :data:`MAX_NEED` dice.
    """
    items = [i for i in range(len(rules.faces)) if i != rules.joker_index]
    if len(items) < max(s for s, _ in LARGE_SHAPES) or rules.dice < MAX_NEED:
        raise ValueError(f"large boards need at least {max(s for s, _ in LARGE_SHAPES)} item faces and "
                         f"{MAX_NEED} dice")
    return _distinct_boards(seed, count, lambda rng, i: board_of_shape(rng, items, f"large {i + 1}",
                                                                        LARGE_SHAPES[i % len(LARGE_SHAPES)]))


def _distinct_boards(seed: np.random.SeedSequence, count: int,
                     draw: Callable[[np.random.Generator, int], Board], exclude: Iterable[Board] = (),
                     accept: Callable[[Board], bool] = lambda board: True) -> list[Board]:
    """``count`` boards, board ``i`` made by ``draw(rng, i)`` with a generator from child ``i`` of
    ``seed``, drawn again from the same generator while it is a :data:`HELD_OUT` board, one of
    ``exclude`` or an earlier one up to relabelling, or not ``accept``-ed: the one loop of every
    family (:func:`random_boards`, :func:`hard_boards`, :func:`large_boards`)."""
    seen = {canonical(*layout) for layout in HELD_OUT} | {canonical(b.columns, b.values) for b in exclude}
    out = []
    for i, child in enumerate(seed.spawn(count)):
        rng = np.random.default_rng(child)
        while True:
            board = draw(rng, i)
            key = canonical(board.columns, board.values)
            if key not in seen and accept(board):
                break
        seen.add(key)
        out.append(board)
    return out


#: Shapes of the spread family's whole tables (:func:`spread_boards`), taken in turn: the shapes
#: nearest the exact budget that the float solver does in seconds (266,625, 122,047 and 112,847
#: non-terminal states).
SPREAD_SHAPES = ((4, 4), (3, 5), (5, 3))


#: A heavy-family board's columns need at least so many dice on average (:func:`is_heavy`, D3).
HEAVY_MEAN_NEED = 3
#: ... and at least so many of its columns need 4 or 5 dice (:data:`HARD_NEEDS`).
HEAVY_MANY_COLUMNS = 2


def is_heavy(needs: tuple[int, ...]) -> bool:
    """Whether column needs ``needs`` (dice per column, D3) are those of the heavy family
    (:func:`heavy_boards`): on average at least :data:`HEAVY_MEAN_NEED` dice a column (compared
    exactly) and at least :data:`HEAVY_MANY_COLUMNS` columns needing 4 or 5 dice. No columns: no."""
    return (bool(needs) and sum(needs) >= HEAVY_MEAN_NEED * len(needs)
            and sum(1 for n in needs if n in HARD_NEEDS) >= HEAVY_MANY_COLUMNS)


#: A threes-family board's columns all need at least so many dice (:func:`is_threes`, D3).
THREES_MIN_NEED = 3


def is_threes(needs: tuple[int, ...]) -> bool:
    """Whether column needs ``needs`` (dice per column, D3) are those of the threes family
    (:func:`threes_boards`): **repeated 3s beside 4-5s**, every column needing at least
    :data:`THREES_MIN_NEED` dice, and a quarter or more, but fewer than half, of the columns needing
    4 or 5 dice (:data:`HARD_NEEDS`; compared exactly: 1 of 3 or 4, 2 of 5). So 5 x 4 needing 5, 3,
    3, 3 and 4 x 5 needing 3, 3, 4, 4, 3 are; 3, 3, 4, 4 (half) and 3, 3, 3, 3, 5 (one of five) are
    not. No columns: no."""
    hard = sum(1 for n in needs if n in HARD_NEEDS)
    return bool(needs) and min(needs) >= THREES_MIN_NEED and len(needs) <= 4 * hard and 2 * hard < len(needs)


def spread_board(rng: np.random.Generator, rules: Ruleset, shape: tuple[int, int], many: bool, name: str,
                 heavy: bool = False, threes: bool = False) -> Board:
    """One board of ``shape`` (shelves, columns) as the spread family and the held-out families
    draw them (module docstring): each column's need drawn uniformly from 1..:data:`MAX_NEED`
    with repetition when ``many`` (drawn again until some column needs 4 or 5 dice, D3), else
    from 1..3; one item face per shelf, all different; values from :data:`VALUE_RANGES`. With
    ``heavy`` (the heavy family, :func:`heavy_boards`): needs drawn from 1..:data:`MAX_NEED` with
    repetition until :func:`is_heavy` holds (``many`` is then ignored). With ``threes`` (the threes
    family, :func:`threes_boards`): likewise until :func:`is_threes` holds.

    Raises:
        ValueError: the ruleset has fewer item faces than ``shape`` has shelves.
    """
    items = [i for i in range(len(rules.faces)) if i != rules.joker_index]
    shelves, columns = shape
    if shelves > len(items):
        raise ValueError(f"a board of {shelves} shelves needs {shelves} item faces; the ruleset has {len(items)}")
    while True:
        needs = tuple(int(n) for n in rng.integers(1, (MAX_NEED if many or heavy or threes else 3) + 1,
                                                   size=columns))
        if threes:
            if is_threes(needs):
                break
        elif is_heavy(needs) if heavy else (not many or max(needs) >= 4):
            break
    faces = tuple((int(f),) for f in rng.choice(items, size=shelves, replace=False))
    values = tuple(tuple(int(rng.integers(VALUE_RANGES[n][0], VALUE_RANGES[n][1] + 1)) for n in needs)
                   for _ in range(shelves))
    return Board(name, needs, faces, values)


def spread_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset,
                  shapes: tuple[tuple[int, int], ...] = SPREAD_SHAPES, name: str = "spread") -> list[Board]:
    """``count`` different boards of the spread family (module docstring): board ``i`` (named
    ``NAME i``, 1-based) of shape ``shapes[i % len(shapes)]``, with a column needing 4-5 dice
    when ``(i // len(shapes))`` is even (so each shape gets both halves in turn), drawn by
    :func:`spread_board` from child ``i`` of ``seed``, again while it is a :data:`HELD_OUT` board
    or an earlier one up to relabelling.

    Raises:
        ValueError: as :func:`spread_board`.
    """
    return _distinct_boards(seed, count, lambda rng, i: spread_board(
        rng, rules, shapes[i % len(shapes)], (i // len(shapes)) % 2 == 0, f"{name} {i + 1}"))


def heavy_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset,
                 shapes: tuple[tuple[int, int], ...] = SPREAD_SHAPES, name: str = "heavy") -> list[Board]:
    """``count`` different boards of the heavy family (module docstring): board ``i`` (named
    ``NAME i``, 1-based) of shape ``shapes[i % len(shapes)]``, its column needs drawn with
    repetition until :func:`is_heavy` (many dice on average, 4-5 repeated), by
    :func:`spread_board` from child ``i`` of ``seed``, again while it is a :data:`HELD_OUT` board
    or an earlier one up to relabelling.

    Raises:
        ValueError: as :func:`spread_board`; a shape of fewer than 2 columns (no heavy needs).
    """
    if any(columns < HEAVY_MANY_COLUMNS for _, columns in shapes):
        raise ValueError(f"a heavy-family board needs at least {HEAVY_MANY_COLUMNS} columns")
    return _distinct_boards(seed, count, lambda rng, i: spread_board(
        rng, rules, shapes[i % len(shapes)], True, f"{name} {i + 1}", heavy=True))


def threes_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset,
                  shapes: tuple[tuple[int, int], ...] = SPREAD_SHAPES, name: str = "threes") -> list[Board]:
    """``count`` different boards of the threes family (module docstring, :func:`is_threes`:
    repeated 3s beside 4-5s): board ``i`` (named ``NAME i``, 1-based) of shape
    ``shapes[i % len(shapes)]``, its column needs drawn uniformly from 1..:data:`MAX_NEED` with
    repetition until :func:`is_threes`, by :func:`spread_board` from child ``i`` of ``seed``, again
    while it is a :data:`HELD_OUT` board or an earlier one up to relabelling.

    Raises:
        ValueError: as :func:`spread_board`; a shape of fewer than 3 columns (no such needs: a
            quarter or more but under half of 2 columns is no whole column).
    """
    if any(columns < 3 for _, columns in shapes):
        raise ValueError("a threes-family board needs at least 3 columns")
    return _distinct_boards(seed, count, lambda rng, i: spread_board(
        rng, rules, shapes[i % len(shapes)], True, f"{name} {i + 1}", threes=True))


#: A light-five board (:func:`is_light_five`) has at least so many columns needing 1 die (D3).
LIGHT_FIVE_ONES = 2


def is_light_five(needs: tuple[int, ...]) -> bool:
    """Whether column needs (D3) are of the light-five family's kind: **a 5 beside 1s**, exactly
    one column needing :data:`MAX_NEED` (5) dice, no other needing 4-5 (:data:`HARD_NEEDS`), and at
    least :data:`LIGHT_FIVE_ONES` columns needing 1 (4 x 5 needing 5, 1, 1, 1, 2: yes; 5, 1, 4, 1,
    3 or 5, 1, 2, 2, 3: no)."""
    return (needs.count(MAX_NEED) == 1 and sum(1 for n in needs if n in HARD_NEEDS) == 1
            and needs.count(1) >= LIGHT_FIVE_ONES)


def light_five_board(rng: np.random.Generator, rules: Ruleset, shape: tuple[int, int], name: str) -> Board:
    """One board of the light-five family of ``shape`` (shelves, columns): its column needs drawn
    uniformly from 1..:data:`MAX_NEED` with repetition (``rng.integers``, one vector a try) until
    :func:`is_light_five`, then one item face per shelf (the faces but the joker, without
    replacement) and each cell's value from :data:`VALUE_RANGES` of its column's need, shelf by
    shelf (D3). ``benchmarks/light_five_fit.py`` drew the shipped table's boards with these draws.

    Raises:
        ValueError: fewer item faces than shelves; a shape of fewer than 3 columns (no such needs).
    """
    shelves, columns = shape
    if columns < 3:
        raise ValueError("a light-five board needs at least 3 columns")
    items = [i for i in range(len(rules.faces)) if i != rules.joker_index]
    if len(items) < shelves:
        raise ValueError(f"{shelves} shelves need {shelves} item faces; the ruleset has {len(items)}")
    while True:
        needs = tuple(int(n) for n in rng.integers(1, MAX_NEED + 1, size=columns))
        if is_light_five(needs):
            break
    faces = tuple((int(f),) for f in rng.choice(items, size=shelves, replace=False))
    values = tuple(tuple(int(rng.integers(VALUE_RANGES[n][0], VALUE_RANGES[n][1] + 1)) for n in needs)
                   for _ in range(shelves))
    return Board(name, needs, faces, values)


def light_five_boards(seed: np.random.SeedSequence, count: int, rules: Ruleset,
                      shapes: tuple[tuple[int, int], ...] = SPREAD_SHAPES, name: str = "light") -> list[Board]:
    """``count`` different boards of the light-five family (module docstring,
    :func:`is_light_five`): board ``i`` (named ``NAME i``, 1-based) of shape ``shapes[i %
    len(shapes)]`` drawn by :func:`light_five_board` from child ``i`` of ``seed``, again while it
    is a :data:`HELD_OUT` board or an earlier one up to relabelling.

    Raises:
        ValueError: as :func:`light_five_board`.
    """
    return _distinct_boards(seed, count, lambda rng, i: light_five_board(
        rng, rules, shapes[i % len(shapes)], f"{name} {i + 1}"))
