"""The BGG stage's settings: `core.settings` fields as text, like every resource's.

Built the way pipelines/defs/resources.py builds its resources: each field from its
`BODOGE_BGG_*` variable through `dg.EnvVar`, else the field's default, and parsed with the
same checks as `bodoge bgg sync`'s flags (`settings()`), never reading `os.environ`.

Why not the token: a resource's fields show in the Dagster UI's run configuration, and an
unset `dg.EnvVar` fails the whole run at start; the token is read from the environment
only by `scrapers.bgg_sync.read_token`, at the moment it is needed, and never stored.
"""

from __future__ import annotations

import dagster as dg

from pipelines.defs.resources import FromSettings

class BggSettings(FromSettings):
    """Where BGG is, who is linked, manual game matches, and the pace."""

    bgg_api_url: str = ""
    bgg_links: str = ""
    bgg_overrides: str = ""
    bgg_delay: str = ""
    bgg_max_age_days: str = ""


@dg.definitions
def bgg_resources() -> dg.Definitions:
    return dg.Definitions(resources={"bgg": BggSettings.from_env()})
