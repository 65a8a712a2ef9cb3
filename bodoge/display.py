"""Human-readable output for the command line: specs as the site writes them, rich tables."""

from __future__ import annotations

from datetime import datetime, timezone
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


def ago(moment: datetime | None, now: datetime | None = None) -> str:
    """'3 h ago' style age of a timestamp (aware or naive UTC); '—' when unknown."""
    if moment is None:
        return "—"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    seconds = ((now or datetime.now(timezone.utc)) - moment).total_seconds()
    if seconds < 0:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


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
