"""Layer checkpoints of the float solver (``solve-game --float --checkpoints DIR``): each solved
layer as ``layer-NNN.npy`` (its values, float64, in increasing state index) and
``layer-NNN.json`` (its state count, largest final-roll value and exact error bound), written
whole or not at all, the JSON last; ``solve.json`` names the board and ruleset, so a directory
of another solve is refused before anything is written (as the exact solver's checkpoints,
:func:`solver.solve_game`). A layer counts as done when both files are there and pass the checks
(the header with the bounded JSON reader, its numbers with the bounded exact parser, the array's
shape and dtype against the layer's state count, every value finite and within 0 to a full
sheet's points plus the bound, D19). Nothing that can be recomputed is trusted: the layer's
bound is recomputed from the bounds of the later layers (as recomputed on this run) and the
recorded largest final-roll value ``W``, which must be at least what the values imply (a state's
value is an average and maximum of final-roll values: at most ``W (1 + gamma)^(rerolls + 1)``
computed) and at most a full sheet plus the later layers' bound; a recorded bound other than the
recomputed one is refused (:func:`float_solver.checked_layer`)."""

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
from shelfie_solver.dice.wholegame.binary_table import npy_bytes, open_npy
from shelfie_solver.dice.wholegame.solver import ExactError, fingerprint, read_solver_json, same_setup

#: The ``format`` key of the float solver's checkpoint files.
FLOAT_LAYER_FORMAT = "shelfie-solve float layer 1"
#: A layer's JSON, as recognised before it is replaced (:func:`files.check_overwrite`).
FLOAT_LAYER_KIND = json_kind("a float checkpoint layer", FLOAT_LAYER_FORMAT)


class Checkpoints:
    """A float solve's checkpoint directory (module docstring), claimed on creation. A directory
    not claimed yet (no ``solve.json``) that already holds a file of one of the names a solve
    writes (``layer-NNN.npy``/``.json``, ``values.f64``) is refused unless ``force``: it is not
    ours to replace; in a claimed one, a layer's array is replaced only when it is a ``.npy``
    array (:func:`files.check_overwrite`).

    Raises:
        ExactError: not a directory, cannot be created, holds another solve, or holds a file
            of ours by name that this solver did not write.
    """

    def __init__(self, board: Board, rules: Ruleset, folder: str, force: bool = False):
        if folder == "":
            raise ExactError("--checkpoints names no directory (an empty name); expected a directory for the layer "
                             "files")
        self.folder = Path(folder)
        self.stamp = fingerprint(board, rules)
        try:
            if self.folder.exists() and not self.folder.is_dir():
                raise ExactError(f"--checkpoints {folder} is not a directory; expected a directory for the layer files")
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ExactError(f"cannot create the checkpoint directory {folder}: {error.strerror or error}") from None
        self.force = force
        manifest = self.folder / "solve.json"
        if not manifest.exists() and not force:
            names = [self.folder / "values.f64", *(p for layer in range(board.n_cells) for p in self.paths(layer))]
            found = next((p for p in names if os.path.lexists(p)), None)
            if found is not None:
                raise ExactError(f"cannot write the checkpoints in {folder}: {found.name} is there already and this "
                                 "directory holds no solve (no solve.json); nothing written. Use another "
                                 "--checkpoints directory, or pass --force to replace it")
        if manifest.exists():
            data = read_solver_json(manifest, "checkpoint manifest")
            if data.get("format") != FLOAT_LAYER_FORMAT or not same_setup(data, self.stamp):
                raise ExactError(f"checkpoint directory {folder} holds another solve ({manifest}); use another "
                                 "--checkpoints directory")
        else:
            write_text_atomically(manifest, json.dumps({"format": FLOAT_LAYER_FORMAT, **self.stamp}))

    def paths(self, layer: int) -> tuple[Path, Path]:
        """A layer's two files: ``layer-NNN.npy`` and ``layer-NNN.json``."""
        return self.folder / f"layer-{layer:03d}.npy", self.folder / f"layer-{layer:03d}.json"

    def save(self, layer: int, values: np.ndarray, largest: float, bound: Fraction) -> None:
        """Write one solved layer (the array first, then its JSON)."""
        array, head = self.paths(layer)
        text = json.dumps({"format": FLOAT_LAYER_FORMAT, "layer": layer, "states": len(values),
                           "largest": float(largest).hex(), "bound": f"{bound.numerator}/{bound.denominator}"})
        replace_checked({array: (npy_bytes(values.astype("<f8")), NPY_KIND),
                         head: (text.encode(), FLOAT_LAYER_KIND)}, self.force)

    def load(self, layer: int, states: int) -> tuple[np.ndarray, float, Fraction] | None:
        """The layer's values, largest final-roll value and recorded bound, or ``None`` when not
        written yet: read and checked for form (the bound with the bounded exact parser, every
        value finite and >= 0); :func:`float_solver.checked_layer` then checks them against the
        rules and recomputes the bound (module docstring).

        Raises:
            ExactError: the files are there but malformed or for another layer.
        """
        array, head = self.paths(layer)
        if not head.exists():
            return None
        data = read_solver_json(head, "checkpoint")
        try:
            if data.get("format") != FLOAT_LAYER_FORMAT or data.get("layer") != layer or data.get("states") != states:
                raise ValueError("format, layer or states")
            largest = float.fromhex(data["largest"])
            if not 0 <= largest < float("inf"):
                raise ValueError("largest")
        except (KeyError, ValueError, TypeError, OverflowError) as error:
            raise ExactError(f"checkpoint {head}: bad {error}; expected the file solve-game --float wrote, for "
                             f"layer {layer} ({states:,} states)") from None
        bound = parse_fraction(data.get("bound"), ExactError, f"checkpoint {head} \"bound\"")
        values = np.array(open_npy(array, states, f"checkpoint {array}", ("float64",)))
        if not np.isfinite(values).all() or (values < 0).any():
            raise ExactError(f"checkpoint {array}: a value is not a finite number >= 0; expected the file "
                             "solve-game --float wrote")
        return values, largest, bound
