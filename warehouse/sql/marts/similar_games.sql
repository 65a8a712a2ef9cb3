-- marts.similar_games: for every game, the most similar games of the latest run
-- (CONTRACT.md), blending collaborative and content similarity. Key (game_id, rank).
-- Replaced as a whole by each run (warehouse.model_marts.replace_table).
CREATE TABLE IF NOT EXISTS marts.similar_games (
    game_id VARCHAR NOT NULL,
    rank INTEGER NOT NULL,
    similar_game_id VARCHAR NOT NULL,
    score DOUBLE,
    run_id VARCHAR
);
