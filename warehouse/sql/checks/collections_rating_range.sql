-- severity: warn
-- Star ratings as published are 0 (none) to 5.
SELECT user_id || '/' || game_id AS key, 'rating ' || rating AS detail
FROM raw.collection_entries
WHERE rating < 0 OR rating > 5
