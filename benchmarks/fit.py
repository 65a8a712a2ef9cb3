"""Fit time of every candidate against bare implicit ALS on the same ~1M interactions.

Run: ``uv run python -m benchmarks.fit [--repeats 3]`` (``OPENBLAS_NUM_THREADS=1`` is set
here before numpy loads). Prints one JSON object: ``n_interactions``, ``als_seconds``
(implicit's ``AlternatingLeastSquares``, 64 factors, 15 iterations, one BLAS thread) and,
per candidate at its default parameters, ``seconds`` and ``ratio`` to bare ALS. The target
for the champion is a ratio of at most 1.2 (or a stated reason). Each fit is repeated and
the median kept: a shared 2-core machine makes single timings noisy.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

from benchmarks.options import options  # noqa: E402

CANDIDATES = ("als", "ease", "rp3beta", "bm25", "cosine")
"""Candidates timed (popularity is a column count; BPR is not a champion on these data)."""


def _median_seconds(fit: Callable[[], object], repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        fit()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings)


def fit_ratios(
    *, users: int = 6_040, games: int = 3_700, interactions: int = 1_000_000, repeats: int = 3, seed: int = 0
) -> dict[str, Any]:
    """Build the matrix, time bare ALS and each candidate's own fit."""
    from implicit.cpu.als import AlternatingLeastSquares
    from threadpoolctl import threadpool_limits

    from models.candidates import default_candidates
    from models.interactions import InteractionMatrix, normalise_interactions
    from models.synthetic import synthetic_interactions
    from models.threads import single_threaded_blas
    from models.weighting import WEIGHTINGS

    frame = synthetic_interactions(users, games, n_interactions=interactions, statuses=False, seed=seed)
    matrix = InteractionMatrix.from_frame(normalise_interactions(frame), WEIGHTINGS["binary"]).matrix

    def fit_als() -> None:
        with threadpool_limits(limits=1, user_api="blas"):
            AlternatingLeastSquares(factors=64, iterations=15, random_state=seed).fit(matrix, show_progress=False)

    fit_als()  # warm-up: first calls pay for thread pools and page faults
    als_seconds = _median_seconds(fit_als, repeats)
    candidates = default_candidates()
    fits: dict[str, dict[str, float]] = {}
    for name in CANDIDATES:
        def fit(name: str = name) -> None:
            with single_threaded_blas():
                candidates[name].build({}, seed).fit(matrix)

        seconds = _median_seconds(fit, repeats)
        fits[name] = {"seconds": round(seconds, 3), "ratio": round(seconds / als_seconds, 3)}
    return {
        "n_interactions": int(matrix.nnz),
        "n_users": int(matrix.shape[0]),
        "n_games": int(matrix.shape[1]),
        "als_seconds": round(als_seconds, 3),
        "candidates": fits,
    }


def main() -> None:
    args = options(None, __doc__.splitlines()[0], users=6_040, games=3_700, interactions=1_000_000, repeats=3,
                   seed=0)
    print(json.dumps(fit_ratios(users=args.users, games=args.games, interactions=args.interactions,
                                repeats=args.repeats, seed=args.seed)))


if __name__ == "__main__":
    main()
