-- marts.model_runs: every candidate of every training run with its held-out metrics
-- (CONTRACT.md); history is kept, re-writing a run id replaces its rows.
-- Written by warehouse.model_marts.write_model_runs (INSERT OR REPLACE … BY NAME).
CREATE TABLE IF NOT EXISTS marts.model_runs (
    run_id VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    params JSON,
    k INTEGER,
    ndcg DOUBLE,
    precision DOUBLE,
    recall DOUBLE,
    map DOUBLE,
    coverage DOUBLE,
    n_users INTEGER,
    n_games INTEGER,
    n_interactions INTEGER,
    trained_at TIMESTAMPTZ,
    champion BOOLEAN,
    PRIMARY KEY (run_id, model)
);
