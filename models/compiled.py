"""How the compiled loops (``models.kernels`` and their kind) are compiled.

``compiled`` is numba's ``njit(nogil=True)``: the GIL is released so the ranking's threads
run the loops side by side, and the machine code is cached on disk so a process pays
the compilation (a second or two a loop) only the first time: beside the source
(``models/__pycache__``), or in ``NUMBA_CACHE_DIR``, or in the user's cache directory.

Why a wrapper: numba refuses ``cache=True`` outright (a ``RuntimeError`` at import) when
none of those can be written, as in a read-only checkout run by a service user without
a home. Then the loops are compiled in each process instead: slower to start, the same
numbers (``tests/models/test_compiled_cache.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit


def compiled(function: Callable[..., Any]) -> Any:
    """``function`` compiled by numba, without the GIL, cached on disk where possible."""
    try:
        return njit(nogil=True, cache=True)(function)
    except RuntimeError:  # no writable cache directory anywhere: compile in each process
        return njit(nogil=True)(function)
