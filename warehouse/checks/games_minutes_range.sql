-- severity: warn
-- 0 <= min_minutes <= max_minutes <= a day.
SELECT game_id AS key, min_minutes || '–' || max_minutes || '分' AS detail
FROM marts.games
WHERE min_minutes < 0 OR max_minutes < min_minutes OR max_minutes > 24 * 60
