"""Ensembles of tuned candidates: per-user z-scored scores, weighted by greedy ensemble selection.

Why an ensemble: on small dense rating data single-model changes move NDCG@10 by 1–3 %,
while averaging the lists of differently built models (linear, neighbourhood,
factorisation) is where published comparisons find the next few per cent. Scores of
different models live on different scales (EASE's regression weights, kNN's summed
similarities, ALS's dot products), so each member's scores are first **z-scored per
user** over the games that user can be recommended (their own rows left out of the mean
and spread): a game two standard deviations above the member's average for this user
counts the same whichever model said so. A game a member cannot score (``-inf``, EASE
beyond its ``max_items``) gets that user's lowest z from the member: ranked last by it,
but still rankable by the others.

Weights are counts from **greedy ensemble selection with replacement** (Caruana et al.
2004, "Ensemble selection from libraries of models") over the ``POOL`` best single
members: start from the best, then repeatedly add the member (possibly one already in) whose addition gives
the best NDCG@k on held-out rows of TRAIN, while an addition still improves it. Counts
are small integers, easy to read in ``marts.model_runs.params`` ("ease 3, als 2"), and
with replacement the search can weight a strong member up without a continuous
optimiser. The weights are chosen on the **tuning** split (where the members were tuned);
the ensemble then competes with the single candidates on the independent **selection** split,
so its own search does not flatter it there.
"""

from __future__ import annotations

import logging
from dataclasses import field
from typing import Any, Self

import numpy as np
import scipy.sparse as sp

from models.base import Part, Recommender, hyperparameters, top_n, topk_frame
from models.fast.fused import PARTS
from models.member_statistics import (
    RowStatistics,
    StatisticsCache,
    add_zscores,
    row_statistics_of,
)
from models.metrics import ndcg_at_k

log = logging.getLogger("bodoge.models")

ENSEMBLE_CELLS = 1 << 25
"""Z-scored cells (users × games × members) held while choosing weights (128 MB of
float32); above it the held-out users are sampled (seeded). ML-100k and the demo site
fit whole."""

MAX_ROUNDS = 20
"""Additions at most in the greedy search (it stops earlier when nothing improves)."""

POOL = PARTS
"""Only the best this many (three: the compiled passes' slots, ``models.fast.fused.PARTS``) single members (by their own NDCG@k on the held-out rows) may
join. Pruning the library to its best models is Caruana et al.'s own advice (2006, "Getting
the most out of ensemble selection"): with every candidate eligible the search keeps
finding a weak member that helps a few hundred held-out users by chance. On MovieLens-100k
(5 seeds): all eligible +2.0 % NDCG@10 over tuned EASE, the best 3 +2.9 %, the best 2 +2.8 %."""

START_COPIES = 3
"""Copies of the best single member the greedy search starts from: the first addition
then weighs 1/4, not 1/2 (a half-and-half ensemble of a strong and a weaker model is
usually worse than the strong one alone, and a search starting from one copy stops
there at once)."""


def row_statistics(scores: np.ndarray, own: sp.csr_matrix | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row: mean and (population) standard deviation of the rankable scores.

    Rankable: finite and not among the row's ``own`` non-zero columns (the user's games,
    which are never recommended). A row without rankable scores has mean 0, spread 0.
    """
    values = np.asarray(scores, dtype=np.float64)
    rankable = np.isfinite(values)
    if own is not None:
        block = own.tocsr()
        marked = np.repeat(np.arange(block.shape[0]), np.diff(block.indptr))
        rankable[marked, block.indices] = False
    count = np.maximum(rankable.sum(axis=1), 1)
    mean = np.where(rankable, values, 0.0).sum(axis=1) / count
    spread = np.sqrt((np.where(rankable, values - mean[:, None], 0.0) ** 2).sum(axis=1) / count)
    return mean, spread


def zscore_rows(scores: np.ndarray, own: sp.csr_matrix | None = None) -> np.ndarray:
    """Each row's scores minus its rankable mean, over its rankable spread (``row_statistics``).

    A row whose rankable scores are all equal (or that has none) becomes 0 everywhere: it
    says nothing. Non-finite entries get the row's lowest finite z (0 when it has none).
    float32, same shape.
    """
    values = np.asarray(scores, dtype=np.float64)
    finite = np.isfinite(values)
    mean, spread = row_statistics(values, own)
    scale = np.where(spread > 0, spread, np.inf)
    z = np.where(finite, values - mean[:, None], 0.0) / scale[:, None]
    lowest = np.where(finite, z, np.inf).min(axis=1)
    lowest = np.where(np.isfinite(lowest), lowest, 0.0)
    return np.where(finite, z, lowest[:, None]).astype(np.float32)


@hyperparameters
class Ensemble(Recommender):
    """Weighted sum of members' per-user z-scores: ``Σ_m w_m z_m(u, i) / Σ_m w_m``.

    ``members`` maps a candidate name (``models.candidates``) to its tuned parameters;
    ``shares`` maps a member to its count (members without weight are not fitted); a
    member missing from ``members`` has its candidate's defaults. The default ensemble, EASE
    and BM25 kNN at their defaults, is only a runnable starting point: evaluation sets both.
    ``member_caps`` fits the members with their tuning-time caps (``Candidate.while_tuning``).
    """

    name = "ensemble"
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    shares: dict[str, float] = field(default_factory=lambda: {"ease": 1, "bm25": 1})
    member_caps: bool = False
    random_state: int | None = None

    def fit(self, matrix: sp.csr_matrix) -> Self:
        """Fit every weighted member on ``matrix`` (the ensemble costs the sum of their fits)."""
        fitted = {
            name: self.member(name, dict(self.members.get(name, {}))).fit(matrix) for name in self._weighted()
        }
        return self.use_fitted(fitted, matrix)

    def member(self, name: str, params: dict[str, Any]) -> Recommender:
        """A fresh member by candidate name. Here the ensemble knows no candidates (the
        candidates list the ensemble, not the other way round): ``models.candidates.
        CandidateEnsemble`` builds them; this class only combines fitted members."""
        raise NotImplementedError("build members with models.candidates.CandidateEnsemble, or use use_fitted")

    def use_fitted(self, fitted: dict[str, Recommender], matrix: sp.csr_matrix) -> Self:
        """Take members already fitted on ``matrix`` (evaluation reuses the single candidates' fits)."""
        missing = [name for name in self._weighted() if name not in fitted]
        if missing:
            raise ValueError(f"ensemble members not fitted: {', '.join(missing)}")
        if not self._weighted():
            raise ValueError("an ensemble needs at least one member with a positive weight")
        self.matrix_ = sp.csr_matrix(matrix, dtype=np.float32)
        self.models_ = {name: fitted[name] for name in self._weighted()}
        self.statistics_ = None  # kept statistics belong to the members they came from
        notes = [f"{name}: {model.fit_notes}" for name, model in self.models_.items() if model.fit_notes]
        self.fit_notes = "; ".join(notes) or None
        return self

    def parts(self) -> list[Part]:
        """The fitted members with their shares, in the ensemble's order."""
        return [Part(name, float(self.shares[name]), member) for name, member in self.models_.items()]

    def fold_in(self) -> None:
        """Each member scores the new rows (``Recommender.with_rows``); statistics kept for
        the old rows belong to them, so they are kept afresh if they were kept."""
        self.models_ = {name: model.with_rows(self.matrix_) for name, model in self.models_.items()}
        self.keep_statistics(self.statistics_ is not None)

    def _weighted(self) -> list[str]:
        return [name for name, weight in self.shares.items() if weight > 0]

    statistics_ = None  # not a field (no annotation): a StatisticsCache while serving, see keep_statistics

    def keep_statistics(self, keep: bool = True) -> None:
        """Keep each member's statistics of a user row (mean, spread, lowest z) from the
        first time the row is scored, and z-score later calls from them (empty again at
        each call; ``keep=False``: none kept, every call z-scores whole rows).

        Why: the night's discovery scores every member for the same rows in the ranking,
        its reasons and both shelves; with the statistics kept, the reasons score no
        member again (``member_spread``) and a shelf z-scores only its own columns
        (``score_columns``). The numbers are the same (``models.member_statistics``)."""
        self.statistics_ = StatisticsCache(list(self.models_), self.matrix_.shape[0]) if keep else None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without kept statistics: they belong to one night's serving."""
        state = self.__dict__.copy()
        state.pop("statistics_", None)
        return state

    def score(self, user_rows: np.ndarray) -> np.ndarray:
        """The weighted mean of the members' z-scores (own games out of each user's statistics)."""
        return self._combined(np.asarray(user_rows, dtype=np.int64), None)

    def score_columns(self, user_rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """``score(user_rows)[:, cols]``; while statistics are kept only ``cols`` are
        z-scored: a member whose statistics of these rows are known scores only ``cols``
        (``Recommender.score_columns``), rows not yet seen are scored and z-scored over
        their whole row for their statistics."""
        return self._combined(np.asarray(user_rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))

    def _combined(self, rows: np.ndarray, cols: np.ndarray | None) -> np.ndarray:
        own = self.matrix_[rows]
        total = np.zeros((rows.size, self.n_items if cols is None else cols.size), dtype=np.float32)
        weight_sum = 0.0
        for name, model in self.models_.items():
            weight = float(self.shares[name])
            kept = self.statistics_.get(name, rows) if self.statistics_ is not None and cols is not None else None
            if kept is not None and cols is not None:  # a shelf's few columns, the rows' statistics known: score only those
                add_zscores(total, weight, model.score_columns(rows, cols), kept)
                weight_sum += weight
                continue
            scores = model.score(rows)
            if self.statistics_ is None:
                z = zscore_rows(scores, own)
                total += np.float32(weight) * (z if cols is None else z[:, cols])
            else:
                add_zscores(total, weight, scores, self._statistics(name, rows, own, scores), cols)
            weight_sum += weight
        return total / np.float32(weight_sum)

    def _statistics(
        self, name: str, rows: np.ndarray, own: sp.csr_matrix, scores: np.ndarray | None = None
    ) -> RowStatistics:
        """The member's kept statistics of these rows; when some row has none yet, computed
        from ``scores`` (or by scoring the rows) and kept. Only while statistics are kept."""
        kept = self.statistics_
        assert kept is not None
        statistics = kept.get(name, rows)
        if statistics is None:
            statistics = row_statistics_of(self.models_[name].score(rows) if scores is None else scores, own)
            kept.put(name, rows, statistics)
        return statistics

    def member_spread(self, name: str, user_rows: np.ndarray) -> np.ndarray:
        """The member's rankable spread for these users (``row_statistics``'s): kept, or
        from scoring them; the reasons' scale (``explain``)."""
        rows = np.asarray(user_rows, dtype=np.int64)
        if self.statistics_ is None:
            return row_statistics(self.models_[name].score(rows), self.matrix_[rows])[1]
        return self._statistics(name, rows, self.matrix_[rows]).spread

    def item_similarity(self, item_idx: np.ndarray) -> np.ndarray:
        """Weighted mean of the members' z-scored similarity rows (those that have one).

        Popularity and BPR members have none; with no member left this raises like any
        model without item similarity."""
        items = np.asarray(item_idx, dtype=np.int64)
        total = np.zeros((items.size, self.n_items), dtype=np.float32)
        weight_sum = 0.0
        for name, model in self.models_.items():
            try:
                sims = model.item_similarity(items)
            except NotImplementedError:
                continue
            itself = sp.csr_matrix((np.ones(items.size), (np.arange(items.size), items)), shape=total.shape)
            total += np.float32(self.shares[name]) * zscore_rows(sims, itself)
            weight_sum += float(self.shares[name])
        if weight_sum == 0:
            raise NotImplementedError("no ensemble member has item similarity")
        return total / np.float32(weight_sum)

    def explain(self, user_row: int, item_idx: int, n: int = 3) -> list[tuple[int, float]]:
        """Members' contributions over their spread for this user, weighted as in ``score``.

        A z-score is affine in the member's score (``(s - mean_u) / spread_u``), so a game's
        share of it is its share of the raw score over the member's spread for this user."""
        own = self.matrix_[[user_row]]
        weight_sum = float(sum(self.shares[name] for name in self.models_))
        combined: dict[int, float] = {}
        for name, model in self.models_.items():
            spread = self.member_spread(name, np.array([user_row]))
            if spread[0] <= 0:
                continue
            share = float(self.shares[name]) / weight_sum / float(spread[0])
            for game, value in model.explain(user_row, item_idx, n=max(n, own.nnz)):
                combined[game] = combined.get(game, 0.0) + share * value
        ranked = sorted(combined.items(), key=lambda pair: (-pair[1], pair[0]))
        return [(game, value) for game, value in ranked[:n] if value > 0]


def greedy_selection(
    zscores: dict[str, np.ndarray],
    own: sp.csr_matrix,
    relevant: Any,
    rows: np.ndarray,
    *,
    k: int = 10,
    rounds: int = MAX_ROUNDS,
    start: int = START_COPIES,
    pool: int | None = POOL,
) -> tuple[dict[str, int], float, list[tuple[str, float]]]:
    """Caruana-style selection with replacement over members' z-scores of the same users.

    ``zscores[name]`` is ``(len(rows), n_games)``; ``own`` the users' own rows (never
    ranked); ``relevant`` the held-out rows (``user_id`` = the entries of ``rows``,
    ``game_id`` = column) as for ``ndcg_at_k``. Only the ``pool`` best single members may
    join (``None``: all). Starts from the best single member (ties: the earlier name)
    counted ``start`` times, then adds whichever member most improves NDCG@k, stopping
    when none does or after ``rounds`` additions. Returns (counts, NDCG@k of the ensemble,
    the path: each step's member and the NDCG after it).
    """
    names = list(zscores)
    if not names:
        raise ValueError("greedy selection needs at least one member")
    marked = np.repeat(np.arange(own.shape[0]), np.diff(own.indptr))

    def ndcg_of(total: np.ndarray) -> float:
        scores = total.copy()
        scores[marked, own.indices] = -np.inf
        ids, values = top_n(scores, k)
        return ndcg_at_k(topk_frame(rows, ids, values), relevant, k)

    singles = {name: ndcg_of(zscores[name]) for name in names}
    ranked = sorted(names, key=lambda name: -singles[name])  # stable: ties keep the earlier name
    names = [name for name in names if name in ranked[: pool or len(names)]]
    first = max(names, key=lambda name: singles[name])  # max keeps the first of equals
    counts = {first: start}
    total = zscores[first].astype(np.float32) * np.float32(start)
    best = singles[first]
    path = [(first, best)]
    for _ in range(rounds):
        size = sum(counts.values())
        tried = {name: ndcg_of((total + zscores[name]) / np.float32(size + 1)) for name in names}
        pick = max(names, key=lambda name: tried[name])
        if tried[pick] <= best:
            break
        total += zscores[pick]
        counts[pick] = counts.get(pick, 0) + 1
        best = tried[pick]
        path.append((pick, best))
    log.info("ensemble: %s (ndcg@%d %.4f; singles %s)", counts, k, best,
             ", ".join(f"{name} {value:.4f}" for name, value in singles.items()))
    return counts, best, path
