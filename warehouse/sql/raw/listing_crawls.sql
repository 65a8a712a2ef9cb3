-- Outcome of the latest crawl of each paginated listing (a member's collection or
-- a cafe's games): public, empty or incomplete. Private members are never recorded.
CREATE TABLE IF NOT EXISTS raw.listing_crawls (
    listing    VARCHAR NOT NULL,          -- collection | space
    key        VARCHAR NOT NULL,          -- user_id or space_slug
    status     VARCHAR NOT NULL,
    n_entries  INTEGER NOT NULL,
    n_pages    INTEGER NOT NULL,
    run_id     VARCHAR NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (listing, key)
);
