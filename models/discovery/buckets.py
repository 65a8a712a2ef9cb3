"""Member buckets: the night's discovery ranked a slice of the members at a time.

Why: ranking grows with members × games and its result rows with members, so one process
ranking everyone passes 8 GB from about 190,000 members (docs/scaling.md). A member's lists
depend on their own rows and the night's model alone (``run.rank_members``), so the members
can be split into buckets ranked apart, each by a process of its own holding one bucket's
rows, and the buckets' rows put together are the rows of ranking everyone at once.

* ``bucket_of``: a member's bucket, a stable hash of ``user_id`` (BLAKE2b, not Python's
  ``hash``, which is salted per process): the same bucket in every process and every night;
* ``fit_night_model``: what every bucket reads, made once a night: the champion fitted on
  everyone's rows and the content graph, saved (``store.save_state``), and similar games
  (one list per game, not per member, so it is no bucket's);
* ``rank_bucket``: one bucket's discovery lists (welcome lists too) and both shelves, from
  the saved model (read back with ``store.load_state``). Welcome lists count everyone's collections, not
  the bucket's: the saved model holds every member's rows;
* ``bucket_frames``: what one bucket step writes (``warehouse.buckets.write_bucket``): its
  lists, the welcome flag, the shelves cut to site rows. The Dagster step and the scale
  benchmark's bucket processes both call it, so they rank and write a bucket the same way.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from models.content import ContentModel
from models.discovery.blend import Blend
from models.discovery.lists import SIMILAR_COLUMNS
from models.discovery.run import ChampionFit, Discovery, fit_state, rank_members, save_night_state
from models.discovery.similar import similar_games as similar_lists
from models.discovery.model import DiscoveryModel
from models.threads import single_threaded_blas

log = logging.getLogger("bodoge.models")


def bucket_of(user_id: str, n_buckets: int) -> int:
    """The bucket (0 … n_buckets - 1) of a member: the first 8 bytes of BLAKE2b of the id's
    UTF-8, as a big-endian integer, modulo ``n_buckets``."""
    if n_buckets < 1:
        raise ValueError("n_buckets must be at least 1")
    digest = hashlib.blake2b(str(user_id).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % n_buckets


def bucket_keys(n_buckets: int) -> list[str]:
    """The buckets' names as partition keys: ``00``, ``01``, … (sorted as numbers)."""
    return [f"{k:02d}" for k in range(n_buckets)]


def in_bucket(user_ids: Iterable[str], bucket: int, n_buckets: int) -> list[str]:
    """The ids of ``user_ids`` in ``bucket``, sorted and without repeats."""
    return sorted({str(u) for u in user_ids if bucket_of(str(u), n_buckets) == bucket})


def fit_night_model(
    *,
    interactions: pl.DataFrame,
    content: ContentModel,
    fit: ChampionFit,
    run_id: str,
    generated_at: datetime,
    model_dir: Path,
    depth: int = 100,
    n_similar: int = 10,
    blend: Blend | None = None,
    engine: str = "compiled",
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Fits the night's champion on every row of ``interactions`` with the ``content`` model's
    graph, saves them to ``model_dir`` (with ``run_id``, ``generated_at`` and ``depth``, which
    every bucket's rows carry) and returns similar games (``marts.similar_games`` rows) and
    timings. The same fit, graph and similar games as ``run.discover_interactions``."""
    blend = blend or Blend()
    if depth < 1 or n_similar < 1:
        raise ValueError("depth and n_similar must be at least 1")
    timings: dict[str, float] = {}
    with single_threaded_blas():
        state = fit_state(interactions, None, None, fit, blend=blend, timings=timings, content=content, engine=engine)
        tick = time.perf_counter()
        similar = similar_lists(state, n_similar)
        timings["similar_seconds"] = time.perf_counter() - tick
    timings["save_seconds"] = save_night_state(state, model_dir, fit=fit, run_id=run_id, generated_at=generated_at,
                                               depth=depth, n_similar=n_similar)
    log.info("discover: model and content graph saved to %s for the buckets in %.1fs", model_dir,
             timings["save_seconds"])
    similar_games = similar.with_columns(pl.lit(run_id).alias("run_id")).select(SIMILAR_COLUMNS)
    stats = {"n_games": state.n_games, "n_cold_games": int((state.cf_cols < 0).sum()),
             "n_collection_rows": interactions.height, **{k: round(v, 3) for k, v in timings.items()}}
    return similar_games, stats


def rank_bucket(
    state: DiscoveryModel,
    meta: dict[str, Any],
    *,
    bucket: int,
    n_buckets: int,
    members: list[str] | None,
    hints: pl.DataFrame | None,
) -> Discovery:
    """One bucket's lists from the model ``fit_night_model`` saved (``store.load_state``: the
    ``state`` and its ``discovery.json``, ``meta``, with the run id, time and depth): its
    members' discovery rows (a welcome list for each public member of ``members`` in the bucket
    the model could not score) and both shelves. Everyone's rows are the saved model's."""
    if not 0 <= bucket < n_buckets:
        raise ValueError(f"bucket {bucket} is not one of 0 … {n_buckets - 1}")
    started = time.perf_counter()
    rows = state.collections
    user_ids = in_bucket(rows.get_column("user_id").unique().to_list(), bucket, n_buckets)
    public = None if members is None else in_bucket(members, bucket, n_buckets)
    timings: dict[str, float] = {}
    lists = rank_members(state, rows, user_ids, run_id=meta["run_id"],
                         generated_at=datetime.fromisoformat(meta["generated_at"]), depth=int(meta["depth"]),
                         members=public, hints=hints, timings=timings)
    lists.stats.update(n_users=len(user_ids), n_welcome=len(lists.welcome),
                       **{key: round(value, 3) for key, value in timings.items()})
    log.info("discover: bucket %d of %d: %d members ranked in %.1fs", bucket, n_buckets, len(user_ids),
             time.perf_counter() - started)
    return lists


def bucket_frames(
    state: DiscoveryModel,
    meta: dict[str, Any],
    *,
    bucket: int,
    n_buckets: int,
    members: list[str] | None,
    hints: pl.DataFrame | None,
    site_rows: pl.DataFrame,
) -> tuple[dict[str, pl.DataFrame], Discovery]:
    """One bucket's rows as the bucket step writes them (``rank_bucket``'s lists): the
    recommendations with ``welcome`` (whether the member's list is a welcome list), and play
    next and the watch list cut to the games on the member's site collection (``site_rows``:
    ``user_id``, ``game_id`` of ``marts.collections``; a linked member's BGG rows train the
    model but are never shelved as theirs). Returns the frames and the lists (for their stats)."""
    lists = rank_bucket(state, meta, bucket=bucket, n_buckets=n_buckets, members=members, hints=hints)
    welcome = pl.col("user_id").is_in(pl.Series(lists.welcome, dtype=pl.String).implode()).alias("welcome")
    site = site_rows.select("user_id", "game_id").unique()
    frames = {
        "recommendations": lists.recommendations.with_columns(welcome),
        **{name: shelf if shelf.is_empty() else shelf.join(site, on=["user_id", "game_id"], how="semi")
           for name, shelf in (("next_to_play", lists.next_to_play), ("watch_next", lists.watch_next))},
    }
    return frames, lists
