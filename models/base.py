"""The one base class every recommender shares.

A model is fitted on a users×games CSR of confidences (``InteractionMatrix.matrix``) and
then answers, for rows of that matrix, "which columns next". Models only see indices;
``InteractionMatrix`` maps them back to ids. Ranking is done here, once, for every
model: each model only says how to *score* a batch of users, so exclusion, batching and
tie handling cannot drift between models.
"""

from __future__ import annotations

import copy
import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.column_scores import sparse_product_rows
from models.fast.kernels import top_n_rows
from models.threads import map_blocks

hyperparameters = dataclass(kw_only=True, eq=False, repr=False)
"""Class decorator: a model's hyperparameters as keyword-only fields with their defaults.

The dataclass writes the ``__init__`` that stores each argument under its own name (what
``Recommender.get_params`` and tuning read); no ``__eq__``/``__repr__``, so a model is
still compared by identity and printed as before.
"""

SCORE_BUDGET = 1 << 23
"""Scores held at once while ranking (8M float32 = 32 MB): bounds memory for big catalogues."""


@dataclass(frozen=True)
class ItemWeights:
    """How an item-to-item model scores a member: ``x_u W``, over the confidences it was fitted on.

    ``W`` is dense over the modelled games ``items`` (its rows and columns; EASE, EDLAE,
    GF-CF: ``-inf`` for the other games) or a CSR matrix over every game (kNN, RP3beta).
    ``explains``: the model's own explanation of a score is ``x_uj · W_ji`` (discovery's
    reasons then attribute through ``W``)."""

    matrix: sp.csr_matrix
    weights: np.ndarray | sp.csr_matrix
    items: np.ndarray | None
    explains: bool

    @property
    def dense(self) -> bool:
        return isinstance(self.weights, np.ndarray)

    def positions(self) -> np.ndarray | None:
        """A dense ``W``'s position of each game among ``items`` (-1: not modelled); None for a sparse one."""
        if self.items is None:
            return None
        position = np.full(self.matrix.shape[1], -1, dtype=np.int64)
        position[self.items] = np.arange(self.items.size)
        return position


@dataclass(frozen=True)
class LatentFactors:
    """A factor model's item factors and how its explanation weighs them (implicit's ALS:
    ``A_u = YᵀY + λI + Yᵀ(C_u − I)Y`` with ``C_u = α·x_u``)."""

    item_factors: np.ndarray
    regularization: float
    alpha: float


@dataclass(frozen=True)
class Part:
    """One member of a composite model: its name, its share of the total and the model."""

    name: str
    share: float
    model: Recommender


class Recommender(ABC):
    """Common interface: ``fit`` once, then ``recommend``/``similar_items``/``explain``.

    Subclasses declare hyperparameters as keyword arguments of ``__init__`` stored under
    the same names, usually as ``@hyperparameters`` fields (so ``get_params`` and tuning
    work as in scikit-learn) and implement
    ``fit`` and ``score``; item-to-item models also implement ``item_similarity``.
    """

    name: ClassVar[str] = "recommender"
    fit_notes: str | None = None
    """What a cost guard did during the last ``fit`` (shown in ``marts.model_runs.notes``)."""
    matrix_: sp.csr_matrix
    """The users × games confidences the model was fitted on (set by ``fit``)."""

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments, as passed (for ``marts.model_runs.params``)."""
        signature = inspect.signature(type(self).__init__)
        return {
            key: getattr(self, key)
            for key in signature.parameters
            if key != "self" and hasattr(self, key)
        }

    @abstractmethod
    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Learn from a users×games CSR of positive confidences; returns ``self``."""

    @abstractmethod
    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """Dense float32 scores, shape ``(len(user_rows), n_games)``, higher is better.

        A game the model cannot score gets ``-inf`` and is never recommended.
        """

    def item_weights(self) -> ItemWeights | None:
        """How this model scores item to item (``x_u W``), or None: it does not (ALS,
        popularity, an ensemble). Discovery's compiled engine and reasons read this, never
        the model's type or attributes."""
        return None

    def latent_factors(self) -> LatentFactors | None:
        """A factor model's item factors as its explanation uses them, or None."""
        return None

    def parts(self) -> list[Part] | None:
        """A composite model's members with their shares (an ensemble), or None."""
        return None

    def with_rows(self, matrix: sp.csr_matrix) -> Self:
        """This fitted model scoring the members of ``matrix`` instead of those it was fitted
        on: fold-in (the HTTP API's fresh lists, ``models.discovery.foldin``).

        ``matrix`` holds confidences over the same games, built as the fit's were (the
        run's weighting); row ``r`` of it is what ``score([r])`` then scores. Nothing learnt
        changes: item-to-item models read their weight rows, a factor model solves each
        member's factors against its item factors (``fold_in``), an ensemble folds its
        members in. A copy; the fitted model is shared, not changed.

        Why the fit itself scores through the same step: a member's row given back gives
        the very scores of the night (the factor models keep solved factors, never the
        ones their last sweep left)."""
        if matrix.shape[1] != self.n_items:
            raise ValueError(f"fold-in rows have {matrix.shape[1]} games, the model {self.n_items}")
        other = copy.copy(self)
        other.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        other.fold_in()
        return other

    def fold_in(self) -> None:
        """Recompute what this model keeps per member of ``matrix_`` (nothing, for a model
        that scores a member from their row alone)."""

    def score_columns(self, user_rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``score(user_rows)[:, cols]``: the same numbers, for a caller that needs a few
        columns (a member's shelf). Here the whole row is scored; the ensemble overrides
        it to z-score only ``cols`` once it knows its members' statistics of the rows."""
        return np.asarray(self.score(user_rows))[:, cols]

    @property
    def n_items(self) -> int:
        """Number of games (columns) the model was fitted on."""
        return int(self.matrix_.shape[1])

    def recommend(
        self,
        user_rows: np.ndarray | list[int],
        n: int = 10,
        exclude: sp.csr_matrix | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The top ``n`` games for each user row, best first, batched.

        ``exclude`` has one row per entry of ``user_rows`` (same column layout): its
        non-zero columns are never returned (pass the users' own rows to hide what they
        already have). Returns ``(item_idx, scores)``, both ``(len(user_rows), n)``; when
        fewer than ``n`` games are left for a user the tail is ``-1`` / ``-inf``.
        """
        rows = np.asarray(user_rows, dtype=np.int64)
        if exclude is not None and exclude.shape[0] != rows.size:
            raise ValueError("exclude must have one row per user row")
        n_items = self.n_items
        ids = np.full((rows.size, n), -1, dtype=np.int64)
        values = np.full((rows.size, n), -np.inf, dtype=np.float32)
        batch = max(1, SCORE_BUDGET // max(n_items, 1))

        def ranked(start: int) -> None:
            stop = min(start + batch, rows.size)
            scores = np.asarray(self.score(rows[start:stop]), dtype=np.float32)
            if exclude is not None:
                block = exclude[start:stop].tocsr()
                marked = np.repeat(np.arange(stop - start), np.diff(block.indptr))
                scores[marked, block.indices] = -np.inf
            ids[start:stop], values[start:stop] = top_n(scores, n)

        # Batches on the night's two cores (each writes its own rows: the same lists).
        map_blocks(ranked, range(0, rows.size, batch))
        return ids, values

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """Dense similarity rows ``(len(item_idx), n_games)`` behind ``similar_items``."""
        raise NotImplementedError(f"{self.name} has no item similarity")

    def similar_items(self, item_idx: int | np.ndarray, n: int = 10) -> tuple[np.ndarray, np.ndarray]:
        """The ``n`` games most like each given game (never the game itself), best first.

        Returns ``(item_idx, scores)`` of shape ``(len(item_idx), n)`` (or ``(n,)`` for a
        single index), padded with ``-1`` / ``-inf`` like ``recommend``.
        """
        single = np.isscalar(item_idx)
        items = np.atleast_1d(np.asarray(item_idx, dtype=np.int64))
        ids = np.full((items.size, n), -1, dtype=np.int64)
        values = np.full((items.size, n), -np.inf, dtype=np.float32)
        batch = max(1, SCORE_BUDGET // max(self.n_items, 1))
        for start in range(0, items.size, batch):
            stop = min(start + batch, items.size)
            sims = np.array(self.item_similarity(items[start:stop]), dtype=np.float32)
            sims[np.arange(stop - start), items[start:stop]] = -np.inf
            ids[start:stop], values[start:stop] = top_n(sims, n)
        return (ids[0], values[0]) if single else (ids, values)

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """The user's own games that contributed most to recommending ``item_idx``.

        For "because you like X" reasons: ``[(game column, contribution), …]``, largest
        first, positive contributions only. Models that cannot attribute a score to
        single games (popularity, BPR) return an empty list.
        """
        return []


def top_n(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise top ``n`` of a dense score block, best first; ``-inf`` entries become ``-1``.

    Ties are broken towards the lower column index, so rankings are reproducible.

    Why a compiled loop (``models.fast.kernels.top_n_rows``): a full ``argpartition`` costs tens
    of nanoseconds a cell, and the night ranks 25,000 games for 100,000 members (and every
    game against every game). A bounded heap per row costs one comparison a cell once it
    is full. A row holding NaN or ``+inf`` is ranked by the full partition
    (``top_n_exact``), which defines the order for them; on every other row both give
    the same ids and values (``tests/unit/models/test_kernels.py``).
    """
    scores = np.asarray(scores)
    n_rows, n_items = scores.shape
    if min(n, n_items) == 0 or n_rows == 0 or scores.dtype not in (np.float32, np.float64):
        return top_n_exact(scores, n)
    ids, values, flagged = top_n_rows(np.ascontiguousarray(scores), n)
    if flagged.any():
        rows = np.flatnonzero(flagged)
        ids[rows], values[rows] = top_n_exact(scores[rows], n)
    return ids, values


def top_n_exact(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``top_n`` by a full partition of every row."""
    n_rows, n_items = scores.shape
    ids = np.full((n_rows, n), -1, dtype=np.int64)
    values = np.full((n_rows, n), -np.inf, dtype=np.float32)
    take = min(n, n_items)
    if take == 0 or n_rows == 0:
        return ids, values
    if take < n_items:
        negated = -scores
        part = np.argpartition(negated, take - 1, axis=1)[:, :take]
        kth = np.take_along_axis(negated, part, axis=1).max(axis=1, keepdims=True)
        tied = np.flatnonzero((negated <= kth).sum(axis=1) > take)
        if tied.size:
            # Exact tie handling at the cut (argpartition picks arbitrarily among equal
            # scores): everything strictly better than the take-th score, then the
            # lowest columns among those equal to it.
            sub, cut = negated[tied], kth[tied]
            better = sub < cut
            ties = sub == cut
            room = take - better.sum(axis=1, keepdims=True)
            keep = better | (ties & (np.cumsum(ties, axis=1) <= room))
            part[tied] = np.nonzero(keep)[1].reshape(tied.size, take)
    else:
        part = np.broadcast_to(np.arange(n_items), (n_rows, n_items)).copy()
    part_scores = np.take_along_axis(scores, part, axis=1)
    # Sort by score descending, then column ascending: lexsort's last key is primary.
    order = np.lexsort((part, -part_scores), axis=1)
    best = np.take_along_axis(part, order, axis=1)
    best_scores = np.take_along_axis(part_scores, order, axis=1)
    best[~np.isfinite(best_scores)] = -1
    ids[:, :take] = best
    values[:, :take] = best_scores
    return ids, values


def topk_frame(
    rows: np.ndarray | pl.Series,
    ids: np.ndarray,
    values: np.ndarray,
    columns: pl.Series | None = None,
    *,
    key: str = "user_id",
    value: str = "game_id",
) -> pl.DataFrame:
    """Top-k lists (``top_n`` output, one per row) as a long frame ``key``, ``rank`` (1…),
    ``value``, ``score``; padding (``-1``) is dropped.

    ``rows`` names each row (user ids, row indices, game ids); ``columns`` maps column
    indices to ids (without it ``value`` keeps the column index).
    """
    keep = ids >= 0
    row_index = np.repeat(np.arange(ids.shape[0]), keep.sum(axis=1))
    rank = np.broadcast_to(np.arange(1, ids.shape[1] + 1, dtype=np.int32), ids.shape)[keep]
    names = rows if isinstance(rows, pl.Series) else pl.Series(np.asarray(rows))
    picked = ids[keep]
    return pl.DataFrame(
        {
            key: names.gather(row_index),
            "rank": pl.Series(rank, dtype=pl.Int32),
            value: columns.gather(picked) if columns is not None else pl.Series(picked),
            "score": pl.Series(values[keep], dtype=pl.Float64),
        }
    )


def sparse_rows_dense(matrix: sp.csr_matrix, product: sp.spmatrix | np.ndarray) -> np.ndarray:
    """``matrix @ product`` as a dense float32 array (sparse or dense right-hand side):
    compiled for two float32 CSR matrices (``models.column_scores.sparse_product_rows``,
    the same sums), scipy's product otherwise."""
    dense = sparse_product_rows(matrix, product) if sp.issparse(product) else None
    if dense is not None:
        return dense
    result = matrix @ product
    if sp.issparse(result):
        result = result.toarray()
    return np.asarray(result, dtype=np.float32)
