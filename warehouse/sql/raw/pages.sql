-- @table raw.pages: The state of the pages an incremental night revalidates (game and post
--   pages): the validators the server gave, the body's sha256 (for servers that give none),
--   the last answer's status and when it came. A game whose page answered 404 is gone: kept
--   here (and in raw.games) with http_status 404, left out of the marts.
-- @key kind, key
-- @column kind: What the page is: game or post.
-- @column key: The page's id: a game_id or post_id, by kind.
-- @column url: The page's path on the site, e.g. /games/<slug>.
-- @column http_status: The last answer: 200, 304 (not modified) or 404 (gone).
-- @column etag: The ETag the server last gave; NULL if it gives none.
-- @column last_modified: The Last-Modified header the server last gave, as sent; NULL if none.
-- @column body_sha256: sha256 of the last body read (hex); NULL after a 404.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last confirmed the page.
-- @column fetched_at: When the page was last confirmed (200 or 304), UTC.
CREATE TABLE IF NOT EXISTS raw.pages (
    kind          VARCHAR NOT NULL,
    key           VARCHAR NOT NULL,
    url           VARCHAR NOT NULL,
    http_status   INTEGER NOT NULL,
    etag          VARCHAR,
    last_modified VARCHAR,
    body_sha256   VARCHAR,
    run_id        VARCHAR NOT NULL,
    fetched_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, key)
);
