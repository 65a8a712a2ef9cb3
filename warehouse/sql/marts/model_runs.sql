-- @table marts.model_runs: Every candidate model of every nightly training run with its held-out
--   metrics (docs/interface.md), one row per (run, model, evaluation split): random (a seeded 20% of
--   each member's rows held out) or time (each member's latest 20% held out: the split that
--   names the night's champion). History is kept: one night adds its rows; re-writing a run id
--   replaces that run's rows. Written by warehouse.model_marts.write_model_runs.
-- @key run_id, model, split
-- @join night_id -> marts.nights
-- @column run_id: The training run's id (UTC time and a random suffix, sortable); the run_id of
--   the marts.recommendations, similar_games, next_to_play and watch_next rows the champion wrote.
-- @column model: The candidate's name: popularity, cosine, bm25, ease, edlae, rp3beta, als, bpr or ensemble (a blend of the best tuned single candidates).
-- @column params: The chosen parameters as JSON, with the interaction weighting (weighting, its
--   name: graded, or graded+recency180d when recency was kept, models.recency; weights, with
--   half_life_days), selection_ndcg (the NDCG@k on a fresh split of TRAIN that picks the champion) and,
--   on the time split of nights with a forward view, forward_ndcg (the NDCG@k on a forward split
--   of TRAIN: fitted on what was held before one moment, scored on what members added after it).
-- @column k: The list length the metrics are cut at (10).
-- @column ndcg: NDCG@k on the held-out rows (binary relevance, mean over members with held-out
--   games), 0 to 1.
-- @column precision: Precision@k: hits in the top k divided by k (not by min(k, held-out)),
--   mean over members, 0 to 1.
-- @column recall: Recall@k: hits in the top k divided by the member's held-out games, mean over
--   members, 0 to 1.
-- @column map: MAP@k (average precision normalised by min(k, held-out games)), 0 to 1.
-- @column coverage: Catalogue coverage@k: distinct games in any top-k list divided by the
--   catalogue's games, 0 to 1.
-- @column n_users: Members in the training part (TRAIN) of this split.
-- @column n_games: Games in the training part of this split.
-- @column n_interactions: (member, game) rows in the training part of this split.
-- @column trained_at: When the run's evaluation started (UTC).
-- @column champion: True for the candidate this split's selection named champion; the time
--   split's champion is the one the night used for recommendations.
-- @column split: random or time (see the table's description).
-- @column long_tail_share: Share of recommended items (top k, all lists pooled) outside the 10%
--   most popular games, 0 to 1; NULL for rows from before it was measured.
-- @column intra_list_diversity: Mean pairwise dissimilarity (1 - cosine of content features)
--   within a list, 0 to 1; NULL for rows from before it was measured.
-- @column mean_popularity_rank: Mean popularity rank (1 = the game most members have) of the
--   recommended items; NULL for rows from before it was measured.
-- @column rank_stability: Mean Jaccard@k of each member's list against the same candidate's list
--   of the previous night on the same split (1 = nothing churned); NULL on a first night.
-- @column notes: What a cost guard did to the candidate (e.g. EASE capped to the most collected
--   games); NULL when nothing.
-- @column night_id: The night that trained it (marts.nights.night_id, the Dagster run's id); NULL
--   for runs from before nights had ids.
-- @column selection: How this split's champion was chosen, in words (the same on every row of a
--   run and split): the split of TRAIN that scored the candidates, how many there were, which
--   split the choice followed (offline or forward, models.forward), why, and the Kendall tau
--   between the two rankings of the candidates, and whether their parameters were tuned that
--   night or reused from an earlier full tuning. NULL for runs from before it was recorded.
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
    notes VARCHAR,
    night_id VARCHAR,
    selection VARCHAR,
    PRIMARY KEY (run_id, model, split)
);
