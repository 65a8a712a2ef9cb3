-- @table marts.play_time_buckets: The play-time bands analysts chart games and collections by,
--   one row per band. A game falls in the band of its longest published time
--   (marts.games.minutes_to: a game of 30分～60分 is a 60-minute game).
-- @key bucket_order
-- @column bucket_order: The band's position, 1 (shortest) to 8.
-- @column bucket: The band's label as the dashboard shows it, e.g. 16〜30分.
-- @column lo: The band's lowest minute (inclusive).
-- @column hi: The band's highest minute (inclusive; 1000000 for the open-ended last band).
CREATE OR REPLACE TABLE marts.play_time_buckets AS
SELECT * FROM (VALUES
    (1, '〜15分', 0, 15), (2, '16〜30分', 16, 30), (3, '31〜45分', 31, 45), (4, '46〜60分', 46, 60),
    (5, '61〜90分', 61, 90), (6, '91〜120分', 91, 120), (7, '121〜180分', 121, 180),
    (8, '181分〜', 181, 1000000)
) b(bucket_order, bucket, lo, hi)
ORDER BY bucket_order;
