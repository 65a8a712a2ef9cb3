-- severity: warn
-- Every entry carries at least one of have / played / favorite / watching.
SELECT user_id || '/' || game_id AS key, 'no status set' AS detail
FROM marts.collections
WHERE NOT (have OR played OR favorite OR watching)
