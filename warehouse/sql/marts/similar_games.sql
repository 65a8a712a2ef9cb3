-- @table marts.similar_games: For every game, its most similar games of the latest run
--   (docs/interface.md), at most 10: the champion's item similarity blended with content similarity
--   (a game with few or no members leans on content). Replaced as a whole by each run
--   (warehouse.model_marts.replace_table).
-- @key game_id, rank
-- @join game_id -> marts.games
-- @join similar_game_id -> marts.games(game_id)
-- @join night_id -> marts.nights
-- @column game_id: The game (marts.games.game_id).
-- @column rank: Position in the game's list, 1 = most similar.
-- @column similar_game_id: A similar game (marts.games.game_id), never the game itself.
-- @column score: The blended similarity, above 0 and about 1 at most; higher is more similar.
-- @column run_id: The training run (marts.model_runs.run_id).
-- @column night_id: The night that wrote them (marts.nights.night_id, the Dagster run's id).
CREATE TABLE IF NOT EXISTS marts.similar_games (
    game_id VARCHAR NOT NULL,
    rank INTEGER NOT NULL,
    similar_game_id VARCHAR NOT NULL,
    score DOUBLE,
    run_id VARCHAR,
    night_id VARCHAR
);
