"""Hyperparameter and confidence-weighting tuning on validation splits of TRAIN.

Everything is seeded: the validation split (``ValidationSet.carve``), the sampled
settings (``ParameterSampler(random_state=seed)``) and the models' own randomness.
The same inputs and seed give the same choices.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from models.base import Recommender
from models.candidates import Candidate, default_candidates
from models.ensemble import ENSEMBLE_CELLS, START_COPIES, greedy_selection, zscore_rows
from models.sklearn_lazy import parameter_grid, parameter_sampler
from models.split import stable_sample
from models.validation import ValidationSet, validation_ndcg
from models.weighting import WEIGHTINGS, ConfidenceWeights, with_confidence

log = logging.getLogger("bodoge.models")

WEIGHTING_REFERENCE_L2 = (30.0, 300.0, 3000.0)
"""EASE penalties tried for each weighting (the best counts): confidence scales differ
between weightings, so a single λ would favour one scale rather than one weighting."""


@dataclass(frozen=True)
class Trial:
    """One setting tried: its parameters, validation NDCG and fit+score seconds."""

    params: dict[str, Any]
    ndcg: float
    seconds: float


@dataclass
class TuningResult:
    """The chosen setting of one candidate and every trial behind the choice."""

    name: str
    params: dict[str, Any]
    ndcg: float
    trials: list[Trial] = field(default_factory=list)
    note: str | None = None
    """What a cost shortcut did to this search (``models.budget``), for ``model_runs.notes``."""
    model: Recommender | None = field(default=None, repr=False, compare=False)
    """The best setting's model fitted on the tuning split (``tune(keep=True)``): the ensemble's
    weights are chosen on its scores without fitting it again."""


@dataclass
class WeightingChoice:
    """The chosen confidence weighting, every weighting's score, and why in words."""

    name: str
    weights: ConfidenceWeights
    scores: dict[str, float]
    reason: str
    recency: str = ""
    """What ``models.recency`` decided, in a few words, for the selection line (empty: not asked)."""


def settings(candidate: Candidate, seed: int, *, limit: int | None = None) -> list[dict[str, Any]]:
    """Default parameters first, then the full grid or ``n_iter`` sampled settings.

    ``limit`` (large data, ``models.budget``) caps a *sampled* grid at that many settings
    in all, defaults included; a small grid still runs in full.
    """
    grid = candidate.grid
    full = parameter_grid(grid)
    n_iter = candidate.n_iter
    if n_iter is not None and limit is not None:
        n_iter = max(1, min(n_iter, limit - 1))
    if n_iter is None or len(full) <= n_iter:
        drawn = list(full)
    else:
        drawn = list(parameter_sampler(grid, n_iter=n_iter, random_state=seed))
    defaults = {key: value for key, value in candidate.factory().get_params().items() if key in grid}
    ordered: list[dict[str, Any]] = [defaults]
    for params in drawn:
        normalised = {key: _plain(value) for key, value in sorted(params.items())}
        if normalised not in ordered:
            ordered.append(normalised)
    return ordered


def _plain(value: Any) -> Any:
    """numpy scalars from the samplers as plain Python values (JSON-able params)."""
    return value.item() if hasattr(value, "item") else value


def tune(
    candidate: Candidate,
    validation: ValidationSet,
    *,
    k: int = 10,
    seed: int = 0,
    limit: int | None = None,
    keep: bool = False,
) -> TuningResult:
    """Fit each setting on the fit part and keep the best validation NDCG@k.

    Ties keep the earlier setting (the defaults come first). ``limit`` caps a sampled
    grid (``settings``); the result's ``note`` says so when it cut the search. ``keep``
    keeps the best setting's fitted model on the result (``TuningResult.model``).
    """
    trials: list[Trial] = []
    models: list[Recommender] = []
    chosen = settings(candidate, seed, limit=limit)
    whole = settings(candidate, seed)
    note = None
    if len(chosen) < len(whole):
        note = f"{candidate.name} tuned over {len(chosen)} of {len(whole)} settings"
        log.info("tuning %s: %s (large data)", candidate.name, note)
    for params in chosen:
        started = time.perf_counter()
        model = candidate.build(params, seed, tuning=True).fit(validation.matrix.matrix)
        score = validation_ndcg(model, validation, k)
        trials.append(Trial(params, score, time.perf_counter() - started))
        if keep and (not models or score > max(trial.ndcg for trial in trials[:-1])):
            models[:] = [model]
        log.debug("tuning %s %s: ndcg@%d %.4f", candidate.name, params, k, score)
    best = max(trials, key=lambda trial: trial.ndcg)  # max keeps the first of equals
    log.info(
        "tuned %s over %d settings: %s (validation ndcg@%d %.4f)",
        candidate.name,
        len(trials),
        best.params,
        k,
        best.ndcg,
    )
    return TuningResult(candidate.name, best.params, best.ndcg, trials, note, models[0] if models else None)


def tune_ensemble(
    tuned: dict[str, TuningResult],
    validation: ValidationSet,
    *,
    k: int = 10,
    seed: int = 0,
    candidates: dict[str, Candidate] | None = None,
) -> TuningResult:
    """The ensemble's weights by greedy ensemble selection over the tuned candidates' scores.

    Members are the ``tuned`` single candidates that are ``ensemble_member``, scored on the same
    tuning split they were tuned on (their kept model, ``tune(keep=True)``, or a refit with
    the tuned setting).
    Held-out users are sampled (seeded) when their z-scores would pass ``ENSEMBLE_CELLS``;
    the result's ``note`` says so. Trials are the greedy path (ensemble so far, NDCG after).
    """
    candidates = candidates or default_candidates()
    started = time.perf_counter()
    names = [name for name in tuned if name != "ensemble" and candidates[name].ensemble_member]
    if len(names) < 2:
        raise ValueError("an ensemble needs at least two tuned candidates it may weigh")
    rows = validation.rows
    n_items = validation.matrix.shape[1]
    note = None
    most = max(1, ENSEMBLE_CELLS // max(1, n_items * len(names)))
    if rows.size > most:
        rows = rows[stable_sample(validation.matrix.user_ids.gather(rows), most, seed)]  # rows are sorted
        note = f"ensemble weights chosen on {most:,} of {validation.rows.size:,} held-out users"
        log.info("ensemble: %s", note)
    own = validation.matrix.matrix[rows]
    zscores: dict[str, np.ndarray] = {}
    for name in names:
        model = tuned[name].model
        if model is None:
            model = candidates[name].build(tuned[name].params, seed, tuning=True).fit(validation.matrix.matrix)
        zscores[name] = zscore_rows(model.score(rows), own)
    relevant = validation.relevant.filter(pl.col("user_id").is_in(rows.tolist()))
    counts, ndcg, path = greedy_selection(zscores, own, relevant, rows, k=k)
    common = math.gcd(*counts.values())  # {"ease": 3} is {"ease": 1}: the same ranking
    counts = {name: count // common for name, count in counts.items()}
    seconds = time.perf_counter() - started
    params = {
        "members": {name: tuned[name].params for name in counts},
        "shares": dict(sorted(counts.items(), key=lambda item: (-item[1], names.index(item[0])))),
    }
    trials: list[Any] = []
    so_far: dict[str, Any] = {}
    for step, (name, value) in enumerate(path):
        so_far[name] = so_far.get(name, 0) + (START_COPIES if step == 0 else 1)
        trials.append(Trial({"shares": dict(so_far)}, value, seconds / len(path)))
    return TuningResult("ensemble", params, ndcg, trials, note)


def weighting_reference() -> Candidate:
    """EASE over ``WEIGHTING_REFERENCE_L2``: what a weighting is judged with (``choose_weighting``,
    ``models.recency``)."""
    return replace(default_candidates()["ease"], grid={"l2": list(WEIGHTING_REFERENCE_L2)})


def choose_weighting(
    validation: ValidationSet,
    *,
    k: int = 10,
    seed: int = 0,
    weightings: dict[str, ConfidenceWeights] | None = None,
    reference: Candidate | None = None,
    max_items: int | None = None,
) -> WeightingChoice:
    """Pick the confidence weighting whose validation NDCG@k is best for ``reference``.

    The reference defaults to EASE tuned over ``WEIGHTING_REFERENCE_L2``: it is the
    usual champion and cheap to refit, and the weighting is one choice for all models so
    that the models compared later see the same input. ``max_items`` (large data) caps
    the reference EASE at that many games, and the reason says so. A weighting must beat the
    earlier (simpler) ones by more than 0.5 % relative to be chosen: smaller differences
    are noise, and the simpler scheme is easier to explain.
    """
    weightings = weightings or WEIGHTINGS
    reference = weighting_reference() if reference is None else reference
    if max_items is not None:
        reference = replace(reference, while_tuning={**reference.while_tuning, "max_items": max_items})
    scores: dict[str, float] = {}
    seen: list[tuple[str, np.ndarray]] = []
    for name, weights in weightings.items():
        values = with_confidence(validation.fit_frame, weights).get_column("confidence").to_numpy()
        twin = next((other for other, known in seen if np.array_equal(known, values)), None)
        if twin is not None:
            # Same confidences (e.g. a file without status flags): same score, no refit.
            scores[name] = scores[twin]
            log.info("weighting %s: same confidences as %s on this data", name, twin)
            continue
        seen.append((name, values))
        result = tune(reference, validation.reweighted(weights), k=k, seed=seed)
        scores[name] = result.ndcg
        log.info("weighting %s: validation ndcg@%d %.4f (%s)", name, k, result.ndcg, reference.name)
    chosen = next(iter(scores))
    for name, score in scores.items():
        if score > scores[chosen] * 1.005:
            chosen = name
    ranked = ", ".join(
        f"{name} {score:.4f}" for name, score in sorted(scores.items(), key=lambda item: -item[1])
    )
    reason = (
        f"{chosen} gave the best validation NDCG@{k} with {reference.name} "
        f"(an earlier, simpler weighting wins differences under 0.5%): {ranked}"
    )
    if max_items is not None:
        reason += f" [{reference.name} capped at the {max_items:,} most collected games for this choice]"
    return WeightingChoice(chosen, weightings[chosen], scores, reason)


def tuning_summary(results: dict[str, TuningResult]) -> pl.DataFrame:
    """Every trial of every candidate, for logs and the dashboard."""
    rows = [
        {"model": name, "params": str(trial.params), "ndcg": trial.ndcg, "seconds": trial.seconds}
        for name, result in results.items()
        for trial in result.trials
    ]
    return pl.DataFrame(rows, schema={"model": pl.String, "params": pl.String, "ndcg": pl.Float64, "seconds": pl.Float64})
