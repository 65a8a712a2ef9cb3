-- One row per crawl run: when it ran, against which site, and how it went.
CREATE TABLE IF NOT EXISTS raw.crawl_runs (
    run_id      VARCHAR PRIMARY KEY,
    base_url    VARCHAR NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    status      VARCHAR NOT NULL,          -- running | finished | stopped: <reason> | interrupted (its process died)
    stats       JSON
);
