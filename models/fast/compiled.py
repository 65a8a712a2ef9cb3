"""How the kernel library's loops are compiled (``compiled``) and given their outputs (``new_rows``).

``compiled`` is numba's ``njit(nogil=True)``: the GIL is released so the ranking's threads
run the loops side by side, and the machine code is cached on disk so a process pays
the compilation (a second or two a loop) only the first time: beside the source
(``models/fast/__pycache__``), or in ``NUMBA_CACHE_DIR``, or in the user's cache directory.

Why a wrapper: numba refuses ``cache=True`` outright (a ``RuntimeError`` at import) when
none of those can be written, as in a read-only checkout run by a service user without
a home. Then the loops are compiled in each process instead: slower to start, the same
numbers (``tests/e2e/models/test_compiled_cache.py``).

Why the cache is stamped with this package: numba keys a loop's cached machine code on
its own source file only, while a loop compiles in the loops it calls from other
modules (``models.fast.pairwise``' sums in ``models.fast.statistics``, for one). After an
upgrade that changed only a callee, a caller's cache would still hold the old callee,
silently. Each cached loop's stamp also carries a digest of every source file of
``models/fast/`` (``PACKAGE_STAMP``): every loop lives here and calls only loops here,
so an edit anywhere else in the project recompiles nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit


def _package_stamp() -> str:
    """A digest of every Python source file of the package this module is in."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


PACKAGE_STAMP = _package_stamp()


def compiled(function: Callable[..., Any]) -> Any:
    """``function`` compiled by numba, without the GIL, cached on disk where possible
    (the cache valid only for this very package: ``PACKAGE_STAMP``)."""
    try:
        dispatcher = njit(nogil=True, cache=True)(function)
    except RuntimeError:  # no writable cache directory anywhere: compile in each process
        return njit(nogil=True)(function)
    index = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)  # numba's index of the loop's cached code
    if index is None or not hasattr(index, "_source_stamp"):  # another numba: no cache rather than a stale one
        return njit(nogil=True)(function)
    index._source_stamp = (index._source_stamp, PACKAGE_STAMP)  # the defining file's hash, and the package's
    return dispatcher


def new_rows(shape: tuple[int, int], dtype: type, *, zero: bool = False) -> np.ndarray:
    """A batch-sized output for a compiled loop, allocated by numpy rather than in the loop.

    Why: numpy asks the kernel for huge pages on large arrays (``madvise``), numba's own
    allocator does not. A batch of the ranking (~335 members × 25,000 games, 33 MB) then
    takes ~500 page faults instead of ~8,200: measured 4.6 ms against 18 ms to allocate
    and fill one, several times a batch."""
    return np.zeros(shape, dtype=dtype) if zero else np.empty(shape, dtype=dtype)
