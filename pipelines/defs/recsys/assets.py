"""Features, candidate models, evaluation, the champion, recommendations and similar games.

Thin assets over `models/`: the interaction matrix comes from marts.collections, every
candidate is tuned and scored on a seeded per-user holdout (`models.evaluate`), the
champion is refitted on everyone's collections, and discovery writes the marts.
"""

import json
from pathlib import Path

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from models.candidates import default_candidates
from models.discovery import discover
from models.evaluate import evaluate
from models.interactions import normalise_interactions
from models.split import holdout_split
from pipelines.defs.resources import SiteSettings
from scrapers.crawl import new_run_id
from warehouse.model_marts import replace_table, utcnow, write_model_runs

K = 10
SEED = 0
CANDIDATES = list(default_candidates())


def _models_dir(site: SiteSettings) -> Path:
    path = Path(site.data_dir) / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dg.asset(
    key=["recsys", "interactions"],
    deps=[dg.AssetKey(["marts", "collections"])],
    group_name="recsys",
    kinds={"polars", "parquet"},
    automation_condition=dg.AutomationCondition.eager(),
)
def interactions(duckdb: DuckDBResource, site: SiteSettings) -> dg.MaterializeResult:
    """Members' public collections as interactions (user, game, statuses, rating), saved as Parquet."""
    with duckdb.get_connection() as con:
        frame = con.sql(
            "SELECT user_id, game_id, have, played, favorite, watching, rating FROM marts.collections"
        ).pl()
    frame = normalise_interactions(frame, source="marts.collections")
    frame.write_parquet(_models_dir(site) / "interactions.parquet")
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
            description=f"The {name} candidate: tuned on a validation split of TRAIN, scored on a per-user holdout.",
        )
        for name in CANDIDATES
    ]
    + [
        dg.AssetSpec(
            ["marts", "model_runs"],
            deps=[dg.AssetKey(["recsys", "interactions"])],
            group_name="recsys",
            kinds={"duckdb"},
            description="Every candidate of every run with its parameters and held-out metrics (history kept).",
        )
    ],
    pool="warehouse_writer",
)
def model_evaluation(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings):
    """Tunes every candidate, scores it on a seeded 20% per-user holdout, names the champion."""
    folder = _models_dir(site)
    frame = pl.read_parquet(folder / "interactions.parquet")
    train, test = holdout_split(frame, fraction=0.2, seed=SEED)
    context.log.info(f"evaluation: train {train.height:,} rows, test {test.height:,} rows")
    report = evaluate(train, test, k=K, seed=SEED)
    run_id, trained_at = new_run_id(), utcnow()
    runs = report.model_runs(run_id, trained_at)
    with duckdb.get_connection() as con:
        write_model_runs(con, runs)
    champion = report.results[report.champion]
    (folder / "evaluation.json").write_text(
        json.dumps(
            {
                "run_id": run_id,
                "champion": report.champion,
                "params": champion.params,
                "weighting": report.weighting.name,
                "weighting_reason": report.weighting.reason,
                "report": report.to_dict(),
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
        metadata={"dagster/row_count": runs.height, "run_id": run_id, "champion": report.champion},
    )


@dg.asset(
    key=["recsys", "champion_model"],
    deps=[dg.AssetKey(["marts", "model_runs"])],
    group_name="recsys",
    kinds={"python"},
)
def champion_model(site: SiteSettings) -> dg.MaterializeResult:
    """The candidate with the best NDCG@10 on a fresh validation split of TRAIN (never on TEST)."""
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
        }
    )


def _per_second(count: int, seconds: float) -> float:
    """A throughput for the UI and the scale benchmark (members ranked per second)."""
    return round(count / seconds, 1) if seconds > 0 else 0.0


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            ["marts", "recommendations"],
            deps=[dg.AssetKey(["recsys", "champion_model"]), dg.AssetKey(["marts", "games"])],
            group_name="recsys",
            kinds={"duckdb"},
            description="Discovery: for every member, games neither had nor played, ranked, with a reason.",
        ),
        dg.AssetSpec(
            ["marts", "similar_games"],
            deps=[dg.AssetKey(["recsys", "champion_model"]), dg.AssetKey(["marts", "games"])],
            group_name="recsys",
            kinds={"duckdb"},
            description="For every game, the most similar games (collaborative and content similarity).",
        ),
    ],
    pool="warehouse_writer",
)
def discovery(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings):
    """Refits the champion on everyone's collections and writes recommendations and similar games."""
    folder = _models_dir(site)
    chosen = json.loads((folder / "evaluation.json").read_text(encoding="utf-8"))
    with duckdb.get_connection() as con:
        collections = con.sql("SELECT * FROM marts.collections").pl()
        games = con.sql("SELECT * FROM marts.games").pl()
        posts = con.sql("SELECT game_id, post_kind, body FROM staging.stg_posts").pl()
    result = discover(
        collections=collections,
        games=games,
        posts=posts,
        champion=chosen["champion"],
        params=chosen["params"],
        weighting=chosen["weighting"],
        run_id=chosen["run_id"],
        generated_at=utcnow(),
        model_dir=folder / "champion",
        seed=SEED,
    )
    context.log.info(f"discovery: {result.stats}")
    with duckdb.get_connection() as con:
        n_recs = replace_table(con, "recommendations", result.recommendations)
        n_similar = replace_table(con, "similar_games", result.similar_games)
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
        asset_key=["marts", "similar_games"],
        metadata={"dagster/row_count": n_similar, "games": result.similar_games["game_id"].n_unique()},
    )
