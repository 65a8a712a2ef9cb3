"""Features, candidate models, evaluation, the champion, recommendations and similar games.

Thin assets over `models/`: the interaction matrix comes from marts.collections; every
candidate is tuned and scored on a seeded per-user holdout and on a time split (each
member's latest entries, which names the champion; `models.evaluate`); the champion is
refitted on everyone's collections, and discovery writes the marts.
"""

import json
from pathlib import Path

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from models.budget import EvaluationBudget
from models.candidates import default_candidates
from models.discovery.run import discover
from models.evaluate import evaluate
from models.interactions import normalise_interactions
from models.beyond import rank_stability
from models.content import ContentModel
from models.discovery.run import catalog_frame
from models.report import EvaluationReport
from models.split import holdout_split, time_split
from models.tuning_store import load_tuning, save_tuning
from pipelines.defs.resources import NightlyLock, SiteSettings
from core.ids import new_run_id
from pipelines.described import described
from warehouse.model_marts import replace_table, utcnow, write_model_runs
from warehouse.bgg_training import site_rows_only, training_rows
from warehouse.nights import record_lists

K = 10
SEED = 0
CANDIDATES = list(default_candidates())


def _mart_spec(name: str, *deps: str) -> dg.AssetSpec:
    """A mart these assets write: described by its DDL file (warehouse/sql/marts/<name>.sql)."""
    return dg.AssetSpec(
        ["marts", name],
        deps=[dg.AssetKey(dep.split(".")) for dep in deps],
        group_name="recsys",
        kinds={"duckdb"},
        **described("marts", name),
    )


def _models_dir(site: SiteSettings) -> Path:
    path = site.paths.models
    path.mkdir(parents=True, exist_ok=True)
    return path


@dg.asset(
    key=["recsys", "interactions"],
    deps=[dg.AssetKey(["marts", "collections"]), dg.AssetKey(["marts", "bgg_interactions"])],
    group_name="recsys",
    kinds={"polars", "parquet"},
    automation_condition=dg.AutomationCondition.eager(),
)
def interactions(duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """Members' public collections as interactions (user, game, statuses, rating), saved as Parquet,
    with when each entry was last updated (for the time split)."""
    with duckdb.get_connection() as con:
        frame = training_rows(con)  # marts.collections, plus linked members' BGG rows (docs/bgg.md)
    times = frame.select(pl.col("user_id").cast(pl.String), pl.col("game_id").cast(pl.String), "updated_at")
    frame = normalise_interactions(frame, source="marts.collections")
    frame.write_parquet(_models_dir(site) / "interactions.parquet")
    times.unique(["user_id", "game_id"]).write_parquet(_models_dir(site) / "interaction_times.parquet")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": frame.height,
            "n_users": frame["user_id"].n_unique(),
            "n_games": frame["game_id"].n_unique(),
        }
    )


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["recsys", f"{name}_model"],
            deps=[dg.AssetKey(["recsys", "interactions"])],
            group_name="recsys",
            kinds={"implicit" if name in ("als", "bpr", "cosine", "bm25") else "numpy"},
            description=f"The {name} candidate: tuned on a validation split of TRAIN, scored on a per-user holdout and a time split.",
        )
        for name in CANDIDATES
    ]
    + [_mart_spec("model_runs", "recsys.interactions")],
    pool="warehouse_writer",
)
def model_evaluation(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock):
    """Tunes every candidate and scores it on two splits: a seeded 20% per-user holdout and a
    time split (each member's latest 20%); the time split names the champion."""
    folder = _models_dir(site)
    frame = pl.read_parquet(folder / "interactions.parquet")
    times = pl.read_parquet(folder / "interaction_times.parquet")
    with duckdb.get_connection() as con:
        games = con.sql("SELECT * FROM marts.games").pl()
        posts = con.sql("SELECT game_id, post_kind, body FROM staging.stg_posts").pl()
    content = ContentModel.fit(catalog_frame(games), posts)
    vectors = (content.game_ids, content.features)
    run_id, trained_at = new_run_id(), utcnow()
    n_users, n_rows = frame.get_column("user_id").n_unique(), frame.height
    large = EvaluationBudget.for_data(n_users, n_rows).engaged  # small data is tuned every night
    tuning_file = folder / "tuning.json"  # the last full tuning (models.tuning_store)
    prior = load_tuning(tuning_file, n_users=n_users, n_interactions=n_rows, now=trained_at) if large else None
    train, test = holdout_split(frame, fraction=0.2, seed=SEED)
    context.log.info(f"evaluation (random split): train {train.height:,} rows, test {test.height:,} rows")
    random_report = evaluate(train, test, k=K, seed=SEED, item_vectors=vectors, split="random", prior=prior)
    if large and prior is None:
        save_tuning(tuning_file, random_report, n_users=n_users, n_interactions=n_rows, tuned_at=trained_at)
    train, test = time_split(frame.join(times, on=["user_id", "game_id"], how="left"), fraction=0.2)
    context.log.info(f"evaluation (time split): train {train.height:,} rows, test {test.height:,} rows")
    report = evaluate(train.drop("updated_at"), test.drop("updated_at"), k=K, seed=SEED, times=times,
                      reuse=random_report if prior is None else None, prior=prior, item_vectors=vectors,
                      split="time")
    runs = pl.concat(
        [r.model_runs(run_id, trained_at, stability=_stability(folder / "evaluation_lists", r))
         for r in (random_report, report)],
        how="diagonal_relaxed",
    ).with_columns(pl.lit(context.run.run_id).alias("night_id"))  # the night's id (marts.nights)
    with duckdb.get_connection() as con:
        write_model_runs(con, runs)
    champion = report.results[report.champion]
    (folder / "evaluation.json").write_text(
        json.dumps(
            {
                "run_id": run_id,
                "night_id": context.run.run_id,
                "champion": report.champion,
                "selection": report.selection,
                "params": champion.params,
                "weighting": report.weighting.name,
                "weighting_reason": report.weighting.reason,
                "report": report.to_dict(),
                "random_report": random_report.to_dict(),
            },
            ensure_ascii=False,
            indent=2,
            default=str,
        ),
        encoding="utf-8",
    )
    for name, result in report.results.items():
        yield dg.MaterializeResult(
            asset_key=["recsys", f"{name}_model"],
            metadata={
                **{f"test_{m}@{K}": float(v) for m, v in result.metrics.items()},
                "selection_ndcg": float(result.selection_ndcg),
                "fit_seconds": float(result.fit_seconds),
                "params": json.dumps(result.params, default=str),
                "champion": name == report.champion,
                **({"notes": result.notes} if result.notes else {}),
            },
        )
    yield dg.MaterializeResult(
        asset_key=["marts", "model_runs"],
        metadata={"dagster/row_count": runs.height, "run_id": run_id, "champion": report.champion,
                  "selection": report.selection},
    )


def _stability(folder: Path, report: EvaluationReport) -> dict[str, float | None]:
    """Each candidate's Jaccard@K against its lists of the previous night (same split), whose
    lists this night's then replace (None on a first night)."""
    folder.mkdir(parents=True, exist_ok=True)
    stability: dict[str, float | None] = {}
    for name, result in report.results.items():
        path = folder / f"{report.split}-{name}.parquet"
        stability[name] = rank_stability(result.topk, pl.read_parquet(path), K) if path.is_file() else None
        result.topk.write_parquet(path)
    return stability


@dg.asset(
    key=["recsys", "champion_model"],
    deps=[dg.AssetKey(["marts", "model_runs"])],
    group_name="recsys",
    kinds={"python"},
)
def champion_model(site: SiteSettings, nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """The candidate with the best NDCG@10 on a time split of TRAIN (its members' latest entries; never on TEST)."""
    chosen = json.loads((_models_dir(site) / "evaluation.json").read_text(encoding="utf-8"))
    metrics = chosen["report"]["models"]
    champion, popularity = metrics[chosen["champion"]], metrics["popularity"]
    return dg.MaterializeResult(
        metadata={
            "champion": chosen["champion"],
            "params": json.dumps(chosen["params"], default=str),
            "weighting": chosen["weighting"],
            "test_ndcg@10": float(champion["ndcg"]),
            "popularity_ndcg@10": float(popularity["ndcg"]),
            "lift_over_popularity": float(champion["ndcg"] / popularity["ndcg"]) if popularity["ndcg"] else 0.0,
            "run_id": chosen["run_id"],
            "selection": chosen.get("selection", ""),
        }
    )


def _per_second(count: int, seconds: float) -> float:
    """A throughput for the UI and the scale benchmark (members ranked per second)."""
    return round(count / seconds, 1) if seconds > 0 else 0.0


@dg.multi_asset(
    specs=[
        _mart_spec("recommendations", "recsys.champion_model", "marts.games"),
        _mart_spec("next_to_play", "recsys.champion_model", "marts.games"),
        _mart_spec("watch_next", "recsys.champion_model", "marts.games"),
        _mart_spec("similar_games", "recsys.champion_model", "marts.games"),
        _mart_spec("recommendation_runs", "recsys.champion_model", "marts.collections"),
        _mart_spec("served_top10", "recsys.champion_model", "marts.collections"),
    ],
    pool="warehouse_writer",
)
def discovery(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock):
    """Refits the champion on everyone's collections; writes recommendations, play next, the watch list and
    similar games, and how the served lists moved since the previous night (marts.recommendation_runs)."""
    folder = _models_dir(site)
    chosen = json.loads((folder / "evaluation.json").read_text(encoding="utf-8"))
    with duckdb.get_connection() as con:
        collections = con.sql("SELECT * FROM marts.collections").pl()
        trained_on = training_rows(con)  # BGG rows inform the model and the exclusions, never the shelves
        games = con.sql("SELECT * FROM marts.games").pl()
        posts = con.sql("SELECT game_id, post_kind, body FROM staging.stg_posts").pl()
    generated_at = utcnow()
    result = discover(
        collections=trained_on,
        games=games,
        posts=posts,
        champion=chosen["champion"],
        params=chosen["params"],
        weighting=chosen["weighting"],
        run_id=chosen["run_id"],
        generated_at=generated_at,
        model_dir=site.paths.champion,
        seed=SEED,
    )
    context.log.info(f"discovery: {result.stats}")
    night = pl.lit(context.run.run_id).alias("night_id")  # the night's id (marts.nights)
    with duckdb.get_connection() as con:
        n_recs = replace_table(con, "recommendations", result.recommendations.with_columns(night))
        n_similar = replace_table(con, "similar_games", result.similar_games.with_columns(night))
        n_shelf = replace_table(con, "next_to_play", site_rows_only(result.next_to_play, collections))
        n_watch = replace_table(con, "watch_next", site_rows_only(result.watch_next, collections))
        served = record_lists(con, night_id=context.run.run_id, run_id=chosen["run_id"], model=chosen["champion"],
                              generated_at=generated_at)
    context.log.info(f"served lists: coverage {served['coverage']}, stability {served['stability']} "
                     f"over {served['n_compared']} members (previous night {served['previous_night_id']})")
    recs = result.recommendations
    yield dg.MaterializeResult(
        asset_key=["marts", "recommendations"],
        metadata={
            "dagster/row_count": n_recs,
            "members": recs["user_id"].n_unique(),
            "distinct_games": recs["game_id"].n_unique(),
            "model": chosen["champion"],
            "run_id": chosen["run_id"],
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
