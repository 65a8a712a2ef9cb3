-- @table marts.members: Every public member the crawl knows (directory rows and members whose
--   collection was crawled), with the size of their collection. Private members are never here.
-- @key user_id
-- @inherit staging.stg_members
-- @join user_id -> marts.collections
-- @column n_games: Entries in the member's public collection (rows of marts.collections, any
--   status); 0 for an empty collection.
CREATE OR REPLACE TABLE marts.members AS
SELECT m.user_id, m.name, coalesce(c.n_games, 0) AS n_games, m.crawled_at
FROM staging.stg_members m
LEFT JOIN (SELECT user_id, count(*) AS n_games FROM marts.collections GROUP BY user_id) c USING (user_id)
ORDER BY m.user_id;
