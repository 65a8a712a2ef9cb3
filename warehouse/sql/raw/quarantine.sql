-- @table raw.quarantine: Pages that could not be fetched or parsed, the latest failure per URL,
--   for a human to look at. A URL that later parses cleanly is removed at the end of that run.
-- @key url
-- @column url: The page's full URL.
-- @column reason: Why: http <status>, fetch failed: <error>, or the parser's reason (truncated for
--   a page cut short, or what the parser missed).
-- @column http_status: The HTTP status of the answer; NULL when no answer came.
-- @column body_sha256: sha256 of the body received (hex); NULL when no answer came.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) of the latest failure.
-- @column fetched_at: When that failure was recorded (UTC).
CREATE TABLE IF NOT EXISTS raw.quarantine (
    url         VARCHAR PRIMARY KEY,
    reason      VARCHAR NOT NULL,
    http_status INTEGER,
    body_sha256 VARCHAR,
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
