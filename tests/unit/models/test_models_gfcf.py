"""GF-CF, the graph filter tried as a member that is built unlike EASE: pinned by hand."""

import numpy as np
import pytest
import scipy.sparse as sp

from models.candidates import default_candidates
from models.evaluate import evaluate
from models.gfcf import GFCF


def test_a_two_game_case_computed_by_hand() -> None:
    # R = [[1, 1], [1, 0]]: member degrees 2, 1; game degrees 2, 1.
    # R̃ = D_U^-½ R D_I^-½ = [[1/2, 1/√2], [1/√2, 0]], P̃ = R̃ᵀR̃ = [[3/4, 1/(2√2)], [1/(2√2), 1/2]].
    # P̃'s eigenvalues are 1 and 1/4; the leading eigenvector v = (√(2/3), √(1/3)), so
    # V Vᵀ = [[2/3, √2/3], [√2/3, 1/3]] and D_I^-½ V Vᵀ D_I^½ has 1/3 at (0, 1) and 2/3 at (1, 0).
    matrix = sp.csr_matrix(np.array([[1, 1], [1, 0]], dtype=np.float32))
    linear = 1 / (2 * np.sqrt(2))
    assert GFCF(factors=0).fit(matrix).weights_.ravel().tolist() == pytest.approx([0.0, linear, linear, 0.0])
    assert GFCF(factors=1, alpha=0.3).fit(matrix).weights_.ravel().tolist() == pytest.approx(
        [0.0, linear + 0.3 / 3, linear + 0.3 * 2 / 3, 0.0], rel=1e-5
    )


def test_the_filter_matches_its_formula_on_a_random_matrix() -> None:
    rng = np.random.default_rng(0)
    dense = (rng.random((40, 12)) < 0.3) * rng.integers(1, 4, size=(40, 12))
    dense[0] = 0  # a member without entries and a game without members stay 0
    dense[:, 5] = 0
    matrix = sp.csr_matrix(dense.astype(np.float32))
    users, games = dense.sum(axis=1), dense.sum(axis=0)
    inverse = lambda d: np.divide(1, np.sqrt(d), out=np.zeros(d.shape), where=d > 0)  # noqa: E731
    normalised = inverse(users)[:, None] * dense * inverse(games)[None, :]
    _, _, vt = np.linalg.svd(normalised)
    v = vt[:4].T
    expected = normalised.T @ normalised + 0.5 * (inverse(games)[:, None] * (v @ v.T) * np.sqrt(games)[None, :])
    np.fill_diagonal(expected, 0.0)
    fitted = GFCF(factors=4, alpha=0.5).fit(matrix)
    assert np.allclose(fitted.weights_, expected, atol=1e-5)
    again = GFCF(factors=4, alpha=0.5).fit(matrix)
    assert np.array_equal(fitted.score(np.arange(40)), again.score(np.arange(40)))  # a refit, the same lists
    with pytest.raises(ValueError, match="alpha"):
        GFCF(alpha=-1.0).fit(matrix)


def test_a_tried_candidate_is_out_of_the_night_but_can_be_named(small_split) -> None:
    assert "gfcf" not in default_candidates() and "gfcf" in default_candidates(tried=True)
    assert list(default_candidates(tried=True))[-1] == "ensemble"
    train, test = small_split
    report = evaluate(train, test, k=10, seed=0, models=["ease", "gfcf", "ensemble"])
    assert set(report.results) == {"ease", "gfcf", "ensemble"}
    assert set(report.results["gfcf"].params) == {"factors", "alpha"}
