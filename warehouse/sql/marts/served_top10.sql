-- @table marts.served_top10: Each member's top 10 of the latest discovery run with a fingerprint of
--   the collection it was ranked from: what the next night's stability (marts.recommendation_runs)
--   compares against. Only the latest night is kept (replaced by each run, a member no longer
--   public leaves with it); written by warehouse.nights.record_lists.
-- @key user_id
-- @join user_id -> marts.members
-- @join night_id -> marts.nights
-- @column user_id: The member (marts.members.user_id).
-- @column night_id: The night that served the list (marts.nights.night_id).
-- @column run_id: The training run whose champion ranked it (marts.model_runs.run_id).
-- @column fingerprint: A hash of the member's collection rows that night (game, statuses, rating;
--   order-free): equal on two nights when the collection did not change. It depends on the DuckDB
--   version, so the first night after an upgrade compares no member.
-- @column games: The member's top 10 game ids, best first (marts.recommendations ranks 1–10).
-- @column generated_at: When the list was ranked (UTC).
CREATE TABLE IF NOT EXISTS marts.served_top10 (
    user_id VARCHAR NOT NULL,
    night_id VARCHAR,
    run_id VARCHAR,
    fingerprint UBIGINT,
    games VARCHAR[],
    generated_at TIMESTAMPTZ
);
