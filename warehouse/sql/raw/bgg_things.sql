-- @table raw.bgg_things: BoardGameGeek things (games, expansions, accessories) as BGG's XML API2
--   answers /thing?stats=1, one row per BGG id, kept apart from the site's games (docs/bgg.md). A
--   thing is fetched again only past the sync's maximum age.
-- @key bgg_id
-- @column bgg_id: The thing's id on BoardGameGeek (boardgamegeek.com/boardgame/<id>).
-- @column thing_type: BGG's type: boardgame, boardgameexpansion or boardgameaccessory.
-- @column name: BGG's primary name (usually English).
-- @column alternate_names: BGG's alternate names in every language, as listed (Japanese titles among
--   them); used to match site games.
-- @column year: Year published; NULL where BGG says 0 (unknown).
-- @column min_players: Fewest players the box says; NULL where BGG says 0.
-- @column max_players: Most players the box says; NULL where BGG says 0.
-- @column min_age: The publisher's minimum age; NULL where BGG says 0.
-- @column min_age_suggested: The age most voters of BGG's suggested_playerage poll chose (ties: the
--   younger); NULL under 20 votes.
-- @column weight: BGG's average weight (complexity, 1 light to 5 heavy); NULL when nobody voted one.
-- @column n_weights: How many BGG users voted the weight.
-- @column n_owned: BGG users who own the thing (statistics owned).
-- @column n_wishing: BGG users with it on their wishlist (statistics wishing).
-- @column poll_votes: Voters of the suggested_numplayers poll; NULL where the answer has no poll.
-- @column poll_source: Where best_players and recommended_players come from: summary (BGG's poll
--   summary), poll (the raw votes), poll+summary (one of each), too_few_votes (under 20: both NULL)
--   or none (no poll).
-- @column best_players: Player counts the community calls best (scrapers.bgg_facts: the summary's
--   bestwith, else Best votes > Recommended + Not Recommended); NULL when unknown.
-- @column recommended_players: Player counts the community recommends (the summary's
--   recommmendedwith, else Best + Recommended votes > Not Recommended); NULL when unknown.
-- @column run_id: The BGG sync run that last fetched the thing.
-- @column fetched_at: When it was fetched (UTC); its age decides when it is fetched again.
CREATE TABLE IF NOT EXISTS raw.bgg_things (
    bgg_id              INTEGER PRIMARY KEY,
    thing_type          VARCHAR NOT NULL,
    name                VARCHAR,
    alternate_names     VARCHAR[] NOT NULL,
    year                INTEGER,
    min_players         INTEGER,
    max_players         INTEGER,
    min_age             INTEGER,
    min_age_suggested   INTEGER,
    weight              DOUBLE,
    n_weights           INTEGER,
    n_owned             INTEGER,
    n_wishing           INTEGER,
    poll_votes          INTEGER,
    poll_source         VARCHAR NOT NULL,
    best_players        INTEGER[],
    recommended_players INTEGER[],
    run_id              VARCHAR NOT NULL,
    fetched_at          TIMESTAMPTZ NOT NULL
);
