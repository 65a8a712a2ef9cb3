"""Discovery: the champion refitted on everyone's collections, and the marts it fills.

Its inputs are the night's values, not files it finds: the cleaned interactions, the content
model and the champion choice (`assets.py`), so the asset graph draws an edge from each.
"""

from typing import Any

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from models.content import ContentModel
from models.discovery.members import mark_site
from models.discovery.run import discover_interactions
from pipelines.defs.recsys.assets import CHAMPION_CHOICE, CONTENT_MODEL, INTERACTIONS, SEED, mart_spec
from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.bgg_training import site_rows_only
from warehouse.model_marts import replace_table, utcnow
from warehouse.nights import record_lists
from warehouse.privacy.public import public_users
from warehouse.views import post_games

READS = ("recsys.interactions", "recsys.content_model", "recsys.champion_choice")
"""What every discovery mart is computed from (the function's inputs)."""


def _per_second(count: int, seconds: float) -> float:
    """A throughput for the UI and the scale benchmark (members ranked per second)."""
    return round(count / seconds, 1) if seconds > 0 else 0.0


@dg.multi_asset(
    specs=[
        # reasons name site rows only, and the shelves hold site rows only: a linked member's BGG rows
        # train the model and keep their games out of discovery, but are never named or shelved as theirs
        # every public member gets a line: a welcome list where nothing personal can be said
        mart_spec("recommendations", *READS, "marts.collections", "marts.members", "raw.posts"),
        mart_spec("next_to_play", *READS, "marts.collections"),
        mart_spec("watch_next", *READS, "marts.collections"),
        mart_spec("similar_games", *READS),
        # how the served lists moved: tonight's lists against the members' collections and the catalogue
        mart_spec("recommendation_runs", *READS, "marts.collections", "marts.games"),
        mart_spec("served_top10", *READS, "marts.collections", "marts.games"),
    ],
    ins={
        "rows": dg.AssetIn(INTERACTIONS),
        "content": dg.AssetIn(CONTENT_MODEL),
        "choice": dg.AssetIn(CHAMPION_CHOICE),
    },
    pool="warehouse_writer",
)
def discovery(context: dg.AssetExecutionContext, rows: pl.DataFrame, content: ContentModel, choice: dict[str, Any],
              duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock):
    """Refits the champion on everyone's collections; writes recommendations, play next, the watch list and
    similar games, and how the served lists moved since the previous night (marts.recommendation_runs).
    Also saves the fitted champion, its id mappings and the content model for `bodoge recommend`
    (DATA_DIR/models/champion/, read outside the night)."""
    generated_at = utcnow()
    with duckdb.get_connection() as con:
        site_rows = con.sql("SELECT user_id, game_id FROM marts.collections").pl()
        # marts.members as the privacy rule sees them: a collection page the crawl could not complete
        # (incomplete, no entry) is not public to the export, the backups or the published night
        known_public = public_users(con)
        public = [u for u in con.sql("SELECT user_id FROM marts.members ORDER BY user_id").pl()
                  .get_column("user_id").to_list() if u in known_public]
        hints = post_games(con)
    result = discover_interactions(
        interactions=mark_site(rows.drop("updated_at"), site_rows),  # which rows a reason may name
        content=content,
        champion=choice["champion"],
        params=choice["params"],
        weighting=choice["weighting"],
        run_id=choice["run_id"],
        generated_at=generated_at,
        model_dir=site.paths.champion,
        seed=SEED,
        engine=site.engine(),
        members=public,
        hints=hints,
    )
    context.log.info(f"discovery: {result.stats}")
    night = pl.lit(context.run.run_id).alias("night_id")  # the night's id (marts.nights)
    with duckdb.get_connection() as con:
        welcome = pl.col("user_id").is_in(pl.Series(result.welcome, dtype=pl.String).implode()).alias("welcome")
        n_recs = replace_table(con, "recommendations", result.recommendations.with_columns(night, welcome))
        n_similar = replace_table(con, "similar_games", result.similar_games.with_columns(night))
        n_shelf = replace_table(con, "next_to_play", site_rows_only(result.next_to_play, site_rows))
        n_watch = replace_table(con, "watch_next", site_rows_only(result.watch_next, site_rows))
        served = record_lists(con, night_id=context.run.run_id, run_id=choice["run_id"], model=choice["champion"],
                              generated_at=generated_at)
    context.log.info(f"served lists: coverage {served['coverage']}, stability {served['stability']} "
                     f"over {served['n_compared']} members (previous night {served['previous_night_id']})")
    recs = result.recommendations
    yield dg.MaterializeResult(
        asset_key=["marts", "recommendations"],
        metadata={
            "dagster/row_count": n_recs,
            "members": recs["user_id"].n_unique(),
            "welcome_lists": len(result.welcome),
            "distinct_games": recs["game_id"].n_unique(),
            "model": choice["champion"],
            "run_id": choice["run_id"],
            "members_per_second": _per_second(result.stats["n_users"], result.stats["rank_seconds"]),
            **{key: value for key, value in result.stats.items() if key.endswith("_seconds")},
        },
    )
    yield dg.MaterializeResult(
        asset_key=["marts", "next_to_play"],
        metadata={"dagster/row_count": n_shelf, "members": result.next_to_play["user_id"].n_unique()},
    )
    yield dg.MaterializeResult(
        asset_key=["marts", "watch_next"],
        metadata={"dagster/row_count": n_watch, "members": result.watch_next["user_id"].n_unique()},
    )
    yield dg.MaterializeResult(
        asset_key=["marts", "similar_games"],
        metadata={"dagster/row_count": n_similar, "games": result.similar_games["game_id"].n_unique()},
    )
    yield dg.MaterializeResult(
        asset_key=["marts", "recommendation_runs"],
        metadata={key: value for key, value in served.items() if isinstance(value, (int, float, str))},
    )
    yield dg.MaterializeResult(asset_key=["marts", "served_top10"], metadata={"dagster/row_count": served["n_members"]})
