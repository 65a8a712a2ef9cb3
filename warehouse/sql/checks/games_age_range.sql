-- severity: warn
-- Minimum ages a game can have (marts.age_plausible: 0 to 25; 20歳～ exists for alcohol-themed games).
SELECT game_id AS key, min_age || '歳' AS detail
FROM marts.games
WHERE NOT marts.age_plausible(min_age)
