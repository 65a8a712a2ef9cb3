"""Rows of ``F·Fᵀ`` for a sparse feature matrix, fast at catalogue scale.

Why: content similarity needs, for every game, its cosine to every other game. A plain
sparse product ``F[rows] @ Fᵀ`` costs about Σ df² over the feature columns (df: how
many games have the feature). Character n-grams of Japanese text are shared by a large
share of games (「ゲーム」, 「プレイ」, …), so a few thousand frequent columns make
that sum explode: at 21,000 games it took ~157 s, nearly all in scipy's sparse kernels,
with a result that is dense anyway.

So the columns are split by frequency. Frequent ones (in more than ``DENSE_SHARE`` of
the games) become a dense games×columns block multiplied with BLAS ``sgemm``, whose cost
``n² · columns`` runs ~100× faster per multiply-add than the sparse kernel; the rare
ones stay sparse, where Σ df² is small. The sum of both parts is the same product,
exactly up to float rounding. The dense block is capped at ``MAX_DENSE_CELLS``
(keeping the most frequent columns) so its memory stays bounded.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

DENSE_SHARE = 0.1
"""A column present in more than this share of rows is multiplied densely. Where a
dense column costs ``n²`` multiply-adds at BLAS speed and a sparse one ``df²`` at
~100× less speed, dense wins from ``df ≳ n/10``; 2 % also moves the mid-frequency
n-grams, whose sparse cost dominates what remains (measured on the sample site)."""

MAX_DENSE_CELLS = 100_000_000
"""At most this many float32 cells in the dense block (400 MB)."""


class GramRows:
    """``F[rows] @ Fᵀ`` as dense float32, frequent columns through BLAS."""

    def __init__(self, features: sp.csr_matrix, *, dense_share: float = DENSE_SHARE) -> None:
        features = sp.csr_matrix(features, dtype=np.float32)
        n_rows, n_cols = features.shape
        df = np.diff(features.tocsc().indptr)
        order = np.lexsort((np.arange(n_cols), -df))  # most frequent first, ties by column
        room = MAX_DENSE_CELLS // max(n_rows, 1)
        frequent = order[: min(room, int((df > dense_share * n_rows).sum()))]
        rare = np.setdiff1d(np.arange(n_cols), frequent, assume_unique=True)
        self.n_rows = n_rows
        self.dense = np.ascontiguousarray(features[:, np.sort(frequent)].toarray(), dtype=np.float32)
        self.rare = sp.csr_matrix(features[:, rare], dtype=np.float32)
        self.rare_t = sp.csr_matrix(self.rare.T, dtype=np.float32)

    @property
    def n_dense_columns(self) -> int:
        """How many columns go through BLAS."""
        return int(self.dense.shape[1])

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """Dense ``(len(idx), n_rows)`` block of the product for these rows."""
        idx = np.asarray(idx, dtype=np.int64)
        out = self.dense[idx] @ self.dense.T if self.dense.shape[1] else np.zeros((idx.size, self.n_rows), np.float32)
        out = np.asarray(out, dtype=np.float32)
        if self.rare.nnz:
            out += (self.rare[idx] @ self.rare_t).toarray()
        return out


LSA_MIN_ROWS = 5_000
"""From this many games on, the text block is reduced to ``LSA_COMPONENTS`` dimensions."""

LSA_COMPONENTS = 256

LSA_SAMPLE = 4_000
"""Games the projection's directions are learnt from (a seeded sample): the SVD then
costs the same at any catalogue size, and projecting every game is one sparse × dense
product."""


def reduce_text(block: sp.csr_matrix, *, min_rows: int = LSA_MIN_ROWS, seed: int = 0) -> sp.csr_matrix:
    """The TF-IDF text block as is, or its latent semantic projection on a large catalogue.

    Why: character n-grams are shared so widely that all-pairs text similarity is a dense
    n² × vocabulary product; at 25,000 games that alone is minutes. Projecting the TF-IDF
    rows on their top ``LSA_COMPONENTS`` singular directions (randomized truncated SVD of
    a seeded sample of ``LSA_SAMPLE`` games) keeps the dominant co-occurrence structure, makes the block a small dense one
    that BLAS multiplies in seconds, and smooths spelling variants together. Cosines in
    that space may be slightly negative; the blended similarity ignores those pairs as
    it ignores zero ones. Below ``min_rows`` games the exact n-gram block is cheap and kept.
    """
    n_rows, n_cols = block.shape
    if n_rows < min_rows or n_cols <= LSA_COMPONENTS:
        return block
    from sklearn.decomposition import TruncatedSVD

    svd = TruncatedSVD(n_components=LSA_COMPONENTS, algorithm="randomized", n_iter=1, random_state=seed)
    sample = np.sort(np.random.default_rng(seed).permutation(n_rows)[:LSA_SAMPLE])
    svd.fit(block[sample])
    return sp.csr_matrix(np.asarray(block @ svd.components_.T, dtype=np.float32))
