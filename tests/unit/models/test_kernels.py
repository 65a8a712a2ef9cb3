"""The compiled loops (``models.fast``) give the numbers of the readable reference
(``models.discovery.reference``), bit for bit: top-n against a full partition, the reference scaling, the
blend, MMR and ``segment_argmax`` against the reference's numpy forms, an ensemble member's
statistics against numpy's own sums, the sparse look-ups against scipy's. The products
and sums are in ``test_products.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from models.base import top_n, top_n_exact
from models.discovery import reference as spec
from models.discovery.attribution import gather, gather_flat, segment_argmax
from models.discovery.blend import blend_rows, reference_scale
from models.discovery.rerank import mmr_order
from models.ensemble import row_statistics, zscore_rows
from models.member_statistics import add_zscores, row_statistics_of

FEW_VALUES = st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, -1.0, np.inf, -np.inf, np.nan])
"""Few distinct values: ties everywhere, and every kind of non-finite score."""


def _scores(rng: np.random.Generator, shape: tuple[int, int], case: str) -> np.ndarray:
    scores = rng.random(shape).astype(np.float32)
    if case == "ties":
        scores = np.round(scores * 10) / 10
    elif case == "mostly_inf":
        scores[rng.random(shape) < 0.97] = -np.inf
    elif case == "dead_rows":
        scores[: shape[0] // 3] = -np.inf
    elif case == "non_finite":
        scores[rng.random(shape) < 0.01] = np.nan
        scores[rng.random(shape) < 0.01] = np.inf
        scores[rng.random(shape) < 0.2] = -np.inf
    return scores


@pytest.mark.parametrize("n", [1, 10, 100, 3000])
@pytest.mark.parametrize("case", ["plain", "ties", "mostly_inf", "dead_rows", "non_finite"])
def test_top_n_equals_the_full_partition(n: int, case: str) -> None:
    scores = _scores(np.random.default_rng(n), (40, 2_500), case)
    for block in (scores, scores.astype(np.float64), scores[:, ::3]):  # float64, strided
        got_ids, got_values = top_n(block, n)
        want_ids, want_values = top_n_exact(block, n)
        np.testing.assert_array_equal(got_ids, want_ids)
        np.testing.assert_array_equal(got_values, want_values)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 6), st.integers(1, 40)), elements=FEW_VALUES), st.integers(1, 45))
def test_top_n_equals_the_full_partition_on_any_block(scores: np.ndarray, n: int) -> None:
    got_ids, got_values = top_n(scores, n)
    want_ids, want_values = top_n_exact(scores, n)
    np.testing.assert_array_equal(got_ids, want_ids)
    np.testing.assert_array_equal(got_values, want_values)


@settings(max_examples=200, deadline=None)
@given(
    arrays(np.float32, st.tuples(st.integers(1, 6), st.integers(1, 40)),
           elements=st.floats(-2, 2, width=32) | st.sampled_from([0.0, 1.0])),
    st.integers(1, 45),
    st.randoms(use_true_random=False),
)
def test_reference_scale_equals_its_numpy_form(values: np.ndarray, reference: int, random) -> None:
    mask = np.array([[random.random() < 0.7 for _ in range(values.shape[1])] for _ in range(values.shape[0])])
    got = reference_scale(values, mask, reference)
    want = spec.reference_scale(values, mask, reference)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_reference_scale_equals_its_numpy_form_at_catalogue_width() -> None:
    rng = np.random.default_rng(3)
    values = np.maximum(rng.normal(size=(30, 25_000)), 0).astype(np.float32)
    mask = rng.random(values.shape) < 0.9
    mask[0] = False  # no candidate at all
    mask[1, 50:] = False  # fewer candidates than the reference rank
    values[2] = 0.5  # flat
    for reference in (1, 100, 30_000):
        got, want = reference_scale(values, mask, reference), spec.reference_scale(values, mask, reference)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("seed", range(12))
def test_heaps_starting_from_a_sampled_floor_keep_their_entries(seed: int) -> None:
    """Wide rows (where ``models.kernels.entry_floor`` samples a starting floor) of few
    distinct values, so that ties sit at and around any sampled floor, with infinities
    and NaN: top-n and the reference scale equal the full partition and the numpy form."""
    rng = np.random.default_rng(seed)
    few = np.array([0.0, -0.0, 0.25, 0.5, 1.0, 2.0, -1.0, 1e-30, np.inf, -np.inf, np.nan], dtype=np.float32)
    width = int(rng.integers(1_500, 6_000))
    p = rng.dirichlet(np.ones(few.size) * rng.choice([0.3, 3.0]))
    if seed % 3:  # most rows finite: the sampled floor is taken
        p[few.size - 3:] = [0.0, 0.02, 0.0]
        p /= p.sum()
    values = rng.choice(few, size=(8, width), p=p)
    values[1] = rng.choice(few[:6], size=width)  # only ties
    mask = rng.random(values.shape) < rng.uniform(0.3, 1.0)
    for n in (1, 10, 100, 400):
        got_ids, got_values = top_n(values, n)
        want_ids, want_values = top_n_exact(values, n)
        np.testing.assert_array_equal(got_ids, want_ids)
        np.testing.assert_array_equal(got_values, want_values)
        np.testing.assert_array_equal(np.signbit(got_values), np.signbit(want_values))  # the same zero
        got, want = reference_scale(values, mask, n), spec.reference_scale(values, mask, n)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("n_cols", [1, 7, 8, 129, 2_000, 25_000])
def test_member_statistics_equal_zscore_rows_at_every_width(n_cols: int) -> None:
    rng = np.random.default_rng(n_cols)
    scores = (rng.normal(size=(6, n_cols)) * rng.uniform(0.01, 50, size=(6, 1))).astype(np.float32)
    scores[1, ::5] = -np.inf
    scores[2, ::3] = np.nan
    own = sp.random(6, n_cols, density=0.05, format="csr", random_state=rng, dtype=np.float32)
    own.data[:] = 1.0
    statistics = row_statistics_of(scores, own)
    mean, spread = row_statistics(scores, own)
    assert np.array_equal(statistics.mean, mean) and np.array_equal(statistics.spread, spread)
    total = np.zeros_like(scores)
    add_zscores(total, 2.0, scores, statistics)
    assert np.array_equal(total, np.float32(2.0) * zscore_rows(scores, own))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_look_ups_equal_scipys(dtype: type) -> None:
    rng = np.random.default_rng(5)
    matrix = sp.random(300, 400, density=0.05, format="csr", random_state=rng, dtype=dtype)
    matrix.data[::7] = 0.0  # an explicit zero is still a stored value
    rows = rng.integers(0, 300, size=20_000)
    cols = rng.integers(0, 400, size=20_000)
    rows[:5_000] = np.repeat(np.arange(300), np.diff(matrix.indptr))[:5_000]  # stored entries too
    cols[:5_000] = matrix.indices[:5_000]
    want = np.asarray(matrix[rows, cols], dtype=np.float32).ravel()
    assert matrix.has_canonical_format
    np.testing.assert_array_equal(gather_flat(matrix, rows, cols), want)
    row_of = np.repeat(np.arange(300), np.diff(matrix.indptr))
    order = np.lexsort((-matrix.indices, row_of))  # each row's columns in descending order
    unsorted = sp.csr_matrix((matrix.data[order], matrix.indices[order], matrix.indptr.copy()), shape=matrix.shape)
    assert not unsorted.has_canonical_format  # scipy's own look-up then
    np.testing.assert_array_equal(gather_flat(unsorted, rows, cols), want)


@pytest.mark.parametrize("diversity", [0.4, 0.05, 3.0])
def test_mmr_equals_its_numpy_form(diversity: float) -> None:
    rng = np.random.default_rng(int(diversity * 100))
    n_games = 500
    graph = sp.random(n_games, n_games, density=0.05, format="csr", random_state=rng, dtype=np.float32)
    graph = sp.csr_matrix(graph + graph.T)
    scores = np.round(rng.random((200, n_games)), 2).astype(np.float32)  # ties
    scores[rng.random(scores.shape) < 0.5] = -np.inf
    scores[:5, 12:] = -np.inf  # shorter than the pool, than k, or empty
    scores[5] = -np.inf
    for take in (100, 20, 8):
        ids, values = top_n(scores, take)
        got = mmr_order(ids, values, graph, diversity)
        want = spec.mmr_order(ids, values, graph, diversity)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_row_gathers_equal_scipys() -> None:
    rng = np.random.default_rng(8)
    matrix = sp.random(300, 400, density=0.1, format="csr", random_state=rng, dtype=np.float32)
    rows = rng.integers(0, 300, size=500)
    cols = rng.integers(0, 400, size=(500, 60))
    cols[:, :5] = 0  # padding repeats a column
    want = np.asarray(matrix[np.repeat(rows, 60), cols.ravel()], dtype=np.float32).reshape(cols.shape)
    np.testing.assert_array_equal(gather(matrix, rows, cols), want)
    np.testing.assert_array_equal(gather(matrix.toarray(), rows, cols), want)  # dense weights


@pytest.mark.parametrize("n_cols", [1, 5, 300, 25_000])
def test_the_compiled_blend_equals_its_numpy_form(n_cols: int) -> None:
    rng = np.random.default_rng(n_cols)
    n_rows = 40
    cf = np.maximum(rng.normal(size=(n_rows, n_cols)), 0).astype(np.float32)
    cf[0] = 0.0  # the champion has nothing to say
    cf[1, : n_cols // 2] = 0.0
    cf[2] = np.round(cf[2], 1)  # ties
    content = np.maximum(rng.normal(size=(n_rows, n_cols)) - 1, 0).astype(np.float32)
    content[3] = 0.0
    candidates = rng.random((n_rows, n_cols)) < 0.9
    candidates[4] = False  # nothing to list
    candidates[5, 3:] = False  # fewer candidates than the reference rank
    warm = rng.random(n_cols) < 0.95
    pop_term = (0.05 * rng.random(n_cols)).astype(np.float32)
    for reference in (1, 100):
        got = blend_rows(cf, candidates, warm, content, pop_term, np.float32(0.25), reference)
        want = spec.blend(cf, candidates, warm, content, pop_term, 0.25, reference)
        for got_part, want_part in zip(got, want, strict=True):
            np.testing.assert_array_equal(got_part, want_part)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 6),
    st.lists(st.tuples(st.integers(0, 5), st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan, np.inf, -np.inf]),
                       st.integers(0, 9)), max_size=40),
    st.sampled_from([np.float32, np.float64]),
)
def test_segment_argmax_equals_its_numpy_form(n_segments: int, rows: list, dtype: type) -> None:
    segment = np.array([min(s, n_segments - 1) for s, _, _ in rows], dtype=np.int64)
    values = np.array([v for _, v, _ in rows], dtype=dtype)
    label = np.array([g for _, _, g in rows], dtype=np.int64)
    np.testing.assert_array_equal(segment_argmax(segment, values, label, n_segments),
                                  spec.segment_argmax(segment, values, label, n_segments))
