"""The item odds (section 1) as a PNG heatmap, drawn with matplotlib (docs/cheatsheet.md, "Formats").

matplotlib is imported inside :func:`render_heatmap` only, so importing this module stays cheap
(tests/test_startup.py). The PNG is deterministic for a given matplotlib build.
"""

from __future__ import annotations

import io

import numpy as np

from shelfie_solver.core.report import percent
from shelfie_solver.dice.board import Board, CellState
from shelfie_solver.dice.cheatsheet.compute import CheatSheet
from shelfie_solver.dice.cheatsheet.wording import dice_text
from shelfie_solver.dice.rules import Ruleset

#: File name of the heatmap, written beside the sheet in every format.
HEATMAP_NAME = "item-odds.png"


def _face_lines(board: Board, rules: Ruleset, shelf: int) -> str:
    """A shelf's faces for a heatmap label, two per line (``cat/book``)."""
    names = [rules.sides[f].name for f in board.shelf_faces[shelf]]
    return "\n".join("/".join(names[i:i + 2]) for i in range(0, len(names), 2))


#: Heatmap colours of unavailable items (D4): marked items light, eliminated ones darker.
_STATE_COLOURS = {CellState.MARKED: "#e6e6e6", CellState.ELIMINATED: "#b3b3b3"}


def render_heatmap(sheet: CheatSheet) -> bytes:
    """The item odds as a PNG heatmap: chances written in the cells (with the item's points),
    shelves labelled with their faces and columns with their dice counts; unavailable items grey
    with their state. Sized for the printed page (about 86 mm wide for 5 columns, 300 dpi).

    Deterministic for a given matplotlib version: matplotlib's default style, the Agg canvas,
    and no ``Software`` metadata (which would carry the version).
    """
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    board, rules = sheet.board, sheet.rules
    grid = np.full((board.n_shelves, board.n_columns), np.nan)
    for item in sheet.items:
        if item.chance is not None:
            grid[board.shelf_of(item.cell), board.column_of(item.cell)] = float(item.chance)
    with matplotlib.style.context("default"):
        inches = (max(3.0, 1.0 + 0.48 * board.n_columns), max(1.8, 0.75 + 0.42 * board.n_shelves))
        fig = Figure(figsize=inches, dpi=300)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        cmap = matplotlib.colormaps["YlGnBu"].with_extremes(bad="white")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        for item in sheet.items:
            s, c = board.shelf_of(item.cell), board.column_of(item.cell)
            if item.chance is None:
                ax.add_patch(Rectangle((c - 0.5, s - 0.5), 1, 1, facecolor=_STATE_COLOURS[item.state], linewidth=0))
                text, colour, size, weight = item.state.name.lower(), "#333333", 4.6, "normal"
            else:
                text, size, weight = percent(item.chance, 1), 6.6, "bold"  # never a false 100.0%
                colour = "white" if float(item.chance) > 0.6 else "black"
            ax.text(c, s - 0.1, text, ha="center", va="center", fontsize=size, color=colour, fontweight=weight)
            ax.text(c, s + 0.27, f"{board.value(item.cell)} pt", ha="center", va="center", fontsize=4.6, color=colour)
        ax.set_xticks(range(board.n_columns), [f"col {c + 1}\n{dice_text(n)}" for c, n in enumerate(board.columns)],
                      fontsize=5.2)
        ax.set_yticks(range(board.n_shelves), [f"shelf {s + 1}\n{_face_lines(board, rules, s)}"
                                               for s in range(board.n_shelves)], fontsize=5.2)
        ax.tick_params(length=0, pad=2)
        ax.set_xticks(np.arange(-0.5, board.n_columns, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, board.n_shelves, 1), minor=True)
        ax.grid(which="minor", color="white", linewidth=1.2)
        ax.tick_params(which="minor", length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title("Chance to mark each item this turn", fontsize=6.6)
        bar = fig.colorbar(image, ax=ax, fraction=0.05, pad=0.03, format=lambda x, _: f"{x * 100:.0f}%")
        bar.ax.tick_params(labelsize=4.6, length=2, width=0.5)
        bar.outline.set_linewidth(0.5)
        fig.tight_layout(pad=0.3)
        out = io.BytesIO()
        fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()

