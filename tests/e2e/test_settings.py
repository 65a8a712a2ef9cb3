"""The one settings object (`core.settings`): flags, then `BODOGE_*`, then defaults, once.

Here: the tests that start real processes; the rest of this subject: tests/unit/test_settings.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


from core.settings import Settings, env_names

ROOT = Path(__file__).resolve().parents[2]
ENV = env_names()


_CHILD = "import json; from core.settings import Settings; print(json.dumps(Settings.from_env().to_env()))"


def _in_a_child(env: dict[str, str]) -> dict[str, str]:
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=60, check=True)
    return json.loads(done.stdout)


def test_a_child_process_reads_what_its_parent_wrote_and_nothing_else(tmp_path: Path) -> None:
    """The parent's own environment says max age 99 and a push URL; the settings it hands on
    say 3 and no push: the child sees the settings."""
    from bodoge.jobs import night_environment
    from scrapers.crawl_setup import child_environment

    settings = Settings(data_dir=tmp_path, base_url="http://127.0.0.1:9", max_age_days=3, max_pages=40)
    polluted = {**os.environ, ENV["max_age_days"]: "99", ENV["push_url"]: "http://127.0.0.1:9/stale"}
    crawl_env = child_environment(settings)
    assert _in_a_child({**polluted, **settings.to_env()}) == settings.to_env()
    assert {k: crawl_env[k] for k in ENV.values()} == settings.to_env()
    night = night_environment(settings)
    assert night["DAGSTER_HOME"] == str(tmp_path / "dagster_home")
    seen = _in_a_child({**polluted, **night})
    assert seen[ENV["max_age_days"]] == "3.0" and seen[ENV["push_url"]] == ""
