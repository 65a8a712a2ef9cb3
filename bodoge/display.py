"""Output of the command line: specs as the site writes them, rich tables, JSON.

Why one module: every command prints the same things (a game's name, a player range, a
table) and must print them the same way; the commands in `cli.py` only fetch and hand over.

Why every cell is `text(...)`: names, titles, reasons and ids come from the site or a
user, and Rich reads a plain string as markup. A game titled `[/]…` made Rich raise (so
`bodoge run` exited 2 after publishing, and `bodoge collection` failed for every member
holding it), `[link=…]` became a terminal hyperlink, and raw control characters reached
the terminal (`ESC ]0;…` set its title). Site text is text: never markup, and C0/C1
control characters are shown escaped (`\x1b`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from core.statuses import STATUS_LABELS


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def shown(value: Any) -> str:
    """`value` as one printable string: C0/C1 control characters (ESC, BEL, newlines…) as `\\xNN`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def text(value: Any) -> Text:
    """A cell or title for Rich: the value as literal text (never read as markup), controls escaped."""
    return Text(shown(value))


def _add_row(table: Table, *cells: Any) -> None:
    table.add_row(*(text(cell) for cell in cells))


def fmt_range(low: int | None, high: int | None, unit: str) -> str:
    """`2–4人`, `2人`, `10分`; empty where the site publishes nothing."""
    if low is None and high is None:
        return ""
    if low is None or high is None or low == high:
        return f"{low if low is not None else high}{unit}"
    return f"{low}–{high}{unit}"


def game_name(row: dict[str, Any]) -> str:
    """The Japanese name, with the English one where it differs."""
    ja, en = row.get("name_ja"), row.get("name_en")
    if ja and en and ja != en:
        return f"{ja} / {en}"
    return ja or en or row.get("game_id", "")


def statuses(row: dict[str, Any]) -> str:
    return " ".join(label for key, label in STATUS_LABELS.items() if row.get(key))


def shown_count(shown: int, total: int | None) -> str:
    """`44 games`, or `58 games, 8 shown` when only part of them is on screen.

    Why: a title that counts the rows it was handed said "(8 games)" for a member with
    58, counting what the summary cut, not what the member has.
    """
    if total is None or total == shown:
        return f"{shown} games"
    return f"{total} games, {shown} shown"


def collection_table(user_id: str, rows: list[dict[str, Any]], *, total: int | None = None) -> Table:
    """A member's collection; `total` is how many games the collection holds when `rows` is a cut of it."""
    table = Table(title=text(f"{user_id} のマイボードゲーム ({shown_count(len(rows), total)})"), title_justify="left")
    for header in ("game", "players", "time", "age", "year", "status", "★", "updated"):
        table.add_column(header, overflow="fold")
    for row in rows:
        _add_row(
            table,
            game_name(row),
            fmt_range(row["min_players"], row["max_players"], "人"),
            fmt_range(row["min_minutes"], row["max_minutes"], "分"),
            f"{row['min_age']}歳～" if row["min_age"] is not None else "",
            str(row["year"] or ""),
            statuses(row),
            str(row["rating"] or ""),
            (row["updated_at"] or "")[:10],
        )
    return table


def _ranked_table(title: str, rows: list[dict[str, Any]], *, brought_by: bool = False) -> Table:
    """A ranked list of games: rank, name, players, time, [who brings it], why."""
    table = Table(title=text(f"{title} ({len(rows)} games)"), title_justify="left")
    headers = ("#", "game", "players", "time") + (("brought by",) if brought_by else ()) + ("why",)
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:
        cells = [
            str(row["rank"]),
            game_name(row),
            fmt_range(row["min_players"], row["max_players"], "人"),
            fmt_range(row["min_minutes"], row["max_minutes"], "分"),
        ]
        if brought_by:
            cells.append(", ".join(row.get("brought_by") or []) or "(どこかで)")
        _add_row(table, *cells, row.get("reason") or "")
    return table


def similar_table(game: dict[str, Any], rows: list[dict[str, Any]]) -> Table:
    """`bodoge similar`: the night's similar games of one game, best first, with their similarity."""
    table = Table(title=text(f"{game_name(game)} に似たゲーム ({len(rows)} games)"), title_justify="left")
    for header in ("#", "game", "players", "time", "similarity"):
        table.add_column(header, overflow="fold", justify="right" if header == "similarity" else "left")
    for row in rows:
        _add_row(
            table,
            str(row["rank"]),
            game_name(row),
            fmt_range(row["min_players"], row["max_players"], "人"),
            fmt_range(row["min_minutes"], row["max_minutes"], "分"),
            "" if row["score"] is None else f"{row['score']:.3f}",
        )
    return table


def cafes_lines(user_id: str, cafes: list[dict[str, Any]]) -> list[str]:
    """`bodoge cafes` as text: each cafe with its counts, then the member's games it offers."""
    if not cafes:
        return [shown(f"No cafe offers any of {user_id}'s watching or favourite games.")]
    lines = []
    for cafe in cafes:
        lines.append(f"{cafe['space_name'] or cafe['space_slug']} ({cafe['space_slug']}): {cafe['n_games']} games "
                     f"({cafe['n_favorite']} お気に入り, {cafe['n_watching']} 興味あり)")
        lines.extend(f"  {'★' if game['favorite'] else '・'} {game_name(game)}" for game in cafe["games"])
    return [shown(line) for line in lines]


def evaluation_table(report: Any) -> Table:
    """`bodoge evaluate`: every candidate's TEST metrics, best NDCG first, the champion starred."""
    table = Table(title=f"NDCG@{report.k} and friends on TEST (champion: {report.champion})", title_justify="left")
    columns = ["model", "ndcg", "precision", "recall", "map", "coverage", "selection_ndcg", "fit_seconds"]
    if any(result.forward_ndcg is not None for result in report.results.values()):
        columns.insert(-1, "forward_ndcg")
    for col in columns:
        table.add_column(col, justify="left" if col == "model" else "right")
    for row in report.table().sort("ndcg", descending=True).iter_rows(named=True):
        name = row["model"] + (" ★" if row["champion"] else "")
        _add_row(table, name, *(f"{row[c]:.4f}" if c != "fit_seconds" else f"{row[c]:.2f}s" for c in columns[1:]))
    return table


def json_line(value: Any) -> str:
    """A value as one line of JSON: Japanese as is, dates and decimals as strings."""
    return json.dumps(value, ensure_ascii=False, default=str)


def print_json(value: Any) -> None:
    """One JSON document on stdout (`--json`)."""
    print(json_line(value))


def print_rows(rows: Any, *, as_json: bool, table: Callable[[], Table]) -> None:
    """`--json`: the rows as JSON; otherwise the table `table()` builds from them."""
    if as_json:
        print_json(rows)
    else:
        print_table(table())
def recommendation_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    """The discovery list; a welcome list (nothing personal to go on yet) is titled as one."""
    if rows and rows[0].get("welcome"):
        return _ranked_table(f"{user_id} さん、ようこそ: みんなが持っているゲーム (welcome list)", rows)
    return _ranked_table(f"{user_id} へのおすすめ", rows)


def play_next_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    return _ranked_table(f"{user_id} の積みゲー: 次に遊ぶなら", rows)


def watch_next_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    return _ranked_table(f"{user_id} の興味ありの中からおすすめ", rows)


def group_table(user_ids: list[str], rows: list[dict[str, Any]]) -> Table:
    return _ranked_table(f"{'・'.join(user_ids)} のゲーム会", rows, brought_by=True)


def print_table(table: Table) -> None:
    """Print to the terminal (long cells fold to its width, never cut); piped output gets a wide
    page (200 columns) so rows do not fold. Not `COLUMNS`: test runners and job runners set it
    (pytest-xdist's workers say 80) whatever reads the pipe (docs/commands.md)."""
    Console(soft_wrap=False, width=None if sys.stdout.isatty() else 200).print(table)


def crawl_line(stats: dict[str, Any]) -> str:
    """One line on what tonight's crawl read, from its stats (`raw.crawl_runs.stats`).

    Pages fetched (answered at all), not modified (304), skipped as unchanged (the
    directory or catalogue showed them unchanged, or the same body came back), the
    queue left for the next night and the oldest page's age.
    """
    from warehouse.crawl_runs import crawl_figures

    f = crawl_figures(stats)
    age = f"{float(f['oldest_page_days']):.1f} days" if f["oldest_page_days"] is not None else "n/a"
    return (f"crawl ({f['mode']}): {f['fetched']:,} pages fetched, {f['not_modified']:,} not modified (304), "
            f"{f['skipped']:,} skipped as unchanged, {f['queue_left']:,} queued for the next night, oldest page {age}")
