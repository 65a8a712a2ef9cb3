-- severity: warn
-- Every collection entry points at a game the warehouse knows.
SELECT c.user_id || '/' || c.game_id AS key, 'unknown game ' || c.game_id AS detail
FROM marts.collections c ANTI JOIN marts.games g USING (game_id)
