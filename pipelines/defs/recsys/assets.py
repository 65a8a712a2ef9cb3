"""The night's recommender inputs and evaluation: interactions, the content model, every
candidate's scores, `marts.model_runs` and the champion choice (discovery is `discovery.py`).

Thin assets over `models/`, each declaring what it reads, so the asset graph shows the night
as it runs: `recsys/interactions` cleans `marts.collections` once and `recsys/content_model`
featurises the catalogue once, both handed on as values (`model_files`, `resources.py`) to
the evaluation and to discovery; the evaluation tunes and scores every candidate on a
seeded per-user holdout and on a time split (each member's latest entries, which names
the champion; `models.evaluate`) and hands on `recsys/champion_choice`, which discovery
refits on everyone's collections.
"""

import json
import time
from datetime import datetime
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl
from dagster_duckdb import DuckDBResource

from core.ids import new_run_id
from models.beyond import rank_stability
from models.bgg_gain import bgg_gain
from models.budget import EvaluationBudget
from models.candidates import default_candidates
from models.content import ContentModel
from models.discovery.run import ChampionFit, catalog_frame
from models.evaluate import evaluate
from models.interactions import normalise_interactions
from models.report import EvaluationReport
from models.split import holdout_split, time_split
from models.tuning_store import load_tuning, save_tuning
from pipelines.defs.recsys.resources import MODEL_FILES
from pipelines.defs.resources import NightlyLock, SiteSettings
from pipelines.described import described
from warehouse.bgg_training import has_bgg_rows, training_rows
from warehouse.db import insert_by_name
from warehouse.model_marts import previous_champion, utcnow, write_model_runs

K = 10
SEED = 0
CANDIDATES = list(default_candidates())
INTERACTIONS = dg.AssetKey(["recsys", "interactions"])
CONTENT_MODEL = dg.AssetKey(["recsys", "content_model"])
CHAMPION_CHOICE = dg.AssetKey(["recsys", "champion_choice"])
TUNING = dg.AssetKey(["recsys", "tuning"])
EVALUATION_LISTS = dg.AssetKey(["recsys", "evaluation_lists"])


def mart_spec(name: str, *deps: str) -> dg.AssetSpec:
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
    key=INTERACTIONS,
    deps=[dg.AssetKey(["marts", "collections"]), dg.AssetKey(["marts", "bgg_interactions"])],
    group_name="recsys",
    kinds={"polars", "parquet"},
    io_manager_key=MODEL_FILES,
    automation_condition=dg.AutomationCondition.eager(),
)
def interactions(duckdb: DuckDBResource, nightly_lock: NightlyLock) -> dg.MaterializeResult[pl.DataFrame]:
    """Members' public collections as interactions (user, game, statuses, rating), cleaned once a
    night (`normalise_interactions`) for evaluation and discovery, with when each entry was last
    updated (`updated_at`, for the time and forward splits and recency weighting)."""
    with duckdb.get_connection() as con:
        frame = training_rows(con)  # marts.collections, plus linked members' BGG rows (docs/bgg.md)
    rows = normalise_interactions(frame, source="marts.collections")  # keeps updated_at (UTC)
    return dg.MaterializeResult(
        value=rows,
        metadata={
            "dagster/row_count": rows.height,
            "n_users": rows["user_id"].n_unique(),
            "n_games": rows["game_id"].n_unique(),
        },
    )


@dg.asset(
    key=CONTENT_MODEL,
    deps=[dg.AssetKey(["marts", "games"]), dg.AssetKey(["staging", "stg_posts"])],
    group_name="recsys",
    kinds={"scikitlearn"},
    io_manager_key=MODEL_FILES,
)
def content_model(duckdb: DuckDBResource, nightly_lock: NightlyLock) -> dg.MaterializeResult[ContentModel]:
    """The catalogue's content features (names, overviews and rule posts as character n-grams;
    mechanics, themes, designers, specs), fitted once a night: the evaluation measures
    diversity with them and discovery blends and finds similar games with them."""
    with duckdb.get_connection() as con:
        games = con.sql("SELECT * FROM marts.games").pl()
        posts = con.sql("SELECT game_id, post_kind, body FROM staging.stg_posts").pl()
    started = time.perf_counter()
    model = ContentModel.fit(catalog_frame(games), posts)
    return dg.MaterializeResult(
        value=model,
        metadata={"games": model.n_games, "features": int(model.features.shape[1]),
                  "fit_seconds": round(time.perf_counter() - started, 3)},
    )


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["recsys", f"{name}_candidate"],
            deps=[INTERACTIONS, CONTENT_MODEL],
            group_name="recsys",
            kinds={"implicit" if name in ("als", "bpr", "cosine", "bm25") else "numpy"},
            description=f"The {name} candidate's evaluation: tuned on a validation split of TRAIN, "
                        "scored on a per-user holdout and a time split (its test metrics).",
        )
        for name in CANDIDATES
    ]
    + [
        mart_spec("model_runs", "recsys.interactions", "recsys.content_model"),
        # for linked members: the champion with and without their BGG rows (site rows tell them apart)
        mart_spec("bgg_gain", "recsys.interactions", "marts.collections"),
        dg.AssetSpec(
            CHAMPION_CHOICE,
            deps=[INTERACTIONS, CONTENT_MODEL],
            group_name="recsys",
            kinds={"json"},
            description="Which candidate discovery fits tonight, with its parameters and weighting: the best "
                        "NDCG@10 on a time split of TRAIN (its members' latest entries; never on TEST).",
        ).with_io_manager_key(MODEL_FILES),
        dg.AssetSpec(
            TUNING, deps=[INTERACTIONS], group_name="recsys", kinds={"json"}, skippable=True,
            description="The last full tuning (DATA_DIR/models/tuning.json: weighting and parameters), written on "
                        "large nights that tuned afresh; the evaluation reuses it while it is fresh.",
        ),
        dg.AssetSpec(
            EVALUATION_LISTS, deps=[INTERACTIONS], group_name="recsys", kinds={"parquet"},
            description="Each candidate's test lists (DATA_DIR/models/evaluation_lists/), against which the "
                        "next night measures rank stability.",
        ),
    ],
    ins={"rows": dg.AssetIn(INTERACTIONS), "content": dg.AssetIn(CONTENT_MODEL)},
    pool="warehouse_writer",
)
def model_evaluation(context: dg.AssetExecutionContext, rows: pl.DataFrame, content: ContentModel,
                     duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock):
    """Tunes every candidate and scores it on two splits: a seeded 20% per-user holdout and a
    time split (each member's latest 20%); the time split names the champion, chosen on its own
    time split of TRAIN or on a forward one (TRAIN cut at one moment) by `models.forward`'s rule.

    Besides its inputs it reads its own outputs of the night before, `recsys/tuning` (reused on
    large nights while fresh), `recsys/evaluation_lists` (for rank stability) and the last
    champion in `marts.model_runs` (it stays unless clearly beaten, `models.champion`): Dagster
    draws no edge from an asset to itself, so these are read at known places."""
    folder = _models_dir(site)
    frame, times = rows, rows.select("user_id", "game_id", "updated_at")  # times: the recency choice's too
    vectors = (content.game_ids, content.features)
    run_id, trained_at = new_run_id(), utcnow()
    n_users, n_rows = frame.get_column("user_id").n_unique(), frame.height
    large = EvaluationBudget.for_data(n_users, n_rows).engaged  # small data is tuned every night
    tuning_file = folder / "tuning.json"  # the last full tuning (models.tuning_store)
    prior = load_tuning(tuning_file, n_users=n_users, n_interactions=n_rows, now=trained_at) if large else None
    with duckdb.get_connection() as con:
        # last night's champion stays unless clearly beaten (models.champion)
        incumbent = (previous_champion(con, run_id) or {}).get("model")
    train, test = holdout_split(frame, fraction=0.2, seed=SEED)
    context.log.info(f"evaluation (random split): train {train.height:,} rows, test {test.height:,} rows")
    random_report = evaluate(train, test, k=K, seed=SEED, item_vectors=vectors, split="random", prior=prior,
                             incumbent=incumbent)
    if large and prior is None:
        save_tuning(tuning_file, random_report, n_users=n_users, n_interactions=n_rows, tuned_at=trained_at)
        yield dg.MaterializeResult(asset_key=TUNING, metadata={"path": dg.MetadataValue.path(str(tuning_file))})
    train, test = time_split(rows, fraction=0.2)
    context.log.info(f"evaluation (time split): train {train.height:,} rows, test {test.height:,} rows")
    report = evaluate(train, test, k=K, seed=SEED, times=times,
                      reuse=random_report if prior is None else None, prior=prior, item_vectors=vectors,
                      split="time", incumbent=incumbent, forward=times)
    runs = pl.concat(
        [r.model_runs(run_id, trained_at, stability=_stability(folder / "evaluation_lists", r))
         for r in (random_report, report)],
        how="diagonal_relaxed",
    ).with_columns(pl.lit(context.run.run_id).alias("night_id"))  # the night's id (marts.nights)
    with duckdb.get_connection() as con:
        write_model_runs(con, runs)
        gain = _bgg_gain(con, rows, report, run_id=run_id, night_id=context.run.run_id, trained_at=trained_at)
    yield dg.MaterializeResult(asset_key=["marts", "bgg_gain"], metadata={
        "dagster/row_count": gain.height,
        **{f"{r['split']}_gain": float(r["gain"]) for r in gain.iter_rows(named=True)},
        **({"linked_members": int(gain.select(pl.max("n_members")).item()), "seconds": float(gain["seconds"].sum())}
           if gain.height else {}),
    })
    yield dg.MaterializeResult(asset_key=EVALUATION_LISTS,
                               metadata={"path": dg.MetadataValue.path(str(folder / "evaluation_lists"))})
    for name, result in report.results.items():
        yield dg.MaterializeResult(
            asset_key=["recsys", f"{name}_candidate"],
            metadata={
                **{f"test_{m}@{K}": float(v) for m, v in result.metrics.items()},
                "selection_ndcg": float(result.selection_ndcg),
                **({"forward_ndcg": float(result.forward_ndcg)} if result.forward_ndcg is not None else {}),
                "fit_seconds": float(result.fit_seconds),
                "params": json.dumps(result.params, default=str),
                "champion": name == report.champion,
                **({"notes": result.notes} if result.notes else {}),
            },
        )
    yield dg.MaterializeResult(
        asset_key=["marts", "model_runs"],
        metadata={"dagster/row_count": runs.height, "run_id": run_id, "champion": report.champion,
                  "selection": report.selection, "followed": report.followed,
                  **({"kendall_tau": report.kendall_tau} if report.kendall_tau is not None else {})},
    )
    yield _champion_choice(report, run_id=run_id, night_id=context.run.run_id)


def _champion_choice(report: EvaluationReport, *, run_id: str, night_id: str) -> dg.MaterializeResult:
    """What discovery needs of the evaluation (the champion, its parameters and weighting, the
    evaluation's run id), with its scores against popularity for the UI."""
    champion = report.results[report.champion]
    metrics = report.to_dict()["models"]
    ndcg, popularity = float(metrics[report.champion]["ndcg"]), float(metrics["popularity"]["ndcg"])
    choice = {
        "run_id": run_id,
        "night_id": night_id,
        "champion": report.champion,
        "selection": report.selection,
        "params": champion.params,
        "weighting": report.weighting.name,
        "weighting_reason": report.weighting.reason,
    }
    return dg.MaterializeResult(
        asset_key=CHAMPION_CHOICE,
        value=choice,
        metadata={
            "champion": report.champion,
            "params": json.dumps(champion.params, default=str),
            "weighting": report.weighting.name,
            f"test_ndcg@{K}": ndcg,
            f"popularity_ndcg@{K}": popularity,
            "lift_over_popularity": ndcg / popularity if popularity else 0.0,
            "run_id": run_id,
            "selection": report.selection,
        },
    )


def _bgg_gain(con: duckdb.DuckDBPyConnection, rows: pl.DataFrame, report: EvaluationReport, *, run_id: str,
              night_id: str, trained_at: datetime) -> pl.DataFrame:
    """marts.bgg_gain's rows of this run (models.bgg_gain), written when linked members exist: the
    champion fitted with and without their BGG rows; nothing (and no cost) without BGG rows."""
    if not has_bgg_rows(con) or not con.execute("SELECT count(*) FROM marts.bgg_interactions").fetchall()[0][0]:
        return pl.DataFrame()  # nobody linked: nothing to measure, nothing read
    site_rows = con.sql("SELECT user_id, game_id FROM marts.collections").pl()  # every other row is a BGG row
    champion = report.results[report.champion]
    fit = ChampionFit(champion=report.champion, params=champion.params, weighting=report.weighting.name, seed=SEED)
    gain = bgg_gain(rows, site_rows=site_rows, fit=fit, k=K).with_columns(
        pl.lit(run_id).alias("run_id"), pl.lit(night_id).alias("night_id"), pl.lit(trained_at).alias("trained_at"))
    if gain.height:
        insert_by_name(con, "bgg_gain", gain, or_replace=True)
    return gain


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
