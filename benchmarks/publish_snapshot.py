"""How big the published night is and how long publishing it takes, at the benchmark size.

Builds a synthetic warehouse shaped like the real one (25,000 games, 100,000 members,
~3M collection rows, each member's top 100 recommendations, 20 similar games per game,
the raw tables the marts rest on) from Polars frames, then times
`warehouse.release.publish.publish_snapshot` (the night's last step) and `scrub_published` (after
a crawl that found members private). Prints JSON.

Usage: uv run python benchmarks/publish_snapshot.py [--games 25000] [--members 100000] [--rows 3000000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import polars as pl

from warehouse.db import connect, create_tables
from warehouse.privacy.public import public_users
from warehouse.release.publish import publish_snapshot, scrub_published


def frames(games: int, members: int, rows: int, recs: int, similar: int, seed: int = 0) -> dict[str, pl.DataFrame]:
    """Synthetic marts and raw tables with the real tables' columns and realistic skew."""
    rng = np.random.default_rng(seed)
    now = datetime.now(timezone.utc)
    game_ids = pl.Series([f"game-{i:05d}" for i in range(games)])
    user_ids = pl.Series([str(10_000 + i) for i in range(members)])
    lo = rng.integers(1, 5, games)
    game_frame = pl.DataFrame({
        "game_id": game_ids, "name_ja": [f"ゲーム{i}" for i in range(games)], "name_en": [f"Game {i}" for i in range(games)],
        "min_players": lo, "max_players": lo + rng.integers(0, 4, games),
        "min_minutes": rng.integers(10, 90, games), "max_minutes": rng.integers(90, 180, games),
        "min_age": rng.integers(6, 14, games), "year": rng.integers(1990, 2027, games),
        "n_watching": rng.integers(0, 500, games), "n_played": rng.integers(0, 2000, games),
        "n_favorite": rng.integers(0, 300, games), "n_have": rng.integers(0, 1500, games),
        "designers": [["設計者"]] * games, "mechanics": [["ダイス", "協力"]] * games, "themes": [["ファンタジー"]] * games,
        "url": [f"https://bodoge.hoobby.net/games/game-{i:05d}" for i in range(games)],
    }).with_columns(pl.lit(now).alias("crawled_at"))
    # Long-tail popularity: a Zipf-like draw of games per collection row, one row per (user, game).
    users = rng.integers(0, members, rows)
    weights = 1.0 / (np.arange(games) + 20.0) ** 0.9
    items = rng.choice(games, size=rows, p=weights / weights.sum())
    pairs = pl.DataFrame({"u": users, "g": items}).unique()
    flags = rng.random((pairs.height, 4)) < np.array([0.6, 0.7, 0.2, 0.25])
    collections = pl.DataFrame({
        "user_id": user_ids.gather(pairs["u"]), "game_id": game_ids.gather(pairs["g"]),
        "have": flags[:, 0], "played": flags[:, 1], "favorite": flags[:, 2], "watching": flags[:, 3],
        "rating": pl.Series(rng.integers(0, 6, pairs.height)).replace(0, None),
    }).with_columns(pl.lit(now - timedelta(days=30)).alias("updated_at"), pl.lit(now).alias("crawled_at"))
    served = collections["user_id"].unique()
    rec_users = served.gather(np.repeat(np.arange(served.len()), recs))
    recommendations = pl.DataFrame({
        "user_id": rec_users, "rank": np.tile(np.arange(1, recs + 1), served.len()),
        "game_id": game_ids.gather(rng.integers(0, games, served.len() * recs)),
        "score": rng.random(served.len() * recs), "model": "ease", "run_id": "bench",
        "reason": "「ゲーム1」が好きなあなたに", "night_id": "bench",
    }).with_columns(pl.lit(now).alias("generated_at"))
    similar_games = pl.DataFrame({
        "game_id": game_ids.gather(np.repeat(np.arange(games), similar)),
        "rank": np.tile(np.arange(1, similar + 1), games),
        "similar_game_id": game_ids.gather(rng.integers(0, games, games * similar)),
        "score": rng.random(games * similar), "run_id": "bench",
    })
    members_frame = collections.group_by("user_id").agg(pl.len().alias("n_games")).join(
        pl.DataFrame({"user_id": user_ids}), on="user_id", how="right").with_columns(
        pl.col("n_games").fill_null(0), (pl.lit("会員") + pl.col("user_id")).alias("name"))
    raw_entries = collections.select("user_id", "game_id", "have", "played", "favorite", "watching", "rating",
                                     "updated_at").with_columns(pl.lit("bench").alias("run_id"),
                                                                pl.lit(now).alias("fetched_at"))
    listing = members_frame.select(pl.lit("collection").alias("listing"), pl.col("user_id").alias("key"),
                                   pl.col("n_games").alias("n_entries"), pl.lit(1).alias("n_pages"),
                                   pl.when(pl.col("n_games") > 0).then(pl.lit("public")).otherwise(pl.lit("empty"))
                                   .alias("status"), pl.lit("bench").alias("run_id"), pl.lit(now).alias("fetched_at"))
    return {
        "marts.games": game_frame, "marts.collections": collections, "marts.members": members_frame,
        "marts.recommendations": recommendations, "marts.similar_games": similar_games,
        "marts.cafe_games": pl.DataFrame({"space_slug": [f"cafe-{i % 300}" for i in range(30_000)],
                                          "game_id": game_ids.gather(rng.integers(0, games, 30_000)),
                                          "space_name": "カフェ"}).unique(["space_slug", "game_id"]),
        "raw.collection_entries": raw_entries, "raw.listing_crawls": listing,
        "raw.crawl_runs": pl.DataFrame({"run_id": ["bench"], "status": ["finished"], "started_at": [now],
                                        "finished_at": [now]}),
        "raw.games": game_frame.select("game_id", "name_ja").with_columns(pl.lit(now).alias("fetched_at")),
    }


def build(path: Path, tables: dict[str, pl.DataFrame]) -> dict[str, int]:
    """Each frame into the warehouse with one CREATE TABLE AS (never row by row)."""
    with connect(path) as con:
        create_tables(con, tables)
        con.execute("CHECKPOINT")
    return {name: frame.height for name, frame in tables.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=25_000)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=3_000_000, help="collection rows drawn (before de-duplication)")
    parser.add_argument("--recs", type=int, default=100, help="recommendations kept per member")
    parser.add_argument("--similar", type=int, default=20, help="similar games kept per game")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bodoge-publish-") as tmp:
        data = Path(tmp)
        started = time.perf_counter()
        counts = build(data / "warehouse.duckdb", frames(args.games, args.members, args.rows, args.recs, args.similar))
        build_seconds = time.perf_counter() - started
        with connect(data / "warehouse.duckdb") as con:
            result = publish_snapshot(con, data, run_id="bench-night")
            # A member turns private: the next crawl cuts them from the published night.
            gone = con.execute("SELECT user_id FROM raw.collection_entries LIMIT 1").fetchall()[0][0]
            con.execute("DELETE FROM raw.collection_entries WHERE user_id = ?", [gone])
            con.execute("DELETE FROM raw.listing_crawls WHERE key = ?", [gone])
            started = time.perf_counter()
            scrubbed = scrub_published(data, public_users(con))
            scrub_seconds = time.perf_counter() - started
        print(json.dumps({
            "rows": counts,
            "warehouse_mb": round((data / "warehouse.duckdb").stat().st_size / 1e6, 1),
            "build_seconds": round(build_seconds, 1),
            "snapshot_mb": round(result.bytes / 1e6, 1),
            "publish_seconds": round(result.seconds, 2),
            "scrub_one_member_seconds": round(scrub_seconds, 2),
            "scrubbed": scrubbed,
        }, indent=2))


if __name__ == "__main__":
    main()
