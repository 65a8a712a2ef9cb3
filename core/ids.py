"""Run ids shared by the crawl, the recommenders and the exports."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone


def new_run_id(now: datetime | None = None) -> str:
    """A sortable, unique run id: UTC time plus a short random suffix."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}"
