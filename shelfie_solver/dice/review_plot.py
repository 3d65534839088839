"""The win-chance curve of a reviewed game as a PNG, SVG or PDF (``review --plot FILE``,
docs/review.md).

matplotlib is imported inside :func:`curve_image` only, so importing this module stays cheap.
"""

from __future__ import annotations

import io

from shelfie_solver.core.files import FileKind, magic_kind
from shelfie_solver.dice.review import Review

#: The image formats ``review --plot`` writes, by file suffix (lower case, with the dot), and the
#: metadata left out of each so the same review gives the same bytes (no date, no version).
PLOT_FORMATS: dict[str, tuple[str, dict[str, None]]] = {
    ".png": ("png", {"Software": None}),
    ".svg": ("svg", {"Date": None, "Creator": None}),
    ".pdf": ("pdf", {"CreationDate": None, "Creator": None, "Producer": None}),
}

#: Each format's files, as recognised before one is replaced (:func:`files.check_overwrite`): an
#: image of that format (a plot written before, by its magic bytes).
PLOT_KINDS: dict[str, FileKind] = {
    "png": magic_kind("a PNG image", b"\x89PNG\r\n\x1a\n"),
    "svg": magic_kind("an SVG image", b"<?xml", b"<svg"),
    "pdf": magic_kind("a PDF document", b"%PDF-"),
}


def curve_png(result: Review) -> bytes:
    """:func:`curve_image` as a PNG."""
    return curve_image(result, "png")


def curve_image(result: Review, fmt: str) -> bytes:
    """The reviewed player's chance to win (D20) at every point of :attr:`review.Review.curve`,
    in percent, against the round; the rolls (luck) and the decisions marked apart, as an image
    of ``fmt`` (``"png"``, ``"svg"`` or ``"pdf"``, :data:`PLOT_FORMATS`). Deterministic for a given
    matplotlib version (default style, Agg canvas, no date or software metadata, fixed SVG ids).

    Raises:
        ValueError: ``fmt`` is not one of :data:`PLOT_FORMATS`.
    """
    metadata = next((meta for name, meta in PLOT_FORMATS.values() if name == fmt), None)
    if metadata is None:
        raise ValueError(f"unknown image format {fmt!r}; expected png, svg or pdf")
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    points = result.curve
    x = list(range(len(points)))
    y = [float(p.value) * 100 for p in points]
    with matplotlib.style.context("default"), matplotlib.rc_context({"svg.hashsalt": "shelfie-solve"}):
        fig = Figure(figsize=(7, 3.2), dpi=120)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        ax.plot(x, y, color="#1f77b4", linewidth=1.2, drawstyle="steps-post", label="chance to win")
        for kind, marker, colour in (("turn start", "o", "#1f77b4"), ("roll", "^", "#2ca02c"),
                                     ("mark", "s", "#ff7f0e"), ("shelf", "x", "#d62728"), ("told", "v", "#7f7f7f"),
                                     ("result", "*", "#000000"), ("now", "D", "#000000")):
            chosen = [i for i, p in enumerate(points) if p.what == kind]
            if chosen:
                ax.scatter(chosen, [y[i] for i in chosen], marker=marker, color=colour, s=18, zorder=3, label=kind)
        starts = [i for i, p in enumerate(points) if p.what == "turn start"]
        ax.set_xticks(starts, [str(points[i].round) for i in starts], fontsize=7)
        ax.set_xlabel("round (each mark: the start of the player's turn)")
        ax.set_ylabel("chance to win (%)")
        ax.set_ylim(-2, 102)
        ax.set_title(f"{result.player}: chance to win over the game", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="best")
        fig.tight_layout()
        out = io.BytesIO()
        fig.savefig(out, format=fmt, metadata=metadata)
    return out.getvalue()
