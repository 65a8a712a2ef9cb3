"""Threads and BLAS while models fit and score: BLAS held at one thread, independent row
blocks on the night's two cores, and blocks that run in turn inside a block already threaded.

Why a module of its own: every tier of the models (fits, scoring, discovery, evaluation)
needs these three, and none of them is about what a model is (``models.base``)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

from threadpoolctl import ThreadpoolController

T = TypeVar("T")


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """BLAS on one thread while a model fits or scores.

    implicit runs its own threads and warns when OpenBLAS runs more beside them. For the
    dense algebra of EASE one thread is also the safer choice on a small machine: when
    another process holds a core, OpenBLAS's spinning threads make a 3,700-game inverse
    10–20× slower, while one thread stays predictable (about 0.6 s).
    """
    # The variable only reaches processes started from here on (the loaded OpenBLAS
    # reads it once at start); threadpoolctl limits this process.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    with _blas_libraries().limit(limits=1, user_api="blas"):
        yield


_LIBRARIES: tuple[int, ThreadpoolController] | None = None


def _blas_libraries() -> ThreadpoolController:
    """threadpoolctl's view of the thread pools this process has loaded (what
    `threadpool_limits` builds at every call), looked up again only after an import.

    Why: the look-up lists every shared object of the process (~5 ms here), and a night
    enters `single_threaded_blas` about a hundred times (an evaluation ~15 times, ~10% of
    its CPU on the small split). A BLAS is loaded by importing the extension that links it
    (numpy, scipy, implicit), so while `sys.modules` has not grown the view is current."""
    global _LIBRARIES
    modules = len(sys.modules)
    if _LIBRARIES is None or _LIBRARIES[0] != modules:
        _LIBRARIES = (modules, ThreadpoolController())
    return _LIBRARIES[1]


BLOCK_THREADS = min(2, os.cpu_count() or 1)
"""Threads for independent row blocks (``map_blocks``): the night's two cores."""

_THREAD = threading.local()


@contextmanager
def blocks_in_turn() -> Iterator[None]:
    """``map_blocks`` runs its blocks one after another on this thread while inside.

    Why: inside one of ``map_blocks``' threads (an evaluation candidate, ``models.parallel``,
    a block) the cores are already busy; two more threads each only made four busy threads
    share two cores and their memory bandwidth (measured slower at real size: 261 and
    279 s against 247 s for the reuse night's evaluation)."""
    before = getattr(_THREAD, "in_turn", False)
    _THREAD.in_turn = True
    try:
        yield
    finally:
        _THREAD.in_turn = before


def in_turn() -> bool:
    """Whether this thread is inside ``blocks_in_turn``: work that would start threads of its own
    (``map_blocks``, ``DiscoveryModel.rank``'s batches) runs one after another instead."""
    return getattr(_THREAD, "in_turn", False)


def map_blocks(work: Callable[[T], None], blocks: Iterable[T], *, threads: int | None = None) -> None:
    """``work(block)`` for every block, on ``BLOCK_THREADS`` threads; each block writes
    only its own part of a shared output, so the result is the same as one after another.

    Why threads: the blocks' numpy and scipy work releases the GIL. BLAS is held at one
    thread once around them all (threadpoolctl restores the limit it found, so blocks
    entering and leaving it from two threads could leave BLAS on every core). A block's
    own ``map_blocks`` runs in turn (``blocks_in_turn``): the threads already keep the
    cores busy. One block, one thread, or a caller already in turn: a plain loop. The
    first failure (in the blocks' order) is raised once the running blocks are done; the
    blocks not started yet are dropped.
    """
    blocks = list(blocks)
    threads = BLOCK_THREADS if threads is None else threads
    if threads <= 1 or len(blocks) <= 1 or in_turn():
        for block in blocks:
            work(block)
        return

    def one(block: T) -> None:
        with blocks_in_turn():
            work(block)

    with single_threaded_blas():
        pool = ThreadPoolExecutor(max_workers=min(threads, len(blocks)), thread_name_prefix="block")
        try:
            for future in [pool.submit(one, block) for block in blocks]:
                future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
