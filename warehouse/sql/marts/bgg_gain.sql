-- @table marts.bgg_gain: Does BoardGameGeek help? For the members linked to a BGG user, NDCG@k of
--   the night's champion fitted with and without their BGG rows (docs/bgg.md), one row per (run,
--   evaluation split): random (a seeded 20% of each member's site rows held out) or time (each
--   member's latest 20% of site rows). Held-out rows are always site rows; both fits train on the
--   same site rows, one with every linked member's BGG rows added. Written by the night's
--   evaluation only when linked members exist (models.bgg_gain); history is kept like
--   marts.model_runs (re-writing a run id replaces its rows).
-- @key run_id, split
-- @join night_id -> marts.nights
-- @column run_id: The evaluation run's id (marts.model_runs.run_id).
-- @column split: random or time (see the table's description).
-- @column model: The champion both fits use, with its chosen parameters and weighting.
-- @column k: The list length NDCG is cut at (10).
-- @column n_members: Linked members with held-out site rows on this split: the members the NDCG
--   values average over.
-- @column n_test_rows: Their held-out site rows.
-- @column n_bgg_rows: Their BGG rows in the training part of the fit with BGG.
-- @column ndcg_with: NDCG@k of these members from the fit with BGG rows (their BGG games left out
--   of their lists, as discovery leaves them out), 0 to 1.
-- @column ndcg_without: NDCG@k of these members from the fit on site rows only, 0 to 1.
-- @column gain: ndcg_with - ndcg_without (positive: BGG helps).
-- @column seconds: What this split's comparison cost: two fits of the champion and the scoring of
--   the linked members.
-- @column trained_at: When the run's evaluation started (UTC).
-- @column night_id: The night that measured it (marts.nights.night_id, the Dagster run's id).
CREATE TABLE IF NOT EXISTS marts.bgg_gain (
    run_id VARCHAR NOT NULL,
    split VARCHAR NOT NULL,
    model VARCHAR,
    k INTEGER,
    n_members BIGINT,
    n_test_rows BIGINT,
    n_bgg_rows BIGINT,
    ndcg_with DOUBLE,
    ndcg_without DOUBLE,
    gain DOUBLE,
    seconds DOUBLE,
    trained_at TIMESTAMPTZ,
    night_id VARCHAR,
    PRIMARY KEY (run_id, split)
);
