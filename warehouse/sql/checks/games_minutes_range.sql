-- severity: warn
-- 0 <= min_minutes <= max_minutes <= a day.
SELECT game_id AS key, min_minutes || '–' || max_minutes || '分' AS detail
FROM marts.games
WHERE minutes_implausible
