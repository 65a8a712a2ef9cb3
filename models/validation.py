"""Validation splits carved from training data, and scoring a fitted model on one.

Tuning and model selection only ever look at a split of TRAIN: the rows held out
here play the part of the test rows, so the real test rows stay unseen until the
final report.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from models.base import Recommender, topk_frame
from models.interactions import InteractionMatrix
from models.metrics import ndcg_at_k, ndcg_per_user
from models.split import forward_split, holdout_split, stable_sample, time_split
from models.weighting import ConfidenceWeights, time_expr


@dataclass
class ValidationSet:
    """A fit part (as a matrix with the full TRAIN's id mappings) and held-out rows.

    ``relevant`` uses matrix indices (``user_id`` = row, ``game_id`` = column), which is
    all the metrics need and avoids id lookups inside tuning loops.
    """

    fit_frame: pl.DataFrame
    held_out: pl.DataFrame
    matrix: InteractionMatrix
    rows: np.ndarray
    relevant: pl.DataFrame

    @classmethod
    def carve(
        cls,
        train: pl.DataFrame,
        weights: ConfidenceWeights,
        *,
        seed: int,
        fraction: float = 0.2,
        max_users: int | None = 10_000,
        times: pl.DataFrame | None = None,
    ) -> ValidationSet:
        """Hold out ``fraction`` of each (sampled, at most ``max_users``) user's TRAIN rows:
        at random, or with ``times`` (``user_id``, ``game_id``, ``updated_at``) their latest.

        Both ways sample the same number of users (a seeded ``stable_sample``): the time
        split's selection once scored every member (90,000 at real size, four minutes of
        the night, two of them the ensemble's) where the random one scores 10,000."""
        eligible = train.group_by("user_id").len().filter(pl.col("len") >= 2).height
        users = None if max_users is None or eligible <= max_users else int(max_users)
        if times is not None:
            fit_frame, held_out = time_split(_timed(train, times), fraction=fraction, users=users, seed=seed)
        else:
            fit_frame, held_out = holdout_split(train, fraction=fraction, seed=seed, users=users)
        user_ids = train.get_column("user_id").unique().sort()
        game_ids = train.get_column("game_id").unique().sort()
        return cls._build(fit_frame, held_out, weights, user_ids, game_ids)

    @classmethod
    def carve_forward(
        cls, train: pl.DataFrame, weights: ConfidenceWeights, *, times: pl.DataFrame | None = None,
        quantile: float = 0.8,
        max_users: int | None = 10_000, seed: int = 0,
    ) -> ValidationSet:
        """Cut TRAIN at one moment (the ``quantile`` of its rows' times, ``models.split.forward_split``;
        ``times`` None: TRAIN's own ``updated_at``):
        fit on what was held by then, hold out what members who held something added after it.

        The held-out members are sampled as in ``carve`` (at most ``max_users``, a seeded
        ``stable_sample``); an unsampled member's later rows are simply left out, never fitted
        on, so nobody's future is in the fit part."""
        fit_frame, held_out = forward_split(_timed(train, times), quantile=quantile)
        members = held_out.get_column("user_id").unique().sort()
        if max_users is not None and members.len() > max_users:
            held_out = held_out.filter(pl.col("user_id").is_in(members.gather(stable_sample(members, max_users, seed)).implode()))
        user_ids = train.get_column("user_id").unique().sort()
        game_ids = train.get_column("game_id").unique().sort()
        return cls._build(fit_frame, held_out, weights, user_ids, game_ids)

    def reweighted(self, weights: ConfidenceWeights) -> ValidationSet:
        """The same split with another confidence weighting."""
        return self._build(
            self.fit_frame, self.held_out, weights, self.matrix.user_ids, self.matrix.game_ids
        )

    @classmethod
    def _build(
        cls,
        fit_frame: pl.DataFrame,
        held_out: pl.DataFrame,
        weights: ConfidenceWeights,
        user_ids: pl.Series,
        game_ids: pl.Series,
    ) -> ValidationSet:
        matrix = InteractionMatrix.from_frame(fit_frame, weights, user_ids=user_ids, game_ids=game_ids)
        relevant = pl.DataFrame(
            {
                "user_id": matrix.user_rows(held_out.get_column("user_id")),
                "game_id": matrix.game_cols(held_out.get_column("game_id")),
            }
        )
        rows = np.unique(relevant.get_column("user_id").to_numpy())
        return cls(fit_frame, held_out, matrix, rows, relevant)


def _timed(train: pl.DataFrame, times: pl.DataFrame | None) -> pl.DataFrame:
    """TRAIN with ``updated_at``: from ``times`` when given (they win over TRAIN's own), else its own.
    Both parts of a split keep it, so a recency weighting ages the fit part's rows."""
    if times is None:
        return train
    times = times.select("user_id", "game_id", time_expr(times.schema["updated_at"]))
    return train.drop("updated_at", strict=False).join(times, on=["user_id", "game_id"], how="left")


def validation_ndcg(model: Recommender, validation: ValidationSet, k: int) -> float:
    """NDCG@k of an already fitted model on the held-out rows (own rows excluded)."""
    return ndcg_at_k(_validation_lists(model, validation, k), validation.relevant, k)


def validation_ndcg_per_user(model: Recommender, validation: ValidationSet, k: int) -> tuple[float, np.ndarray]:
    """``validation_ndcg`` and each held-out user's NDCG@k (sorted by user: the same users
    in the same order for every model on this split), for paired comparisons. Apart from
    ``validation_ndcg`` so that tuning's many trials do not pay for the per-user frame."""
    lists = _validation_lists(model, validation, k)
    per_user = ndcg_per_user(lists, validation.relevant, k).get_column("ndcg").to_numpy()
    return ndcg_at_k(lists, validation.relevant, k), per_user


def _validation_lists(model: Recommender, validation: ValidationSet, k: int) -> pl.DataFrame:
    """The model's top-k lists (``topk_frame``) for the held-out users, their own rows excluded."""
    exclude = validation.matrix.matrix[validation.rows]
    ids, scores = model.recommend(validation.rows, k, exclude=exclude)
    return topk_frame(validation.rows, ids, scores)
