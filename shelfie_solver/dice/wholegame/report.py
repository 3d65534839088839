"""The reports of ``shelfie-solve solve-game`` (docs/solve-game.md), click-free: the exact
solitaire optimum (:func:`solve_report`) and the float64 one with its proven error bound
(:func:`float_report`), with the board, the state count and the time.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shelfie_solver.core.report import Report, decimal, exact
from shelfie_solver.dice.board import Marks, score

if TYPE_CHECKING:
    from shelfie_solver.dice.wholegame.float_solver import FloatSolution
    from shelfie_solver.dice.wholegame.solver import GameSolution


def float_report(solution: FloatSolution, saved: str | None, dtype: str, saved_bound: Fraction | None) -> Report:
    """The report of ``solve-game --float``: the optimum with its proven error bound."""
    from shelfie_solver.dice.wholegame.binary_table import round_up

    board, best, bound = solution.board, solution.optimum, round_up(solution.bound)
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), solution.rules)
    states = len(solution.values)
    title = [f"Float64 solitaire optimum on board {board.name!r} "
             f"({board.n_shelves} x {board.n_columns}, a full sheet is worth {possible} points)"]
    rate = states / solution.cpu_seconds if solution.cpu_seconds > 0 and not solution.layers_loaded else None
    rows: list[list[Any]] = [
        ["optimal expected final score", f"{best:.4f}"],
        ["float64", repr(best)],
        ["rounding error at most", f"{bound:.3g} points (proven bound)"],
        ["non-terminal states", f"{states:,}"],
        ["time", f"{solution.seconds:.1f} s" + (f" ({solution.layers_loaded} layers from checkpoints)"
                                                if solution.layers_loaded else "")
         + (f", {rate:,.0f} states per CPU second here" if rate else "")],
    ]
    data = {"board": board.name, "optimum_float": best, "error_bound": bound, "states": states,
            "seconds": solution.seconds, "cpu_seconds": solution.cpu_seconds,
            "layers_loaded": solution.layers_loaded, "possible": possible, "saved": saved,
            "dtype": dtype if saved else None}
    notes = ["One player; the game ends after the turn that closes the trigger's shelves (D17, D18); "
             "final score D19. Marking fewer items than the dice allow is allowed (D14).",
             "Float64: the exact optimum is within the bound of this value (docs/solve-game.md, the float path); "
             "choices whose values differ by less than twice the bound are ties."]
    if saved:
        assert saved_bound is not None
        notes.append(f"Value table saved to {saved} ({dtype}, header {Path(saved).with_suffix('.json').name}, values "
                     f"within {round_up(saved_bound):.3g} points; objective table:{saved}, strategy exact:{saved}).")
    return Report(title, ["", "value"], rows, data, notes)



_OPTIMUM_LABEL = "optimal expected final score"


def exact_lines(value: Fraction, width: int) -> str:
    """``value`` as ``p/q`` on lines of at most ``width`` characters (a table cell at 80 columns):
    the numerator's digits run on over as many lines as it needs, then the denominator's after a
    ``/``; on one line when it fits. E.g. ``exact_lines(Fraction(123456, 7), 4) == "1234\\n56\\n/7"``.

    Raises:
        ValueError: ``width`` below 2 (no room for ``/`` and a digit).
    """
    if width < 2:
        raise ValueError(f"width {width}: expected at least 2")
    text = exact(value)
    if len(text) <= width:
        return text
    p, q = text.split("/")
    lines = [p[i:i + width] for i in range(0, len(p), width)]
    lines += ["/" + q[i:i + width - 1] if i == 0 else q[i:i + width] for i in [0, *range(width - 1, len(q), width)]]
    return "\n".join(lines)


def solve_report(solution: GameSolution, saved: str | None, width: int | None = None) -> Report:
    """The report of ``solve-game``: the optimum, the state count and the time. With a ``width``
    (the table at 80 columns) an exact optimum too long for one line runs on over several
    (:func:`exact_lines`); JSON carries it on one line either way."""
    board, best = solution.board, solution.optimum
    possible = score(board, Marks(board.n_shelves, board.n_columns, (1 << board.n_cells) - 1), solution.rules)
    title = [f"Exact solitaire optimum on board {board.name!r} "
             f"({board.n_shelves} x {board.n_columns}, a full sheet is worth {possible} points)"]
    rows: list[list[Any]] = [
        [_OPTIMUM_LABEL, decimal(best, 4)],
        ["exact", exact(best) if width is None else exact_lines(best, width - len(_OPTIMUM_LABEL) - 2)],
        ["non-terminal states", f"{len(solution.values):,}"],
        ["time", f"{solution.seconds:.1f} s" + (f" ({solution.layers_loaded} layers from checkpoints)"
                                                if solution.layers_loaded else "")],
    ]
    data = {"board": board.name, "optimum": exact(best), "optimum_float": float(best),
            "states": len(solution.values), "seconds": solution.seconds,
            "layers_loaded": solution.layers_loaded, "possible": possible, "saved": saved}
    notes = ["One player; the game ends after the turn that closes the trigger's shelves (D17, D18); "
             "final score D19. Marking fewer items than the dice allow is allowed (D14)."]
    if "\n" in rows[1][1]:
        notes.append("exact: one fraction p/q, its digits run on over lines; on one line in --format json, csv "
                     "or markdown.")
    if saved:
        notes.append(f"Value table saved to {saved} (objective table:{saved}, strategy exact:{saved}).")
    return Report(title, ["", "value"], rows, data, notes)
