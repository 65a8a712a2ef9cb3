"""The evaluation's last stage: every candidate refitted on all of TRAIN and scored on TEST.

Apart from ``models.evaluate`` (which chooses the settings and the champion) because this
stage is one candidate's work repeated, and runs the candidates on two threads
(``models.parallel``): what one candidate does here must not touch another's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np
import polars as pl
import scipy.sparse as sp

from models.base import Recommender, topk_frame
from models.beyond import intra_list_diversity, long_tail_share, mean_popularity_rank, popularity_ranks
from models.candidates import Candidate
from models.ensemble import Ensemble
from models.interactions import InteractionMatrix
from models.metrics import catalog_coverage_at_k, map_at_k, ndcg_at_k, precision_at_k, recall_at_k
from models.parallel import map_candidates
from models.popularity import Popularity
from models.report import ModelResult
from models.tuning import TuningResult

log = logging.getLogger("bodoge.models")


def fit_candidate(
    candidate: Candidate,
    params: dict,
    seed: int,
    matrix: sp.csr_matrix,
    fitted: dict[str, Recommender],
    *,
    tuning: bool = False,
) -> Recommender:
    """``candidate`` with ``params`` fitted on ``matrix``; an ensemble takes its members from
    ``fitted`` (the single candidates already fitted on the same matrix), so it costs only
    its scoring."""
    model = candidate.build(params, seed, tuning=tuning)
    if isinstance(model, Ensemble):
        return model.use_fitted(fitted, matrix)
    return model.fit(matrix)


def score_on_test(
    full: InteractionMatrix,
    train: pl.DataFrame,
    test: pl.DataFrame,
    candidates: dict[str, Candidate],
    tuned: dict[str, TuningResult],
    selection: dict[str, float],
    *,
    k: int,
    seed: int,
    item_vectors: tuple[pl.Series, sp.csr_matrix] | None = None,
    shortcuts: Sequence[str] = (),
) -> dict[str, ModelResult]:
    """Refit each candidate on all of TRAIN, rank every unseen game, score on TEST.

    Each result's ``notes`` joins the final fit's cost guard, its tuning's shortcut and
    the run's ``shortcuts`` (None when there is nothing to say). The single candidates
    run side by side (``map_candidates``); ``fit_seconds`` is each one's own wall time,
    so a fit that shared the cores reads longer than it would alone."""
    relevant = test.join(train, on=["user_id", "game_id"], how="anti").select("user_id", "game_id")
    test_users = test.get_column("user_id").unique().sort()
    rows = full.user_rows(test_users)
    known = rows >= 0
    warm_users, cold_users = test_users.filter(known), test_users.filter(~known)
    warm_rows = rows[known]
    exclude = full.matrix[warm_rows]
    catalogue = pl.concat([train.select("game_id"), test.select("game_id")]).unique()
    log.info(
        "test: %d users (%d cold, served popularity), %d relevant rows, catalogue %d games",
        test_users.len(),
        cold_users.len(),
        relevant.height,
        catalogue.height,
    )
    popularity = popularity_ranks(train)
    vector_ids, vectors = item_vectors if item_vectors is not None else (full.game_ids, sp.csr_matrix(full.matrix.T))
    fallback = Popularity().fit(full.matrix)
    cold_ids, cold_scores = fallback.recommend(np.zeros(cold_users.len(), dtype=np.int64), k)
    cold_frame = _with_ids(topk_frame(cold_users, cold_ids, cold_scores), full)

    def scored(
        name: str, candidate: Candidate, singles: dict[str, tuple[Recommender, ModelResult]]
    ) -> tuple[Recommender, ModelResult]:
        """One candidate's fit, lists and numbers (an ensemble's members from ``singles``)."""
        started = time.perf_counter()
        fitted = {member: model for member, (model, _) in singles.items()}
        model = fit_candidate(candidate, tuned[name].params, seed, full.matrix, fitted)
        fit_seconds = time.perf_counter() - started
        if isinstance(model, Ensemble):  # an ensemble costs its members' fits
            fit_seconds += sum(singles[member][1].fit_seconds for member in model.models_)
        ids, scores = model.recommend(warm_rows, k, exclude=exclude)
        topk = pl.concat([_with_ids(topk_frame(warm_users, ids, scores), full), cold_frame])
        metrics = {
            "ndcg": ndcg_at_k(topk, relevant, k),
            "precision": precision_at_k(topk, relevant, k),
            "recall": recall_at_k(topk, relevant, k),
            "map": map_at_k(topk, relevant, k),
            "coverage": catalog_coverage_at_k(topk, catalogue, k),
        }
        beyond = {
            "long_tail_share": long_tail_share(topk, popularity, k),
            "intra_list_diversity": intra_list_diversity(topk, vector_ids, vectors, k),
            "mean_popularity_rank": mean_popularity_rank(topk, popularity, k),
        }
        log.info(
            "test: %s fitted in %.2fs; ndcg@%d %.4f precision %.4f recall %.4f map %.4f coverage %.4f; "
            "long tail %.3f, diversity %.3f, mean popularity rank %.1f",
            name,
            fit_seconds,
            k,
            *metrics.values(),
            *beyond.values(),
        )
        return model, ModelResult(
            name=name,
            params=tuned[name].params,
            tuning=tuned[name],
            selection_ndcg=selection[name],
            metrics=metrics,
            fit_seconds=fit_seconds,
            topk=topk.sort("user_id", "rank"),
            beyond=beyond,
            notes="; ".join(filter(None, [model.fit_notes, tuned[name].note, *shortcuts])) or None,
        )

    done = map_candidates(candidates, lambda name, candidate: scored(name, candidate, {}), scored)
    return {name: result for name, (_, result) in done.items()}


def _with_ids(frame: pl.DataFrame, full: InteractionMatrix) -> pl.DataFrame:
    """Column indices of a top-K frame replaced by game ids."""
    games = full.game_ids.gather(frame.get_column("game_id").to_numpy())
    return frame.with_columns(
        pl.col("user_id").cast(pl.String), pl.Series("game_id", games, dtype=pl.String)
    ).select("user_id", "rank", "game_id", "score")
