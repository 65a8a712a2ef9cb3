"""The shortcuts that make the night fit at real-site size give the same answers.

`top_n` (a compiled heap) must select exactly what a full partition selects (ties included),
`GramRows` must equal the plain sparse product, and the text projection must only
apply from `LSA_MIN_ROWS` games on.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from models.base import top_n, top_n_exact
from models.similarity import LSA_COMPONENTS, GramRows, reduce_text


@pytest.mark.parametrize("n", [1, 10, 100])
@pytest.mark.parametrize("case", ["plain", "ties", "mostly_inf", "dead_rows"])
def test_top_n_equals_the_full_partition_on_wide_rows(n: int, case: str) -> None:
    rng = np.random.default_rng(n)
    scores = rng.random((40, 2_500)).astype(np.float32)
    if case == "ties":
        scores = np.round(scores * 10) / 10
    elif case == "mostly_inf":
        scores[rng.random(scores.shape) < 0.97] = -np.inf
    elif case == "dead_rows":
        scores[:7] = -np.inf
        scores[7:9, : n // 2] = 1.0
        scores[7:9, n // 2 :] = -np.inf
    got_ids, got_values = top_n(scores, n)
    want_ids, want_values = top_n_exact(scores, n)
    np.testing.assert_array_equal(got_ids, want_ids)
    np.testing.assert_array_equal(got_values, want_values)


def test_gram_rows_equal_the_sparse_product() -> None:
    rng = np.random.default_rng(0)
    dense = rng.random((300, 500)) * (rng.random((300, 500)) < np.linspace(0.001, 0.9, 500))
    features = sp.csr_matrix(dense, dtype=np.float32)
    gram = GramRows(features)
    assert 0 < gram.n_dense_columns < 500  # both routes are used
    rows = np.array([0, 5, 299, 17])
    want = (features[rows] @ features.T).toarray()
    np.testing.assert_allclose(gram.rows(rows), want, rtol=1e-5, atol=1e-5)


def test_text_is_projected_only_on_a_large_catalogue() -> None:
    block = sp.random(600, 2_000, density=0.02, format="csr", dtype=np.float32, random_state=0)
    assert reduce_text(block, min_rows=1_000) is block
    reduced = reduce_text(block, min_rows=500)
    assert reduced.shape == (600, LSA_COMPONENTS)


def test_ease_capped_says_so_and_leaves_out_barely_collected_games() -> None:
    from models.ease import EASE, MIN_MEMBERS

    rng = np.random.default_rng(0)
    dense = (rng.random((200, 60)) < 0.2).astype(np.float32)
    dense[:, 50:] = 0.0
    dense[0, 50:] = 1.0  # ten games with a single member
    model = EASE(l2=10.0, max_items=55).fit(sp.csr_matrix(dense))
    assert model.items_.size == 50 and model.items_.max() < 50
    assert model.fit_notes and "50 most collected of 60 games" in model.fit_notes
    assert f"at least {MIN_MEMBERS} members" in model.fit_notes
    assert EASE(l2=10.0).fit(sp.csr_matrix(dense)).fit_notes is None


def test_model_runs_gain_a_notes_column_in_place(tmp_path) -> None:  # noqa: ANN001
    import duckdb
    import polars as pl

    from warehouse.model_marts import write_model_runs

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    con.execute("CREATE SCHEMA marts")
    con.execute(  # a warehouse from before the column (splits already there)
        "CREATE TABLE marts.model_runs (run_id VARCHAR NOT NULL, model VARCHAR NOT NULL, ndcg DOUBLE, "
        "split VARCHAR NOT NULL DEFAULT 'random', PRIMARY KEY (run_id, model, split))"
    )
    write_model_runs(con, pl.DataFrame({"run_id": ["r"], "model": ["ease"], "notes": ["capped"]}))
    assert con.execute("SELECT notes FROM marts.model_runs").fetchall() == [("capped",)]


def test_rp3beta_capped_while_tuning_walks_only_the_most_collected_games() -> None:
    from models.rp3beta import RP3beta

    rng = np.random.default_rng(1)
    dense = (rng.random((150, 40)) < 0.3).astype(np.float32)
    dense[:, :5] = 0.0
    dense[:2, :5] = 1.0  # five barely collected games
    matrix = sp.csr_matrix(dense)
    capped = RP3beta(max_items=35).fit(matrix)
    assert capped.weights_.shape == (40, 40)
    assert capped.weights_[:, :5].nnz == 0 and capped.weights_[:5].nnz == 0
    assert capped.fit_notes and "35 most collected of 40 games" in capped.fit_notes
    full = RP3beta().fit(matrix)
    assert full.fit_notes is None and full.weights_[:5].nnz > 0
