-- marts.model_runs: every candidate of every training run with its held-out metrics
-- (CONTRACT.md), one row per evaluation split: `random` (a seeded 20 % of each member's
-- rows) or `time` (each member's latest 20 %: the split that names the nightly's
-- champion); the beyond-accuracy columns are described in models.beyond. History is
-- kept, re-writing a run id replaces its rows.
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
    split VARCHAR NOT NULL DEFAULT 'random',
    long_tail_share DOUBLE,
    intra_list_diversity DOUBLE,
    mean_popularity_rank DOUBLE,
    rank_stability DOUBLE,
    notes VARCHAR,              -- what a cost guard did (e.g. EASE capped to the most collected games)
    PRIMARY KEY (run_id, model, split)
);
