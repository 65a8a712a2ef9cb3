-- @table raw.listing_crawls: The outcome of the latest crawl of each paginated listing (a
--   member's collection or a cafe's games). A private member (login page) is never recorded:
--   their row is deleted.
-- @key listing, key
-- @column listing: Which listing: collection (/friends/<id>/boardgames) or space
--   (/spaces/<slug>/games).
-- @column key: The member's user_id (collection) or the cafe's space_slug (space).
-- @column status: public (read to the end, with entries), empty (the site's empty-list page),
--   incomplete (a page failed: nothing was removed), updated or unchanged (an incremental
--   night read only what changed, or nothing).
-- @column n_entries: Entries seen on the listing's pages in that crawl.
-- @column n_pages: Pages read.
-- @column run_id: The crawl run (raw.crawl_runs.run_id) of that outcome.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.listing_crawls (
    listing    VARCHAR NOT NULL,
    key        VARCHAR NOT NULL,
    status     VARCHAR NOT NULL,
    n_entries  INTEGER NOT NULL,
    n_pages    INTEGER NOT NULL,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (listing, key)
);
