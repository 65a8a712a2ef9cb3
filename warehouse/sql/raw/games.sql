-- Game pages (/games/<slug>), latest fetch per game.
CREATE TABLE IF NOT EXISTS raw.games (
    game_id     VARCHAR PRIMARY KEY,
    name_ja     VARCHAR,
    name_en     VARCHAR,
    min_players INTEGER,
    max_players INTEGER,
    min_minutes INTEGER,
    max_minutes INTEGER,
    min_age     INTEGER,
    year        INTEGER,
    n_watching  INTEGER,
    n_played    INTEGER,
    n_favorite  INTEGER,
    n_have      INTEGER,
    designers   VARCHAR[],
    mechanics   VARCHAR[],
    themes      VARCHAR[],
    overview    VARCHAR,
    url         VARCHAR,
    run_id      VARCHAR NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL
);
