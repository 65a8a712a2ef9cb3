-- severity: warn
-- Publication years between 1900 and two years after the crawl.
SELECT game_id AS key, year || '年' AS detail
FROM marts.games
WHERE year < 1900 OR year > extract('year' FROM crawled_at) + 2
