"""Forward quality on real ratings: ``python -m benchmarks.quality_real --forward``.

Why: a per-user random holdout tests each member on rows scattered over their whole history,
so every model trains on part of "the future" (Ji, Sun et al., TOIS 2023) and the offline
ranking of candidates may not be the ranking of what members do next. Here MovieLens-100k is
cut at one global moment (``models.split.forward_split`` at a quantile of all ratings' times):
TRAIN is everything rated by then, TEST what members who had rated something went on to rate.
``evaluate`` runs as the nightly does, with a forward selection split of TRAIN
(``models.forward`` decides which selection split names the champion). Over several cuts it
reports, for every candidate, its offline NDCG@10 (the random selection split of TRAIN), its
forward selection NDCG@10 and its forward TEST NDCG@10 (mean and spread over cuts); the
champion of each cut and the split it followed, the candidate the offline split alone would
have chosen, popularity; Kendall's τ between the offline and the forward TEST rankings of the
candidates per cut; and paired Wilcoxon tests on forward TEST (champion vs popularity, champion
vs the offline-only choice) over all cuts' members.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import polars as pl

DEFAULT_CUTS = (0.5, 0.6, 0.7, 0.8, 0.9)
"""Quantiles of all ratings' times to cut at (several cuts: a mean and a spread)."""


def one_cut(frame: pl.DataFrame, quantile: float, models: list[str] | None, *, seed: int = 0) -> dict[str, Any]:
    """Cut, evaluate with a forward selection split, and each candidate's per-member forward TEST NDCG."""
    from models.evaluate import evaluate
    from models.forward import kendall_tau
    from models.metrics import ndcg_per_user
    from models.split import forward_split

    train, test = forward_split(frame, quantile=quantile)
    started = time.perf_counter()
    # TRAIN keeps its times: the weighting's recency is chosen on them (models.recency), as at night
    report = evaluate(train, test.drop("updated_at"), k=10, seed=seed, models=models,
                      forward=train.select("user_id", "game_id", "updated_at"))
    seconds = time.perf_counter() - started
    relevant = test.select("user_id", "game_id")
    per_user = {name: ndcg_per_user(result.topk, relevant, 10) for name, result in report.results.items()}
    offline = {name: result.selection_ndcg for name, result in report.results.items()}
    forward_test = {name: result.metrics["ndcg"] for name, result in report.results.items()}
    return {
        "cut": quantile,
        "train_rows": train.height,
        "test_rows": test.height,
        "test_members": test.get_column("user_id").n_unique(),
        "champion": report.champion,
        "weighting": report.weighting.name,
        "followed": report.followed,
        "offline_choice": max(offline, key=lambda name: offline[name]),
        "forward_choice": max(forward_test, key=lambda name: forward_test[name]),
        "selection": report.selection,
        "seconds": round(seconds, 1),
        "offline_ndcg": {name: round(value, 4) for name, value in offline.items()},
        "forward_selection_ndcg": {name: None if r.forward_ndcg is None else round(r.forward_ndcg, 4)
                                   for name, r in report.results.items()},
        "forward_ndcg": {name: round(value, 4) for name, value in forward_test.items()},
        "kendall_tau_offline_forward": _rounded(kendall_tau(offline, forward_test)),
        "kendall_tau_forward_selection_forward": _rounded(kendall_tau(
            {name: r.forward_ndcg or 0.0 for name, r in report.results.items()}, forward_test)),
        "per_user": per_user,
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def summarise_forward(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean and spread over cuts per candidate; the paired tests pooled over all cuts' members."""
    from benchmarks.paired import paired

    names = list(runs[0]["forward_ndcg"])
    table: dict[str, dict[str, Any]] = {
        name: {
            f"{view}_{stat}": round(float(fn([run[view][name] for run in runs])), 4)
            for view in ("offline_ndcg", "forward_ndcg")
            for stat, fn in (("mean", np.mean), ("std", np.std))
        }
        for name in names
    }

    def pooled(pick: Any) -> pl.DataFrame:
        return pl.concat([run["per_user"][pick(run)].with_columns(pl.col("user_id") + f"@{run['cut']}")
                          for run in runs])

    if "popularity" in names:  # every candidate against popularity on forward TEST, all cuts' members
        for name in names:
            if name != "popularity":
                table[name]["forward_vs_popularity"] = paired(pooled(lambda run, name=name: name),
                                                              pooled(lambda run: "popularity"))
    tests: dict[str, Any] = {}
    if "popularity" in names:
        tests["champion_vs_popularity"] = paired(pooled(lambda run: run["champion"]),
                                                 pooled(lambda run: "popularity"))
    tests["champion_vs_forward_best"] = paired(pooled(lambda run: run["champion"]),
                                               pooled(lambda run: run["forward_choice"]))
    tests["champion_vs_offline_choice"] = paired(pooled(lambda run: run["champion"]),
                                                 pooled(lambda run: run["offline_choice"]))
    taus = [run["kendall_tau_offline_forward"] for run in runs if run["kendall_tau_offline_forward"] is not None]
    return {
        "models": table,
        "paired_forward": tests,
        "kendall_tau_offline_forward_mean": round(float(np.mean(taus)), 3) if taus else None,
        "cuts": [{key: value for key, value in run.items() if key != "per_user"} for run in runs],
    }


def run_forward(frame: pl.DataFrame, cuts: list[float], models: list[str] | None) -> dict[str, Any]:
    """Every cut in turn, then the summary (what ``quality_real --forward`` prints)."""
    return summarise_forward([one_cut(frame, quantile, models) for quantile in cuts])
