-- @table raw.crawl_runs: One row per crawl run: when it ran, against which site, and how it
--   went. Every raw row's run_id points here.
-- @key run_id
-- @column run_id: The crawl's id: its UTC start time and a random suffix
--   (YYYYMMDDTHHMMSSZ-xxxxxx), so ids sort by time.
-- @column base_url: The base URL of the site crawled.
-- @column started_at: When the crawl started (UTC).
-- @column finished_at: When it ended, or was found interrupted (UTC); NULL while it runs.
-- @column status: running, finished, stopped: <reason>, or interrupted (its process died).
-- @column stats: The crawl's counters as JSON (pages, items written per kind, errors, the queue
--   left for the next night); NULL until the run finishes, and for an interrupted run.
-- @column night_id: The night whose crawl it was (marts.nights.night_id, the Dagster run's id);
--   NULL for a crawl run on its own (`bodoge crawl`) or recorded before nights had ids.
CREATE TABLE IF NOT EXISTS raw.crawl_runs (
    run_id      VARCHAR PRIMARY KEY,
    base_url    VARCHAR NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    status      VARCHAR NOT NULL,
    stats       JSON,
    night_id    VARCHAR
);
