"""What ``evaluate`` hands back: per-model results, the champion, and their exports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from models.forward import SplitChoice
from models.tuning import TuningResult, WeightingChoice

METRICS: tuple[str, ...] = ("ndcg", "precision", "recall", "map", "coverage")
"""The test metrics every model reports, in ``bodoge evaluate --json`` order."""
BEYOND: tuple[str, ...] = ("long_tail_share", "intra_list_diversity", "mean_popularity_rank")
"""Beyond-accuracy metrics of every model (``marts.model_runs``); ``rank_stability`` is added
by the nightly, which has the previous night's lists."""


@dataclass
class ModelResult:
    """One candidate: tuned parameters, validation scores, test metrics, top-K lists.

    ``validation_ndcg`` is the best NDCG of tuning (optimistic: it picked the setting);
    ``selection_ndcg`` is the chosen setting's NDCG on a second, fresh split of TRAIN and
    is what names the champion; ``metrics`` are on TEST; ``fit_seconds`` times the final
    fit on all of TRAIN; ``notes`` says what a cost guard did in that fit (or None).
    """

    name: str
    params: dict[str, Any]
    tuning: TuningResult
    selection_ndcg: float
    metrics: dict[str, float]
    fit_seconds: float
    topk: pl.DataFrame = field(repr=False)
    beyond: dict[str, float] = field(default_factory=dict)
    """Beyond accuracy on TEST's lists (``BEYOND``, ``models.beyond``)."""
    notes: str | None = None
    forward_ndcg: float | None = None
    """NDCG@k on the forward selection split (TRAIN cut at one moment), None without one."""

    @property
    def validation_ndcg(self) -> float:
        """Best NDCG@k seen while tuning."""
        return self.tuning.ndcg


@dataclass
class EvaluationReport:
    """The outcome of ``models.evaluate.evaluate``.

    ``champion`` is the candidate with the best ``selection_ndcg`` (never chosen on TEST);
    the TEST numbers are reported for every candidate so anyone can see how the choice
    held up.
    """

    k: int
    champion: str
    results: dict[str, ModelResult]
    weighting: WeightingChoice
    n_users: int
    n_games: int
    n_interactions: int
    n_test_users: int
    n_cold_users: int
    split: str = "random"
    tuning: str = ""
    """Where the weighting and parameters came from, in words (``evaluate``)."""
    selection: str = ""
    """How the champion was chosen, in words (``selection_text``): ``marts.model_runs.selection``."""
    followed: str = "offline"
    """The selection split the champion followed: ``offline`` or ``forward`` (``models.forward``)."""
    kendall_tau: float | None = None
    """Kendall's τ between the candidates' offline and forward selection NDCG (None: no forward view)."""

    def to_dict(self) -> dict[str, Any]:
        """``{"k", "champion", "models": {name: {ndcg, precision, recall, map, coverage, fit_seconds}}}``;
        with a forward view also ``followed``, ``kendall_tau``, ``selection`` and each ``forward_ndcg``."""
        forward = any(result.forward_ndcg is not None for result in self.results.values())
        return {
            "k": self.k,
            "champion": self.champion,
            "models": {
                name: {
                    **{metric: round(result.metrics[metric], 6) for metric in METRICS},
                    "fit_seconds": round(result.fit_seconds, 3),
                    **({"forward_ndcg": round(result.forward_ndcg or 0.0, 6)} if forward else {}),
                }
                for name, result in self.results.items()
            },
            **({"followed": self.followed, "kendall_tau": self.kendall_tau, "selection": self.selection}
               if forward else {}),
        }

    def to_json(self, indent: int | None = None) -> str:
        """``to_dict`` as JSON text (what ``bodoge evaluate --json`` prints)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def champion_topk(self) -> pl.DataFrame:
        """The champion's top-K per test user: ``user_id``, ``rank``, ``game_id``, ``score``."""
        return self.results[self.champion].topk

    def table(self) -> pl.DataFrame:
        """One row per model with TEST metrics, validation/selection NDCG and fit time."""
        return pl.DataFrame(
            [
                {
                    "model": name,
                    **result.metrics,
                    "validation_ndcg": result.validation_ndcg,
                    "selection_ndcg": result.selection_ndcg,
                    "forward_ndcg": result.forward_ndcg,
                    "fit_seconds": result.fit_seconds,
                    "champion": name == self.champion,
                    "notes": result.notes,
                }
                for name, result in self.results.items()
            ]
        )

    def model_runs(
        self, run_id: str, trained_at: datetime, *, stability: dict[str, float | None] | None = None
    ) -> pl.DataFrame:
        """Rows shaped like ``marts.model_runs`` (``params`` is JSON with the weighting);
        ``stability`` is each model's Jaccard@k against the previous night (None: no night)."""
        rows = []
        for name, result in self.results.items():
            params = {
                **result.params,
                "weighting": self.weighting.name,
                "weights": self.weighting.weights.to_dict(),
                "selection_ndcg": result.selection_ndcg,
                **({"forward_ndcg": result.forward_ndcg} if result.forward_ndcg is not None else {}),
            }
            rows.append(
                {
                    "run_id": run_id,
                    "model": name,
                    "params": json.dumps(params, ensure_ascii=False, sort_keys=True),
                    "k": self.k,
                    **{metric: result.metrics[metric] for metric in METRICS},
                    "n_users": self.n_users,
                    "n_games": self.n_games,
                    "n_interactions": self.n_interactions,
                    "trained_at": trained_at,
                    "champion": name == self.champion,
                    "split": self.split,
                    **{metric: result.beyond.get(metric) for metric in BEYOND},
                    "rank_stability": (stability or {}).get(name),
                    "notes": result.notes,
                    "selection": self.selection or None,
                }
            )
        return pl.DataFrame(rows, schema_overrides={"rank_stability": pl.Float64, "selection": pl.String})


TUNED = "weighting and parameters tuned on a validation split of TRAIN"
"""``EvaluationReport.tuning`` of a report that tuned for itself."""


def selection_text(*, k: int, n_candidates: int, by_time: bool, tuning: str, incumbent: str | None = None,
                   split_choice: SplitChoice | None = None, recency: str = "") -> str:
    """How ``evaluate`` names the champion, in one line (the summary and model_runs say it).

    Why in words: the champion's TEST NDCG can rank below others' (TEST never takes part
    in the choice), and a reader of one night's table needs to know what it won on; with
    an ``incumbent`` (last night's champion, ``models.champion``) it also says that rule, and
    with a forward view (``models.forward``) which split it followed, why, and Kendall's τ;
    ``recency`` is what the weighting's recency choice decided (``models.recency``).
    """
    split = ("a time split of TRAIN (each member's latest 20%)" if by_time
             else "a fresh random split of TRAIN (20% of each member's rows)")
    if split_choice is not None and split_choice.followed == "forward":
        split = ("a forward split of TRAIN (fitted on what was held at one moment, scored on what members added "
                 f"after it) instead of {split}")
    kept = f", unless last night's champion ({incumbent}) is within one standard error of it" if incumbent else ""
    followed = ""
    if split_choice is not None:
        tau = "n/a" if split_choice.tau is None else f"{split_choice.tau:.2f}"
        followed = f"; followed the {split_choice.followed} split: {split_choice.reason} (Kendall τ offline/forward {tau})"
    weighted = f"; {recency}" if recency else ""
    return f"best NDCG@{k} of {n_candidates} candidates on {split}{kept}{followed}; {tuning}{weighted}"
