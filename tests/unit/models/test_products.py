"""The compiled products and sums give scipy's and numpy's numbers, bit for bit: numpy's
pairwise sum, scipy's sparse row products summed, the content and item-to-item products
(whole rows and a few columns), EASE's scores, and the clipped scores placed on the
catalogue's columns.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from models.base import sparse_rows_dense
from models.candidates import default_candidates
from models.discovery.blend import placed_scores
from models.fast.pairwise import csr_row_dots, pairwise_sum
from models.interactions import InteractionMatrix
from models.weighting import WEIGHTINGS


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 136, 255, 256, 257, 1_000, 4_097, 25_000, 100_003])
def test_the_pairwise_sum_is_numpys(n: int) -> None:
    rng = np.random.default_rng(n)
    values = rng.normal(size=n) * 10.0 ** rng.integers(-6, 6, size=n)
    assert pairwise_sum(values, 0, n, 0.0) == np.sum(values)  # exactly: the same additions in the same order
    rows = values.reshape(1, n) if n else values.reshape(1, 0)
    assert pairwise_sum(values, 0, n, 0.0) == rows.sum(axis=1)[0]
    single = values.astype(np.float32)  # numpy sums float32 in float32, in the same order
    got = pairwise_sum(single, 0, n, np.float32(0.0))  # a float32, boxed as a Python float
    assert got == float(np.float32(got)) and np.float32(got).tobytes() == np.sum(single).tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_csr_row_dots_are_scipys_row_products_summed(seed: int) -> None:
    """Random rows of every length (overlaps past 8 and 128 items, where numpy's pairwise
    order starts to matter), products that underflow to 0 (scipy drops them before
    summing), stored zeros, empty rows and a row paired with itself."""
    rng = np.random.default_rng(seed)
    n_rows, n_cols = 60, 2_000
    lengths = rng.choice([0, 1, 3, 9, 40, 130, 300, 1_500], size=n_rows)
    rows = np.repeat(np.arange(n_rows), lengths)
    cols = np.concatenate([rng.choice(n_cols, size=k, replace=False) for k in lengths])
    values = rng.random(rows.size).astype(np.float32) * np.float32(10.0) ** rng.integers(-25, 3, size=rows.size)
    matrix = sp.csr_matrix((values.astype(np.float32), (rows, cols)), shape=(n_rows, n_cols))
    matrix.sum_duplicates()
    matrix.data[rng.random(matrix.nnz) < 0.01] = 0.0  # stored zeros
    assert matrix.has_canonical_format and matrix.dtype == np.float32
    a = rng.integers(0, n_rows, size=3_000)
    b = np.where(rng.random(3_000) < 0.1, a, rng.integers(0, n_rows, size=3_000))
    for order in (np.arange(a.size), np.argsort(b, kind="stable")):  # b changing at every pair, or in runs
        a, b = a[order], b[order]
        want = np.asarray(matrix[a].multiply(matrix[b]).sum(axis=1), dtype=np.float32).ravel()
        got = csr_row_dots(matrix.indptr, matrix.indices, matrix.data, n_cols, a, b)
        assert got.dtype == np.float32
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_products_equal_scipys_product(dtype: type) -> None:
    """Content scores and the sparse item-to-item models' scores (``sparse_rows_dense``):
    compiled for float32, with scipy's sums; scipy's own product for other types."""
    rng = np.random.default_rng(11)
    liked = sp.random(50, 700, density=0.03, format="csr", random_state=rng, dtype=dtype)
    graph = sp.random(700, 700, density=0.1, format="csr", random_state=rng, dtype=dtype)
    graph.data -= dtype(0.5)  # signs mixed: sums that cancel
    liked.data[:3] = np.inf  # inf times a stored zero of the graph is NaN in both
    graph.data[:5] = 0
    got = sparse_rows_dense(liked, graph)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.asarray((liked @ graph).toarray(), dtype=np.float32))


@pytest.mark.parametrize("max_items", [90, 10_000])
def test_ease_scores_equal_scipys_product(max_items: int, small_split) -> None:
    """EASE's compiled scoring: scipy's product of the modelled columns, ``-inf`` elsewhere."""
    train, _ = small_split
    matrix = InteractionMatrix.from_frame(train, WEIGHTINGS["graded"]).matrix
    model = default_candidates()["ease"].build({"max_items": max_items}, 0).fit(matrix)
    rows = np.arange(0, matrix.shape[0], 2)
    inner = np.asarray(model.matrix_[rows][:, model.items_] @ model.weights_, dtype=np.float32)
    want = np.full((rows.size, model.n_items), -np.inf, dtype=np.float32)
    want[:, model.items_] = inner
    got = model.score(rows)
    assert (max_items < model.n_items) == bool(np.isinf(got).any())
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["ease", "cosine", "bm25", "rp3beta"])
def test_scoring_a_few_columns_equals_the_whole_rows_columns(name: str, small_split) -> None:
    train, _ = small_split
    matrix = InteractionMatrix.from_frame(train, WEIGHTINGS["graded"]).matrix
    params = {"max_items": 90} if name == "ease" else {}  # some games not modelled: -inf
    model = default_candidates()[name].build(params, 0).fit(matrix)
    rows = np.arange(0, matrix.shape[0], 3)
    rng = np.random.default_rng(1)
    for cols in (np.flatnonzero(rng.random(matrix.shape[1]) < 0.2), np.arange(matrix.shape[1]), np.array([5])):
        np.testing.assert_array_equal(model.score_columns(rows, cols), model.score(rows)[:, cols])


def test_placed_scores_equal_numpys_clip_and_copy() -> None:
    rng = np.random.default_rng(12)
    raw = rng.normal(size=(30, 40)).astype(np.float32)
    raw[0, :5] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    rows = np.sort(rng.choice(50, size=30, replace=False))
    cols = np.sort(rng.choice(60, size=40, replace=False))
    want = np.zeros((50, 60), dtype=np.float32)
    clipped = np.maximum(raw, 0.0)
    clipped[~np.isfinite(clipped)] = 0.0
    want[np.ix_(rows, cols)] = clipped
    np.testing.assert_array_equal(placed_scores(raw, rows, cols, 50, 60), want)
