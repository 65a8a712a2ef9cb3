-- marts.publication: which night a published snapshot (DATA_DIR/published.duckdb) holds.
-- Written only into the snapshot, by warehouse/publish.py, one row per publish.
CREATE TABLE IF NOT EXISTS marts.publication (
    run_id         VARCHAR NOT NULL,      -- the Dagster run (or `build-…`) that published it
    export_run_id  VARCHAR,               -- the export bundle it matches (exports/LATEST then)
    published_at   TIMESTAMPTZ NOT NULL,
    oldest_page_at TIMESTAMPTZ,           -- the oldest crawled page the night's marts rest on
    newest_page_at TIMESTAMPTZ
);
