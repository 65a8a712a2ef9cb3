-- The crawl's persisted frontier: pages an incremental night decided to fetch and has not
-- fetched yet. A crawl stopped by its page budget or killed leaves its rows here, and the
-- next night fetches them first, oldest first. A row goes once its page was read (or, for
-- a collection, once the member's listing was read to a known outcome).
CREATE TABLE IF NOT EXISTS raw.crawl_frontier (
    kind       VARCHAR NOT NULL,           -- game | post | collection
    key        VARCHAR NOT NULL,           -- game_id, post_id or user_id
    url        VARCHAR NOT NULL,           -- path on the site
    reason     VARCHAR NOT NULL,           -- new | changed | check (signals not trusted) | recheck (a signal lost mid-night) | private | stale | unlisted | retry
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,       -- when it was first queued (kept on re-queueing)
    PRIMARY KEY (kind, key)
);
