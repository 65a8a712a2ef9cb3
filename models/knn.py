"""Item-based nearest neighbours from implicit (cosine and BM25 similarity).

A member's score for a game is the sum, over the member's games, of confidence times
the similarity between the two games (implicit's own scorer does the same). Keeping
only the ``K`` nearest neighbours per game makes the similarity sparse and the scores
explainable: "because you like X" is the neighbour that contributed most.
"""

from __future__ import annotations

from typing import Self

import numpy as np
import scipy.sparse as sp
from implicit.nearest_neighbours import ItemItemRecommender, bm25_weight, normalize

from models.base import ItemWeights, Recommender, hyperparameters, sparse_rows_dense
from models.threads import single_threaded_blas
from models.column_scores import product_columns


@hyperparameters
class _ItemKNN(Recommender):
    """Shared scoring on top of implicit's item-item similarity (``similarity_``).

    Both similarities keep ``K`` neighbours per game, declared here once; ``random_state``
    is accepted for a uniform interface and unused (the neighbours are exact).
    """

    K: int = 100
    random_state: int | None = None

    def _weighted(self, matrix: sp.csr_matrix) -> sp.csr_matrix:
        """The users×games matrix weighted as implicit's recommender of this kind weighs it."""
        raise NotImplementedError

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Compute the K-nearest-neighbour similarity between games.

        implicit's ``CosineRecommender``/``BM25Recommender`` weigh the matrix into a COO
        and hand it to ``ItemItemRecommender.fit``, which converts it to CSR and warns. Here
        the same weighting (implicit's own functions) is converted first: the same
        neighbours, and no warning to silence (``warnings.catch_warnings`` swaps the
        process's filter list, unsafe while another candidate fits on a second thread,
        ``models.parallel``)."""
        self.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        with single_threaded_blas():
            model = ItemItemRecommender(K=self.K, num_threads=0)
            model.fit(self._weighted(self.matrix_), show_progress=False)
        self.similarity_ = model.similarity.tocsr().astype(np.float32)
        return self

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """Confidence-weighted sum of neighbour similarities."""
        return sparse_rows_dense(self.matrix_[user_rows], self.similarity_)

    def score_columns(self, user_rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``score(user_rows)[:, cols]``, summing only those columns (``models.column_scores``)."""
        scores = product_columns(self.matrix_[user_rows], self.similarity_, cols)
        return super().score_columns(user_rows, cols) if scores is None else scores

    def item_weights(self) -> ItemWeights:
        """``x_u S`` with the K-nearest-neighbour similarity ``S`` (CSR)."""
        return ItemWeights(self.matrix_, self.similarity_, None, True)

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """The game's neighbour row (zeros beyond its K neighbours)."""
        return self.similarity_[item_idx].toarray()

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """Each of the user's games contributes confidence × similarity to the game."""
        return _contributions(self.matrix_, self.similarity_, user_row, item_idx, n)


@hyperparameters
class ItemKNNCosine(_ItemKNN):
    """Cosine similarity between the games' member vectors; ``K`` neighbours kept per game."""

    name = "cosine"

    def _weighted(self, matrix: sp.csr_matrix) -> sp.csr_matrix:
        """Each game's member vector at unit length (``CosineRecommender.fit``'s weighting)."""
        return normalize(matrix.T).T.tocsr()


@hyperparameters
class ItemKNNBM25(_ItemKNN):
    """BM25-weighted similarity: damps heavy users (``B``) and saturates counts (``K1``)."""

    name = "bm25"

    K1: float = 1.2
    B: float = 0.75

    def _weighted(self, matrix: sp.csr_matrix) -> sp.csr_matrix:
        """BM25 weights over the games' member vectors (``BM25Recommender.fit``'s weighting)."""
        return bm25_weight(matrix.T, self.K1, self.B).T.tocsr()


def _contributions(
    matrix: sp.csr_matrix, weights: sp.csr_matrix | np.ndarray, user_row: int, item_idx: int, n: int
) -> list[tuple[int, float]]:
    """Top positive ``x_uj * W[j, i]`` over the user's games ``j`` (item-to-item models)."""
    start, stop = matrix.indptr[user_row], matrix.indptr[user_row + 1]
    games = matrix.indices[start:stop]
    if games.size == 0:
        return []
    if sp.issparse(weights):
        column = weights[games][:, [item_idx]].toarray().ravel()
    else:
        column = np.asarray(weights[games, item_idx]).ravel()
    contribution = matrix.data[start:stop] * column
    order = np.lexsort((games, -contribution))[:n]
    return [(int(games[j]), float(contribution[j])) for j in order if contribution[j] > 0]
