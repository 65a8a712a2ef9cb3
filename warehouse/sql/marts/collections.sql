-- @table marts.collections: Members' public collections (マイボードゲーム), the latest state per
--   member and game (docs/interface.md). An entry the member removed is gone after that member's next
--   complete crawl; a private collection (the site answers with its login page) leaves no row.
--   Only public members are here, so counts over this table (members_have and the like in
--   marts.game_popularity) are smaller than the site's own counters (marts.games.n_have …).
-- @key user_id, game_id
-- @inherit staging.stg_collections
-- @join user_id -> marts.members
-- @join game_id -> marts.games
CREATE OR REPLACE TABLE marts.collections AS
SELECT user_id, game_id, have, played, favorite, watching, rating, updated_at, crawled_at
FROM staging.stg_collections
ORDER BY user_id, game_id;
