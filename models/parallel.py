"""The evaluation's candidates on two threads: the single ones side by side, then the ensemble.

Why threads and not processes: the heavy parts of every candidate (scipy's sparse
products, EASE's BLAS/LAPACK inverse, implicit's fits, numpy's ranking) release the GIL,
so two candidates on two threads use both of the night's cores (two threads of scipy
sparse @ dense measured 1.85x one), while processes would copy TRAIN's matrices in and
the fitted models back out. BLAS stays at one thread per call (``single_threaded_blas``),
so two candidates make two busy cores, not four.

Results do not depend on the threads: each candidate is fitted and scored from the same
inputs with its own seed, and the results come back in the candidates' order (their
tie-breaking order), whichever finished first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TypeVar

from models.threads import map_blocks
from models.candidates import Candidate
from models.ensemble import Ensemble

T = TypeVar("T")

EVALUATION_THREADS: int = min(2, os.cpu_count() or 1)
"""Threads the evaluation's single candidates run on (1: one after another, as before).

Two because the night has two cores: numpy, scipy and implicit release the GIL while they
compute and BLAS runs one thread per call (``models.threads.single_threaded_blas``), so each
thread keeps one core busy; a third thread would only queue for them. (implicit's ALS
and kNN still ask for every core while they fit; that was so before, too.)"""


HEAVY_FIRST = ("rp3beta", "als", "edlae", "ease")
"""Handed to the threads first, costliest first (at real size: RP3beta's fit 31–47 s, ALS's
tuning 79 s, EASE and EDLAE 17–18 s a fit; the rest a few seconds). A free thread takes
the next candidate, so starting with the long ones keeps the short ones for the end,
where they fill the gap instead of leaving one core idle behind a long fit. Order of the
work only: results come back in the candidates' order."""


def is_ensemble(candidate: Candidate) -> bool:
    """Whether the candidate combines the others' fitted models (it must come after them)."""
    return issubclass(candidate.factory, Ensemble)


def map_candidates(
    candidates: Mapping[str, Candidate],
    single: Callable[[str, Candidate], T],
    ensemble: Callable[[str, Candidate, dict[str, T]], T] | None = None,
    *,
    threads: int | None = None,
) -> dict[str, T]:
    """``single(name, candidate)`` for every single candidate on ``threads`` threads
    (``EVALUATION_THREADS``), then ``ensemble(name, candidate, done)`` for an ensemble with
    the single candidates' results; a dict in the order of ``candidates``.

    With one thread this is the plain loop in the candidates' order, each ensemble given
    the results before it. With more, the single candidates are ``map_blocks``' blocks,
    costliest first (``HEAVY_FIRST``): BLAS held at one thread around them all, each
    candidate's own blocks in turn on its thread, and the first failure (in that order)
    raised once the running candidates are done, the others not started.
    """
    if ensemble is None and any(is_ensemble(candidate) for candidate in candidates.values()):
        raise ValueError("an ensemble candidate needs its own function (it uses the others' results)")
    threads = EVALUATION_THREADS if threads is None else threads
    singles = {name: candidate for name, candidate in candidates.items() if not is_ensemble(candidate)}
    done: dict[str, T] = {}
    if threads <= 1 or len(singles) <= 1:
        for name, candidate in candidates.items():
            if is_ensemble(candidate):
                assert ensemble is not None
                done[name] = ensemble(name, candidate, dict(done))
            else:
                done[name] = single(name, candidate)
        return done

    def run(name: str) -> None:
        done[name] = single(name, singles[name])

    map_blocks(run, sorted(singles, key=_heavy_first), threads=threads)
    for name, candidate in candidates.items():
        if is_ensemble(candidate):
            assert ensemble is not None
            done[name] = ensemble(name, candidate, {single_name: done[single_name] for single_name in singles})
    return {name: done[name] for name in candidates}


def _heavy_first(name: str) -> int:
    return HEAVY_FIRST.index(name) if name in HEAVY_FIRST else len(HEAVY_FIRST)
