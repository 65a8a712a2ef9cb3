-- severity: error
-- Each (member, game) appears once in marts.collections.
SELECT user_id || '/' || game_id AS key, count(*) || ' rows' AS detail
FROM marts.collections GROUP BY user_id, game_id HAVING count(*) > 1
