"""Every query the dashboard runs, as plain functions `(con, **params) -> polars.DataFrame`.

Why a module of its own, free of Streamlit and Dagster: the queries can be read in one
place, run from a notebook or a test with any DuckDB connection, and checked for the one
rule that matters here — whatever a person types or selects reaches DuckDB as a bound
parameter (`$name`), never as SQL text. The only names ever put into SQL text are
constants of this module (the table names in TABLES, the metric columns in
POPULARITY_METRICS), chosen from a fixed mapping.

Nothing runs at import time. Functions assume their tables exist; callers check
`table_rows` first and show a note instead of calling them when a table is missing.
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

# Every table a page reads; `table_rows` reports which exist and how many rows they hold.
TABLES: tuple[str, ...] = (
    "marts.games", "marts.collections", "marts.cafe_games", "marts.members",
    "marts.game_popularity", "marts.member_profiles", "marts.cafe_coverage",
    "marts.quality_checks", "marts.pipeline_runs", "marts.model_runs",
    "marts.recommendations", "marts.similar_games",
    "raw.crawl_runs", "raw.quarantine", "raw.posts", "marts.publication",
)

STATUS_LABELS: dict[str, str] = {"have": "持ってる", "played": "経験あり", "favorite": "お気に入り", "watching": "気になる"}

# metric -> (members' aggregate column, site counter column, site change column)
POPULARITY_METRICS: dict[str, tuple[str, str, str]] = {
    "have": ("members_have", "site_have", "site_have_change"),
    "played": ("members_played", "site_played", "site_played_change"),
    "favorite": ("members_favorite", "site_favorite", "site_favorite_change"),
    "watching": ("members_watching", "site_watching", "site_watching_change"),
}


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    """Run one parameterized query and return it as a Polars frame."""
    return con.sql(sql, params=params or None).pl()


def _metric(metric: str) -> tuple[str, str, str]:
    try:
        return POPULARITY_METRICS[metric]
    except KeyError:
        raise ValueError(f"unknown metric {metric!r}: choose one of {', '.join(POPULARITY_METRICS)}") from None


# -- availability ---------------------------------------------------------------------

def table_rows(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """(`table_name`, `n_rows`) for each table of TABLES that exists (views included)."""
    existing = set(
        _frame(
            con,
            "SELECT schema_name || '.' || table_name AS name FROM duckdb_tables() "
            "UNION ALL SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal",
        )["name"].to_list()
    )
    present = [t for t in TABLES if t in existing]
    if not present:
        return pl.DataFrame(schema={"table_name": pl.String, "n_rows": pl.Int64})
    # Table names are constants of this module, never user input.
    union = " UNION ALL ".join(f"SELECT '{t}' AS table_name, count(*) AS n_rows FROM {t}" for t in present)
    return _frame(con, union)


# -- overview ---------------------------------------------------------------------------

def cafe_count(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """How many cafes offer games (`n_cafes`)."""
    return _frame(con, "SELECT count(DISTINCT space_slug) AS n_cafes FROM marts.cafe_games")


def publication(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Which night the published snapshot holds: run, export, when published, its page ages."""
    return _frame(
        con,
        "SELECT run_id, export_run_id, published_at, oldest_page_at, newest_page_at "
        "FROM marts.publication ORDER BY published_at DESC LIMIT 1",
    )


def crawl_runs(con: duckdb.DuckDBPyConnection, *, limit: int = 30) -> pl.DataFrame:
    """The latest crawl runs, newest first, with their duration in minutes."""
    return _frame(
        con,
        """
        SELECT run_id, status, started_at, finished_at,
               date_diff('second', started_at, finished_at) / 60.0 AS minutes,
               base_url, stats::VARCHAR AS stats
        FROM raw.crawl_runs
        ORDER BY started_at DESC, run_id DESC
        LIMIT $limit
        """,
        {"limit": limit},
    )


def pipeline_runs(con: duckdb.DuckDBPyConnection, *, limit: int = 30) -> pl.DataFrame:
    """The latest nightly job runs, newest first, with their duration in minutes."""
    return _frame(
        con,
        """
        SELECT run_id, job, status, started_at, finished_at,
               date_diff('second', started_at, finished_at) / 60.0 AS minutes,
               n_checks, n_failed_checks
        FROM marts.pipeline_runs
        ORDER BY started_at DESC, run_id DESC
        LIMIT $limit
        """,
        {"limit": limit},
    )


def pipeline_run_checks(con: duckdb.DuckDBPyConnection, *, run_id: str) -> pl.DataFrame:
    """The checks one pipeline run recorded (its `checks` JSON list), failures first.

    Items are {"name", "passed", "severity", "description"} and, from Dagster runs,
    "asset"; a key an item lacks is null.
    """
    return _frame(
        con,
        """
        WITH run AS (
            SELECT from_json(checks::VARCHAR,
                '[{"name": "VARCHAR", "asset": "VARCHAR", "passed": "BOOLEAN", "severity": "VARCHAR",
                   "description": "VARCHAR"}]'
            ) AS checks
            FROM marts.pipeline_runs WHERE run_id = $run_id
        )
        SELECT c.name, c.asset, c.passed, lower(c.severity) AS severity, c.description
        FROM (SELECT unnest(checks) AS c FROM run)
        ORDER BY c.passed, lower(c.severity), c.name
        """,
        {"run_id": run_id},
    )


# -- catalogue --------------------------------------------------------------------------

# The catalogue filters, shared by every catalogue query. A game without a plausible
# year is kept only while the year filter spans everything ($keep_undated).
_FILTERED = """
WITH filtered AS (
    SELECT * FROM marts.games
    WHERE (year BETWEEN $year_from AND $year_to AND NOT year_implausible
           OR ($keep_undated AND (year IS NULL OR year_implausible)))
      AND (len($mechanics::VARCHAR[]) = 0 OR list_has_any(mechanics, $mechanics::VARCHAR[]))
      AND (len($themes::VARCHAR[]) = 0 OR list_has_any(themes, $themes::VARCHAR[]))
)
"""

AGE_RANGE = (0, 25)  # as the games_age_range check: beyond it a value is not charted
_AGE_PARAMS = {"age_lo": AGE_RANGE[0], "age_hi": AGE_RANGE[1]}


def _filters(year_from: int, year_to: int, keep_undated: bool, mechanics: list[str], themes: list[str]) -> dict:
    return {
        "year_from": int(year_from), "year_to": int(year_to), "keep_undated": bool(keep_undated),
        "mechanics": list(mechanics), "themes": list(themes),
    }


def catalogue_facets(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Mechanics and themes with how many games carry each (`facet`, `value`, `n_games`)."""
    return _frame(
        con,
        """
        SELECT 'mechanic' AS facet, m AS value, count(*) AS n_games
        FROM (SELECT unnest(mechanics) AS m FROM marts.games) GROUP BY m
        UNION ALL
        SELECT 'theme', t, count(*) FROM (SELECT unnest(themes) AS t FROM marts.games) GROUP BY t
        ORDER BY facet, n_games DESC, value
        """,
    )


def year_bounds(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The earliest and latest plausible publication years (`min_year`, `max_year`)."""
    return _frame(
        con,
        "SELECT min(year) AS min_year, max(year) AS max_year FROM marts.games "
        "WHERE year IS NOT NULL AND NOT year_implausible",
    )


def catalogue_summary(
    con: duckdb.DuckDBPyConnection, *, year_from: int, year_to: int, keep_undated: bool,
    mechanics: list[str], themes: list[str],
) -> pl.DataFrame:
    """Games matching the filters, and how many of them each chart leaves out as implausible."""
    return _frame(
        con,
        _FILTERED + """
        SELECT count(*) AS n_games,
               count(*) FILTER (WHERE players_implausible) AS players_excluded,
               count(*) FILTER (WHERE minutes_implausible) AS minutes_excluded,
               count(*) FILTER (WHERE min_age NOT BETWEEN $age_lo AND $age_hi) AS age_excluded,
               count(*) FILTER (WHERE year_implausible) AS year_excluded
        FROM filtered
        """,
        {**_filters(year_from, year_to, keep_undated, mechanics, themes), **_AGE_PARAMS},
    )


def players_distribution(
    con: duckdb.DuckDBPyConnection, *, year_from: int, year_to: int, keep_undated: bool,
    mechanics: list[str], themes: list[str], max_players: int = 10,
) -> pl.DataFrame:
    """For N = 1..max_players, how many games can be played by N people (`players`, `n_games`)."""
    return _frame(
        con,
        _FILTERED + """
        SELECT n.players, count(f.game_id) AS n_games
        FROM range(1, $max_players + 1) n(players)
        LEFT JOIN filtered f
          ON NOT f.players_implausible AND f.min_players <= n.players
         AND n.players <= coalesce(f.max_players, f.min_players)
        GROUP BY n.players ORDER BY n.players
        """,
        {**_filters(year_from, year_to, keep_undated, mechanics, themes), "max_players": int(max_players)},
    )


# Play-time buckets by the longest published time (a game "30–60分" is a 60-minute game).
_MINUTE_BUCKETS = """
    SELECT * FROM (VALUES
        (1, '〜15分', 0, 15), (2, '16〜30分', 16, 30), (3, '31〜45分', 31, 45), (4, '46〜60分', 46, 60),
        (5, '61〜90分', 61, 90), (6, '91〜120分', 91, 120), (7, '121〜180分', 121, 180),
        (8, '181分〜', 181, 1000000)
    ) b(bucket_order, bucket, lo, hi)
"""


def minutes_distribution(
    con: duckdb.DuckDBPyConnection, *, year_from: int, year_to: int, keep_undated: bool,
    mechanics: list[str], themes: list[str],
) -> pl.DataFrame:
    """Games per play-time bucket (`bucket_order`, `bucket`, `n_games`), implausible times left out."""
    return _frame(
        con,
        _FILTERED + f"""
        SELECT b.bucket_order, b.bucket, count(f.game_id) AS n_games
        FROM ({_MINUTE_BUCKETS}) b
        LEFT JOIN filtered f
          ON NOT f.minutes_implausible
         AND coalesce(f.max_minutes, f.min_minutes) BETWEEN b.lo AND b.hi
        GROUP BY ALL ORDER BY b.bucket_order
        """,
        _filters(year_from, year_to, keep_undated, mechanics, themes),
    )


def age_distribution(
    con: duckdb.DuckDBPyConnection, *, year_from: int, year_to: int, keep_undated: bool,
    mechanics: list[str], themes: list[str],
) -> pl.DataFrame:
    """Games per minimum age (`min_age`, `n_games`), ages outside AGE_RANGE left out."""
    return _frame(
        con,
        _FILTERED + """
        SELECT min_age, count(*) AS n_games FROM filtered
        WHERE min_age BETWEEN $age_lo AND $age_hi
        GROUP BY min_age ORDER BY min_age
        """,
        {**_filters(year_from, year_to, keep_undated, mechanics, themes), **_AGE_PARAMS},
    )


def year_distribution(
    con: duckdb.DuckDBPyConnection, *, year_from: int, year_to: int, keep_undated: bool,
    mechanics: list[str], themes: list[str],
) -> pl.DataFrame:
    """Games per publication year (`year`, `n_games`), implausible years left out."""
    return _frame(
        con,
        _FILTERED + """
        SELECT year, count(*) AS n_games FROM filtered
        WHERE year IS NOT NULL AND NOT year_implausible
        GROUP BY year ORDER BY year
        """,
        _filters(year_from, year_to, keep_undated, mechanics, themes),
    )


def catalogue_games(
    con: duckdb.DuckDBPyConnection, *, year_from: int, year_to: int, keep_undated: bool,
    mechanics: list[str], themes: list[str], limit: int = 500,
) -> pl.DataFrame:
    """The matching games themselves, most owned first (for a table under the charts)."""
    return _frame(
        con,
        _FILTERED + """
        SELECT game_id, name_ja, name_en, min_players, max_players, min_minutes, max_minutes,
               min_age, year, mechanics, themes, n_have,
               players_implausible OR minutes_implausible OR year_implausible AS implausible
        FROM filtered
        ORDER BY n_have DESC NULLS LAST, game_id
        LIMIT $limit
        """,
        {**_filters(year_from, year_to, keep_undated, mechanics, themes), "limit": int(limit)},
    )


# -- popularity -------------------------------------------------------------------------

def top_games(con: duckdb.DuckDBPyConnection, *, metric: str, limit: int = 20) -> pl.DataFrame:
    """Games with most members' `metric` (have/played/favorite/watching), next to the site's counter."""
    members_col, site_col, _ = _metric(metric)
    return _frame(
        con,
        f"""
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name,
               {members_col} AS members, {site_col} AS site
        FROM marts.game_popularity
        ORDER BY {members_col} DESC, game_id
        LIMIT $limit
        """,
        {"limit": int(limit)},
    )


def members_vs_site(con: duckdb.DuckDBPyConnection, *, metric: str) -> pl.DataFrame:
    """Every game's members' aggregate against the site's counter (for a scatter plot)."""
    members_col, site_col, _ = _metric(metric)
    return _frame(
        con,
        f"""
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name,
               {members_col} AS members, {site_col} AS site
        FROM marts.game_popularity
        WHERE {site_col} IS NOT NULL
        """,
    )


def wanted_not_owned(con: duckdb.DuckDBPyConnection, *, limit: int = 20) -> pl.DataFrame:
    """Games most members watch (気になる) without owning them."""
    return _frame(
        con,
        """
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name, wanted_not_owned,
               members_watching, members_have
        FROM marts.game_popularity
        WHERE wanted_not_owned > 0
        ORDER BY wanted_not_owned DESC, game_id
        LIMIT $limit
        """,
        {"limit": int(limit)},
    )


def counter_changes(con: duckdb.DuckDBPyConnection, *, metric: str, limit: int = 20) -> pl.DataFrame:
    """Games whose site counter moved most since the previous crawl (`change`, `site`)."""
    _, site_col, change_col = _metric(metric)
    return _frame(
        con,
        f"""
        SELECT game_id, coalesce(name_ja, name_en, game_id) AS name,
               {change_col} AS change, {site_col} AS site
        FROM marts.game_popularity
        WHERE {change_col} IS NOT NULL AND {change_col} <> 0
        ORDER BY abs({change_col}) DESC, {change_col} DESC, game_id
        LIMIT $limit
        """,
        {"limit": int(limit)},
    )


# -- collections ------------------------------------------------------------------------

def collection_sizes(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """How many members have a collection of each size (`n_games`, `n_members`)."""
    return _frame(
        con,
        "SELECT n_games, count(*) AS n_members FROM marts.members GROUP BY n_games ORDER BY n_games",
    )


def status_mix(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Collection entries per status (`status`, `label`, `n_entries`, `share`); an entry can have several."""
    return _frame(
        con,
        """
        WITH counts AS (
            SELECT count(*) AS total,
                   count(*) FILTER (WHERE have) AS have, count(*) FILTER (WHERE played) AS played,
                   count(*) FILTER (WHERE favorite) AS favorite, count(*) FILTER (WHERE watching) AS watching
            FROM marts.collections
        )
        SELECT s.status, s.label, s.n AS n_entries, s.n::DOUBLE / nullif(total, 0) AS share
        FROM counts, LATERAL (VALUES
            ('have', $have, have), ('played', $played, played),
            ('favorite', $favorite, favorite), ('watching', $watching, watching)
        ) s(status, label, n)
        """,
        dict(STATUS_LABELS),
    )


def status_combinations(con: duckdb.DuckDBPyConnection, *, limit: int = 10) -> pl.DataFrame:
    """The most common combinations of statuses on one entry (`combination`, `n_entries`)."""
    return _frame(
        con,
        """
        SELECT concat_ws(' + ',
                   CASE WHEN have THEN $have END, CASE WHEN played THEN $played END,
                   CASE WHEN favorite THEN $favorite END, CASE WHEN watching THEN $watching END
               ) AS combination,
               count(*) AS n_entries
        FROM marts.collections
        GROUP BY ALL ORDER BY n_entries DESC, combination
        LIMIT $limit
        """,
        {**STATUS_LABELS, "limit": int(limit)},
    )


def owned_by_players(con: duckdb.DuckDBPyConnection, *, max_players: int = 8) -> pl.DataFrame:
    """For N = 1..max_players: owned games playable by N, and members owning at least one."""
    return _frame(
        con,
        """
        WITH owned AS (
            SELECT c.user_id, g.min_players, coalesce(g.max_players, g.min_players) AS max_players
            FROM marts.collections c JOIN marts.games g USING (game_id)
            WHERE c.have AND NOT g.players_implausible
        )
        SELECT n.players, count(o.user_id) AS n_owned, count(DISTINCT o.user_id) AS n_members
        FROM range(1, $max_players + 1) n(players)
        LEFT JOIN owned o ON o.min_players <= n.players AND n.players <= o.max_players
        GROUP BY n.players ORDER BY n.players
        """,
        {"max_players": int(max_players)},
    )


def owned_by_minutes(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Owned games per play-time bucket (`bucket_order`, `bucket`, `n_owned`)."""
    return _frame(
        con,
        f"""
        WITH owned AS (
            SELECT coalesce(g.max_minutes, g.min_minutes) AS minutes
            FROM marts.collections c JOIN marts.games g USING (game_id)
            WHERE c.have AND NOT g.minutes_implausible
        )
        SELECT b.bucket_order, b.bucket, count(o.minutes) AS n_owned
        FROM ({_MINUTE_BUCKETS}) b
        LEFT JOIN owned o ON o.minutes BETWEEN b.lo AND b.hi
        GROUP BY ALL ORDER BY b.bucket_order
        """,
    )


def collection_summary(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Members with a collection, median and mean size, and the largest collection."""
    return _frame(
        con,
        """
        SELECT count(*) FILTER (WHERE n_games > 0) AS members_with_games,
               count(*) FILTER (WHERE n_games = 0) AS members_empty,
               median(n_games) FILTER (WHERE n_games > 0) AS median_size,
               avg(n_games) FILTER (WHERE n_games > 0) AS mean_size,
               max(n_games) AS max_size
        FROM marts.members
        """,
    )


# -- recommendations --------------------------------------------------------------------

def model_runs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every model run with its offline metrics, oldest first."""
    return _frame(
        con,
        """
        SELECT run_id, model, k, ndcg, precision, recall, map, coverage,
               n_users, n_games, n_interactions, trained_at, champion, params::VARCHAR AS params
        FROM marts.model_runs
        ORDER BY trained_at, run_id, model
        """,
    )


# Popularity of a game = members with it in their collection; rank 1 = most popular.
_POPULARITY_RANKS = """
ranks AS (
    SELECT game_id, n_members,
           row_number() OVER (ORDER BY n_members DESC, game_id) AS popularity_rank,
           count(*) OVER () AS n_catalogue
    FROM marts.game_popularity
)
"""


def recommendation_summary(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """What the current recommendations are: run, model, members served, catalogue coverage,
    the share in the top-10% most popular games and the mean popularity rank (vs the catalogue's)."""
    return _frame(
        con,
        f"""
        WITH {_POPULARITY_RANKS},
        recs AS (
            SELECT r.*, k.popularity_rank, k.n_catalogue
            FROM marts.recommendations r LEFT JOIN ranks k USING (game_id)
        )
        SELECT string_agg(DISTINCT run_id, ', ') AS run_ids,
               string_agg(DISTINCT model, ', ') AS models,
               max(generated_at) AS generated_at,
               count(*) AS n_recommendations,
               count(DISTINCT user_id) AS n_members,
               count(DISTINCT game_id) AS n_games,
               count(DISTINCT game_id)::DOUBLE / nullif((SELECT count(*) FROM ranks), 0) AS catalogue_coverage,
               avg((popularity_rank <= ceil(n_catalogue * 0.1))::INTEGER) AS share_top10pct,
               avg(popularity_rank) AS mean_rank_recommended,
               ((SELECT count(*) FROM ranks) + 1) / 2.0 AS mean_rank_catalogue
        FROM recs
        """,
    )


def recommendation_deciles(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Share of recommendations per popularity decile (1 = the 10% most popular games)."""
    return _frame(
        con,
        f"""
        WITH {_POPULARITY_RANKS},
        deciles AS (
            SELECT game_id, least(10, 1 + floor((popularity_rank - 1) * 10 / n_catalogue))::INTEGER AS decile
            FROM ranks
        )
        SELECT d.decile, count(r.game_id) AS n_recommendations,
               count(r.game_id)::DOUBLE / nullif(sum(count(r.game_id)) OVER (), 0) AS share
        FROM (SELECT DISTINCT decile FROM deciles) d
        LEFT JOIN deciles g ON g.decile = d.decile
        LEFT JOIN marts.recommendations r ON r.game_id = g.game_id
        GROUP BY d.decile ORDER BY d.decile
        """,
    )


def recommended_members(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Members who have recommendations, with their name when known (`user_id`, `name`, `n_games`)."""
    return _frame(
        con,
        """
        SELECT r.user_id, any_value(m.name) AS name, any_value(m.n_games) AS n_games
        FROM (SELECT DISTINCT user_id FROM marts.recommendations) r
        LEFT JOIN marts.members m USING (user_id)
        GROUP BY r.user_id ORDER BY r.user_id
        """,
    )


def member_recommendations(con: duckdb.DuckDBPyConnection, *, user_id: str) -> pl.DataFrame:
    """One member's recommendations with reasons, game specs and popularity rank."""
    return _frame(
        con,
        f"""
        WITH {_POPULARITY_RANKS}
        SELECT r.rank, r.game_id, coalesce(g.name_ja, g.name_en, r.game_id) AS name, r.score, r.reason,
               g.min_players, g.max_players, g.max_minutes, k.popularity_rank, r.model, r.run_id
        FROM marts.recommendations r
        LEFT JOIN marts.games g USING (game_id)
        LEFT JOIN ranks k USING (game_id)
        WHERE r.user_id = $user_id
        ORDER BY r.rank
        """,
        {"user_id": user_id},
    )


def member_collection(con: duckdb.DuckDBPyConnection, *, user_id: str) -> pl.DataFrame:
    """One member's collection: favourites first, then best rated, then name."""
    return _frame(
        con,
        """
        SELECT c.game_id, coalesce(g.name_ja, g.name_en, c.game_id) AS name,
               c.have, c.played, c.favorite, c.watching, c.rating, c.updated_at
        FROM marts.collections c
        LEFT JOIN marts.games g USING (game_id)
        WHERE c.user_id = $user_id
        ORDER BY c.favorite DESC, c.rating DESC NULLS LAST, name, c.game_id
        """,
        {"user_id": user_id},
    )


# -- cafes ------------------------------------------------------------------------------

def cafe_coverage(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each cafe's offer against what members want (marts.cafe_coverage), best first."""
    return _frame(
        con,
        """
        SELECT space_slug, coalesce(space_name, space_slug) AS space_name, n_games, n_members_served,
               n_wanted_games_offered, n_wants_served, share_of_wants
        FROM marts.cafe_coverage
        ORDER BY n_wants_served DESC, space_slug
        """,
    )


def cafe_wanted_games(con: duckdb.DuckDBPyConnection, *, space_slug: str, limit: int = 20) -> pl.DataFrame:
    """The games a cafe offers that most members want (watching or favourite)."""
    return _frame(
        con,
        """
        WITH wants AS (
            SELECT game_id, count(*) AS n_wanting,
                   count(*) FILTER (WHERE watching) AS n_watching,
                   count(*) FILTER (WHERE favorite) AS n_favorite
            FROM marts.collections WHERE watching OR favorite GROUP BY game_id
        )
        SELECT cg.game_id, coalesce(g.name_ja, g.name_en, cg.game_id) AS name,
               w.n_wanting, w.n_watching, w.n_favorite
        FROM marts.cafe_games cg
        JOIN wants w USING (game_id)
        LEFT JOIN marts.games g USING (game_id)
        WHERE cg.space_slug = $space_slug
        ORDER BY w.n_wanting DESC, cg.game_id
        LIMIT $limit
        """,
        {"space_slug": space_slug, "limit": int(limit)},
    )


def wanted_nowhere(con: duckdb.DuckDBPyConnection, *, limit: int = 20) -> pl.DataFrame:
    """The most wanted games that no cafe offers (an opening for cafes)."""
    return _frame(
        con,
        """
        SELECT c.game_id, coalesce(any_value(g.name_ja), any_value(g.name_en), c.game_id) AS name,
               count(*) AS n_wanting
        FROM marts.collections c
        LEFT JOIN marts.games g USING (game_id)
        WHERE (c.watching OR c.favorite)
          AND c.game_id NOT IN (SELECT game_id FROM marts.cafe_games)
        GROUP BY c.game_id
        ORDER BY n_wanting DESC, c.game_id
        LIMIT $limit
        """,
        {"limit": int(limit)},
    )


# -- data quality -----------------------------------------------------------------------

def quarantine(con: duckdb.DuckDBPyConnection, *, limit: int = 500) -> pl.DataFrame:
    """Quarantined pages, newest first."""
    return _frame(
        con,
        """
        SELECT url, reason, http_status, run_id, fetched_at, body_sha256
        FROM raw.quarantine ORDER BY fetched_at DESC, url LIMIT $limit
        """,
        {"limit": int(limit)},
    )


def quarantine_reasons(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Quarantined pages per reason (`reason`, `n_pages`)."""
    return _frame(
        con,
        "SELECT reason, count(*) AS n_pages FROM raw.quarantine GROUP BY reason ORDER BY n_pages DESC, reason",
    )


def quality_checks(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The latest data-quality check results, failures first."""
    return _frame(
        con,
        """
        SELECT check_name, severity, passed, n_failures, description, examples::VARCHAR AS examples, checked_at
        FROM marts.quality_checks
        ORDER BY passed, severity, n_failures DESC, check_name
        """,
    )
