"""The summary printed after a nightly run: counts, checks, where everything is."""

from __future__ import annotations

from bodoge.config import Paths
from bodoge.jobs import JobSummary


def print_summary(paths: Paths, summary: JobSummary, *, demo_seconds: float | None = None) -> None:
    from warehouse.db import connect, scalar

    con = connect(paths.warehouse, read_only=True)
    try:
        def count(table: str) -> int:
            try:
                return int(scalar(con, f"SELECT count(*) FROM {table}") or 0)
            except Exception:  # noqa: BLE001 - a table the run did not build yet
                return 0

        print()
        took = f"{demo_seconds:.0f}s" if demo_seconds is not None else f"{summary.seconds:.0f}s"
        print(f"Nightly run {summary.run_id} finished in {took}: {len(summary.steps)} steps.")
        print(f"  games {count('marts.games'):,} · members {count('marts.members'):,} · "
              f"collection rows {count('marts.collections'):,} · cafe offers {count('marts.cafe_games'):,} · "
              f"quarantined pages {count('raw.quarantine'):,}")
        failed = [c for c in summary.checks if not c["passed"]]
        print(f"  checks: {len(summary.checks) - len(failed)}/{len(summary.checks)} passed"
              + "".join(f"\n    {c['severity']}: {c['name']} on {c['asset']}" for c in failed))
    finally:
        con.close()
    print()
    print(f"Warehouse:  {paths.warehouse}")
    print(f"Exports:    {paths.exports}")
    print(f"Dagster UI: DAGSTER_HOME={paths.data_dir / 'dagster_home'} BODOGE_DATA_DIR={paths.data_dir} uv run dg dev")
    print(f"Dashboard:  uv run bodoge dashboard --data-dir {paths.data_dir}")
