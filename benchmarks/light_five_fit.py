"""The design study of the shipped light-five table: 4 x 5 boards of a 5 beside 1s (docs/strategies.md, "Two 5s beside 3s").

    python benchmarks/light_five_fit.py [--count N] [--seed S] [--out DIR]

Draws N boards of the **light-five family** (``random_boards.light_five_boards``: 4 x 4, 3 x 5,
5 x 3 in turn; exactly one column needing 5 dice, no other 4-5, two or more needing 1, D3), board
``i`` from child ``i`` of ``SeedSequence(S, spawn_key=(1,))``; solves each with the float solver and
fits ``HEAVY_SAMPLE`` (60,000) of its states, drawn from child ``i`` of ``SeedSequence(S,
spawn_key=(2,))`` (``fit_solved.solve_light_five``, ``pooled_fit``: those boards alone; written
here before ``train --solitaire-light-five`` made the same table, docs/train.md). Writes two variants of the shipped parameter file to DIR,
their 4 x 5 many-dice table replaced by ``L1.json``: the fit alone; ``L2.json``: the mean of the
fit and the many-dice table, weight by weight, rounded down. They are for ``simulate --board B
--players learned:DIR/L2.json`` on boards of that kind only (every other 4 x 5 board of the
many-dice table plays the replaced table too). Measured with N = 12, S = 9604 on 2026-12-04;
``L2.json``'s 4 x 5 table is the shipped ``"solitaire_light_five"`` one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from shelfie_solver.core.files import write_text_atomically
from shelfie_solver.dice.learned.fit_solved import pooled_fit, solve_light_five
from shelfie_solver.dice.learned.model_file import load_model, model_text
from shelfie_solver.dice.rules import DEFAULT_RULES

SHIPPED = Path(__file__).resolve().parents[1] / "shelfie_solver" / "dice" / "data" / "learned.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--seed", type=int, default=9604)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    solved = solve_light_five(DEFAULT_RULES, args.seed, args.count, args.jobs)
    for board, _ in solved:
        print(board.name, f"{board.n_shelves} x {board.n_columns}", board.columns, flush=True)
    fit = pooled_fit(solved, DEFAULT_RULES, print, "light-five table")
    for name, mixed in (("L1", False), ("L2", True)):
        model = load_model(SHIPPED)
        model.many[(4, 5)] = (model.many[(4, 5)] + fit) // 2 if mixed else fit
        write_text_atomically(Path(args.out) / f"{name}.json", model_text(model))


if __name__ == "__main__":
    main()
