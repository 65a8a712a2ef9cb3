-- marts.collections: the latest state per member and game (CONTRACT.md). An entry the
-- member removed is gone after that member's next complete crawl (raw layer).
CREATE OR REPLACE TABLE marts.collections AS
SELECT user_id, game_id, have, played, favorite, watching, rating, updated_at, crawled_at
FROM staging.stg_collections
ORDER BY user_id, game_id;
