"""Which site game a BoardGameGeek thing is: normalized name and year, alternate names, overrides.

Why names and not something exact: the site shows no BGG id. A site game has an English
name (often) and a Japanese one; BGG has a primary (usually English) name and alternate
names in every language, Japanese titles among them. A thing matches a site game when
one of its names, normalized (`normalize_name`), equals one of the game's names and the
years agree (or one is unknown) — and only when that points at exactly one game, and no
other thing points at that game the same way. Everything else goes to the report
(ambiguous, missed) for a human, who can settle it in the overrides file
(`bgg_id,game_id`; an empty game_id means "never match this thing").
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

_NOT_WORD = re.compile(r"[\W_]+")
#: What the report lists of ambiguities and misses (the counts are always whole).
REPORT_LIMIT = 50


def normalize_name(name: str | None) -> str:
    """NFKC, case-folded, without spaces or punctuation: `Brass: Lancashire` → `brasslancashire`,
    `ブラス：ランカシャー` → `ブラスランカシャー`, full-width letters as ASCII."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", name or "").casefold())


def csv_rows(path: Path, *, header: list[str], what: str) -> list[tuple[int, list[str]]]:
    """(line number, stripped cells) of a small CSV file the site team keeps, after its header;
    one-line ValueError for an unreadable file or a wrong header. Blank lines are left out."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except OSError as exc:
        raise ValueError(f"cannot read the {what} file {path}: {exc.strerror or exc}") from None
    if not rows or [c.strip() for c in rows[0]] != header:
        raise ValueError(f"{path}: the first line must be the header {','.join(header)}")
    return [(n, cells) for n, row in enumerate(rows[1:], start=2) if any(cells := [c.strip() for c in row])]


def read_overrides(path: Path) -> dict[int, str | None]:
    """The manual overrides file: CSV `bgg_id,game_id` with a header; an empty game_id forbids a match."""
    overrides: dict[int, str | None] = {}
    for number, row in csv_rows(path, header=["bgg_id", "game_id"], what="overrides"):
        cells = row + [""]
        if not cells[0].isdigit():
            raise ValueError(f"{path}:{number}: bgg_id must be a number, not {cells[0]!r}")
        overrides[int(cells[0])] = cells[1] or None
    return overrides


def _site_games(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str | None, str | None, int | None]]:
    """(game_id, name_en, name_ja, year) of every site game the crawl read (page, else catalogue row)."""
    return con.execute(
        """
        SELECT game_id, any_value(name_en), any_value(name_ja), any_value(year) FROM (
            SELECT game_id, name_en, name_ja, year FROM raw.games
            UNION ALL SELECT game_id, name_en, name_ja, year FROM raw.game_summaries
                WHERE game_id NOT IN (SELECT game_id FROM raw.games)
        ) GROUP BY game_id ORDER BY game_id
        """).fetchall()


def link_games(con: duckdb.DuckDBPyConnection, *, overrides: dict[int, str | None], run_id: str) -> dict[str, Any]:
    """Recompute `raw.bgg_game_matches` and return the report: matched (by method), ambiguous, missed."""
    by_name: dict[str, list[tuple[str, int | None]]] = defaultdict(list)
    for game_id, name_en, name_ja, year in _site_games(con):
        for key in {normalize_name(name_en), normalize_name(name_ja)} - {""}:
            by_name[key].append((game_id, year))
    things = con.execute("SELECT bgg_id, name, alternate_names, year FROM raw.bgg_things "
                         "WHERE thing_type = 'boardgame' ORDER BY bgg_id").fetchall()
    proposals: dict[int, tuple[str, str]] = {}
    ambiguous: list[dict[str, Any]] = []
    missed: list[dict[str, Any]] = []
    for bgg_id, name, alternates, year in things:
        if bgg_id in overrides:
            continue
        for method, names in (("name_year", [name]), ("alternate_year", alternates or [])):
            found = {g for n in names for g, y in by_name.get(normalize_name(n), [])
                     if year is None or y is None or y == year}
            if found:
                break
        if len(found) == 1:
            proposals[bgg_id] = (found.pop(), method)
        elif found:
            ambiguous.append({"bgg_id": bgg_id, "name": name, "year": year, "candidates": sorted(found)})
        else:
            missed.append({"bgg_id": bgg_id, "name": name, "year": year})
    claimed: dict[str, list[int]] = defaultdict(list)
    for bgg_id, (game_id, _) in proposals.items():
        claimed[game_id].append(bgg_id)
    matches = {b: m for b, m in proposals.items() if len(claimed[m[0]]) == 1}
    for game_id, ids in claimed.items():
        if len(ids) > 1:
            ambiguous.append({"game_id": game_id, "bgg_ids": sorted(ids), "reason": "several BGG things match"})
    matches |= {b: (g, "override") for b, g in overrides.items() if g is not None}
    stamp = datetime.now(timezone.utc)
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("DELETE FROM raw.bgg_game_matches")
        if matches:
            con.executemany("INSERT INTO raw.bgg_game_matches VALUES (?, ?, ?, ?, ?)",
                            [[b, g, m, run_id, stamp] for b, (g, m) in sorted(matches.items())])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    methods: dict[str, int] = defaultdict(int)
    for _, method in matches.values():
        methods[method] += 1
    return {"things": len(things), "matched": len(matches), "by_method": dict(methods),
            "ambiguous": len(ambiguous), "missed": len(missed),
            "ambiguities": ambiguous[:REPORT_LIMIT], "misses": missed[:REPORT_LIMIT]}


BGG_MARTS = ("bgg_games", "bgg_interactions")


def build_bgg_marts(con: duckdb.DuckDBPyConnection) -> dict[str, int] | None:
    """Rebuild the BGG marts now, when the site's marts they join exist (else the next build will)."""
    from warehouse.build import build_mart

    have = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'marts' "
                                      "AND database_name = current_database()").fetchall()}
    if not {"games", "members"} <= have:
        return None
    return {name: build_mart(con, name) for name in BGG_MARTS}
