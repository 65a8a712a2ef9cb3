"""Alerts: a failed night POSTs one JSON alert (retried if the endpoint is down), never two.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/test_alerts.py, tests/e2e/test_alerts.py.
"""

from __future__ import annotations

from datetime import timedelta




def test_the_ui_calls_a_night_late_when_the_alert_does() -> None:
    """published_night's freshness policy fails at the alert's 26 hours (one number), warns an hour before."""
    import dagster as dg

    from pipelines.alerts import FRESHNESS
    from pipelines.definitions import defs

    key = dg.AssetKey(["export", "published_night"])
    policy = defs().resolve_assets_def(key).specs_by_key[key].freshness_policy
    assert policy.fail_window.to_timedelta() == FRESHNESS
    assert policy.warn_window.to_timedelta() == FRESHNESS - timedelta(hours=1)
