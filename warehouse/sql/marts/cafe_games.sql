-- @table marts.cafe_games: Which games each board game cafe offers (docs/interface.md), as the cafe's
--   pages last listed them (a complete crawl of a cafe removes the games it no longer lists).
-- @key space_slug, game_id
-- @inherit staging.stg_cafe_games
-- @join game_id -> marts.games
-- @join space_slug -> marts.cafe_coverage
CREATE OR REPLACE TABLE marts.cafe_games AS
SELECT space_slug, game_id, space_name, crawled_at
FROM staging.stg_cafe_games
ORDER BY space_slug, game_id;
