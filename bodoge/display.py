"""Human-readable output for the command line: specs as the site writes them, rich tables."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

STATUS_LABELS = {"have": "持ってる", "played": "経験あり", "favorite": "お気に入り", "watching": "興味あり"}


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


def collection_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{user_id} のマイボードゲーム ({len(rows)} games)", title_justify="left")
    for header in ("game", "players", "time", "age", "year", "status", "★", "updated"):
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(
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


def recommendation_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{user_id} へのおすすめ ({len(rows)} games)", title_justify="left")
    for header in ("#", "game", "players", "time", "why"):
        table.add_column(header, overflow="fold")
    for row in rows:
        mark = " (興味あり)" if row.get("watching") else ""
        table.add_row(
            str(row["rank"]),
            game_name(row) + mark,
            fmt_range(row["min_players"], row["max_players"], "人"),
            fmt_range(row["min_minutes"], row["max_minutes"], "分"),
            row.get("reason") or "",
        )
    return table


def print_table(table: Table) -> None:
    """Print to the terminal; piped output gets a wide page so rows do not fold."""
    import sys

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
