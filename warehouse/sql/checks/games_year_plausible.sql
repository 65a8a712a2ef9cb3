-- severity: warn
-- Publication years between 1900 and two years after the crawl.
SELECT game_id AS key, year || '年' AS detail
FROM marts.games
WHERE year_implausible
