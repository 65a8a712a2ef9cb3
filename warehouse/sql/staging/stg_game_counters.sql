-- @table staging.stg_game_counters: The site's counters per game and crawl run, with the previous
--   run's values beside them (ordered by the run's start).
-- @key game_id, run_id
-- @inherit raw.game_counters
-- @column crawled_at: When the run that read the counters started (raw.crawl_runs.started_at;
--   the row's fetched_at if that run is unknown), UTC.
-- @column prev_n_watching: n_watching in the game's previous run; NULL on its first.
-- @column prev_n_played: n_played in the game's previous run; NULL on its first.
-- @column prev_n_favorite: n_favorite in the game's previous run; NULL on its first.
-- @column prev_n_have: n_have in the game's previous run; NULL on its first.
CREATE OR REPLACE VIEW staging.stg_game_counters AS
WITH source AS (
    SELECT c.*, r.started_at
    FROM raw.game_counters c
    LEFT JOIN raw.crawl_runs r USING (run_id)
)
SELECT
    game_id, run_id, coalesce(started_at, fetched_at) AS crawled_at,
    n_watching, n_played, n_favorite, n_have,
    lag(n_watching) OVER w AS prev_n_watching,
    lag(n_played) OVER w AS prev_n_played,
    lag(n_favorite) OVER w AS prev_n_favorite,
    lag(n_have) OVER w AS prev_n_have
FROM source
WINDOW w AS (PARTITION BY game_id ORDER BY coalesce(started_at, fetched_at), run_id);
