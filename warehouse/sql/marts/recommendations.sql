-- marts.recommendations: each member's discovery list of the latest run, best first
-- (CONTRACT.md): games the member neither has nor has played, with a reason.
-- Key (user_id, rank). Replaced as a whole by each run (warehouse.model_marts.replace_table).
CREATE TABLE IF NOT EXISTS marts.recommendations (
    user_id VARCHAR NOT NULL,
    rank INTEGER NOT NULL,
    game_id VARCHAR NOT NULL,
    score DOUBLE,
    model VARCHAR,
    run_id VARCHAR,
    reason VARCHAR,             -- 「X」が好きなあなたに, 興味ありに登録済み, …
    watching BOOLEAN,           -- the member marked it 興味あり
    generated_at TIMESTAMPTZ
);
