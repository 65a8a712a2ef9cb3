"""Ages: how old something is, said the same way by the CLI's summary and the dashboard; and
the minimum ages (対象年齢) a game can have.

Why the game's minimum age is here: the rule is the SQL macro `marts.age_plausible`
(warehouse/sql/macros.sql), and two readers that cannot run SQL on every row need its
bounds, the content model's features (`models.specs.clean_specs`) and the dashboard's note
on what its age chart leaves out; both sit above `core`, so they share these bounds, and a
test holds them to the macro.
"""

from __future__ import annotations

from datetime import datetime, timezone

MIN_AGE_RANGE = (0, 25)
"""The minimum ages in years a game can have, both ends included: the macro
`marts.age_plausible`'s bounds (20歳～ is the alcohol-themed games). A published minimum age
outside them is unknown to the models and left out of the dashboard's age chart; the quality
check `games_age_range` lists it."""


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
