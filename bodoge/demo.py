"""`bodoge demo`: the sample site, served locally, through the whole nightly job, then a summary.

The demo also leaves a note of the site it served (`DATA_DIR/sample-site.json`: games,
members, seed, faults and port), so `bodoge site serve --night 2` serves the same site's
next night at the same address without restating a flag, and `bodoge run` against it
continues the demo's warehouse instead of crawling some other site over it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the parser reads DEMO_SITE; it must not pay for the nightly's imports
    from core.settings import Settings
    from bodoge.jobs import JobSummary

#: The demo's sample site when no flag says otherwise (`bodoge demo`, `bodoge site`).
DEMO_SITE: dict[str, Any] = {"games": 1000, "users": 2000, "seed": 0, "faults": True}
#: The settings a demo takes from the environment: where its data goes, what it keeps, and in
#: how many member buckets discovery ranks (the same lists in any number). Not the site (its own), nor a push or alert endpoint, nor crawl or BGG options (`--bgg`
#: sets its replay's own): a demo is local and whole.
DEMO_SETTINGS = ("data_dir", "warehouse", "backup_dir", "crawl_floor", "keep_exports", "push_retry_seconds",
                 "discovery_buckets", "bucket_executor", "bucket_workers")
SITE_FILE = "sample-site.json"


def run_demo(settings: Settings, *, n_games: int, n_users: int, seed: int,
             bgg: bool = False) -> tuple[JobSummary, dict[str, Any]]:
    """Generate and serve the sample site, run the nightly job on it, return what to report.

    `bgg`: with a local BoardGameGeek replay as the night's second source (bodoge.demo_bgg)."""
    from contextlib import ExitStack

    from bodoge.demo_bgg import bgg_replay_night
    from bodoge.jobs import run_nightly
    from samplesite.generator import generate_site
    from samplesite.server import SampleSiteServer

    started = time.perf_counter()
    site = generate_site(n_games=n_games, n_users=n_users, seed=seed)
    print(f"demo: sample site generated ({n_games:,} games, {n_users:,} members, seed {seed}) "
          f"in {time.perf_counter() - started:.1f}s", flush=True)
    with SampleSiteServer(site) as server, ExitStack() as stack:
        base_url = server.base_url
        record_site(settings.paths.data_dir, {"games": n_games, "users": n_users, "seed": seed, "faults": site.faults,
                                     "port": int(base_url.rsplit(":", 1)[1])})
        print(f"demo: serving it on {base_url}; running the nightly job", flush=True)
        night, token = settings.replace(base_url=base_url), None
        if bgg:
            replay = stack.enter_context(bgg_replay_night(site, settings.paths.data_dir))
            night, token = night.replace(**replay.settings), replay.token
        summary = run_nightly(night, bgg_token=token)
    return summary, {"base_url": base_url, "seconds": time.perf_counter() - started}


def record_site(data_dir: Path, site: dict[str, Any]) -> Path:
    """Write the served site's parameters to DATA_DIR/sample-site.json (replacing any older note)."""
    path = Path(data_dir) / SITE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(site, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def recorded_site(data_dir: Path) -> dict[str, Any] | None:
    """The parameters the last `bodoge demo` in DATA_DIR served, or None without a (readable) note."""
    path = Path(data_dir) / SITE_FILE
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise ValueError(f"{path} is not the demo's note of its site ({exc}); remove it or pass "
                         "--games/--users/--seed") from None
    return note if isinstance(note, dict) else None
