-- severity: warn
-- 1 <= min_players <= max_players, and no joke upper bounds (kept as published, flagged).
SELECT game_id AS key, min_players || '–' || max_players || '人' AS detail
FROM marts.games
WHERE players_implausible
