-- @table raw.game_summaries: Rows of the game catalogue (/games?page=N), the latest fetch per
--   game: name, players, time, age and year, without counters or credits. The fallback for a
--   game whose own page could not be read.
-- @key game_id
-- @inherit raw.cafe_games
-- @column run_id: The crawl run (raw.crawl_runs.run_id) that last saw this catalogue row.
-- @column fetched_at: When that crawl wrote this row (UTC).
CREATE TABLE IF NOT EXISTS raw.game_summaries (
    game_id     VARCHAR PRIMARY KEY,
    {{ columns.game_listing }},
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
