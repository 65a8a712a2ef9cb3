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


def _ranked_table(title: str, rows: list[dict[str, Any]], *, brought_by: bool = False) -> Table:
    """A ranked list of games: rank, name (興味あり marked), players, time, [who brings it], why."""
    table = Table(title=f"{title} ({len(rows)} games)", title_justify="left")
    headers = ("#", "game", "players", "time") + (("brought by",) if brought_by else ()) + ("why",)
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:
        mark = " (興味あり)" if row.get("watching") else ""
        cells = [
            str(row["rank"]),
            game_name(row) + mark,
            fmt_range(row["min_players"], row["max_players"], "人"),
            fmt_range(row["min_minutes"], row["max_minutes"], "分"),
        ]
        if brought_by:
            cells.append(", ".join(row.get("brought_by") or []) or "(どこかで)")
        table.add_row(*cells, row.get("reason") or "")
    return table


def recommendation_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    return _ranked_table(f"{user_id} へのおすすめ", rows)


def play_next_table(user_id: str, rows: list[dict[str, Any]]) -> Table:
    return _ranked_table(f"{user_id} の積みゲー: 次に遊ぶなら", rows)


def group_table(user_ids: list[str], rows: list[dict[str, Any]]) -> Table:
    return _ranked_table(f"{'・'.join(user_ids)} のゲーム会", rows, brought_by=True)


def print_table(table: Table) -> None:
    """Print to the terminal; piped output gets a wide page so rows do not fold."""
    import sys

    Console(soft_wrap=False, width=None if sys.stdout.isatty() else 200).print(table)
