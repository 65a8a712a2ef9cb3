"""An ensemble champion serves from its members' kept statistics the same lists, bit for bit.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/models/test_ensemble_serving.py.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from models.ensemble import row_statistics, zscore_rows
from models.member_statistics import add_zscores, row_statistics_of


def test_the_statistics_routines_equal_zscore_rows_on_edge_cases() -> None:
    """Constant rows, rows without finite scores, NaN, +inf, rows of own games only, and
    chunks of rows (``CHUNK_CELLS``) that cut a batch anywhere."""
    rng = np.random.default_rng(7)
    for n_rows, n_cols, unscorable, owned in [(40, 2000, 0.0, 0.02), (40, 2000, 0.3, 0.02), (9, 4, 0.4, 0.3)]:
        scores = (rng.normal(size=(n_rows, n_cols)) * rng.uniform(0.01, 50, size=(n_rows, 1))).astype(np.float32)
        scores[rng.random(scores.shape) < unscorable] = -np.inf
        scores[0] = 3.0
        scores[1] = -np.inf
        scores[2, ::2] = np.nan
        scores[3, ::3] = np.inf
        own = sp.random(n_rows, n_cols, density=owned, format="csr", random_state=rng, dtype=np.float32)
        own.data[:] = 1.0
        own = sp.lil_matrix(own)
        own[4, :] = 1.0  # every game the member's own: no rankable score
        own = own.tocsr()
        statistics = row_statistics_of(scores, own)
        mean, spread = row_statistics(scores, own)
        assert np.array_equal(statistics.mean, mean) and np.array_equal(statistics.spread, spread)
        expected = zscore_rows(scores, own)
        cols = np.flatnonzero(rng.random(n_cols) < 0.5)
        for weight, columns in [(1.0, None), (3.0, None), (2.0, cols)]:
            start = rng.normal(size=(n_rows, n_cols if columns is None else columns.size)).astype(np.float32)
            total = start.copy()
            add_zscores(total, weight, scores, statistics, columns)
            z = expected if columns is None else expected[:, columns]
            assert np.array_equal(total, start + np.float32(weight) * z)
