"""Did the lists come true: the collection history, the exposure log and marts.list_outcomes.

After discovery (its lists are what the exposure log records) and before the release (the
published night carries all four marts). Thin: the logic is ``warehouse.outcomes``; the
previous champion's counterfactual lists, where the choice moved, come from fitting it again
(``models.discovery.run.refit_top_lists``), handed to the warehouse as a function.
"""

from typing import Any

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from models.content import ContentModel
from models.discovery.run import ChampionFit, refit_top_lists
from pipelines.defs.recsys.assets import CONTENT_MODEL, SEED, mart_spec
from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.model_marts import utcnow
from warehouse.outcomes.exposure import K, record_served
from warehouse.outcomes.history import record_collections
from warehouse.outcomes.kept import forget_members
from warehouse.outcomes.rates import PreviousLists, record_outcomes
from warehouse.privacy.public import public_users

SERVED = ("marts.recommendations", "marts.watch_next", "marts.next_to_play")


def _previous_lists(content: ContentModel, engine: str) -> PreviousLists:
    """Fit an earlier night's champion on what everyone held on a served night, and rank."""

    def rank(champion: dict[str, Any], held: pl.DataFrame, members: list[str]) -> dict[str, list[str]] | None:
        try:
            fit = ChampionFit(champion=champion["champion"], params=champion["params"],
                              weighting=champion["weighting"], seed=SEED)
        except ValueError:  # a champion this version no longer knows
            return None
        return refit_top_lists(rows=held, content=content, fit=fit, members=members, k=K, engine=engine)

    return rank


@dg.multi_asset(
    specs=[
        mart_spec("history_nights", "marts.collections"),
        mart_spec("collection_history", "marts.collections"),
        mart_spec("served_lists", *SERVED, "marts.recommendation_runs"),
        mart_spec("list_outcomes", "marts.history_nights", "marts.collection_history", "marts.served_lists",
                  "marts.model_runs", "recsys.content_model"),
    ],
    ins={"content": dg.AssetIn(CONTENT_MODEL)},
    pool="warehouse_writer",
)
def list_outcomes(context: dg.AssetExecutionContext, content: ContentModel, duckdb: DuckDBResource, site: SiteSettings,
                  nightly_lock: NightlyLock):
    """Records tonight's collections and the lists tonight serves, then what members did with the
    lists of earlier nights (marts.list_outcomes: every window that closed tonight)."""
    night_id, now = context.run.run_id, utcnow()
    with duckdb.get_connection() as con:
        forgotten = forget_members(con, public_users(con))
        night_no = record_collections(con, night_id=night_id, recorded_at=now)
        served = record_served(con, night_id=night_id, night_no=night_no)
        rows = record_outcomes(con, night_no=night_no, outcome_night_id=night_id, computed_at=now,
                               previous=_previous_lists(content, site.engine()))
        history = con.execute("SELECT count(*) FROM marts.collection_history").fetchall()[0][0]
    context.log.info(f"list outcomes: night {night_no}, {history} collection versions, served {served}, "
                     f"{len(rows)} outcome row(s) added, {forgotten} row(s) of members no longer public removed")
    for row in rows:
        if row["list_kind"] == "discovery" and row["nights_after"] == 1:
            context.log.info(f"discovery lists of {row['served_night_id']}: {row['hits']} of {row['members']} members "
                             f"who added a game took one of their top 10; popularity "
                             f"{row['popularity_hit_rate_at_10']}")
    yield dg.MaterializeResult(asset_key=["marts", "history_nights"], metadata={"night_no": night_no})
    yield dg.MaterializeResult(asset_key=["marts", "collection_history"], metadata={"dagster/row_count": history})
    yield dg.MaterializeResult(asset_key=["marts", "served_lists"],
                               metadata={f"members_{kind}": n for kind, n in served.items()})
    yield dg.MaterializeResult(asset_key=["marts", "list_outcomes"], metadata={"rows_added": len(rows)})
