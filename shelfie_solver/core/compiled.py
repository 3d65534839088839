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

import sys
from functools import cache
from typing import Any

#: The module numba imports only to know whether BLAS is available (see the module docstring).
BLAS_PROBE = "scipy.linalg.cython_blas"


@cache
def import_numba() -> Any | None:
    """The ``numba`` module with its CPU target ready (registries loaded, :data:`BLAS_PROBE` not
    imported), or ``None`` when numba is not installed. Called by each module that compiles
    kernels (``dice/engine/kernel.py``, ``dice/wholegame/float_kernel.py``) before it compiles."""
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
