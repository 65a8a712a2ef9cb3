-- @table marts.recommendation_runs: What each night's discovery run served, one row per run:
--   how much of the catalogue its lists reach and how much they churned against the night before
--   for members whose collection did not change. History is kept; written by the discovery step
--   (warehouse.nights.record_lists) right after marts.recommendations.
-- @key run_id
-- @join run_id -> marts.model_runs
-- @join night_id -> marts.nights
-- @column run_id: The training run whose champion ranked the lists (marts.model_runs.run_id, the
--   run_id of marts.recommendations and of the export bundle).
-- @column night_id: The night (marts.nights.night_id).
-- @column model: The champion that ranked them (marts.model_runs.model).
-- @column generated_at: When the lists were ranked (UTC).
-- @column k: The list length measured (10: each member's top 10).
-- @column n_members: Members with a list.
-- @column coverage: Catalogue coverage of the served lists: distinct games in any member's top k
--   divided by the games of marts.games, 0 to 1.
-- @column stability: Mean Jaccard@k (shared games / games in either list) of each member's top k
--   and their top k of the previous night, over members whose collection did not change between
--   the two nights (marts.served_top10.fingerprint); 1 = nothing churned. NULL on a first night
--   and when no member qualified.
-- @column n_compared: Members the stability is the mean over (0 on a first night).
-- @column previous_night_id: The night compared against (marts.nights.night_id); NULL on a first
--   night.
CREATE TABLE IF NOT EXISTS marts.recommendation_runs (
    run_id VARCHAR PRIMARY KEY,
    night_id VARCHAR,
    model VARCHAR,
    generated_at TIMESTAMPTZ,
    k INTEGER,
    n_members INTEGER,
    coverage DOUBLE,
    stability DOUBLE,
    n_compared INTEGER,
    previous_night_id VARCHAR
);
