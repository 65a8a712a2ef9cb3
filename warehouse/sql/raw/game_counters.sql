-- The site's four interest counters per game and crawl run: the history behind
-- "change between crawls". One row per (game, run); re-running a run replaces it.
CREATE TABLE IF NOT EXISTS raw.game_counters (
    game_id     VARCHAR NOT NULL,
    run_id      VARCHAR NOT NULL,
    n_watching  INTEGER,
    n_played    INTEGER,
    n_favorite  INTEGER,
    n_have      INTEGER,
    fetched_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, run_id)
);
