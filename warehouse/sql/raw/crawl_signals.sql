-- @table raw.crawl_signals: What each crawl measured of the site signals the incremental night
--   leans on, one row per (run, signal): how often the signal was shown, missing, confirmed and
--   contradicted by the pages read, its state that night, and the strategy the night used for
--   it. The next night trusts a signal only when the newest run that measured it confirmed it
--   (scrapers/signals.py); a warehouse from before this table trusts none at first.
-- @key run_id, signal
-- @join run_id -> raw.crawl_runs
-- @column run_id: The crawl run that measured it.
-- @column base_url: The site crawled (signals are remembered per site).
-- @column signal: Which assumption about the site: directory_counts (マイボードゲーム N in the
--   directory), directory_updates (the row's newest-card time), private_marker (非公開 in the
--   directory), validators (ETag/Last-Modified answered with 304), sort_order (cards 更新順,
--   newest update first) or listing_totals (全N個 above a collection).
-- @column state: What this night's pages showed: confirmed, contradicted, unconfirmed (shown but
--   never checked), absent (never shown) or unmeasured (no page could tell).
-- @column strategy: How the night used it: the fast way, the exact fallback, or full-read on a
--   full crawl.
-- @column remembered: The state the night started from, as earlier runs left it.
-- @column seen: Pages or rows on which the signal was shown.
-- @column missing: Pages or rows on which it was not.
-- @column agree: Checks in which what was read agreed with it.
-- @column contradict: Checks in which what was read contradicted it.
-- @column example: The first contradiction (or absence) seen, for a human; NULL when none.
-- @column finished_at: When the crawl's measurement was recorded (UTC).
CREATE TABLE IF NOT EXISTS raw.crawl_signals (
    run_id      VARCHAR NOT NULL,
    base_url    VARCHAR NOT NULL,
    signal      VARCHAR NOT NULL,
    state       VARCHAR NOT NULL,
    strategy    VARCHAR NOT NULL,
    remembered  VARCHAR NOT NULL,
    seen        INTEGER NOT NULL,
    missing     INTEGER NOT NULL,
    agree       INTEGER NOT NULL,
    contradict  INTEGER NOT NULL,
    example     VARCHAR,
    finished_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (run_id, signal)
);
