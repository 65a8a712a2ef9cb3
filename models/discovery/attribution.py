"""The champion's own attribution of a score to the member's games, vectorised.

Reasons (``models.discovery.reasons``) name the liked game contributing most to a row's
score: its share of the CF score (``x_uj · W_ji`` for item-to-item models and implicit's
ALS explanation; the same numbers as the champion's ``explain``) plus its share of the
content score.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from models.base import LatentFactors, Recommender
from models.discovery import reference
from models.ensemble import Ensemble
from models.fast.kernels import csr_gather_rows, csr_lookup, segment_argmax_loop


class Attribution:
    """The champion's own attribution of a score to the member's games, vectorised.

    ``contributions(user_rows, game_cols, item_cols)`` gives, for each pair (member,
    one of their games ``j``), the contribution of ``j`` to each item's score: the
    numbers behind the champion's ``explain``, for a whole batch at once.
    """

    def __init__(self, model: Recommender, matrix: sp.csr_matrix, *, compiled: bool = True) -> None:
        self.model = model
        self.matrix = matrix
        self.compiled = compiled
        """Whether look-ups go through the compiled binary searches (else scipy's, the reference)."""

    @staticmethod
    def for_model(model: Recommender, matrix: sp.csr_matrix, *, compiled: bool = True) -> Attribution | None:
        """The model's own attribution, as the model states it (``Recommender.parts``,
        ``item_weights``, ``latent_factors``); None where its ``explain`` says nothing
        (popularity, BPR)."""
        if model.parts() is not None:
            ensemble = EnsembleAttribution(cast(Ensemble, model), matrix, compiled=compiled)
            return ensemble if ensemble.parts else None
        weights = model.item_weights()
        if weights is not None and weights.explains:
            return ItemItemAttribution(model, matrix, weights.weights, weights.positions(), compiled=compiled)
        factors = model.latent_factors()
        if factors is not None:
            return ALSAttribution(model, matrix, factors, compiled=compiled)
        return None

    def gather_flat(self, weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``weights[rows[k], cols[k]]`` as float32 (compiled, or the reference's scipy look-up)."""
        return gather_flat(weights, rows, cols) if self.compiled else reference.gather_flat(weights, rows, cols)

    def gather(self, weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``weights[rows[p], cols[p, k]]`` as a ``cols``-shaped float32 array."""
        return gather(weights, rows, cols) if self.compiled else reference.gather(weights, rows, cols)

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        """``(pairs, items)`` float32: what game ``game_cols[p]`` of member ``user_rows[p]``
        adds to the score of each game in ``item_cols[p]`` (pairs grouped by member, and
        all pairs of a member share the same ``item_cols`` row)."""
        raise NotImplementedError


class ItemItemAttribution(Attribution):
    """``x_uj · W[j, i]`` (kNN, RP3beta, EASE over its modelled games)."""

    def __init__(
        self, model: Recommender, matrix: sp.csr_matrix, weights: Any, positions: np.ndarray | None, *,
        compiled: bool = True,
    ) -> None:
        super().__init__(model, matrix, compiled=compiled)
        self.weights = weights
        self.positions = positions

    def contributions(self, user_rows: np.ndarray, game_cols: np.ndarray, item_cols: np.ndarray) -> np.ndarray:
        confidence = self.gather_flat(self.matrix, user_rows, game_cols)
        rows = np.broadcast_to(game_cols[:, None], item_cols.shape)
        cols = np.maximum(item_cols, 0)
        if self.positions is not None:
            rows, cols = self.positions[rows], self.positions[cols]
            modelled = (rows >= 0) & (cols >= 0)
            values = np.zeros(item_cols.shape, dtype=np.float32)
            values[modelled] = self.gather_flat(self.weights, rows[modelled], cols[modelled])
        else:
            values = self.gather(self.weights, game_cols, cols)
        return values * confidence[:, None]


class ALSAttribution(Attribution):
    """implicit's ALS explanation (Hu, Koren & Volinsky 2008, §5), one solve per member.

    ``A_u = YᵀY + λI + Yᵀ(C_u − I)Y`` with ``C_u = α·x_u``; game ``j`` contributes
    ``c_uj · (A_u⁻¹ y_i)·y_j`` to game ``i``.
    """

    def __init__(self, model: Recommender, matrix: sp.csr_matrix, factors: LatentFactors, *,
                 compiled: bool = True) -> None:
        super().__init__(model, matrix, compiled=compiled)
        self.factors = np.asarray(factors.item_factors, dtype=np.float64)
        k = self.factors.shape[1]
        self.base = self.factors.T @ self.factors + factors.regularization * np.eye(k)
        self.alpha = float(factors.alpha)

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


class EnsembleAttribution(Attribution):
    """The members' positive contributions, each over the member's spread for the user and
    weighted by its share (``Ensemble.explain``): a z-score is affine in the member's score.
    The spreads come from the statistics the ensemble kept when it scored the batch
    (``Ensemble.keep_statistics``), not from scoring every member again."""

    def __init__(self, model: Ensemble, matrix: sp.csr_matrix, *, compiled: bool = True) -> None:
        super().__init__(model, matrix, compiled=compiled)
        self.ensemble = model
        parts = model.parts() or []
        self.total = float(sum(part.share for part in parts))
        self.parts = [
            (part.name, part.share, attribution)
            for part in parts
            if (attribution := Attribution.for_model(part.model, matrix, compiled=compiled)) is not None
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
            spread = self.ensemble.member_spread(name, users)  # kept since the ranking scored them
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
    return reference.gather_flat(weights, rows, cols)  # scipy's or numpy's own indexing


def gather(weights: Any, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``weights[rows[p], cols[p, k]]`` as a ``cols``-shaped float32 array (``cols`` >= 0)."""
    if _canonical_csr(weights) and cols.size:
        return csr_gather_rows(weights.indptr, weights.indices, weights.data, weights.shape[1],
                               np.asarray(rows, dtype=np.int64), np.ascontiguousarray(cols, dtype=np.int64))
    return reference.gather(weights, rows, cols)


def segment_argmax(segment: np.ndarray, values: np.ndarray, label: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, the ``label`` of the largest positive value (ties: lowest label), -1 if none
    (``models.fast.kernels.segment_argmax_loop``)."""
    return segment_argmax_loop(np.asarray(segment, dtype=np.int64), np.asarray(values), np.asarray(label, dtype=np.int64),
                               int(n_segments))
