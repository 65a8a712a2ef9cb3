-- marts.play_time_buckets: the play-time bands analysts chart games and collections by.
-- A game falls in the band of its longest published time (a game "30–60分" is a 60-minute
-- game). One row per band: its order, label and inclusive minute bounds.
CREATE OR REPLACE TABLE marts.play_time_buckets AS
SELECT * FROM (VALUES
    (1, '〜15分', 0, 15), (2, '16〜30分', 16, 30), (3, '31〜45分', 31, 45), (4, '46〜60分', 46, 60),
    (5, '61〜90分', 61, 90), (6, '91〜120分', 91, 120), (7, '121〜180分', 121, 180),
    (8, '181分〜', 181, 1000000)
) b(bucket_order, bucket, lo, hi)
ORDER BY bucket_order;
