"""EASE: a closed-form linear item-to-item model (Steck 2019, "Embarrassingly Shallow
Autoencoders for Sparse Data").

With the Gram matrix ``G = XᵀX`` of the users×games confidences and an L2 penalty λ,
``P = (G + λI)⁻¹`` and ``B = I − P·diag(1/diag(P))``: ``B_ij = −P_ij / P_jj`` off the
diagonal and a zero diagonal (a game may not predict itself). A member's scores are
``x_u B``. It is usually the strongest simple model on dense-ish catalogues such as a
board game site's; its cost is one dense n×n inverse.

Memory and time grow with the square and cube of the number of games, so the model
keeps at most ``max_items`` games, the most popular ones among those with at least
``MIN_MEMBERS`` members (a game one member collected has no co-occurrence to learn
from), and says so in the log and in ``fit_notes`` (``marts.model_runs.notes``); the
others are never recommended by it. Measured on one core (the scale benchmark): ML-1M's
3,700 games fit in about 1.5 s, 10,000 games in about 30 s (0.4 GB), while 20,000 would
take about 4 minutes per fit and 1.6 GB, which the night cannot afford for a candidate
fitted three times. Hence ``max_items = 10_000``.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from typing import ClassVar, Self

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas, lapack

from models.base import ItemWeights, Recommender, hyperparameters
from models.threads import single_threaded_blas
from models.column_scores import dense_product_rows, product_columns
from models.knn import _contributions

log = logging.getLogger("bodoge.models")

GRAM_BLOCK = 1 << 26
"""Dense cells of one block while building the Gram matrix (256 MB of float32)."""

DENSE_RATE = 1e11
"""Multiply-adds per second of single-threaded float32 BLAS, roughly."""

MIN_MEMBERS = 3
"""Games with fewer members are left out of the dense model when the catalogue is capped."""

SPARSE_RATE = 5e8
"""Multiply-adds per second of scipy's sparse product, roughly."""


@hyperparameters
class DenseItemModel(Recommender):
    """A dense games×games weight matrix ``weights_`` over the modelled games ``items_``:
    a member's scores are ``x_u W`` (``-inf`` for games not modelled), a game's similar games
    its row of ``W``, and each of the member's games contributes ``x_uj · W_ji``.

    Why a base: EASE and the graph filter (``models.gfcf``) differ only in how ``W`` is
    solved (``_solve``); fitting, scoring, similarity, reasons
    (``models.discovery.attribution``) and the cap on the modelled games (``max_items``)
    are the same code. ``random_state`` is accepted for a uniform interface and unused:
    ``W`` is solved in closed form.
    """

    max_items: int = 10_000
    random_state: int | None = None

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Choose the modelled games, then solve for ``W`` on one BLAS thread (deterministic)."""
        sub = self._modelled_columns(matrix)
        with single_threaded_blas():
            self.weights_ = self._solve(sub)
        return self

    @abstractmethod
    def _solve(self, sub: sp.csr_matrix) -> np.ndarray:
        """``W`` (float32, modelled × modelled games) from the users × modelled games block."""

    def _modelled_columns(self, matrix: sp.csr_matrix) -> sp.csr_matrix:
        """Keep ``matrix`` and choose the modelled games (``modelled_items``); the note says
        when the cap left games out. Returns the users × modelled games block."""
        self.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        n_items = self.matrix_.shape[1]
        self.items_ = modelled_items(self.matrix_, self.max_items)
        self.fit_notes = None
        if self.items_.size < n_items:
            self.fit_notes = (
                f"modelled the {self.items_.size:,} most collected of {n_items:,} games "
                f"(max_items {self.max_items:,}, at least {MIN_MEMBERS} members); the rest are not recommended by it"
            )
            log.info("%s %s", self.name, self.fit_notes)
        return self.matrix_[:, self.items_].tocsr()

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """``x_u W`` for the modelled games, ``-inf`` for the others."""
        sub = self.matrix_[user_rows][:, self.items_]
        weights = self.weights_
        if sub.dtype == np.float32 and weights.dtype == np.float32 and weights.flags.c_contiguous:
            # compiled, the same sums as scipy's product (``models.column_scores``)
            return dense_product_rows(sub, weights, self.items_, self.n_items)
        with single_threaded_blas():
            inner = np.asarray(sub @ self.weights_, dtype=np.float32)
        if self.items_.size == self.n_items:
            return inner
        scores = np.full((len(user_rows), self.n_items), -np.inf, dtype=np.float32)
        scores[:, self.items_] = inner
        return scores

    def score_columns(self, user_rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``score(user_rows)[:, cols]``, summing only those columns (``models.column_scores``)."""
        position = self._positions()[np.asarray(cols, dtype=np.int64)]
        modelled = position >= 0
        sub = self.matrix_[user_rows][:, self.items_]
        inner = product_columns(sub, self.weights_, position[modelled])
        if inner is None:
            return super().score_columns(user_rows, cols)
        scores = np.full((len(user_rows), position.size), -np.inf, dtype=np.float32)
        scores[:, modelled] = inner
        return scores

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """How strongly each game predicts the others (its row of ``W``)."""
        sims = np.full((len(item_idx), self.n_items), -np.inf, dtype=np.float32)
        position = self._positions()[item_idx]
        known = position >= 0
        rows = np.flatnonzero(known)
        inner = np.full((len(item_idx), self.items_.size), -np.inf, dtype=np.float32)
        inner[rows] = self.weights_[position[known]]
        sims[:, self.items_] = inner
        return sims

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """Each of the user's games contributes ``x_uj · W_ji`` to the game's score."""
        position = self._positions()
        if position[item_idx] < 0:
            return []
        sub = self.matrix_[[user_row]][:, self.items_].tocsr()
        pairs = _contributions(sub, self.weights_, 0, int(position[item_idx]), n)
        return [(int(self.items_[j]), value) for j, value in pairs]

    explains_by_weights: ClassVar[bool] = False
    """Whether discovery's reasons attribute a score through ``W`` (``ItemWeights.explains``)."""

    def item_weights(self) -> ItemWeights:
        """``x_u W`` over the modelled games ``items_``."""
        return ItemWeights(self.matrix_, self.weights_, self.items_, self.explains_by_weights)

    def _positions(self) -> np.ndarray:
        """Column index → position among the modelled games (-1 when not modelled)."""
        positions = self.item_weights().positions()
        assert positions is not None  # a dense W
        return positions


@hyperparameters
class EASE(DenseItemModel):
    """EASE with penalty ``l2`` (λ) over at most ``max_items`` of the most popular games.

    ``dropout`` (p, 0 ≤ p < 1) adds the emphasis of a denoising autoencoder with dropout
    on its input (Steck 2020, "Autoencoders that don't overfit towards the identity",
    EDLAE): the penalty becomes ``λI + p/(1−p)·diag(G)``, so a game is regularised in
    proportion to how many members have it. 0 is plain EASE.
    """

    name = "ease"
    explains_by_weights = True

    l2: float = 300.0
    dropout: float = 0.0

    def _solve(self, sub: sp.csr_matrix) -> np.ndarray:
        """``B`` in closed form from the Gram matrix of the modelled games."""
        return ease_weights(gram_matrix(sub), self.l2, overwrite_gram=True, dropout=self.dropout)


@hyperparameters
class EDLAE(EASE):
    """EASE with the dropout emphasis on by default (p = 0.5), a candidate of its own.

    On MovieLens-100k (5 seeds, ``benchmarks.quality_real``) tuned EDLAE beat tuned plain
    EASE by about 1.5 % NDCG@10, with dropout 0.5–0.67 chosen on every seed; plain EASE
    stays a candidate as the literature's baseline.
    """

    name = "edlae"

    dropout: float = 0.5


def modelled_items(matrix: sp.csr_matrix, max_items: int) -> np.ndarray:
    """All columns, or at most ``max_items`` with the most members (ties: lower column), sorted.

    When capping, games with fewer than ``MIN_MEMBERS`` members are left out first.
    """
    n_items = matrix.shape[1]
    if n_items <= max_items:
        return np.arange(n_items)
    counts = matrix.getnnz(axis=0)
    order = np.lexsort((np.arange(n_items), -counts))
    order = order[counts[order] >= MIN_MEMBERS]
    return np.sort(order[:max_items])


def gram_matrix(matrix: sp.csr_matrix) -> np.ndarray:
    """Dense symmetric ``XᵀX`` in float32, by whichever route is cheaper for this matrix.

    Dense route: BLAS ``ssyrk`` over blocks of users, accumulating in place (one
    triangle, no n×n temporaries); it ignores sparsity, so its cost grows with
    users × games². Sparse route: ``Xᵀ·X[:, block]`` for blocks of games, whose cost
    grows with Σ (games per user)². A dense site like ML-1M takes the first, a large
    sparse catalogue the second. The rates are rough single-core figures.
    """
    n_users, n_items = matrix.shape
    dense_seconds = n_users * float(n_items) ** 2 / DENSE_RATE
    per_user = np.diff(matrix.indptr).astype(np.float64)
    sparse_seconds = float((per_user**2).sum()) / SPARSE_RATE
    if dense_seconds <= sparse_seconds:
        return _dense_gram(matrix)
    return _sparse_gram(matrix)


def _dense_gram(matrix: sp.csr_matrix) -> np.ndarray:
    n_users, n_items = matrix.shape
    gram = np.zeros((n_items, n_items), dtype=np.float32, order="F")
    block = max(1, GRAM_BLOCK // max(n_items, 1))
    for start in range(0, n_users, block):
        dense_t = matrix[start : start + block].toarray().T  # games × users, Fortran order
        gram = blas.ssyrk(1.0, dense_t, beta=1.0, c=gram, trans=0, lower=0, overwrite_c=1)
    _fill_lower_from_upper(gram)
    return gram


def _sparse_gram(matrix: sp.csr_matrix) -> np.ndarray:
    n_items = matrix.shape[1]
    by_column = matrix.tocsc()
    transposed = by_column.T.tocsr()
    gram = np.empty((n_items, n_items), dtype=np.float32, order="F")
    block = max(1, GRAM_BLOCK // max(n_items, 1))
    for start in range(0, n_items, block):
        stop = min(start + block, n_items)
        gram[:, start:stop] = (transposed @ by_column[:, start:stop]).toarray()
    return gram


def ease_weights(gram: np.ndarray, l2: float, *, overwrite_gram: bool = False, dropout: float = 0.0) -> np.ndarray:
    """``B = I − P·diag(1/diag(P))``, ``P = (G + Λ)⁻¹``, zero diagonal; float32.

    ``Λ = λI + p/(1−p)·diag(G)`` with ``p = dropout`` (``λI`` for plain EASE).

    The inverse goes through a Cholesky factorisation (``G + λI`` is symmetric positive
    definite for λ > 0), half the work of a general inverse, and works in place so the
    peak memory is about two n×n float32 matrices (one with ``overwrite_gram``, which
    lets the result reuse the Gram matrix's memory).
    """
    if l2 <= 0:
        raise ValueError(f"EASE needs l2 > 0, got {l2}")
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"EASE needs 0 <= dropout < 1, got {dropout}")
    n_items = gram.shape[0]
    if n_items == 0:
        return np.zeros((0, 0), dtype=np.float32)
    system = np.asarray(gram, dtype=np.float32)
    if not overwrite_gram or not (system.flags.c_contiguous or system.flags.f_contiguous):
        system = np.array(system, dtype=np.float32, order="F")
    diagonal = np.diag_indices(n_items)
    system[diagonal] += np.float32(l2) + np.float32(dropout / (1.0 - dropout)) * system[diagonal]
    # LAPACK factors Fortran-ordered arrays in place; a symmetric C-ordered matrix is
    # its own transpose, and that transpose is Fortran-ordered.
    target = system if system.flags.f_contiguous else system.T
    factor, info = lapack.spotrf(target, lower=0, overwrite_a=1, clean=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"EASE: Cholesky failed (info={info}); raise l2")
    precision, info = lapack.spotri(factor, lower=0, overwrite_c=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"EASE: inverse failed (info={info}); raise l2")
    _fill_lower_from_upper(precision)
    if not precision.flags.c_contiguous:
        precision = precision.T  # symmetric, so the same matrix, C-ordered
    precision /= -np.diag(precision).copy()[None, :]
    precision[np.diag_indices(n_items)] = 0.0
    return np.ascontiguousarray(precision, dtype=np.float32)


def _fill_lower_from_upper(matrix: np.ndarray, step: int = 1024) -> None:
    """Make a matrix whose upper triangle is valid symmetric, in place, block by block."""
    n = matrix.shape[0]
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = matrix[start:stop, start:stop]
        matrix[start:stop, start:stop] = np.triu(block) + np.triu(block, 1).T
        matrix[start:stop, :start] = matrix[:start, start:stop].T
