"""Whether tonight's weighting counts how recent each entry is: chosen forward, kept only if it costs nothing offline.

Why a choice of its own: a random holdout cannot reward recency (it scatters a member's held-out
rows over their whole history, so discounting old rows only hurts it), while what a night's list
is for is what members add *next*. On MovieLens-100k cut at five moments (``python -m
benchmarks.forward_candidates``, docs/recommenders.md) a half-life of 180 days won 3 % forward and
lost nothing significant on the random split; shorter ones won more forward and lost the random
split. So the rule is both at once, on splits of TRAIN only (TEST never takes part):

1. EASE (the weighting's reference, ``models.tuning``) is tuned over λ on a forward split of TRAIN
   (``ValidationSet.carve_forward``: fitted on what was held by one moment, scored on what members
   added after it) with the chosen weighting, no recency;
2. each half-life of ``HALF_LIVES`` is scored at that λ on the same forward split and on the
   weighting's random split;
3. the half-life kept is the best forward one among those that beat no recency forward by more
   than ``MARGIN`` and do not lose more than ``MARGIN`` on the random split; none qualifies: no
   recency. Ties go to the longer half-life (the gentler change).

Left out, and said so: data without times, a forward split with fewer members to score than the
champion's forward rule asks for (``models.forward.MIN_FORWARD_MEMBERS``), and large data
(``models.budget``: it skips the forward split for the same reason, one more fit per setting).
"""

from __future__ import annotations

import logging
from dataclasses import replace

import polars as pl

from models.candidates import Candidate
from models.forward import MIN_FORWARD_MEMBERS
from models.tuning import WeightingChoice, tune
from models.validation import ValidationSet, validation_ndcg
from models.weighting import weighting_name

log = logging.getLogger("bodoge.models")

HALF_LIVES: tuple[float, ...] = (365.0, 180.0, 90.0)
"""Half-lives tried, in days, longest first (ties keep the earlier): about a year, the keeper on
MovieLens, and the shortest that still held most of the random score there."""

MARGIN = 0.005
"""Relative difference read as noise: the weighting choice's own 0.5 % (``choose_weighting``)."""


def choose_recency(
    train: pl.DataFrame,
    chosen: WeightingChoice,
    random_split: ValidationSet,
    *,
    reference: Candidate,
    k: int = 10,
    seed: int = 0,
) -> WeightingChoice:
    """``chosen``, with a half-life when one wins forward without losing on ``random_split`` (the
    module's rule); the reason says which, with every score. ``train`` needs ``updated_at``;
    ``random_split`` is the split the weighting was chosen on, already weighted by ``chosen``."""
    if "updated_at" not in train.columns or train.get_column("updated_at").null_count() == train.height:
        return _kept(chosen, "no recency: TRAIN has no times", short="")  # nothing was asked: no claim
    try:
        forward = ValidationSet.carve_forward(train, chosen.weights, seed=seed + 3)
    except ValueError as error:
        return _kept(chosen, f"no recency: {error}")
    if forward.rows.size < MIN_FORWARD_MEMBERS:
        return _kept(chosen, f"no recency: {forward.rows.size} members added a game after the forward cut "
                             f"(fewer than {MIN_FORWARD_MEMBERS})")
    base = tune(reference, forward, k=k, seed=seed)

    def scored(split: ValidationSet) -> float:
        return validation_ndcg(reference.build(base.params, seed, tuning=True).fit(split.matrix.matrix), split, k)

    random_base = scored(random_split)
    scores: dict[float, tuple[float, float]] = {}
    for days in HALF_LIVES:
        weights = replace(chosen.weights, half_life_days=days)
        scores[days] = (scored(forward.reweighted(weights)), scored(random_split.reweighted(weights)))
        log.info("recency %gd: forward ndcg@%d %.4f (none %.4f), random %.4f (none %.4f)",
                 days, k, scores[days][0], base.ndcg, scores[days][1], random_base)
    keepers = [days for days, (ahead, offline) in scores.items()
               if ahead > base.ndcg * (1 + MARGIN) and offline >= random_base * (1 - MARGIN)]
    tried = "; ".join(f"{days:g} d: forward {ahead:.4f}, random {offline:.4f}"
                      for days, (ahead, offline) in scores.items())
    summary = (f"without recency forward {base.ndcg:.4f}, random {random_base:.4f} "
               f"({forward.rows.size} members forward, {reference.name} λ {base.params}); {tried}")
    if not keepers:
        return _kept(chosen, f"no recency: no half-life won forward by over {MARGIN:.1%} without losing "
                             f"the random split: {summary}", short="no half-life won forward without losing offline")
    days = max(keepers, key=lambda d: scores[d][0])  # max keeps the first (longest) of equals
    weights = replace(chosen.weights, half_life_days=days)
    reason = (f"{chosen.reason}; recency with a half-life of {days:g} days: it won forward by over {MARGIN:.1%} "
              f"without losing the random split: {summary}")
    log.info("weighting: recency %g days chosen", days)
    return WeightingChoice(weighting_name(chosen.name, days), weights, chosen.scores, reason,
                           recency=f"recency {days:g} d: won forward {scores[days][0]:.4f} against {base.ndcg:.4f}, "
                                   f"random {scores[days][1]:.4f} against {random_base:.4f}")


def _kept(chosen: WeightingChoice, why: str, *, short: str | None = None) -> WeightingChoice:
    log.info("weighting: %s", why)
    return replace(chosen, reason=f"{chosen.reason}; {why}", recency=why if short is None else short)
