"""A night that does not happen is a failed night (issue 19): one alert with its cause, exit 1.

Why real processes: at 03:00 nobody watches, so what counts is what `bodoge run` itself
does when the site cannot be crawled. A site that refuses connections, answers every page
with 503, or forbids us everything in robots.txt used to be refused as a "bad flag"
(exit 2, no alert) or to fail quietly; each must now be a failed night: exactly one
`night_failed` alert naming the cause, the run, the step and the site, one line on the
terminal, exit 1, and the published night and export left exactly as they were. The
daemon's failure sensor, which sees the same Dagster run under `bodoge serve`, must not
send a second alert. A malformed flag stays a usage error (exit 2), with no alert.
"""

from __future__ import annotations

import hashlib
import shutil
import socket
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from tests.support.nightly_process import BODOGE, NightlyProcess, one_error_line
from tests.support.nightly_process import site, site_url  # noqa: F401 - module-scoped fixtures
from tests.support.warehouse_fixtures import make_warehouse
from tests.support.warehouse_fixtures import build_small_warehouse
from warehouse.db import connect, ensure_table
from warehouse.release.export import export_bundle
from warehouse.release.publish import publication
from warehouse.release.release import release_night
from tests.support.http_stubs import QuietHandler, Receiver, serve


class _Only503(QuietHandler):
    """Every page, robots.txt included, is 503 (an overloaded or half-down site)."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.answer(503, headers={"Retry-After": "0"})


class _RobotsDisallowAll(QuietHandler):
    """robots.txt says `Disallow: /` to everyone; every other page would answer 200."""

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/robots.txt":
            self.answer(200, b"User-agent: *\nDisallow: /\n", content_type="text/plain")
        else:
            self.answer(200, b"<html><body>ok</body></html>")


@pytest.fixture()
def bad_site(request) -> Iterator[str]:
    """The base URL of a site that cannot be crawled, the way `request.param` says."""
    if request.param == "refused":
        held = socket.socket()  # bound but not listening: every connection is refused
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}"
        held.close()
        return
    handler = {"503": _Only503, "robots": _RobotsDisallowAll}[request.param]
    server = serve(handler)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture()
def alerts() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(scope="module")
def published_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory that already holds a published night and an export bundle (LATEST)."""
    root = tmp_path_factory.mktemp("published")
    data = root / "data"
    data.mkdir()
    make_warehouse(root / "bundle_source.duckdb", "night-0")
    with connect(root / "bundle_source.duckdb") as con:
        bundle = export_bundle(con, data / "exports")
    con = connect(build_small_warehouse(root / "night-0.duckdb"))
    try:  # the night's end: published.duckdb, then LATEST
        release_night(con, data, run_id="night-0", bundle_run_id=bundle.run_id)
    finally:
        con.close()
    return data


@pytest.fixture()
def published(published_template: Path, tmp_path: Path) -> Path:
    """A copy of the module's published data directory, for one failed night to leave as it was."""
    return shutil.copytree(published_template, tmp_path / "data", symlinks=True)


def fingerprint(data: Path) -> dict:
    """What readers and the site see: the published file's bytes, LATEST, and every bundle file."""
    exports = data / "exports"
    return {
        "published.duckdb": hashlib.sha256((data / "published.duckdb").read_bytes()).hexdigest(),
        "LATEST": (exports / "LATEST").read_text(encoding="utf-8"),
        "bundles": sorted(str(p.relative_to(exports)) for p in exports.rglob("*") if p.is_file()),
    }


@pytest.mark.parametrize(("bad_site", "cause"), [
    ("refused", "Connection refused"),
    ("503", "all HTTP 503"),
    ("robots", "robots.txt of"),
], indirect=["bad_site"])
def test_a_night_that_cannot_crawl_alerts_once_with_its_cause_and_publishes_nothing(
    published: Path, bad_site: str, cause: str, alerts: Receiver
) -> None:
    before = fingerprint(published)
    code, lines = NightlyProcess(published, bad_site, "--alert-url", alerts.url).finish(timeout=300)
    last = one_error_line(lines)
    assert code == 1, "\n".join(lines)
    assert last.startswith("bodoge: error: nightly run") and cause in last and "nothing was published" in last
    assert len(alerts.bodies) == 1, alerts.bodies
    alert = alerts.bodies[0]
    assert alert["kind"] == "night_failed" and alert["failed_step"] == "raw_tables"
    assert cause in alert["cause"] and "\n" not in alert["cause"] and alert["cause"] in last
    assert alert["base_url"] == bad_site and alert["run_id"] in last
    assert datetime.fromisoformat(alert["sent_at"]).tzinfo is not None
    assert (published / "alerts" / f"failed-{alert['run_id']}.json").is_file()
    assert fingerprint(published) == before

    # Under `bodoge serve` the daemon's failure sensor sees this same failed run: no second alert.
    assert not _daemon_sensor_alerts(published, alert["run_id"], alerts.url, bad_site)
    assert len(alerts.bodies) == 1


def _daemon_sensor_alerts(data: Path, run_id: str, alert_url: str, base_url: str) -> bool:
    """Run the real `nightly_failed` run-failure sensor on the run; True if it sent anything."""
    import dagster as dg
    from dagster_duckdb import DuckDBResource

    from pipelines.defs.resources import AlertSettings, SiteSettings
    from pipelines.defs.schedules import nightly_failed

    before = len(list((data / "alerts").glob("*.json")))
    with dg.DagsterInstance.from_config(str(data / "dagster_home")) as instance:
        run = instance.get_run_by_id(run_id)
        assert run is not None and run.status == dg.DagsterRunStatus.FAILURE
        failure = instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_FAILURE)[-1].dagster_event
        context = dg.build_run_status_sensor_context(
            sensor_name="nightly_failed", dagster_event=failure, dagster_instance=instance, dagster_run=run,
            resources={"duckdb": DuckDBResource(database=str(data / "warehouse.duckdb")),
                       "site": SiteSettings(base_url=base_url, data_dir=str(data)),
                       "alerts": AlertSettings(alert_url=alert_url)},
        ).for_run_failure()
        nightly_failed(context)
    return len(list((data / "alerts").glob("*.json"))) != before


def test_a_bundle_whose_lines_do_not_match_their_schema_fails_the_night_and_publishes_nothing(
    published: Path, site_url: str, alerts: Receiver
) -> None:
    """Issue 23: the export's lines are validated before the bundle is published.

    The warehouse holds a marts.recommendations left with `score` as text (a table keeps
    the shape it was made with: `CREATE TABLE IF NOT EXISTS`), so a real night crawls,
    builds and ranks as usual, and its bundle's lines carry scores as strings. It must
    fail like a failed check: exit 1, one `night_failed` alert naming the file and line,
    and the published night, LATEST and every bundle as they were (no half bundle).
    """
    with connect(published / "warehouse.duckdb") as con:
        ensure_table(con, "recommendations")
        con.execute("ALTER TABLE marts.recommendations ALTER COLUMN score TYPE VARCHAR")
    before = fingerprint(published)
    code, lines = NightlyProcess(published, site_url, "--alert-url", alerts.url).finish(timeout=400)
    last = one_error_line(lines)
    assert code == 1, "\n".join(lines)
    says = ("recommendations.jsonl line 1 does not match schemas/recommendations.schema.json: "
            'at /items/0/score: "')
    assert last.startswith("bodoge: error: nightly run") and says in last and "nothing was published" in last, last
    assert len(alerts.bodies) == 1, alerts.bodies
    alert = alerts.bodies[0]
    assert alert["kind"] == "night_failed" and alert["failed_step"] == "export__site_bundle", alert
    assert says in alert["cause"] and 'is not of type "number"' in alert["cause"] and alert["cause"] in last
    # The crawl ran, so members not on this site were cut from the published night (privacy,
    # warehouse.release.publish.scrub_published); it is still night-0's, and LATEST and the bundles are as they were.
    after = fingerprint(published)
    assert {k: v for k, v in after.items() if k != "published.duckdb"} == {
        k: v for k, v in before.items() if k != "published.duckdb"}
    with duckdb.connect(str(published / "published.duckdb"), read_only=True) as con:
        assert (publication(con) or {}).get("run_id") == "night-0"


@pytest.mark.parametrize(("flag", "says"), [
    (["--alert-url", "notaurl"], "--alert-url: not an http(s) URL"),
    (["--push", "ftp:/x"], "--push: not an http(s) URL"),
    (["--base-url", "nonsense"], "--base-url: not an http(s) base URL"),
])
def test_a_malformed_flag_is_a_usage_error_not_a_failed_night(tmp_path: Path, alerts: Receiver,
                                                               flag: list[str], says: str) -> None:
    """Exit 2 and one line, before anything starts: no log, no Dagster run, no alert."""
    import os

    args = ["--base-url", "http://127.0.0.1:9", *flag] if flag[0] != "--base-url" else flag
    done = subprocess.run([*BODOGE, "run", "--data-dir", str(tmp_path), *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "BODOGE_ALERT_URL": alerts.url})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and says in done.stderr
    assert not alerts.bodies and alerts.requests == 0
    assert not any((tmp_path / name).exists() for name in ("logs", "dagster_home", "alerts"))
