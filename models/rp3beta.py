"""RP3beta: three-step random walks on the member–game graph, popularity-damped
(Paudel et al. 2017; the strong simple baseline of Dacrema et al. 2019).

A walk goes game → member → game. With ``P_iu`` the row-normalised games×members
matrix and ``P_ui`` the row-normalised members×games matrix, each raised elementwise to
``alpha``, ``W = P_iu · P_ui`` says how likely a walk from game ``i`` ends on game ``j``;
dividing column ``j`` by ``popularity_j ** beta`` stops the walk from always ending on
the blockbusters. Only the ``top_k`` largest entries per row are kept (sparse ``W``),
and a member's scores are ``x_u W``.
"""

from __future__ import annotations

from typing import Self

import numpy as np
import scipy.sparse as sp

from models.base import ItemWeights, Recommender, hyperparameters, sparse_rows_dense, top_n
from models.threads import map_blocks
from models.column_scores import product_columns
from models.ease import modelled_items
from models.knn import _contributions

ROW_BLOCK = 1 << 24
"""Dense cells of one block of ``W`` rows while it is built (64 MB of float32)."""


@hyperparameters
class RP3beta(Recommender):
    """Random walk with restart-free 3 steps; ``alpha`` sharpens, ``beta`` damps popularity."""

    name = "rp3beta"

    alpha: float = 0.8
    beta: float = 0.3
    top_k: int = 200
    max_items: int | None = None
    random_state: int | None = None

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Build the sparse game-to-game walk matrix ``W`` block by block (deterministic).

        With ``max_items`` (a cost cap while tuning: building ``W`` is games² work) only
        the most collected games get walk rows and columns; the others score 0.
        """
        self.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        n_items = self.matrix_.shape[1]
        self.fit_notes = None
        if self.max_items is not None and n_items > self.max_items:
            items = modelled_items(self.matrix_, self.max_items)
            inner = self._walks(self.matrix_[:, items].tocsr()).tocoo()
            self.weights_ = sp.csr_matrix(
                (inner.data, (items[inner.row], items[inner.col])), shape=(n_items, n_items), dtype=np.float32
            )
            self.fit_notes = f"walks over the {items.size:,} most collected of {n_items:,} games (max_items)"
            return self
        self.weights_ = self._walks(self.matrix_)
        return self

    def item_weights(self) -> ItemWeights:
        """``x_u W`` with the walk matrix ``W`` (CSR)."""
        return ItemWeights(self.matrix_, self.weights_, None, True)

    def _walks(self, matrix: sp.csr_matrix) -> sp.csr_matrix:
        """``W`` of this users×games matrix, its ``top_k`` entries per row."""
        n_items = matrix.shape[1]
        p_ui = _row_normalise(matrix)
        p_iu = _row_normalise(matrix.T.tocsr())
        p_ui.data **= self.alpha
        p_iu.data **= self.alpha
        popularity = np.asarray(matrix.getnnz(axis=0), dtype=np.float64)
        damp = np.zeros(n_items, dtype=np.float32)
        seen = popularity > 0
        damp[seen] = popularity[seen] ** -self.beta
        keep = min(self.top_k, n_items)

        step = max(1, ROW_BLOCK // max(n_items, 1))
        starts = list(range(0, n_items, step))
        blocks: list[sp.csr_matrix] = [sp.csr_matrix((0, n_items), dtype=np.float32)] * len(starts)

        def build(block: int) -> None:
            start = starts[block]
            stop = min(start + step, n_items)
            dense = (p_iu[start:stop] @ p_ui).toarray().astype(np.float32) * damp[None, :]
            dense[np.arange(stop - start), np.arange(start, stop)] = 0.0
            blocks[block] = _top_k_rows(dense, keep)

        map_blocks(build, range(len(starts)))  # on two threads, each block in its own slot: the same W
        return sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((0, n_items), dtype=np.float32)

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """``x_u W``."""
        return sparse_rows_dense(self.matrix_[user_rows], self.weights_)

    def score_columns(self, user_rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``score(user_rows)[:, cols]``, summing only those columns (``models.column_scores``)."""
        scores = product_columns(self.matrix_[user_rows], self.weights_, cols)
        return super().score_columns(user_rows, cols) if scores is None else scores

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """Where a walk from the game ends (its row of ``W``)."""
        return self.weights_[item_idx].toarray()

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """Each of the user's games contributes ``x_uj · W_ji``."""
        return _contributions(self.matrix_, self.weights_, user_row, item_idx, n)


def _row_normalise(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """Rows scaled to sum to 1 (empty rows stay empty)."""
    sums = np.asarray(matrix.sum(axis=1)).ravel()
    sums[sums == 0] = 1.0
    scaled = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    scaled.data /= np.repeat(sums, np.diff(scaled.indptr))
    return scaled


def _top_k_rows(dense: np.ndarray, k: int) -> sp.csr_matrix:
    """Keep the ``k`` largest positive entries of each row, as CSR.

    Through ``top_n`` (ties to the lower column, and its prefilter: a full partition of
    every games×games row was most of this model's cost on a 25,000-game catalogue).
    """
    n_rows, n_cols = dense.shape
    cut, values = top_n(dense, min(k, n_cols))
    rows = np.repeat(np.arange(n_rows), cut.shape[1])
    kept = (cut.ravel() >= 0) & (values.ravel() > 0)
    return sp.csr_matrix(
        (values.ravel()[kept], (rows[kept], cut.ravel()[kept])), shape=(n_rows, n_cols), dtype=np.float32
    )
