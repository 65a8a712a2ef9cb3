-- @table raw.game_counters: The site's four interest counters of each game page, per crawl run:
--   the history behind "change between crawls" (marts.game_popularity). One row per (game,
--   run); re-running a run replaces it. The counters are the site's own: they count every
--   member who set the status, private collections included.
-- @key game_id, run_id
-- @join game_id -> raw.games
-- @join run_id -> raw.crawl_runs
-- @column game_id: The game's slug on the site (/games/<slug>).
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that read the game page.
-- @column n_watching: Members with 興味あり (watching) set, as the game page counts them (private
--   members included); NULL where the page shows no counter.
-- @column n_played: Members with 経験あり (played) set, as the game page counts them (private
--   members included); NULL where the page shows no counter.
-- @column n_favorite: Members with お気に入り (favorite) set, as the game page counts them (private
--   members included); NULL where the page shows no counter.
-- @column n_have: Members with 持ってる (have) set, as the game page counts them (private members
--   included); NULL where the page shows no counter.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.game_counters (
    game_id     VARCHAR NOT NULL,
    run_id      VARCHAR NOT NULL,
    n_watching  INTEGER,
    n_played    INTEGER,
    n_favorite  INTEGER,
    n_have      INTEGER,
    fetched_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, run_id)
);
