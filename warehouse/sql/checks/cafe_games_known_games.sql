-- severity: warn
-- Every game a cafe offers is a game the warehouse knows.
SELECT cg.space_slug || '/' || cg.game_id AS key, 'unknown game ' || cg.game_id AS detail
FROM marts.cafe_games cg ANTI JOIN marts.games g USING (game_id)
