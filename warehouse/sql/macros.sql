-- The site's filter rules, each stated once, as macros of the marts schema. The views, the marts,
-- the member commands, the dashboard and analysts all call these; nothing writes a rule again.
-- The players and minutes rules take marts.games' filter columns (players_from, players_to,
-- minutes_to), where an unpublished or implausible value is NULL; the age rule takes min_age as
-- published. A NULL makes a rule NULL, so the game drops out of the filter as a missing value does.
CREATE SCHEMA IF NOT EXISTS marts;
CREATE OR REPLACE MACRO marts.playable_with(players_from, players_to, n) AS
    players_from <= n AND n <= players_to;
COMMENT ON MACRO marts.playable_with IS
    'Playable with N players: players_from <= N <= players_to (marts.games filter columns; NULL when unknown).';
CREATE OR REPLACE MACRO marts.fits_in(minutes_to, m) AS
    minutes_to <= m;
COMMENT ON MACRO marts.fits_in IS
    'Fits in M minutes: its longest play time, minutes_to, is at most M (NULL when unknown).';
CREATE OR REPLACE MACRO marts.age_plausible(min_age) AS
    min_age BETWEEN 0 AND 25;
COMMENT ON MACRO marts.age_plausible IS
    'A minimum age (min_age, 対象年齢) a game can have: 0 to 25 years, 20歳～ being the alcohol-themed games (NULL when unpublished).';
-- BoardGameGeek's player-count poll for N players (docs/bgg.md; marts.bgg_games' lists, built by the
-- poll rule in scrapers/bgg_facts.py): how = 'best' keeps games its community calls best with N,
-- 'recommended' those it recommends N for (best included). A game with no poll, or under 20 votes,
-- has NULL lists: the rule is NULL and the game drops out, as an unknown players range does.
CREATE OR REPLACE MACRO marts.bgg_poll_says(best_players, recommended_players, n, how) AS
    CASE how WHEN 'best' THEN list_contains(best_players, n)
             WHEN 'recommended' THEN list_contains(recommended_players, n) END;
COMMENT ON MACRO marts.bgg_poll_says IS
    'BoardGameGeek poll for N players: how = best or recommended (marts.bgg_games lists; NULL when unknown).';
