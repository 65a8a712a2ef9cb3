-- @table raw.members: Rows of the member directory (/friends?page=N), written only once the
--   member's collection was seen public in the same run. A member found private is deleted,
--   never kept.
-- @key user_id
-- @column user_id: The member's id on the site (/friends/<id>).
-- @column name: The member's display name; NULL where the directory shows none.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last saw the member.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.members (
    user_id    VARCHAR PRIMARY KEY,
    name       VARCHAR,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
