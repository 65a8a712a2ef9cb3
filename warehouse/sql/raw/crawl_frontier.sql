-- @table raw.crawl_frontier: The crawl's persisted frontier: pages an incremental night decided
--   to fetch and has not fetched yet. A crawl stopped by its page budget or killed leaves its
--   rows here, and the next night fetches them first, oldest first. A row goes once its page
--   was read (or, for a collection, once the member's listing was read to a known outcome).
-- @key kind, key
-- @column kind: What the page is: game, post or collection.
-- @column key: The page's id: a game_id, post_id or user_id, by kind.
-- @column url: The page's path on the site (e.g. /games/<slug>).
-- @column reason: Why it is due: new, changed, check (a site signal not trusted: page 1 read),
--   recheck (a signal lost mid-night), private, stale (older than --max-age-days), unlisted or retry.
-- @column run_id: The crawl run that queued it.
-- @column fetched_at: When it was first queued (UTC; kept when it is queued again).
CREATE TABLE IF NOT EXISTS raw.crawl_frontier (
    kind       VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    url        VARCHAR NOT NULL,
    reason     VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (kind, key)
);
