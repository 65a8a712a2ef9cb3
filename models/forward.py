"""Which split names the champion: the offline selection split, or what members added next.

Why a rule at all: offline splits and what users do next often disagree (Garcin et al.,
RecSys 2014: most-popular best offline, poorest live), so the champion should follow the
forward view (``ValidationSet.carve_forward``: fit on what was held before one moment, score
on what members added after it) when that view can tell the candidates apart. But a forward
cut has far fewer members to score than a per-member split (only those who added something
after it), so on a thin forward sample the choice is noise.

The rule, as a recommender-systems reviewer would accept it:

1. **Enough members.** The forward view is followed only with at least
   ``MIN_FORWARD_MEMBERS`` members who added something after the cut; otherwise the
   offline split decides, and the reason says how many there were.
2. **No loss offline.** The forward best must not lose to the offline best beyond one
   standard error of their paired per-user difference on the offline split (the same
   one-standard-error rule as ``models.champion``): a candidate that only wins forward by
   giving up what the offline split measures well is not taken on a single cut.
3. The incumbent rule (``models.champion``) then applies on the split followed.

Kendall's τ between the two rankings of the candidates (by mean NDCG@k) is reported beside
the choice: near 1 the splits agree and the rule changes nothing; low or negative, the
offline ranking is a poor guide to what members do next.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

MIN_FORWARD_MEMBERS = 50
"""Members with rows after the cut that the forward view needs before it is followed."""


@dataclass(frozen=True, slots=True)
class SplitChoice:
    """Which split's per-user NDCG names the champion (``"offline"`` or ``"forward"``), and why."""

    followed: str
    reason: str
    tau: float | None


def kendall_tau(first: Mapping[str, float], second: Mapping[str, float]) -> float | None:
    """Kendall's τ-b between two scorings of the same candidates (None under three candidates
    or when one scoring ties everything: no ranking to compare)."""
    from scipy.stats import kendalltau

    names = [name for name in first if name in second]
    if len(names) < 3:
        return None
    a = np.array([first[name] for name in names])
    b = np.array([second[name] for name in names])
    if np.all(a == a[0]) or np.all(b == b[0]):
        return None
    return float(kendalltau(a, b).statistic)


def _means(per_user: Mapping[str, np.ndarray]) -> dict[str, float]:
    return {name: float(np.mean(values)) if len(values) else 0.0 for name, values in per_user.items()}


def _best(means: Mapping[str, float]) -> str:
    return max(means, key=lambda name: means[name])  # ties: the earlier (simpler) candidate


def choose_split(
    offline: Mapping[str, np.ndarray], forward: Mapping[str, np.ndarray] | None, *, k: int = 10,
    min_members: int = MIN_FORWARD_MEMBERS, standard_errors: float = 1.0,
) -> SplitChoice:
    """Follow the forward per-user NDCG@k or the offline one (the module's rule).

    ``offline[name]`` and ``forward[name]`` each hold the same users in the same order for
    every candidate (``validation_ndcg_per_user``); ``forward`` None means no forward view.
    """
    if forward is None:
        return SplitChoice("offline", "no forward view (no times, or shortcuts on large data)", None)
    offline_means, forward_means = _means(offline), _means(forward)
    tau = kendall_tau(offline_means, forward_means)
    members = len(next(iter(forward.values()))) if forward else 0
    if members < min_members:
        return SplitChoice("offline", f"only {members} members added a game after the forward cut "
                                      f"(fewer than {min_members}: too few to separate candidates)", tau)
    best_offline, best_forward = _best(offline_means), _best(forward_means)
    if best_offline == best_forward:
        return SplitChoice("forward", f"{members} members added a game after the cut; both splits rank "
                                      f"{best_forward} first", tau)
    difference = np.asarray(offline[best_offline], float) - np.asarray(offline[best_forward], float)
    spread = float(difference.std(ddof=1)) / math.sqrt(difference.size) if difference.size > 1 else 0.0
    loss = float(difference.mean()) if difference.size else 0.0
    if loss > standard_errors * spread:
        return SplitChoice("offline", f"the forward best ({best_forward}) loses {loss:.4f} NDCG@{k} offline to "
                                      f"{best_offline}, beyond one standard error ({spread:.4f})", tau)
    return SplitChoice("forward", f"{members} members added a game after the cut; the forward best "
                                  f"({best_forward}) is within one standard error of {best_offline} offline", tau)
