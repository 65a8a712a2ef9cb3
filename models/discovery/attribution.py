"""The champion's own attribution of a score to the member's games, vectorised.

Reasons (``models.discovery.reasons``) name the liked game contributing most to a row's
score: its share of the CF score (``x_uj · W_ji`` for item-to-item models and implicit's
ALS explanation; the same numbers as the champion's ``explain``) plus its share of the
content score.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from models.base import Recommender
from models.ensemble import Ensemble
from models.ease import EASE
from models.factorization import ALS
from models.fast.kernels import csr_gather_rows, csr_lookup, segment_argmax_loop
from models.knn import ItemKNNBM25, ItemKNNCosine
from models.rp3beta import RP3beta


class Attribution:
    """The champion's own attribution of a score to the member's games, vectorised.

    ``contributions(user_rows, game_cols, item_cols)`` gives, for each pair (member,
    one of their games ``j``), the contribution of ``j`` to each item's score: the
    numbers behind the champion's ``explain``, for a whole batch at once.
    """

    def __init__(self, model: Recommender, matrix: sp.csr_matrix) -> None:
        self.model = model
        self.matrix = matrix

    @staticmethod
    def for_model(model: Recommender, matrix: sp.csr_matrix) -> Attribution | None:
        if isinstance(model, (ItemKNNCosine, ItemKNNBM25)):
            return _ItemItemAttribution(model, matrix, model.similarity_, None)
        if isinstance(model, RP3beta):
            return _ItemItemAttribution(model, matrix, model.weights_, None)
        if isinstance(model, EASE):
            return _ItemItemAttribution(model, matrix, model.weights_, model._positions())
        if isinstance(model, ALS):
            return _ALSAttribution(model, matrix)
        if isinstance(model, Ensemble):
            ensemble = _EnsembleAttribution(model, matrix)
            return ensemble if ensemble.parts else None
        return None  # popularity, BPR: explain() says nothing

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        """``(pairs, items)`` float32: what game ``game_cols[p]`` of member ``user_rows[p]``
        adds to the score of each game in ``item_cols[p]`` (pairs grouped by member, and
        all pairs of a member share the same ``item_cols`` row)."""
        raise NotImplementedError


class _ItemItemAttribution(Attribution):
    """``x_uj · W[j, i]`` (kNN, RP3beta, EASE over its modelled games)."""

    def __init__(
        self, model: Recommender, matrix: sp.csr_matrix, weights: Any, positions: np.ndarray | None
    ) -> None:
        super().__init__(model, matrix)
        self.weights = weights
        self.positions = positions

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        confidence = gather_flat(self.matrix, user_rows, game_cols)
        rows = np.broadcast_to(game_cols[:, None], item_cols.shape)
        cols = np.maximum(item_cols, 0)
        if self.positions is not None:
            rows, cols = self.positions[rows], self.positions[cols]
            modelled = (rows >= 0) & (cols >= 0)
            values = np.zeros(item_cols.shape, dtype=np.float32)
            values[modelled] = gather_flat(self.weights, rows[modelled], cols[modelled])
        else:
            values = gather(self.weights, game_cols, cols)
        return values * confidence[:, None]


class _ALSAttribution(Attribution):
    """implicit's ALS explanation (Hu, Koren & Volinsky 2008, §5), one solve per member.

    ``A_u = YᵀY + λI + Yᵀ(C_u − I)Y`` with ``C_u = α·x_u``; game ``j`` contributes
    ``c_uj · (A_u⁻¹ y_i)·y_j`` to game ``i``.
    """

    def __init__(self, model: ALS, matrix: sp.csr_matrix) -> None:
        super().__init__(model, matrix)
        self.factors = np.asarray(model.item_factors_, dtype=np.float64)
        k = self.factors.shape[1]
        self.base = self.factors.T @ self.factors + model.regularization * np.eye(k)
        self.alpha = float(model.alpha)

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        out = np.zeros(item_cols.shape, dtype=np.float32)
        matrix = self.matrix
        # Pairs come grouped by member: one run of equal rows per member.
        starts = np.flatnonzero(np.r_[True, user_rows[1:] != user_rows[:-1]])
        for run_start, run_stop in zip(starts, np.r_[starts[1:], user_rows.size]):
            pairs = np.arange(run_start, run_stop)
            user = int(user_rows[run_start])
            start, stop = matrix.indptr[user], matrix.indptr[user + 1]
            games = matrix.indices[start:stop]
            if games.size == 0:
                continue
            position = np.minimum(np.searchsorted(games, game_cols[pairs]), games.size - 1)
            present = games[position] == game_cols[pairs]  # a fresher collection may add games
            if not present.any():
                continue
            confidence = self.alpha * matrix.data[start:stop].astype(np.float64)
            y = self.factors[games]
            system = self.base + (y * (confidence - 1.0)[:, None]).T @ y
            items = np.maximum(item_cols[pairs[0]], 0)  # every pair of a member has the same items
            solved = np.linalg.solve(system, self.factors[items].T)  # k × items
            rows = pairs[present]
            liked = y[position[present]] @ solved * confidence[position[present]][:, None]
            out[rows] = liked.astype(np.float32)
        return out


class _EnsembleAttribution(Attribution):
    """The members' positive contributions, each over the member's spread for the user and
    weighted by its share (``Ensemble.explain``): a z-score is affine in the member's score.
    The spreads come from the statistics the ensemble kept when it scored the batch
    (``Ensemble.keep_statistics``), not from scoring every member again."""

    def __init__(self, model: Ensemble, matrix: sp.csr_matrix) -> None:
        super().__init__(model, matrix)
        self.total = float(sum(model.shares[name] for name in model.models_))
        self.parts = [
            (name, float(model.shares[name]), attribution)
            for name, member in model.models_.items()
            if (attribution := Attribution.for_model(member, matrix)) is not None
        ]

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        out = np.zeros(item_cols.shape, dtype=np.float32)
        users, inverse = np.unique(user_rows, return_inverse=True)
        for (_, _, attribution), scale in zip(self.parts, self.scales(users), strict=True):
            part = np.maximum(attribution.contributions(user_rows, game_cols, item_cols), 0.0)
            out += part * scale[inverse][:, None].astype(np.float32)
        return out

    def scales(self, users: np.ndarray) -> list[np.ndarray]:
        """Per part, what its contributions are multiplied by for these user rows (float64):
        its share of the total over the member's spread for the user, 0 where that is 0."""
        scales = []
        for name, share, _ in self.parts:
            spread = self.model.member_spread(name, users)  # kept since the ranking scored them
            scales.append(np.where(spread > 0, share / self.total / np.where(spread > 0, spread, 1.0), 0.0))
        return scales


def _canonical_csr(weights: Any) -> bool:
    """A CSR matrix with sorted, unique indices per row: what the compiled look-ups read."""
    return bool(sp.issparse(weights) and weights.format == "csr" and weights.has_canonical_format)


def gather_flat(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[k], cols[k]]`` for a dense array or a sparse matrix, as float32."""
    if rows.size == 0:
        return np.zeros(0, dtype=np.float32)
    if _canonical_csr(weights):
        # scipy's csr_sample_values cost more than the scoring around it: a compiled
        # binary search per pair (the same stored values, 0 where none is stored).
        return csr_lookup(weights.indptr, weights.indices, weights.data,
                          np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))
    if sp.issparse(weights):
        return np.asarray(weights[rows, cols], dtype=np.float32).ravel()
    return np.asarray(weights[rows, cols], dtype=np.float32)


def gather(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[p], cols[p, k]]`` as a ``cols``-shaped float32 array (``cols`` >= 0)."""
    if _canonical_csr(weights) and cols.size:
        return csr_gather_rows(weights.indptr, weights.indices, weights.data, weights.shape[1],
                               np.asarray(rows, dtype=np.int64), np.ascontiguousarray(cols, dtype=np.int64))
    flat_rows = np.broadcast_to(rows[:, None], cols.shape).ravel()
    return gather_flat(weights, flat_rows, cols.ravel()).reshape(cols.shape)


def segment_argmax(segment: np.ndarray, values: np.ndarray, label: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, the ``label`` of the largest positive value (ties: lowest label), -1 if none
    (``models.fast.kernels.segment_argmax_loop``)."""
    return segment_argmax_loop(np.asarray(segment, dtype=np.int64), np.asarray(values), np.asarray(label, dtype=np.int64),
                               int(n_segments))
