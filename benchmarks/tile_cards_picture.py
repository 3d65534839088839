"""Draw the tile game's 12 personal goal cards (shelfie_solver/tile/data/personal.toml, T20) as
one small PNG for docs/tile.md: each card a 6 x 5 shelf, row 1 at the top, with the cell of each
type lettered and coloured, so a player can tell which card they hold (the cards are our own,
not the publisher's).

    python benchmarks/tile_cards_picture.py              # writes docs/tile-cards.png
    python benchmarks/tile_cards_picture.py out.png

The picture depends only on the card file and matplotlib (the ``Agg`` backend, no fonts beyond
its own), so rerunning it after a card change is all the upkeep it needs.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shelfie_solver.tile.rules import COLUMNS, ROWS, TYPE_NAMES, TYPES, default_cards  # noqa: E402

#: One colour per tile type (TYPES order: cat, book, game, frame, trophy, plant).
COLOURS = ("#4caf50", "#f5f5f5", "#ffb300", "#1e88e5", "#26c6da", "#e91e63")


def draw(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    cards = default_cards()
    fig, axes = plt.subplots(2, 6, figsize=(9, 4.6), dpi=100)
    for ax, card in zip(axes.flat, cards):
        ax.set_xlim(0, COLUMNS)
        ax.set_ylim(ROWS, 0)
        ax.set_aspect("equal")
        ax.set_xticks([c + 0.5 for c in range(COLUMNS)], [str(c + 1) for c in range(COLUMNS)], fontsize=6)
        ax.set_yticks([r + 0.5 for r in range(ROWS)], [str(r + 1) for r in range(ROWS)], fontsize=6)
        ax.tick_params(length=0, pad=1, top=True, labeltop=True, bottom=False, labelbottom=False)
        ax.set_xlabel(f"card {card.name}", fontsize=8, labelpad=2)
        for r in range(ROWS):
            for c in range(COLUMNS):
                ax.add_patch(Rectangle((c, r), 1, 1, facecolor="white", edgecolor="#bbbbbb", linewidth=0.5))
        for t, cell in enumerate(card.cells):
            r, c = divmod(cell, COLUMNS)
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=COLOURS[t], edgecolor="#333333", linewidth=0.8))
            ax.text(c + 0.5, r + 0.55, TYPES[t], ha="center", va="center", fontsize=7, fontweight="bold")
    legend = "   ".join(f"{letter} {name}" for letter, name in zip(TYPES, TYPE_NAMES))
    fig.suptitle(f"shelfie-solve's personal goal cards (T20); rows from the top, columns from the left\n{legend}",
                 fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if sys.argv[1:] else ROOT / "docs" / "tile-cards.png"
    draw(target)
    print(f"wrote {target}")
