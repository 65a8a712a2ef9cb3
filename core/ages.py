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


def took(seconds: float | None) -> str:
    """How long something took, said the same way everywhere: '42 s', '2 min 05 s', '12 min',
    '1 h 05 min'; '—' when unknown.

    Why seconds below a minute: a 42-second run shown as '0.7 min' (or rounded to '1 min')
    reads as a different duration; minutes alone are enough from ten minutes on.
    """
    if seconds is None:
        return "—"
    whole = round(max(0.0, float(seconds)))
    if whole < 60:
        return f"{whole} s"
    if whole < 600:
        return f"{whole // 60} min {whole % 60:02d} s"
    minutes = round(whole / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"
