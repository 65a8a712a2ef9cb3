-- @table staging.stg_games: Game pages, typed, list columns never NULL. A game whose page last
--   answered 404 is gone (raw.pages): kept in raw, left out here. (Implausible values are
--   flagged once, in marts.games.)
-- @key game_id
-- @inherit raw.games
-- @column designers: Designers credited on the page, in page order; an empty list where none.
-- @column mechanics: Mechanics the page tags the game with (Japanese labels such as
--   ワーカープレイスメント); an empty list where none.
-- @column themes: Themes the page tags the game with (Japanese labels such as 動物); an empty
--   list where none.
-- @column crawled_at: When the crawl that last read the page wrote it (raw fetched_at), UTC.
CREATE OR REPLACE VIEW staging.stg_games AS
WITH source AS (
    SELECT * FROM raw.games
    WHERE game_id NOT IN (SELECT key FROM raw.pages WHERE kind = 'game' AND http_status = 404)
),
renamed AS (
    SELECT
        game_id,
        name_ja,
        name_en,
        min_players,
        max_players,
        min_minutes,
        max_minutes,
        min_age,
        year,
        n_watching,
        n_played,
        n_favorite,
        n_have,
        coalesce(designers, []) AS designers,
        coalesce(mechanics, []) AS mechanics,
        coalesce(themes, []) AS themes,
        overview,
        url,
        run_id,
        fetched_at AS crawled_at
    FROM source
)
SELECT * FROM renamed;
