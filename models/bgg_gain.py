"""Does BoardGameGeek help? NDCG@K of linked members, with and without their BGG rows.

A linked member's BGG collection (docs/bgg.md) joins the training rows; whether that
makes their lists better is measured here, on the two splits the evaluation uses, over
the member's **site** rows only:

1. the site rows are split as the evaluation splits them (``random``: a seeded 20 % of
   each member's rows held out; ``time``: each member's latest 20 %); BGG rows are never
   held out (what a member does on the site is what the lists are for);
2. the night's champion (its parameters and weighting: ``ChampionFit``) is fitted twice,
   on the site training rows **with** every BGG row added, and **without** any;
3. each linked member with held-out rows gets their top K from each fit, their known
   games left out (with BGG: their BGG games too, as discovery leaves them out), and
   NDCG@K is averaged over those members (``models.metrics.ndcg_at_k``).

Only the linked members are scored: the others' lists barely move, and averaging them in
would hide the effect. The cost is four fits of the champion (two per split) and the
scoring of the linked members; the night pays it only when linked members exist.
"""

from __future__ import annotations

import logging
import time

import polars as pl

from models.base import topk_frame
from models.discovery.members import SITE, mark_site
from models.discovery.run import ChampionFit
from models.interactions import InteractionMatrix
from models.metrics import ndcg_at_k
from models.split import holdout_split, time_split
from models.threads import single_threaded_blas
from models.weighting import weighting_named

log = logging.getLogger("bodoge.models")

FRACTION = 0.2
"""Share of each member's site rows held out (the evaluation's)."""

GAIN_SCHEMA = {
    "split": pl.String, "model": pl.String, "k": pl.Int32, "n_members": pl.Int64, "n_test_rows": pl.Int64,
    "n_bgg_rows": pl.Int64, "ndcg_with": pl.Float64, "ndcg_without": pl.Float64, "gain": pl.Float64,
    "seconds": pl.Float64,
}
"""The rows ``bgg_gain`` returns (``marts.bgg_gain`` adds the night's and the run's ids)."""


def bgg_gain(rows: pl.DataFrame, *, site_rows: pl.DataFrame, fit: ChampionFit, k: int = 10) -> pl.DataFrame:
    """One row per split (random, time) for the linked members; no rows when nobody is linked.

    ``rows``: the night's training rows (normalised, with ``updated_at``), BGG rows
    included; ``site_rows``: ``user_id``, ``game_id`` of the members' site collections
    (every other row of ``rows`` is a BGG row).
    """
    marked = mark_site(rows, site_rows)
    bgg = marked.filter(~pl.col(SITE)).drop(SITE)
    linked = bgg.get_column("user_id").unique()
    if linked.is_empty():
        return pl.DataFrame(schema=GAIN_SCHEMA)
    site = marked.filter(pl.col(SITE)).drop(SITE)
    out = []
    for split in ("random", "time"):
        started = time.perf_counter()
        if split == "random":
            train, test = holdout_split(site, fraction=FRACTION, seed=fit.seed)
        else:
            train, test = time_split(site, fraction=FRACTION)
        relevant = test.filter(pl.col("user_id").is_in(linked.implode())).select("user_id", "game_id")
        members = relevant.get_column("user_id").unique().sort()
        with_bgg = _linked_ndcg(pl.concat([train, bgg], how="diagonal_relaxed"), relevant, members, fit, k)
        without = _linked_ndcg(train, relevant, members, fit, k)
        seconds = time.perf_counter() - started
        out.append({
            "split": split, "model": fit.champion, "k": k, "n_members": members.len(), "n_test_rows": relevant.height,
            "n_bgg_rows": bgg.filter(pl.col("user_id").is_in(members.implode())).height,
            "ndcg_with": with_bgg, "ndcg_without": without, "gain": with_bgg - without, "seconds": round(seconds, 3),
        })
        log.info("bgg gain (%s split): NDCG@%d %.4f with BGG rows, %.4f without, over %d linked members (%.1fs)",
                 split, k, with_bgg, without, members.len(), seconds)
    return pl.DataFrame(out, schema=GAIN_SCHEMA)


def _linked_ndcg(train: pl.DataFrame, relevant: pl.DataFrame, members: pl.Series, fit: ChampionFit, k: int) -> float:
    """NDCG@k of ``members`` from the champion fitted on ``train`` (their training games left out)."""
    if members.is_empty():
        return 0.0
    full = InteractionMatrix.from_frame(train, weighting_named(fit.weighting))
    with single_threaded_blas():
        model = fit.build().fit(full.matrix)
        rows = full.user_rows(members)
        known = rows >= 0  # a member with no training row scores 0 (no list), as in the evaluation
        ids, scores = model.recommend(rows[known], k, exclude=full.matrix[rows[known]])
    return ndcg_at_k(topk_frame(members.filter(pl.Series(known)), ids, scores, full.game_ids), relevant, k)
