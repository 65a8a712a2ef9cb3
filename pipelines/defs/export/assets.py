"""The export for the site: a checksummed bundle, LATEST swapped atomically (delivery: `delivery.py`)."""

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.resources import SiteSettings
from warehouse.export import export_bundle
from warehouse.export_retention import latest_name
from warehouse.publish import publish_snapshot


@dg.asset(
    key=["export", "site_bundle"],
    deps=[dg.AssetKey(["marts", t]) for t in ("recommendations", "next_to_play", "similar_games")],
    group_name="export",
    kinds={"json"},
)
def site_bundle(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings) -> dg.MaterializeResult:
    """exports/<run_id>/ with recommendations.jsonl, similar_games.jsonl and manifest.json; then LATEST.

    Delivery to the site's endpoint comes after the night is published (`export/delivery`),
    so a down endpoint never stops the night.
    """
    with duckdb.get_connection() as con:
        bundle = export_bundle(con, site.paths.exports, keep=site.bundles_to_keep())
    metadata = {"path": str(bundle.path), "run_id": bundle.run_id, **{f"n_{k}": v for k, v in bundle.manifest["counts"].items()}}
    return dg.MaterializeResult(metadata=metadata)


@dg.asset(
    key=["export", "published_night"],
    deps=[site_bundle],
    group_name="export",
    kinds={"duckdb"},
    pool="warehouse_writer",
)
def published_night(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings) -> dg.MaterializeResult:
    """DATA_DIR/published.duckdb: the read-only copy of the marts that readers open.

    The night's last step, after the export: a night that fails anywhere publishes
    nothing, and `bodoge collection/cafes/recommend`, the dashboard and analysts keep the
    previous night. Swapped in whole with os.replace (warehouse/publish.py).
    """
    with duckdb.get_connection() as con:
        result = publish_snapshot(con, site.paths.data_dir, run_id=context.run_id,
                                  export_run_id=latest_name(site.paths.exports))
    context.log.info(f"published {result.path}: {result.bytes / 1e6:.1f} MB in {result.seconds:.1f}s")
    return dg.MaterializeResult(
        metadata={"path": str(result.path), "tables": result.tables, "bytes": result.bytes,
                  "seconds": round(result.seconds, 2)}
    )
