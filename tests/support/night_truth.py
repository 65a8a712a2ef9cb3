"""The variant nights' checks: what each signal's night recorded, and nights 1→2→3 of a variant.

Built on `tests.support.night_checks` (the same queries every night test judges a night with).
"""

from __future__ import annotations

import json
from pathlib import Path

from samplesite import SampleSiteServer, truth_frames
from samplesite.model import Site
from samplesite.nights import site_on_night
from tests.support.crawl_fixtures import crawl_and_build
from tests.support.night_checks import collections_differ, frame, trace_of


def recorded(warehouse: Path, run_id: str) -> tuple[dict, dict]:
    """(strategy per signal in raw.crawl_runs.stats, (state, strategy) per signal in raw.crawl_signals)."""
    stats = json.loads(frame(warehouse, "SELECT stats FROM raw.crawl_runs WHERE run_id = ?", [run_id])["stats"][0])
    runs = {k.removeprefix("bodoge/strategy/"): v for k, v in stats.items() if k.startswith("bodoge/strategy/")}
    rows = frame(warehouse, "SELECT signal, state, strategy FROM raw.crawl_signals WHERE run_id = ?", [run_id])
    return runs, {r["signal"]: (r["state"], r["strategy"]) for r in rows.to_dicts()}


def assert_night_is_truth(warehouse: Path, night: Site, k: int) -> None:
    assert collections_differ(warehouse, night) == 0, f"night {k}: collection rows differ from the truth"
    truth = truth_frames(night)
    members = set(frame(warehouse, "SELECT user_id FROM marts.members")["user_id"])
    assert set(truth["members"]["user_id"]) <= members, f"night {k}: a public member is missing"
    private = truth["private_users"]["user_id"].to_list()
    assert trace_of(warehouse, private) == 0, f"night {k}: a private member left a trace"


def variant_nights(tmp_path: Path, site: Site, variant: str, *, signal: str, fallback: str) -> None:
    """Nights 1→2→3 of `site` drawn with `variant`: each equal to its truth, `signal` on `fallback`.

    Night 3 revalidates every game and post page (max age one day). Asserts as it goes.
    """
    n_games, n_members = len(site.games), len(site.members)
    warehouse = tmp_path / "warehouse.duckdb"
    with SampleSiteServer(site, variants={variant}) as srv:
        full = crawl_and_build(srv.base_url, warehouse)
        assert_night_is_truth(warehouse, site, 1)
        _, measured = recorded(warehouse, full.run_id)
        assert measured[signal][0] in ("absent", "contradicted"), measured
        for k in (2, 3):
            night = site_on_night(site, k)
            srv.site = night
            srv.faults.reset()
            result = crawl_and_build(srv.base_url, warehouse, max_age_days=1 if k == 3 else 7)
            stats = result.stats
            assert stats["bodoge/mode"] == "incremental"
            assert_night_is_truth(warehouse, night, k)
            runs, signals = recorded(warehouse, result.run_id)
            assert runs[signal] == fallback and signals[signal][1] == fallback, (runs, signals)
            if signal in ("directory_updates", "private_marker"):
                assert stats.get("bodoge/skipped/collections", 0) == 0  # page 1 of every known member instead
                assert stats["bodoge/collections/page1_checks"] > 0.8 * n_members
            else:
                assert stats["bodoge/skipped/collections"] > 0.8 * n_members
                assert stats.get("bodoge/pages/not_modified", 0) == 0
                if k == 3:  # every game page revalidated: unchanged bodies are told by their sha256
                    assert stats["bodoge/pages/same_body"] > 0.5 * n_games
