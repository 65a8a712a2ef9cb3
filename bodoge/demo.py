"""`bodoge demo`: the sample site, served locally, through the whole nightly job, then a summary."""

from __future__ import annotations

import time
from typing import Any

from core.config import Paths
from bodoge.jobs import JobSummary, run_nightly


def run_demo(paths: Paths, *, n_games: int, n_users: int, seed: int) -> tuple[JobSummary, dict[str, Any]]:
    """Generate and serve the sample site, run the nightly job on it, return what to report."""
    from samplesite.generator import generate_site
    from samplesite.server import SampleSiteServer

    started = time.perf_counter()
    site = generate_site(n_games=n_games, n_users=n_users, seed=seed)
    print(f"demo: sample site generated ({n_games:,} games, {n_users:,} members, seed {seed}) "
          f"in {time.perf_counter() - started:.1f}s", flush=True)
    with SampleSiteServer(site) as server:
        base_url = server.base_url
        print(f"demo: serving it on {base_url}; running the nightly job", flush=True)
        summary = run_nightly(paths, base_url=base_url)
    return summary, {"base_url": base_url, "seconds": time.perf_counter() - started}
