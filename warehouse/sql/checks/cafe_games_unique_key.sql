-- severity: error
-- Each (cafe, game) appears once in marts.cafe_games.
SELECT space_slug || '/' || game_id AS key, count(*) || ' rows' AS detail
FROM marts.cafe_games GROUP BY space_slug, game_id HAVING count(*) > 1
