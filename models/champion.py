"""Naming the champion: the best NDCG@k on the selection split, unless last night's champion
is not clearly worse.

Why an incumbent: near-equal candidates swap places from one night to the next by the
chance of the split (on the demo the ensemble's 0.1500 against BM25's 0.1496), and every
swap changes the lists of members whose collections did not move: the served top 10 of
unchanged members kept a Jaccard@10 of 0.75 when the champion changed between two nights,
0.93 when the same candidate was re-tuned (BENCHMARKS.md, "Stability for members"). Churn
is what users of the best-known board game recommender complain about most. So last
night's champion stays while the best candidate's gain over it is within **one standard
error** of their paired per-user difference on the selection split (the one-standard-error
rule of model selection, Breiman et al. 1984): a challenger takes over only when the
selection split says it is better beyond its own noise. Without an incumbent (the first
night, ``bodoge evaluate``) or when the incumbent is not a candidate, the best wins; ties
go to the earlier (simpler) candidate, as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

STANDARD_ERRORS = 1.0
"""How many standard errors of the paired difference a challenger must clear."""


@dataclass(frozen=True, slots=True)
class ChampionChoice:
    """The champion, the best candidate on the selection split, and why they differ (or None)."""

    champion: str
    best: str
    note: str | None = None


def choose_champion(
    per_user: Mapping[str, np.ndarray], *, incumbent: str | None = None, k: int = 10,
    standard_errors: float = STANDARD_ERRORS,
) -> ChampionChoice:
    """The champion from each candidate's per-user NDCG@k on the selection split.

    ``per_user[name]`` holds the same users in the same order for every candidate (the
    selection split's held-out users, ``models.metrics.ndcg_per_user``). The best mean
    wins (ties: the earlier name) unless ``incumbent`` is a candidate whose paired
    difference to the best has a mean within ``standard_errors`` standard errors.
    """
    if not per_user:
        raise ValueError("choosing a champion needs at least one candidate")
    means = {name: float(np.mean(values)) if len(values) else 0.0 for name, values in per_user.items()}
    best = max(means, key=lambda name: means[name])  # max keeps the first of equals
    if incumbent is None or incumbent not in per_user or incumbent == best:
        return ChampionChoice(best, best)
    difference = np.asarray(per_user[best], dtype=np.float64) - np.asarray(per_user[incumbent], dtype=np.float64)
    n = difference.size
    spread = float(difference.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    gain = float(difference.mean()) if n else 0.0
    if gain > standard_errors * spread:
        return ChampionChoice(best, best)
    note = (
        f"{incumbent} stays champion (last night's): {best} was {gain:.4f} higher on the selection "
        f"split's NDCG@{k}, within {standard_errors:g} standard error ({spread:.4f}) of their paired difference"
    )
    return ChampionChoice(incumbent, best, note)
