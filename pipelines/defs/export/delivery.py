"""Delivery of the night's bundle to the site's endpoint, after the night is published."""

import sys
from datetime import datetime, timezone

import dagster as dg

from pipelines.defs.resources import NightlyLock, SiteSettings
from warehouse.release.delivery import Delivery, Pending, deliver
from warehouse.release.export import latest_bundle


@dg.asset(
    key=["export", "delivery"],
    deps=[dg.AssetKey(["export", "published_night"])],
    group_name="export",
    kinds={"json"},
    check_specs=[
        dg.AssetCheckSpec(
            "bundle_delivered",
            asset=["export", "delivery"],
            description="The site's endpoint took the night's bundle (WARN): otherwise it is retried at the "
            "next night's start and end, and alerted on after 26 hours.",
        )
    ],
)
def delivery(context: dg.AssetExecutionContext, site: SiteSettings, nightly_lock: NightlyLock):
    """The night's bundle POSTed to the site's endpoint (BODOGE_PUSH_URL, `bodoge run --push URL`).

    Runs after `published_night`, and never fails the night: the bundle is already published
    locally, so an endpoint that is down only leaves it pending (`warehouse.release.delivery`):
    retried with backoff for BODOGE_PUSH_RETRY_SECONDS, then at the next night. The same
    idempotency key makes every re-send safe.
    """
    url = site.push_url
    bundle = latest_bundle(site.paths.exports)
    if not url or bundle is None:
        yield dg.MaterializeResult(metadata={"push_url": url or "(none)", "delivered": False})
        yield dg.AssetCheckResult(check_name="bundle_delivered", passed=True,
                                  description="no push URL: nothing to deliver")
        return
    try:
        result = deliver(site.paths.data_dir, url, bundle=bundle, seconds=site.push_retry(), say=_say)
    except OSError as exc:  # the record could not be written: said, but the published night stands
        stuck = Pending(run_id=bundle.name, bundle=bundle, url=url, since=datetime.now(timezone.utc),
                        last_error=f"cannot record the delivery: {exc}")
        result = Delivery(pending=(stuck,))
    if result.delivered:
        line = (f"delivered bundle {result.delivered} to {url} after {result.attempts} attempt(s) "
                f"(idempotency key {result.idempotency_key})")
    else:
        cause = result.pending[-1].last_error if result.pending else "unknown"
        line = (f"WARNING: bundle {bundle.name} is published locally but not delivered to {url}: {cause}; "
                f"it is retried at the next night")
    _say(line)
    context.log.info(line)
    yield dg.MaterializeResult(metadata={
        "push_url": url, "delivered": bool(result.delivered), "idempotency_key": result.idempotency_key or "",
        "pending": [p.run_id for p in result.pending], "dropped": list(result.dropped),
    })
    yield dg.AssetCheckResult(check_name="bundle_delivered", passed=bool(result.delivered),
                              severity=dg.AssetCheckSeverity.WARN, description=line)


def _say(message: str) -> None:
    """A progress line `bodoge run` shows on the terminal (the run's log has it too)."""
    print(f"nightly: {message}", file=sys.stderr, flush=True)
