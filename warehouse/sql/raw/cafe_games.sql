-- Games each cafe offers (/spaces/<slug>/games), current state per (cafe, game).
CREATE TABLE IF NOT EXISTS raw.cafe_games (
    space_slug  VARCHAR NOT NULL,
    game_id     VARCHAR NOT NULL,
    space_name  VARCHAR,
    name_ja     VARCHAR,
    name_en     VARCHAR,
    min_players INTEGER,
    max_players INTEGER,
    min_minutes INTEGER,
    max_minutes INTEGER,
    min_age     INTEGER,
    year        INTEGER,
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (space_slug, game_id)
);
