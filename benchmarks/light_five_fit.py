"""A lead for the next pass, not shipped: a table for 4 x 5 boards of a 5 beside 1s (docs/strategies.md, "Two 5s beside 3s").

    python benchmarks/light_five_fit.py [--count N] [--seed S] [--out DIR]

Draws N boards of a **light-five family** (4 x 4, 3 x 5, 5 x 3 in turn; each column's need
uniform in 1..5 with repetition, drawn again until exactly one column needs 5 dice, no other
column 4-5, and two or more need 1, D3; one item face per shelf, values from
``random_boards.VALUE_RANGES``, as ``random_boards.spread_board`` draws them), board ``i`` from
child ``i`` of ``SeedSequence(S, spawn_key=(1,))``, never a ``HELD_OUT`` board nor an earlier one up
to relabelling; solves each with the float solver and fits ``HEAVY_SAMPLE`` (60,000) of its states,
drawn from child ``i`` of ``SeedSequence(S, spawn_key=(2,))`` (``fit_solved.board_float_sums``,
``pooled_fit``: those boards alone). Writes two variants of the shipped parameter file to DIR,
their 4 x 5 many-dice table replaced by ``L1.json``: the fit alone; ``L2.json``: the mean of the
fit and the many-dice table, weight by weight, rounded down. They are for ``simulate --board B
--players learned:DIR/L2.json`` on boards of that kind only (every other 4 x 5 board of the
many-dice table plays the replaced table too). Measured with N = 12, S = 9604 on 2026-12-04.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from shelfie_solver.core.files import write_text_atomically
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.learned.fit_solved import (
    HEAVY_SAMPLE,
    board_float_sums,
    pooled_fit,
)
from shelfie_solver.dice.learned.fitting import run_tasks
from shelfie_solver.dice.learned.model_file import load_model, model_text
from shelfie_solver.dice.rules import DEFAULT_RULES
from shelfie_solver.dice.wholegame import random_boards as rb

SHIPPED = Path(__file__).resolve().parents[1] / "shelfie_solver" / "dice" / "data" / "learned.json"


def is_light_five(needs: tuple[int, ...]) -> bool:
    """One column needing 5 dice, no other needing 4-5, two or more needing 1 (D3)."""
    return needs.count(5) == 1 and sum(1 for n in needs if n in rb.HARD_NEEDS) == 1 and needs.count(1) >= 2


def light_five_board(rng: np.random.Generator, shape: tuple[int, int], name: str) -> Board:
    """One board of the light-five family of ``shape`` (module docstring; the draws in
    ``random_boards.spread_board``'s order)."""
    items = [i for i in range(len(DEFAULT_RULES.faces)) if i != DEFAULT_RULES.joker_index]
    shelves, columns = shape
    while True:
        needs = tuple(int(n) for n in rng.integers(1, rb.MAX_NEED + 1, size=columns))
        if is_light_five(needs):
            break
    faces = tuple((int(f),) for f in rng.choice(items, size=shelves, replace=False))
    values = tuple(tuple(int(rng.integers(rb.VALUE_RANGES[n][0], rb.VALUE_RANGES[n][1] + 1)) for n in needs)
                   for _ in range(shelves))
    return Board(name, needs, faces, values)


def light_five_boards(seed: int, count: int) -> list[Board]:
    """``count`` different boards of the family (module docstring)."""
    shapes = rb.SPREAD_SHAPES
    seen = {rb.canonical(*layout) for layout in rb.HELD_OUT}
    out = []
    for i, child in enumerate(np.random.SeedSequence(seed, spawn_key=(1,)).spawn(count)):
        rng = np.random.default_rng(child)
        while True:
            board = light_five_board(rng, shapes[i % len(shapes)], f"light {i + 1}")
            key = rb.canonical(board.columns, board.values)
            if key not in seen:
                break
        seen.add(key)
        out.append(board)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--seed", type=int, default=9604)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    boards = light_five_boards(args.seed, args.count)
    for board in boards:
        print(board.name, f"{board.n_shelves} x {board.n_columns}", board.columns, flush=True)
    samples = np.random.SeedSequence(args.seed, spawn_key=(2,)).spawn(args.count)
    sums = run_tasks(board_float_sums, [(b, DEFAULT_RULES, HEAVY_SAMPLE, s) for b, s in zip(boards, samples)],
                     args.jobs)
    fit = pooled_fit(list(zip(boards, sums)), DEFAULT_RULES, print, "light-five table")
    for name, mixed in (("L1", False), ("L2", True)):
        model = load_model(SHIPPED)
        model.many[(4, 5)] = (model.many[(4, 5)] + fit) // 2 if mixed else fit
        write_text_atomically(Path(args.out) / f"{name}.json", model_text(model))


if __name__ == "__main__":
    main()
