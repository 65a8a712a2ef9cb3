"""Discovery: the champion refitted on everyone's collections, the member buckets' lists, and
the marts they fill.

Three steps (docs/scaling.md, "Member buckets"):

* `recsys/fitted_champion`: the champion fitted once a night on everyone's rows, with the
  content graph, saved for the buckets and `bodoge recommend` (DATA_DIR/models/champion/), and
  similar games (one list per game);
* `recsys/discovery_buckets` (`buckets.py`): each member bucket's lists, a Dagster partition
  each, written as files;
* `discovery` (here): the one writer, appending every bucket's files to the marts under the
  nightly lock, then measuring how the served lists moved.

Its inputs are the night's values, not files it finds: the cleaned interactions, the content
model and the champion choice (`assets.py`), so the asset graph draws an edge from each.
"""

import shutil
from datetime import datetime

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from models.content import ContentModel
from models.discovery.buckets import fit_night_model
from models.discovery.members import mark_site
from models.discovery.run import ChampionFit
from models.discovery.store import saved_meta
from pipelines.defs.recsys.assets import CHAMPION_CHOICE, CONTENT_MODEL, INTERACTIONS, SEED, mart_spec
from pipelines.defs.recsys.buckets import BUCKETS, FITTED_CHAMPION
from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.buckets import append_buckets, clear_other_nights, night_folder, write_similar
from warehouse.model_marts import utcnow
from warehouse.nights import record_lists

READS = ("recsys.fitted_champion", "recsys.discovery_buckets", "recsys.champion_choice")
"""What every discovery mart is put together from."""


@dg.asset(
    key=FITTED_CHAMPION,
    deps=[dg.AssetKey(["marts", "collections"])],
    ins={
        "rows": dg.AssetIn(INTERACTIONS),
        "content": dg.AssetIn(CONTENT_MODEL),
        "choice": dg.AssetIn(CHAMPION_CHOICE),
    },
    group_name="recsys",
    kinds={"implicit", "parquet"},
    pool="warehouse_writer",
)
def fitted_champion(context: dg.AssetExecutionContext, rows: pl.DataFrame, content: ContentModel,
                    choice: dict, duckdb: DuckDBResource, site: SiteSettings,
                    nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """The champion refitted on everyone's collections with the content neighbour graph, fitted once a
    night and saved (DATA_DIR/models/champion/: read by every member bucket, and by `bodoge recommend`
    outside the night), and similar games, one list per game (appended with the buckets' lists)."""
    with duckdb.get_connection() as con:
        site_rows = con.sql("SELECT user_id, game_id FROM marts.collections").pl()
    buckets = site.paths.buckets
    clear_other_nights(buckets, choice["run_id"])  # lists a failed night left
    similar, stats = fit_night_model(
        interactions=mark_site(rows, site_rows),  # which rows a reason may name; updated_at for recency
        content=content,
        fit=ChampionFit(champion=choice["champion"], params=choice["params"], weighting=choice["weighting"], seed=SEED),
        run_id=choice["run_id"],
        generated_at=utcnow(),
        model_dir=site.paths.champion,
        engine=site.engine(),
    )
    write_similar(night_folder(buckets, choice["run_id"]), similar)
    context.log.info(f"fitted champion: {stats}")
    return dg.MaterializeResult(metadata={"model": choice["champion"], "run_id": choice["run_id"],
                                          "path": dg.MetadataValue.path(str(site.paths.champion)), **stats})


@dg.multi_asset(
    specs=[
        # reasons name site rows only, and the shelves hold site rows only: a linked member's BGG rows
        # train the model and keep their games out of discovery, but are never named or shelved as theirs
        # every public member gets a line: a welcome list where nothing personal can be said
        mart_spec("recommendations", *READS, "marts.collections", "marts.members", "raw.posts"),
        mart_spec("next_to_play", *READS, "marts.collections"),
        mart_spec("watch_next", *READS, "marts.collections"),
        mart_spec("similar_games", "recsys.fitted_champion", "recsys.champion_choice"),
        # how the served lists moved: tonight's lists against the members' collections and the catalogue
        mart_spec("recommendation_runs", *READS, "marts.collections", "marts.games"),
        mart_spec("served_top10", *READS, "marts.collections", "marts.games"),
    ],
    ins={"choice": dg.AssetIn(CHAMPION_CHOICE)},
    pool="warehouse_writer",
)
def discovery(context: dg.AssetExecutionContext, choice: dict, duckdb: DuckDBResource, site: SiteSettings,
              nightly_lock: NightlyLock):
    """Appends every member bucket's recommendations, play next and watch list, and similar games,
    to the marts in one transaction (DuckDB keeps one writer; a night with a bucket missing writes
    nothing and fails), then records how the served lists moved since the previous night
    (marts.recommendation_runs). The buckets' files are removed once appended."""
    folder = night_folder(site.paths.buckets, choice["run_id"])
    meta = saved_meta(site.paths.champion)
    if meta.get("run_id") != choice["run_id"]:
        raise RuntimeError(f"the saved champion is of run {meta.get('run_id')}, not tonight's {choice['run_id']}: "
                           "materialize recsys/fitted_champion and the buckets first")
    with duckdb.get_connection() as con:
        counts = append_buckets(con, folder, BUCKETS.get_partition_keys(), night_id=context.run.run_id)
        summary = con.sql("SELECT count(DISTINCT user_id), count(DISTINCT user_id) FILTER (welcome), "
                          "count(DISTINCT game_id) FROM marts.recommendations").fetchall()[0]
        served = record_lists(con, night_id=context.run.run_id, run_id=choice["run_id"], model=choice["champion"],
                              generated_at=datetime.fromisoformat(meta["generated_at"]))
        shelves = {t: con.sql(f"SELECT count(DISTINCT user_id) FROM marts.{t}").fetchall()[0][0]
                   for t in ("next_to_play", "watch_next")}
        n_games = con.sql("SELECT count(DISTINCT game_id) FROM marts.similar_games").fetchall()[0][0]
    shutil.rmtree(folder, ignore_errors=True)  # members' lists: kept no longer than the night needs them
    context.log.info(f"served lists: coverage {served['coverage']}, stability {served['stability']} "
                     f"over {served['n_compared']} members (previous night {served['previous_night_id']})")
    yield dg.MaterializeResult(
        asset_key=["marts", "recommendations"],
        metadata={"dagster/row_count": counts["recommendations"], "members": summary[0], "welcome_lists": summary[1],
                  "distinct_games": summary[2], "model": choice["champion"], "run_id": choice["run_id"],
                  "buckets": len(BUCKETS.get_partition_keys())},
    )
    yield dg.MaterializeResult(asset_key=["marts", "next_to_play"],
                               metadata={"dagster/row_count": counts["next_to_play"], "members": shelves["next_to_play"]})
    yield dg.MaterializeResult(asset_key=["marts", "watch_next"],
                               metadata={"dagster/row_count": counts["watch_next"], "members": shelves["watch_next"]})
    yield dg.MaterializeResult(asset_key=["marts", "similar_games"],
                               metadata={"dagster/row_count": counts["similar_games"], "games": n_games})
    yield dg.MaterializeResult(
        asset_key=["marts", "recommendation_runs"],
        metadata={key: value for key, value in served.items() if isinstance(value, (int, float, str))},
    )
    yield dg.MaterializeResult(asset_key=["marts", "served_top10"], metadata={"dagster/row_count": served["n_members"]})
