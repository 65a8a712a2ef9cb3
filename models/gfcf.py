"""GF-CF: a graph filter over the member–game graph, in closed form (Shen et al. 2021,
"How Powerful is Graph Convolution for Recommendation?").

With ``R`` the users×games confidences and ``D_U``, ``D_I`` its row and column sums, the
normalised matrix is ``R̃ = D_U^-½ R D_I^-½``. Two filters are added:

* the **linear** filter ``P̃ = R̃ᵀR̃``, a normalised item–item co-occurrence (what a
  linear graph convolution converges to);
* an **ideal low-pass** filter ``D_I^-½ V Vᵀ D_I^½``, where ``V`` holds the ``factors``
  leading right singular vectors of ``R̃`` (the eigenvectors of ``P̃``): the smooth part
  of the graph signal, a factor model without training.

``W = P̃ + alpha · D_I^-½ V Vᵀ D_I^½`` and a member's scores are ``x_u W``. Why a candidate
beside EASE: the ensemble's strong members (EASE, EDLAE, ALS) all fit the same
co-occurrences linearly; a normalised graph filter ranks with a different bias (degree
normalisation damps both heavy members and blockbusters) and no training at all, which is
what an ensemble needs from a new member. Deterministic: ``V`` comes from a fixed-start
Lanczos eigensolver (ARPACK) on ``P̃``, so a refit on the same rows gives the same lists.

Cost is EASE's (``W`` is dense over at most ``max_items`` of the most collected games,
``models.ease.modelled_items``): the Gram matrix, plus ``factors`` eigenvectors of a dense
symmetric matrix, and no inverse.
"""

from __future__ import annotations

from typing import Self

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

from models.base import hyperparameters
from models.ease import DenseItemModel, gram_matrix


@hyperparameters
class GFCF(DenseItemModel):
    """Linear plus ideal low-pass graph filter; ``factors`` eigenvectors weighed by ``alpha``."""

    name = "gfcf"

    factors: int = 64
    alpha: float = 0.3

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Check ``factors`` and ``alpha`` before anything is kept, then fit as every dense model."""
        if self.factors < 0 or self.alpha < 0:
            raise ValueError(f"GF-CF needs factors >= 0 and alpha >= 0, got {self.factors} and {self.alpha}")
        return super().fit(matrix)

    def _solve(self, sub: sp.csr_matrix) -> np.ndarray:
        """The graph filter ``W`` of the modelled games."""
        return graph_filter(sub, self.factors, self.alpha)


def graph_filter(matrix: sp.csr_matrix, factors: int, alpha: float) -> np.ndarray:
    """``W = P̃ + alpha · D_I^-½ V Vᵀ D_I^½`` of a users×games matrix, zero diagonal; float32.

    Members and games without any entry have degree 0 and stay 0 (no division by zero).
    The eigenvectors' signs do not matter (``V Vᵀ``); fewer than ``factors`` are taken when
    the catalogue is smaller.
    """
    n_items = matrix.shape[1]
    user_degree = np.asarray(matrix.sum(axis=1), dtype=np.float64).ravel()
    item_degree = np.asarray(matrix.sum(axis=0), dtype=np.float64).ravel()
    user_scale = np.divide(1.0, np.sqrt(user_degree), out=np.zeros_like(user_degree), where=user_degree > 0)
    item_scale = np.divide(1.0, np.sqrt(item_degree), out=np.zeros_like(item_degree), where=item_degree > 0)
    users_normalised = sp.diags(user_scale.astype(np.float32)) @ matrix
    weights = gram_matrix(sp.csr_matrix(users_normalised, dtype=np.float32))
    weights *= item_scale.astype(np.float32)[:, None]
    weights *= item_scale.astype(np.float32)[None, :]  # P̃ = D_I^-½ Rᵀ D_U^-1 R D_I^-½
    k = min(factors, n_items - 1)
    if k > 0 and alpha > 0:
        start = np.ones(n_items) / np.sqrt(n_items)  # fixed start: the same V on the same rows
        _, vectors = eigsh(weights, k=k, which="LA", v0=start)
        left = (vectors * item_scale[:, None]).astype(np.float32)
        right = (vectors * np.sqrt(item_degree)[:, None]).astype(np.float32)
        weights += np.float32(alpha) * (left @ right.T)
    weights[np.diag_indices(n_items)] = 0.0
    return np.ascontiguousarray(weights, dtype=np.float32)
