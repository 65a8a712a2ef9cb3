-- What each crawl measured of the site signals the incremental night leans on, one row
-- per (run, signal): how often the signal was shown, missing, confirmed and contradicted
-- by the pages read, its state that night, and the strategy the night used for it. The
-- next night trusts a signal only when the newest run that measured it confirmed it
-- (see scrapers/signals.py); a warehouse from before this table trusts none at first.
CREATE TABLE IF NOT EXISTS raw.crawl_signals (
    run_id      VARCHAR NOT NULL,
    base_url    VARCHAR NOT NULL,
    signal      VARCHAR NOT NULL,          -- directory_counts | directory_updates | private_marker | validators | sort_order | listing_totals
    state       VARCHAR NOT NULL,          -- confirmed | contradicted | unconfirmed (shown, not checked) | absent | unmeasured
    strategy    VARCHAR NOT NULL,          -- the fast way, the fallback, or full-read on a full crawl
    remembered  VARCHAR NOT NULL,          -- the state the night started from (earlier runs)
    seen        INTEGER NOT NULL,
    missing     INTEGER NOT NULL,
    agree       INTEGER NOT NULL,
    contradict  INTEGER NOT NULL,
    example     VARCHAR,                   -- the first contradiction (or absence), for a human
    finished_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (run_id, signal)
);
