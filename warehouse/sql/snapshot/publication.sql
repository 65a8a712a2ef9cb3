-- @table marts.publication: Which night a published snapshot (DATA_DIR/published.duckdb) holds.
--   Written only into the snapshot, by warehouse/release/publish.py, one row per publish.
-- @key run_id
-- @join night_id -> marts.nights
-- @column run_id: The Dagster run (or build-…) that published it.
-- @column export_run_id: The export bundle it matches (exports/LATEST at the time); NULL when
--   the night exported nothing.
-- @column published_at: When it was published (UTC).
-- @column oldest_page_at: The oldest time a crawled page the night's marts rest on was last
--   confirmed (UTC); NULL without pages.
-- @column newest_page_at: The newest such time (UTC); NULL without pages.
-- @column checks: The checks this night ran before it was published, as JSON: [{name, asset,
--   passed, severity, description}] (a night: every Dagster asset check evaluated by then; the
--   delivery check comes after and is in the run's marts.pipeline_runs row; `bodoge build`: its
--   data-quality checks). The one count of checks readers show; NULL when not recorded.
-- @column night_id: The night it is (marts.nights.night_id): run_id when a nightly run published
--   it, NULL for `bodoge build`.
CREATE TABLE IF NOT EXISTS marts.publication (
    run_id         VARCHAR NOT NULL,
    export_run_id  VARCHAR,
    published_at   TIMESTAMPTZ NOT NULL,
    oldest_page_at TIMESTAMPTZ,
    newest_page_at TIMESTAMPTZ,
    checks         JSON,
    night_id       VARCHAR
);
