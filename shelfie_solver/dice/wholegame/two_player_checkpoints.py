"""Layer checkpoints of the two-player solver (``solve-game --players 2 --checkpoints DIR``), in the
float solver's form (:mod:`float_checkpoints`): each solved layer as ``layer-NNN.npy`` (its values,
float64, in key order) and ``layer-NNN.json`` (its state count, largest final-roll value and
exact error bound), written whole or not at all; ``solve.json`` names the board, the ruleset and
the seats' modes, so a directory of another solve is refused before anything is written. On
resume nothing that can be recomputed is trusted: the layer's bound is recomputed from the
layers above and the recorded largest final-roll value (:func:`two_player.layer_bound`), and
every value must lie within 0 to 1 plus that bound.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np

from shelfie_solver.core.files import NPY_KIND, json_kind, replace_checked, write_text_atomically
from shelfie_solver.core.inputs import parse_fraction
from shelfie_solver.dice.board import Board
from shelfie_solver.dice.rules import Ruleset
from shelfie_solver.dice.wholegame.two_player import TwoPlayerError

#: The ``format`` key of the two-player solver's checkpoint files.
LAYER_FORMAT = "shelfie-solve two-player layer 1"
#: A layer's JSON, as recognised before it is replaced (:func:`files.check_overwrite`).
LAYER_KIND = json_kind("a two-player checkpoint layer", LAYER_FORMAT)


class TwoPlayerCheckpoints:
    """A two-player solve's checkpoint directory (module docstring), claimed on creation; an
    unclaimed directory that holds a file of a layer's name is refused unless ``force``.

    Raises:
        TwoPlayerError: not a directory, cannot be created, holds another solve or foreign files.
    """

    def __init__(self, board: Board, rules: Ruleset, modes: tuple[str, str], folder: str, force: bool = False):
        from shelfie_solver.dice.wholegame.solver import ExactError, fingerprint, read_solver_json, same_setup

        if folder == "":
            raise TwoPlayerError("--checkpoints names no directory (an empty name); expected a directory")
        self.folder, self.force, self.layers = Path(folder), force, 2 * board.n_cells + 1
        stamp = {**fingerprint(board, rules), "modes": list(modes)}
        try:
            if self.folder.exists() and not self.folder.is_dir():
                raise TwoPlayerError(f"--checkpoints {folder} is not a directory; expected a directory for the layers")
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise TwoPlayerError(f"cannot create the checkpoint directory {folder}: {error.strerror or error}") from None
        manifest = self.folder / "solve.json"
        if manifest.exists():
            try:
                data = read_solver_json(manifest, "checkpoint manifest")
            except ExactError as error:
                raise TwoPlayerError(str(error)) from None
            if data.get("format") != LAYER_FORMAT or not same_setup(data, stamp):
                raise TwoPlayerError(f"checkpoint directory {folder} holds another solve ({manifest}); use another "
                                     "--checkpoints directory")
            return
        found = next((p for layer in range(self.layers) for p in self.paths(layer) if os.path.lexists(p)), None)
        if found is not None and not force:
            raise TwoPlayerError(f"cannot write the checkpoints in {folder}: {found.name} is there already and this "
                                 "directory holds no solve (no solve.json); use another --checkpoints directory, "
                                 "or pass --force")
        write_text_atomically(manifest, json.dumps({"format": LAYER_FORMAT, **stamp}))

    def paths(self, layer: int) -> tuple[Path, Path]:
        """A layer's two files: ``layer-NNN.npy`` and ``layer-NNN.json``."""
        return self.folder / f"layer-{layer:03d}.npy", self.folder / f"layer-{layer:03d}.json"

    def save(self, layer: int, values: np.ndarray, largest: float, bound: Fraction) -> None:
        """Write one solved layer (the array, then its JSON)."""
        from shelfie_solver.dice.wholegame.binary_table import npy_bytes

        array, head = self.paths(layer)
        text = json.dumps({"format": LAYER_FORMAT, "layer": layer, "states": len(values),
                           "largest": float(largest).hex(), "bound": f"{bound.numerator}/{bound.denominator}",
                           "sha256": _digest(values)})
        replace_checked({array: (npy_bytes(values.astype("<f8")), NPY_KIND),
                         head: (text.encode(), LAYER_KIND)}, self.force)

    def load(self, layer: int, states: int) -> tuple[np.ndarray, float, Fraction] | None:
        """The layer's values, largest final-roll value and recorded bound, or ``None`` when not
        written yet (checked for form; the caller recomputes the bound).

        Raises:
            TwoPlayerError: the files are there but malformed or for another layer.
        """
        from shelfie_solver.dice.wholegame.binary_table import open_npy
        from shelfie_solver.dice.wholegame.solver import ExactError, read_solver_json

        array, head = self.paths(layer)
        if not head.exists():
            return None
        expected = f"expected the files solve-game --players 2 wrote, for layer {layer} ({states:,} states)"
        try:
            data = read_solver_json(head, "checkpoint")
            if data.get("format") != LAYER_FORMAT or data.get("layer") != layer or data.get("states") != states:
                raise TwoPlayerError(f"checkpoint {head}: bad format, layer or states; {expected}")
            largest = float.fromhex(data["largest"])
            bound = parse_fraction(data.get("bound"), TwoPlayerError, f"checkpoint {head} \"bound\"")
            values = np.array(open_npy(array, states, f"checkpoint {array}", ("float64",)))
        except (ExactError, KeyError, ValueError, TypeError, OverflowError) as error:
            raise TwoPlayerError(f"checkpoint {head}: {error}; {expected}") from None
        if not 0 <= largest <= 2 or not np.isfinite(values).all():
            raise TwoPlayerError(f"checkpoint {head}: a value out of range; {expected}")
        if data.get("sha256") != _digest(values):  # an edited layer would be trusted by every layer below it
            raise TwoPlayerError(f"checkpoint {array}: its values are not the ones written (SHA-256 of the array "
                                 f"differs from {head.name}'s); {expected}, or delete the layer to solve it again")
        return values, largest, bound


def _digest(values: np.ndarray) -> str:
    """The SHA-256 (hex) of a layer's values as little-endian float64, recorded beside them."""
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes()).hexdigest()
