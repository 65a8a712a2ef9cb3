-- Member directory rows. A member found private is deleted, never kept.
CREATE TABLE IF NOT EXISTS raw.members (
    user_id    VARCHAR PRIMARY KEY,
    name       VARCHAR,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL
);
