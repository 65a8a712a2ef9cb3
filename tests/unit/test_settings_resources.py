"""Settings reach Dagster through resources: sensors and assets never read the environment.

The environment may say anything; what the resource was given is what the code uses.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from pipelines.defs.resources import SiteSettings


def test_site_settings_parse_what_they_were_given(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BODOGE_CRAWL_FLOOR", "0.9")
    monkeypatch.setenv("BODOGE_KEEP_EXPORTS", "3")
    site = SiteSettings(data_dir=str(tmp_path), crawl_floor="0.25", keep_exports="")
    assert site.crawl_floor_fraction() == 0.25
    assert site.bundles_to_keep() == 7  # unset in the resource: the default, whatever the environment says
    assert site.paths.champion == tmp_path.resolve() / "models" / "champion"
    with pytest.raises(ValueError, match="BODOGE_CRAWL_FLOOR"):
        SiteSettings(crawl_floor="half").crawl_floor_fraction()


def test_loading_the_definitions_writes_no_environment(monkeypatch) -> None:
    import os

    from pipelines.defs.resources import resources

    names = ("BODOGE_WAREHOUSE", "BODOGE_DATA_DIR", "BODOGE_BASE_URL", "BODOGE_PUSH_URL")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    defs = resources()
    assert not [name for name in names if name in os.environ]
    site = defs.resources["site"]
    assert (site.base_url, site.push_url) == ("", "")  # the CLI's defaults: no site, no push
    monkeypatch.setenv("BODOGE_PUSH_URL", "http://127.0.0.1:9/in")
    assert isinstance(resources().resources["site"].push_url, dg.EnvVar)  # read when a run starts
