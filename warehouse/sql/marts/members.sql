-- marts.members: every public member the crawl knows, with the size of their collection.
CREATE OR REPLACE TABLE marts.members AS
SELECT m.user_id, m.name, coalesce(c.n_games, 0) AS n_games, m.crawled_at
FROM staging.stg_members m
LEFT JOIN (SELECT user_id, count(*) AS n_games FROM marts.collections GROUP BY user_id) c USING (user_id)
ORDER BY m.user_id;
