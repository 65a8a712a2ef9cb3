"""The BGG stage's settings, each from a `BODOGE_BGG_*` variable.

Why not the token: a resource's fields show in the Dagster UI's run configuration, and an
unset `dg.EnvVar` fails the whole run at start; the token is read from the environment
only by `scrapers.bgg_sync.read_token`, at the moment it is needed, and never stored.
"""

from __future__ import annotations

import os

import dagster as dg

from scrapers.bgg_child import DEFAULT_DELAY_SECONDS
from scrapers.bgg_sync import DEFAULT_MAX_AGE_DAYS

BGG_API_URL = "https://boardgamegeek.com/xmlapi2"


class BggSettings(dg.ConfigurableResource):
    """Where BGG is, who is linked, manual game matches, and the pace."""

    api_url: str = BGG_API_URL
    links_file: str = ""
    overrides_file: str = ""
    delay: str = ""  # seconds between requests, as text: empty means DEFAULT_DELAY_SECONDS
    max_age_days: str = ""

    def delay_seconds(self) -> float:
        return float(self.delay) if self.delay.strip() else DEFAULT_DELAY_SECONDS

    def max_age(self) -> float:
        return float(self.max_age_days) if self.max_age_days.strip() else DEFAULT_MAX_AGE_DAYS


def _from_env(name: str, default: str) -> dg.EnvVar | str:
    return dg.EnvVar(name) if os.environ.get(name) else default


@dg.definitions
def bgg_resources() -> dg.Definitions:
    return dg.Definitions(resources={"bgg": BggSettings(
        api_url=_from_env("BODOGE_BGG_API_URL", BGG_API_URL),
        links_file=_from_env("BODOGE_BGG_LINKS", ""),
        overrides_file=_from_env("BODOGE_BGG_OVERRIDES", ""),
        delay=_from_env("BODOGE_BGG_DELAY", ""),
        max_age_days=_from_env("BODOGE_BGG_MAX_AGE_DAYS", ""),
    )})
