-- severity: warn
-- Minimum ages between 0 and 25 (20歳～ exists for alcohol-themed games).
SELECT game_id AS key, min_age || '歳' AS detail
FROM marts.games
WHERE min_age < 0 OR min_age > 25
