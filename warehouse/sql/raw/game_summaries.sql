-- Catalogue rows (/games?page=N), latest fetch per game.
CREATE TABLE IF NOT EXISTS raw.game_summaries (
    game_id     VARCHAR PRIMARY KEY,
    name_ja     VARCHAR,
    name_en     VARCHAR,
    min_players INTEGER,
    max_players INTEGER,
    min_minutes INTEGER,
    max_minutes INTEGER,
    min_age     INTEGER,
    year        INTEGER,
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
