-- severity: error
-- Each game appears once in marts.games.
SELECT game_id AS key, count(*) || ' rows' AS detail
FROM marts.games GROUP BY game_id HAVING count(*) > 1
