"""The champion's part of a discovery block in one compiled pass per member (``FusedCF``).

Why: for the item-to-item champions (EASE, cosine, BM25, RP3beta, and ensembles of them)
``DiscoveryModel.cf_scores`` made, per block of ~335 members × 25,000 games, each
member model's scores, the ensemble's running total and its mean, and then the placed
and clipped copy: five or six arrays of 33 MB, each written and read again, so most of
the time went to moving rows through memory. Here each member's rows are made, z-scored,
added, clipped and placed while they stay in cache; only the placed scores are written.

The same numbers, bit for bit: every step is the loop the separate path runs
(``models.column_scores``' products, ``models.member_statistics``' statistics and
z-adds, ``models.discovery.blend``'s clip), on the same values in the same order, and
the ensemble's statistics of the rows are kept as its own scoring keeps them (the
reasons and the shelves read them). ``tests/integration/models/test_discovery_fused.py`` compares
the ranked rows with the separate path's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import scipy.sparse as sp

from models.base import ItemWeights, Recommender
from models.ensemble import Ensemble
from models.fast.compiled import new_rows
from models.fast.fused import PARTS, empty_slot, fused_rows_into
from models.member_statistics import RowStatistics


@dataclass(frozen=True)
class _Part:
    """One item-to-item model: ``x_u W`` with ``W`` dense over ``items`` (-inf elsewhere)
    or sparse over every column."""

    name: str
    model: Recommender
    weight: float
    item: ItemWeights
    """The model's ``x_u W`` (``Recommender.item_weights``)."""

    @property
    def weights(self) -> np.ndarray | sp.csr_matrix:
        return self.item.weights

    @property
    def dense(self) -> bool:
        return self.item.dense


def _part(name: str, model: Recommender, weight: float) -> _Part | None:
    """The model as a slot of the pass, if it scores item to item with float32 weights the
    loops read as they are (dense C-ordered, or CSR); None: the separate steps."""
    item = model.item_weights()
    if item is None or item.matrix.dtype != np.float32 or item.weights.dtype != np.float32:
        return None
    weights: Any = item.weights
    if isinstance(weights, np.ndarray):
        return _Part(name, model, weight, item) if weights.flags.c_contiguous else None
    return _Part(name, model, weight, item) if sp.issparse(weights) and weights.format == "csr" else None


class FusedCF:
    """The fused champion's part for a champion made of item-to-item models (``for_model``;
    None for the others, which keep the separate path)."""

    def __init__(self, parts: list[_Part], ensemble: Ensemble | None) -> None:
        self.parts = parts
        self.ensemble = ensemble
        """The champion when it is an ensemble (its kept statistics, its rows), else None."""

    @staticmethod
    def for_model(model: Recommender | None) -> FusedCF | None:
        if model is None:
            return None
        members = model.parts()
        if members is not None:
            parts = [_part(member.name, member.model, member.share) for member in members]
            made = [part for part in parts if part is not None]
            return FusedCF(made, cast(Ensemble, model)) if 0 < len(made) == len(parts) <= PARTS else None
        part = _part("champion", model, 1.0)
        return FusedCF([part], None) if part is not None else None

    def usable(self) -> bool:
        """An ensemble is fused only while it keeps its statistics (the night's serving)."""
        return self.ensemble is None or self.ensemble.statistics_ is not None

    def inputs(self, cf_rows: np.ndarray, rows: np.ndarray) -> tuple:
        """The compiled pass's arguments for the members at positions ``rows`` (user rows
        ``cf_rows[rows]``), up to ``src``/``dst``: the parts' rows and matrices (three
        slots, the missing ones empty), their count, kinds and weights, the weights'
        sum, whether the total is z-scored, and the members' own games."""
        scored = cf_rows[rows]
        n_parts = len(self.parts)
        empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        arrays: list[tuple[Any, ...]] = []
        for part in self.parts:
            item = part.item
            weights: Any = part.weights
            if item.items is not None:
                sub = item.matrix[scored][:, item.items].tocsr()
                arrays.append((sub.indptr, sub.indices, sub.data, weights, np.asarray(item.items, dtype=np.int64),
                               empty_i, empty_i, empty_f))
            else:
                sub = item.matrix[scored].tocsr()
                arrays.append((sub.indptr, sub.indices, sub.data, np.zeros((0, 0), dtype=np.float32), empty_i,
                               weights.indptr, weights.indices, weights.data))
        while len(arrays) < PARTS:  # the loop's slots; the missing ones are empty
            arrays.append(empty_slot(scored.size))
        if self.ensemble is not None:
            own = sp.csr_matrix(self.ensemble.matrix_[scored])
            own.sum_duplicates()
            own_indptr, own_indices = own.indptr, own.indices
        else:
            own_indptr, own_indices = np.zeros(scored.size + 1, dtype=np.int64), empty_i
        weights = np.array([part.weight for part in self.parts] + [0.0] * (PARTS - n_parts), dtype=np.float32)
        dense = np.array([part.dense for part in self.parts] + [False] * (PARTS - n_parts))
        return (tuple(arrays), n_parts, dense, weights,
                np.float32(sum(part.weight for part in self.parts)),  # as the ensemble sums its shares
                self.ensemble is not None, own_indptr, own_indices, self.parts[0].item.matrix.shape[1])

    def keep(self, cf_rows: np.ndarray, rows: np.ndarray, statistics: np.ndarray) -> None:
        """Keep an ensemble's statistics of the pass (``(parts, 3, len(rows))``) as its own
        scoring keeps them: the reasons and both shelves read them."""
        kept = self.ensemble.statistics_ if self.ensemble is not None else None
        if kept is not None:  # always, for an ensemble: the pass runs only while it keeps them (``usable``)
            for at, part in enumerate(self.parts):
                kept.put(part.name, cf_rows[rows], RowStatistics(*statistics[at]))

    def scores(self, cf_rows: np.ndarray, rows: np.ndarray, src: np.ndarray, dst: np.ndarray, width: int) -> np.ndarray:
        """``DiscoveryModel.cf_scores`` over the whole catalogue: the clipped champion scores
        of the members at positions ``rows`` (user rows ``cf_rows[rows]``), champion column
        ``src[j]`` placed at catalogue column ``dst[j]``, in a zero ``(len(cf_rows), width)``."""
        out = new_rows((cf_rows.size, width), np.float32, zero=True)
        statistics = np.zeros((len(self.parts), 3, rows.size))
        fused_rows_into(*self.inputs(cf_rows, rows), np.asarray(rows, dtype=np.int64), np.asarray(src, dtype=np.int64),
                    np.asarray(dst, dtype=np.int64), out, statistics)
        self.keep(cf_rows, rows, statistics)
        return out
