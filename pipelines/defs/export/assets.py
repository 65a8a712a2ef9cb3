"""The export for the site: a checksummed bundle, then the night's release: published.duckdb
and exports/LATEST replaced one right after the other (warehouse/release/release.py). Delivery to the
site's endpoint comes after the release (`delivery.py`)."""

from datetime import timedelta

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.alerts import FRESHNESS
from pipelines.defs.export.parts import BUNDLE_PARTS, parts_of
from pipelines.defs.resources import NightlyLock, SiteSettings
from pipelines.run_log import check_results
from warehouse.build import MARTS
from warehouse.release.export import bundle_run_id, export_bundle
from warehouse.release.publish import RAW_FOR_READERS
from warehouse.release.release import release_night


BUNDLED = [dg.AssetKey(["marts", t]) for t in ("recommendations", "next_to_play", "watch_next", "similar_games")]
"""The marts whose rows go into the bundle's JSONL files."""
WHO_IS_PUBLIC = [dg.AssetKey(["raw", t]) for t in ("collection_entries", "listing_crawls")]
"""Where the bundle learns who is public now, to cut anyone else (`warehouse.privacy.public.public_users`)."""


def _published_tables() -> list[dg.AssetKey]:
    """Every table the published night copies: each mart the night builds or writes and the raw
    tables readers see (`warehouse.release.publish`), so each is an edge into `published_night`."""
    from pipelines.defs.recsys.assets import model_evaluation
    from pipelines.defs.recsys.discovery import discovery
    from pipelines.defs.recsys.outcomes import list_outcomes

    written = [key for key in (*model_evaluation.keys, *discovery.keys, *list_outcomes.keys) if key.path[0] == "marts"]
    return ([dg.AssetKey(["marts", t]) for t in MARTS] + sorted(written, key=lambda key: list(key.path))
            + [dg.AssetKey(["raw", t]) for t in RAW_FOR_READERS])


@dg.asset(
    key=["export", "site_bundle"],
    deps=BUNDLED + WHO_IS_PUBLIC + [BUNDLE_PARTS],
    group_name="export",
    kinds={"json"},
)
def site_bundle(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """exports/<run_id>/ with recommendations.jsonl, similar_games.jsonl and manifest.json (LATEST moves at release).

    Each JSONL file's JSON Schema goes in the bundle's `schemas/`, and every line is validated
    against it before the bundle is renamed into place: a line that does not match fails this
    step, so the night fails and publishes nothing (warehouse/release/schemas.py).
    Delivery to the site's endpoint comes after the night is published (`export/delivery`),
    so a down endpoint never stops the night.
    """
    with duckdb.get_connection() as con:
        # the per-member files from the buckets' parts (export/bundle_parts), the same bytes as written whole
        bundle = export_bundle(con, site.paths.exports, keep=site.bundles_to_keep(),
                               parts=parts_of(site, bundle_run_id(con)))
    metadata = {"path": str(bundle.path), "run_id": bundle.run_id, **{f"n_{k}": v for k, v in bundle.manifest["counts"].items()}}
    return dg.MaterializeResult(metadata=metadata)


@dg.asset(
    key=["export", "published_night"],
    deps=[site_bundle, *_published_tables()],
    group_name="export",
    kinds={"duckdb"},
    pool="warehouse_writer",
    # The UI marks a late night as the alerts do: a night is published about every 24 hours.
    freshness_policy=dg.FreshnessPolicy.time_window(fail_window=FRESHNESS, warn_window=FRESHNESS - timedelta(hours=1)),
)
def published_night(context: dg.AssetExecutionContext, duckdb: DuckDBResource, site: SiteSettings, nightly_lock: NightlyLock) -> dg.MaterializeResult:
    """DATA_DIR/published.duckdb: the read-only copy of the marts that readers open, and exports/LATEST.

    After the export: a night that fails before it publishes nothing, and `bodoge
    collection/cafes/recommend`, the dashboard, analysts and the site keep the previous
    night. The published night is swapped in whole, then LATEST names the night's bundle at
    once; old bundles are pruned after (warehouse/release/release.py). Delivery and the backup follow.
    The snapshot carries the checks the night evaluated so far (marts.publication.checks).
    """
    # the published night's own count of checks, each with its declared description (the project's
    # definitions: a night run in process has no repository on its step context)
    checks = check_results(context.instance, context.run.run_id)
    with duckdb.get_connection() as con:
        result = release_night(con, site.paths.data_dir, run_id=context.run.run_id, bundle_run_id=bundle_run_id(con),
                               keep=site.bundles_to_keep(), checks=checks)
    context.log.info(f"published {result.path}: {result.bytes / 1e6:.1f} MB in {result.seconds:.1f}s")
    return dg.MaterializeResult(
        metadata={"path": str(result.path), "tables": result.tables, "bytes": result.bytes,
                  "seconds": round(result.seconds, 2)}
    )
