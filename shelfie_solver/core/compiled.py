"""numba, loaded once for every compiled kernel of the package (the ``[fast]`` extra), without the
part of its start-up the kernels never use.

numba's first compilation or cache load fills its CPU target's registries, and one of them asks
whether SciPy's BLAS is there (``import scipy.linalg.cython_blas``: all of ``scipy.linalg``,
0.1-0.3 CPU seconds on this project's machine, docs/performance.md "Start-up") only to choose
how ``np.correlate`` and ``np.convolve`` multiply inside compiled code. No kernel of the package
calls either (nor any other BLAS or LAPACK function), so :func:`import_numba` fills the
registries at once, with that module hidden; numba then uses its own loop for those two, and a
later compiled ``np.dot`` would still import SciPy as usual (the module is hidden for that
moment only).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

#: The module numba imports only to know whether BLAS is available (see the module docstring).
BLAS_PROBE = "scipy.linalg.cython_blas"


def numba_cache_folder(environ: Mapping[str, str]) -> str | None:
    """Where numba keeps the compiled kernels (``NUMBA_CACHE_DIR``, read when numba is imported):
    ``None`` (numba's own choice) when the user set ``NUMBA_CACHE_DIR`` in ``environ``, else the
    ``numba`` folder of the user's cache folder (:func:`diskcache.default_cache_dir`, whatever
    ``SHELFIE_SOLVE_CACHE`` says: a private table cache does not compile the kernels again).
    Never the default ``__pycache__`` folders beside the installed modules: ``pip uninstall``
    leaves numba's files there, and the leftover ``shelfie_solver`` folder in site-packages then
    hides an editable install of the package (``ImportError`` on every command). A folder numba
    cannot write is skipped by numba itself (its next cache locator)."""
    if environ.get("NUMBA_CACHE_DIR"):
        return None
    from shelfie_solver.core.diskcache import default_cache_dir

    return str(default_cache_dir() / "numba")


def compiled_cache_dir(environ: Mapping[str, str]) -> Path:
    """The folder of numba's compiled kernels for ``environ``: ``NUMBA_CACHE_DIR`` when set (by the
    user, or by :func:`import_numba` from :func:`numba_cache_folder`), else
    :func:`numba_cache_folder`'s. Shown by ``shelfie-solve cache`` (docs/cache.md); it may not exist
    (no kernel compiled yet, or numba not installed)."""
    return Path(environ.get("NUMBA_CACHE_DIR") or numba_cache_folder(environ) or "")


@cache
def import_numba() -> Any | None:
    """The ``numba`` module with its CPU target ready (registries loaded, :data:`BLAS_PROBE` not
    imported), or ``None`` when numba is not installed. Called by each module that compiles
    kernels (``dice/engine/kernel.py``, ``dice/wholegame/float_kernel.py``) before it compiles."""
    if "numba" not in sys.modules:
        folder = numba_cache_folder(os.environ)
        if folder is not None:
            os.environ["NUMBA_CACHE_DIR"] = folder  # read by numba's import, and by worker processes
    hide = BLAS_PROBE not in sys.modules
    if hide:
        sys.modules[BLAS_PROBE] = None  # type: ignore[assignment]  # `import` of it raises ImportError
    try:
        try:
            import numba
        except ImportError:
            return None
        try:
            from numba.core.registry import cpu_target

            cpu_target.target_context.refresh()  # what the first compiled call would do, now
        except Exception:  # noqa: BLE001 - numba's internals moved: it loads them itself later, as usual
            pass
        return numba
    finally:
        if hide:
            del sys.modules[BLAS_PROBE]
