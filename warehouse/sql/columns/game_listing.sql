-- A game as every list of the site shows it (scrapers.items.GameListing's fields, the same
-- names): the catalogue (raw.game_summaries), a cafe's list (raw.cafe_games) and a game page
-- (raw.games) carry these columns, declared here once so the three tables keep the same
-- columns and types. Described in raw.cafe_games (the others inherit the descriptions).
name_ja     VARCHAR,
name_en     VARCHAR,
min_players INTEGER,
max_players INTEGER,
min_minutes INTEGER,
max_minutes INTEGER,
min_age     INTEGER,
year        INTEGER
