-- Pages that could not be fetched or parsed, latest failure per URL, for a human.
-- A URL that later parses cleanly is removed at the end of that run.
CREATE TABLE IF NOT EXISTS raw.quarantine (
    url         VARCHAR PRIMARY KEY,
    reason      VARCHAR NOT NULL,
    http_status INTEGER,
    body_sha256 VARCHAR,
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
