"""How old something is, said the same way by the CLI's summary and the dashboard."""

from __future__ import annotations

from datetime import datetime, timezone


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
