"""The summary printed after a nightly run: counts, checks, the champion, one member's view."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import duckdb

from core.settings import Paths
from bodoge.jobs import JobSummary


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    from warehouse.db import scalar

    try:
        return int(scalar(con, f"SELECT count(*) FROM {table}") or 0)
    except duckdb.Error:  # a table this run did not build
        return 0


def _count_for(con: duckdb.DuckDBPyConnection, table: str, user_id: str) -> int:
    """Rows of `table` for one member (table is one of this module's own names, never input)."""
    from warehouse.db import scalar

    return int(scalar(con, f"SELECT count(*) FROM {table} WHERE user_id = ?", [user_id]) or 0)


def example_member(con: duckdb.DuckDBPyConnection) -> str | None:
    """A member worth showing: a mid-sized collection with recommendations and wanted games at cafes."""
    rows = con.execute(
        """
        SELECT m.user_id FROM marts.members m
        WHERE m.n_games BETWEEN 12 AND 60
          AND EXISTS (SELECT 1 FROM marts.recommendations r WHERE r.user_id = m.user_id)
        ORDER BY (SELECT count(*) FROM marts.collections c JOIN marts.cafe_games cg USING (game_id)
                  WHERE c.user_id = m.user_id AND (c.watching OR c.favorite)) DESC, m.user_id
        LIMIT 1
        """
    ).fetchall()
    return rows[0][0] if rows else None


def freshness_line(published: dict | None, now: datetime | None = None) -> str:
    """How old the published night and its oldest crawled page are, in one line."""
    from core.ages import ago

    if not published:
        return "published night: none yet"
    now = now or datetime.now(timezone.utc)
    return (f"published night {published['run_id']} from {ago(published['published_at'], now)}; "
            f"oldest crawled page from {ago(published['oldest_page_at'], now)}")


def checks_lines(published: dict | None, checks: list[dict[str, Any]]) -> str:
    """`checks: 22/23 passed when published` (the count the dashboard shows: the checks in
    marts.publication), the failures, then the checks the night ran after publishing."""
    import json

    before = json.loads(published["checks"]) if published and published.get("checks") else None
    names = {c["name"] for c in before} if before is not None else set()
    shown = before if before is not None else checks
    after = [c for c in checks if c["name"] not in names] if before is not None else []
    failed = [c for c in shown if not c["passed"]]
    lines = [f"  checks: {len(shown) - len(failed)}/{len(shown)} passed"
             + (" when the night was published" if before is not None else "")]
    lines += [f"    {c['severity']}: {c['name']} on {c['asset']}" for c in failed]
    if after:
        lines.append("  after publishing: " + ", ".join(
            f"{c['name']} {'passed' if c['passed'] else c['severity'] + ' failed'}" for c in after))
    return "\n".join(lines)


def print_summary(paths: Paths, summary: JobSummary, *, demo_seconds: float | None = None) -> None:
    """Counts, checks, the champion's metrics, one member's recommendations, collection and cafes."""
    from bodoge.display import collection_table, crawl_line, game_name, print_table, recommendation_table, shown
    from warehouse.release.publish import publication
    from warehouse.readers import open_published
    from warehouse.views import cafes_for, collection, recommendations_for

    con = open_published(paths.data_dir)  # what readers see now, not the file the night wrote
    try:
        took = demo_seconds if demo_seconds is not None else summary.seconds
        print()
        print(f"Nightly run {summary.run_id} finished in {took:.0f}s: {len(summary.steps)} steps.")
        print(f"  {freshness_line(publication(con))}")
        print(f"  games {_count(con, 'marts.games'):,} · members {_count(con, 'marts.members'):,} · "
              f"collection rows {_count(con, 'marts.collections'):,} · cafe offers {_count(con, 'marts.cafe_games'):,} · "
              f"quarantined pages {_count(con, 'raw.quarantine'):,}")
        crawl = _latest_crawl_stats(con)
        if crawl:
            print(f"  {crawl_line(crawl)}")
            from scrapers.signals import strategy_line

            strategies = strategy_line(crawl)  # which way tonight took for each site signal
            if strategies:
                print(f"  {strategies}")
        print(checks_lines(publication(con), summary.checks))
        _print_models(con)
        user_id = example_member(con) if _count(con, "marts.recommendations") else None
        if user_id:
            stored = _count_for(con, "marts.recommendations", user_id)
            print(f"\nMember {user_id}: discovery, the first 5 of {stored} (games they neither have nor have played)")
            print_table(recommendation_table(user_id, recommendations_for(con, user_id, n=5)))
            print(f"Member {user_id}: collection sorted by players")
            games = collection(con, user_id, sort="players")
            print_table(collection_table(user_id, games[:8], total=len(games)))  # "58 games, 8 shown"
            cafes = cafes_for(con, user_id)[:3]
            print(f"Member {user_id}: where to play what they want to play")
            for cafe in cafes:
                names = "、".join(game_name(g) for g in cafe["games"][:4])
                print(shown(f"  {cafe['space_name']}: {cafe['n_games']} games ({names}{'…' if cafe['n_games'] > 4 else ''})"))
    finally:
        con.close()
    print()
    if summary.log_path:
        print(f"Run log:    {summary.log_path}")
    print(f"Warehouse:  {paths.warehouse}  (the night writes it)")
    print(f"Published:  {paths.data_dir / 'published.duckdb'}  "
          f"(analysts: uv run bodoge sql --data-dir {paths.data_dir}, docs/analysts.md; the dashboard)")
    print(f"Exports:    {paths.exports}  (LATEST names the newest complete bundle)")
    print(f"Dagster UI: uv run bodoge serve --data-dir {paths.data_dir} --base-url URL  (and the 03:00 JST schedule)")
    print(f"Dashboard:  uv run bodoge dashboard --data-dir {paths.data_dir}")


def _latest_crawl_stats(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The stats of the newest crawl run (empty when there is none or they cannot be read)."""
    import json

    try:
        row = con.execute("SELECT stats FROM raw.crawl_runs ORDER BY started_at DESC LIMIT 1").fetchone()
        return json.loads(row[0]) if row and row[0] else {}
    except (duckdb.Error, ValueError):
        return {}


def _print_models(con: duckdb.DuckDBPyConnection) -> None:
    """The champion, how it was chosen (on TRAIN) and how it and every candidate did on TEST.

    Why both: the champion is named on a split of TRAIN, so on TEST it can rank below
    other candidates; a reader must see what it won on before the TEST table.
    """
    if not _count(con, "marts.model_runs"):
        return
    rows = _dicts(con.execute(
        "SELECT model, ndcg, precision, recall, map, coverage, champion, "
        "TRY_CAST(json_extract_string(params, '$.selection_ndcg') AS DOUBLE) AS selection_ndcg, "
        "TRY_CAST(json_extract_string(params, '$.forward_ndcg') AS DOUBLE) AS forward_ndcg, "
        "selection, split FROM marts.model_runs "
        "WHERE run_id = (SELECT max(run_id) FROM marts.model_runs) "
        "AND split = (SELECT max(split) FROM marts.model_runs) ORDER BY ndcg DESC"  # 'time' names the champion
    ))
    for line in champion_lines(rows):
        print(f"  {line}")
    served = con.execute(
        "SELECT coverage, stability, n_compared, previous_night_id FROM marts.recommendation_runs "
        "ORDER BY generated_at DESC LIMIT 1"
    ).fetchall()
    if served:
        print(f"  {served_line(*served[0])}")
    print(f"  {outcome_line(con)}")
    if _count(con, "marts.bgg_gain"):
        gain = _dicts(con.execute("SELECT split, n_members, ndcg_with, ndcg_without, gain, seconds FROM marts.bgg_gain "
                                  "WHERE run_id = (SELECT max(run_id) FROM marts.bgg_gain) ORDER BY split DESC"))
        print(f"  {bgg_gain_line(gain)}")


def outcome_line(con: duckdb.DuckDBPyConnection) -> str:
    """Did the last served discovery lists come true, one night on (marts.list_outcomes)."""
    if not _count(con, "marts.list_outcomes"):
        return "last night's discovery lists: not scored yet (the night after a served night scores it)"
    row = _dicts(con.execute(
        "SELECT served_night_id, members, hits, popularity_hit_rate_at_10 AS popularity, "
        "previous_hit_rate_at_10 AS previous, previous_members FROM marts.list_outcomes "
        "WHERE list_kind = 'discovery' AND nights_after = 1 ORDER BY computed_at DESC, served_night_id DESC LIMIT 1"))
    if not row:
        return "last night's discovery lists: not scored yet (the night after a served night scores it)"
    r = row[0]
    popularity = round((r["popularity"] or 0.0) * r["members"])
    line = (f"last night's discovery lists: {r['hits']} of {r['members']} members who added a game took one of "
            f"their top 10; popularity: {popularity}")
    if r["previous"] is not None:
        line += f"; the previous champion: {round(r['previous'] * r['previous_members'])} of {r['previous_members']}"
    return line


def _dicts(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """An executed query's rows as dicts by column name.

    Why not `.pl().to_dicts()`: DuckDB's Polars result loads Polars and PyArrow, 0.6 s of
    the `bodoge run` supervisor's start-up for two small tables (the summary's only use)."""
    names = [column[0] for column in cursor.description or ()]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def bgg_gain_line(rows: list[dict[str, Any]]) -> str:
    """Does BGG help (`marts.bgg_gain` rows of one run, time split first), in one line."""
    splits = "; ".join(f"{r['split']} split {r['ndcg_with']:.4f} vs {r['ndcg_without']:.4f} ({r['gain']:+.4f})"
                       for r in rows)
    members = max(r["n_members"] for r in rows)
    return (f"BGG: NDCG@10 of the {members} linked member{'s' if members != 1 else ''} with their BGG rows vs "
            f"without: {splits}; measured in {sum(r['seconds'] for r in rows):.1f}s")


def served_line(coverage: float | None, stability: float | None, compared: int, previous: str | None) -> str:
    """The served lists' coverage and stability against the previous night, in one line."""
    if previous is None:
        churn = "first night: no earlier lists to compare"
    elif stability is None:
        churn = "no member's collection stayed the same since the previous night"
    else:
        churn = f"stability (Jaccard@10 against the previous night) {stability:.3f} over {compared:,} unchanged members"
    return f"served top 10s: {coverage or 0:.0%} of the catalogue; {churn}"


_TEST = {"time": "each member's latest 20%", "random": "a seeded 20% of each member's rows"}


def champion_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The summary's model lines for one run and split (`marts.model_runs` rows, best TEST NDCG first):
    the champion with how it was chosen, its TEST result, then every candidate's TEST NDCG@10."""
    champion = next((r for r in rows if r["champion"]), rows[0])
    popularity = next((r for r in rows if r["model"] == "popularity"), None)
    lift = f", {champion['ndcg'] / popularity['ndcg']:.2f}× popularity" if popularity and popularity["ndcg"] else ""
    chosen = champion.get("selection") or "best NDCG@10 on a split of TRAIN"
    won = f" (selection NDCG@10 {champion['selection_ndcg']:.4f})" if champion.get("selection_ndcg") is not None else ""
    if champion.get("forward_ndcg") is not None and "followed the forward split" in chosen:
        won = f" (forward selection NDCG@10 {champion['forward_ndcg']:.4f})"  # the number it won on
    place = next(i for i, r in enumerate(rows, start=1) if r is champion)
    return [
        f"champion: {champion['model']}{won}, chosen by {chosen}",
        f"on TEST ({_TEST.get(champion.get('split') or '', 'held out')}, never used to choose): "
        f"NDCG@10 {champion['ndcg']:.4f}{lift}, "
        f"{_ordinal(place)} of {len(rows)}",
        "TEST NDCG@10: " + "  ".join(f"{r['model']} {r['ndcg']:.3f}" for r in rows),
    ]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
