"""The candidate models and the hyperparameter grids they are tuned over.

Grids are small on purpose: every candidate is tuned on a validation split of TRAIN
and the whole tuning has to fit in a few minutes on 2 cores at ~1M interactions (and
well under that at ~100k). Each candidate's default parameters are always tried
first, so tuning can only improve on a known-good setting. Larger grids are sampled
(``n_iter``) with scikit-learn's ``ParameterSampler``; smaller ones run in full
(``ParameterGrid``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from models.base import Recommender, hyperparameters
from models.ensemble import Ensemble
from models.ease import EASE, EDLAE
from models.factorization import ALS, BPR
from models.gfcf import GFCF
from models.knn import ItemKNNBM25, ItemKNNCosine
from models.popularity import Popularity
from models.rp3beta import RP3beta


TUNING_MAX_ITEMS = 5_000
"""EASE and RP3beta model at most this many games (the most collected) while tuning and
selecting. A 5,000-game EASE inverse takes ~2 s on one core, 20,000 takes minutes;
RP3beta's walk matrix is games² work (~40 s a fit at 10,000 games on a busy core);
tuning needs ~20 fits. The chosen parameters carry over to the final fit, which models
up to ``EASE.max_items`` games (RP3beta: all). Catalogues
of ML-1M size (3,700 games) are not affected."""


@dataclass(frozen=True)
class Candidate:
    """A model class, its search space, and how many sampled settings to try.

    ``while_tuning`` holds parameters forced during tuning and selection only (cost caps);
    the final fit on all of TRAIN uses the tuned parameters without them. ``ensemble_member``
    says whether the ensemble may weigh it (a member whose lists churn between nights makes
    the ensemble's churn too).
    """

    name: str
    factory: type[Recommender]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    n_iter: int | None = None
    while_tuning: dict[str, Any] = field(default_factory=dict)
    ensemble_member: bool = True

    def build(self, params: dict[str, Any], seed: int, *, tuning: bool = False) -> Recommender:
        """A fresh model with these parameters and the run's seed (and caps when tuning)."""
        extra = self.while_tuning if tuning else {}
        return self.factory(**{**params, **extra}, random_state=seed)  # type: ignore[call-arg]  # every candidate takes it


@hyperparameters
class CandidateEnsemble(Ensemble):
    """The ensemble whose members are the candidates below, built with their tuned
    parameters and the ensemble's seed (and their tuning caps with ``member_caps``)."""

    def member(self, name: str, params: dict[str, Any]) -> Recommender:
        """A fresh single candidate ``name`` with ``params``."""
        candidates = default_candidates(tried=True)
        if name not in candidates or candidates[name].factory is type(self):
            raise ValueError(f"ensemble members must be single candidates, got {name!r}")
        return candidates[name].build(params, self.random_state or 0, tuning=self.member_caps)


def tried_candidates() -> dict[str, Candidate]:
    """Candidates measured and left out of the night: ``evaluate(models=[...])`` and
    ``benchmarks.quality_real --models`` can still name them.

    Why kept: the next attempt starts from a tuned, tested model and its figures
    (docs/recommenders.md) instead of from a paper.
    """
    candidates = [
        # A graph filter (linear + ideal low-pass, closed form), built unlike EASE and ALS
        # for the ensemble's sake. On MovieLens-100k (5 seeds) it scored −3.5 % NDCG@10
        # against tuned EASE, joined the ensemble on one seed of five (ensemble 0.4599 with
        # it eligible, 0.4605 without), the best mix read off TEST with it is no better than
        # without it (0.4574 vs 0.4573), and its lists churned more between nights
        # (Jaccard@10 0.917 vs EASE's 0.954). Its fit at 10,000 games × 100,000 members took
        # minutes (docs/recommenders.md): it would not fit the night uncapped either.
        Candidate(
            "gfcf",
            GFCF,
            {"factors": [24, 32, 48, 64, 96, 128], "alpha": [0.3, 0.5, 1.0]},
            n_iter=8,
            while_tuning={"max_items": TUNING_MAX_ITEMS},
        ),
    ]
    return {candidate.name: candidate for candidate in candidates}


def default_candidates(*, tried: bool = False) -> dict[str, Candidate]:
    """Every candidate of the night, in tie-breaking order (simpler and cheaper first; the
    ensemble of the others last); with ``tried`` the ``tried_candidates`` too, before the
    ensemble."""
    candidates = [
        Candidate("popularity", Popularity),
        Candidate("cosine", ItemKNNCosine, {"K": [20, 50, 100, 200]}),
        Candidate(
            "bm25",
            ItemKNNBM25,
            {"K": [50, 100, 200], "K1": [0.6, 1.2, 2.0], "B": [0.25, 0.75, 1.0]},
            n_iter=5,
        ),
        Candidate(
            "ease",
            EASE,
            {"l2": [10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0]},
            while_tuning={"max_items": TUNING_MAX_ITEMS},
        ),
        # EASE with the dropout emphasis on the diagonal (EDLAE): plain EASE stays a candidate
        # of its own, the baseline the literature compares against.
        Candidate(
            "edlae",
            EDLAE,
            {"l2": [30.0, 100.0, 300.0, 1000.0, 3000.0], "dropout": [0.25, 0.5, 0.67]},
            n_iter=8,
            while_tuning={"max_items": TUNING_MAX_ITEMS},
        ),
        Candidate(
            "rp3beta",
            RP3beta,
            {"alpha": [0.5, 0.8, 1.0], "beta": [0.0, 0.2, 0.35, 0.5], "top_k": [100, 200, 400]},
            n_iter=7,
            while_tuning={"max_items": TUNING_MAX_ITEMS},
        ),
        Candidate(
            "als",
            ALS,
            {
                "factors": [16, 32, 64, 128],
                # 30 and 100: with 64–128 factors ML-100k wants a much stronger penalty
                # (NDCG@10 0.425 → 0.440 over 5 seeds, benchmarks.quality_real).
                "regularization": [0.1, 1.0, 10.0, 30.0, 100.0],
                "alpha": [1.0, 4.0, 16.0],
                "iterations": [15],
            },
            n_iter=10,
        ),
        Candidate(
            "bpr",
            BPR,
            {
                "factors": [32, 64, 128],
                "learning_rate": [0.01, 0.05],
                "regularization": [0.001, 0.01],
                "iterations": [10, 25],
            },
            n_iter=3,
            # SGD on sampled pairs: on MovieLens-100k its lists for members whose rows did
            # not change kept a Jaccard@10 of 0.37 from one night to the next (ALS 0.97), and
            # an ensemble weighing it dropped to 0.86 (0.97 without it).
            ensemble_member=False,
        ),
        # Not tuned over a grid: ``models.tuning.tune_ensemble`` weighs the tuned candidates
        # above (greedy ensemble selection on the tuning split); last, so a single model
        # wins a tie.
        Candidate("ensemble", CandidateEnsemble, while_tuning={"member_caps": True}),
    ]
    if tried:
        candidates[-1:-1] = tried_candidates().values()
    return {candidate.name: candidate for candidate in candidates}
