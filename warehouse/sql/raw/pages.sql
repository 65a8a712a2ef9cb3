-- Page state of the pages an incremental night revalidates (game and post pages): the
-- validators the server gave (ETag, Last-Modified), the body's sha256 (for servers that
-- give none), the last answer's status and when it came. A game whose page answered 404
-- is gone: kept here (and in raw.games) with http_status 404, left out of the marts.
CREATE TABLE IF NOT EXISTS raw.pages (
    kind          VARCHAR NOT NULL,        -- game | post
    key           VARCHAR NOT NULL,        -- game_id or post_id
    url           VARCHAR NOT NULL,        -- path on the site, e.g. /games/<slug>
    http_status   INTEGER NOT NULL,        -- 200, 304 (not modified) or 404 (gone)
    etag          VARCHAR,
    last_modified VARCHAR,
    body_sha256   VARCHAR,
    run_id        VARCHAR NOT NULL,
    fetched_at    TIMESTAMPTZ NOT NULL,    -- when the page was last confirmed (200 or 304)
    PRIMARY KEY (kind, key)
);
