-- @table marts.model_quality: How recommendation quality moved over the nights, one row per
--   training run (oldest first): the champion, how it was chosen, its NDCG@10 on the split of
--   TRAIN that chose it (selection) and on TEST (never part of the choice), its coverage, and how
--   much the served lists churned against the previous night. A view over marts.model_runs (the
--   champion's row of the split that named it: time, or random for runs from before splits) and
--   marts.recommendation_runs.
-- @key model_run_id
-- @join night_id -> marts.nights
-- @join model_run_id -> marts.model_runs(run_id)
-- @join model_run_id -> marts.recommendation_runs(run_id)
-- @column night_id: The night (marts.nights.night_id); NULL for runs from before night ids.
-- @column model_run_id: The training run (marts.model_runs.run_id).
-- @column trained_at: When the run's evaluation started (UTC).
-- @column champion: The candidate that served the night's recommendations.
-- @column split: The evaluation split that named it (time: each member's latest entries).
-- @column selection: How it was chosen, in words (marts.model_runs.selection).
-- @column selection_ndcg: Its NDCG@10 on the selection split of TRAIN: the number it won on.
-- @column test_ndcg: Its NDCG@10 on TEST (held out, never used to choose), comparable across nights.
-- @column popularity_test_ndcg: The popularity baseline's NDCG@10 on the same TEST, for the lift.
-- @column test_coverage: Its catalogue coverage@10 on TEST (marts.model_runs.coverage).
-- @column list_coverage: Catalogue coverage of the top 10s the members were served
--   (marts.recommendation_runs.coverage); NULL when the night did not get to discovery.
-- @column stability: Mean Jaccard@10 of the served top 10s against the previous night's, members
--   whose collection did not change (marts.recommendation_runs.stability); NULL on a first night.
-- @column n_compared: Members that mean is over.
-- @column previous_night_id: The night compared against (marts.nights.night_id).
CREATE OR REPLACE VIEW marts.model_quality AS
WITH champions AS (
    SELECT *
    FROM marts.model_runs
    WHERE champion
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY split = 'time' DESC) = 1
),
popularity AS (
    SELECT run_id, split, ndcg FROM marts.model_runs WHERE model = 'popularity'
)
SELECT c.night_id, c.run_id AS model_run_id, c.trained_at, c.model AS champion, c.split, c.selection,
       TRY_CAST(json_extract_string(c.params, '$.selection_ndcg') AS DOUBLE) AS selection_ndcg,
       c.ndcg AS test_ndcg, p.ndcg AS popularity_test_ndcg, c.coverage AS test_coverage,
       r.coverage AS list_coverage, r.stability, r.n_compared, r.previous_night_id
FROM champions c
LEFT JOIN popularity p ON p.run_id = c.run_id AND p.split = c.split
LEFT JOIN marts.recommendation_runs r ON r.run_id = c.run_id
ORDER BY c.trained_at, c.run_id;
