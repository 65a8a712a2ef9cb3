"""A damaged published night is a derived file the next night replaces, not a reason to stop.

Why real processes: the crawl's privacy eraser opened DATA_DIR/published.duckdb when the
crawl started, so a file truncated to half failed every `bodoge run` in seconds with
"cannot write to warehouse …: Could not read enough bytes from file …/published.duckdb"
(an operator following that line would restore a healthy warehouse). Here the file is
truncated between two real nights, and on the second one a member turns private: the night
says in one line that the copy cannot be read, publishes a new one, and the member is in
no copy (who the damaged file showed is unknown, so the cut goes by name everywhere).
"""

from __future__ import annotations

import dataclasses
import json
import os

import duckdb

from tests.support.nightly_process import FirstNight, NightlyProcess
from warehouse.release.publish import published_path


def test_a_truncated_published_night_is_replaced_by_the_next_night(crash_night: FirstNight) -> None:
    data, server = crash_night.data, crash_night.server
    site = server.site
    path = published_path(data)
    with duckdb.connect(str(path), read_only=True) as con:
        gone = con.execute("SELECT min(user_id) FROM marts.recommendations").fetchone()[0]
    os.truncate(path, path.stat().st_size // 2)

    server.site = dataclasses.replace(site, members=tuple(
        dataclasses.replace(m, private=True) if m.user_id == gone else m for m in site.members))
    code, lines = NightlyProcess(data, server.base_url).finish(timeout=400)
    text = "\n".join(lines)
    assert code == 0, text[-3000:]
    assert "Traceback" not in text
    said = [ln for ln in lines if "published.duckdb cannot be read" in ln]
    assert len(said) == 1 and "the next successful night" in said[0], text[-3000:]
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM marts.games").fetchone()[0] > 0
        assert con.execute("SELECT count(*) FROM marts.members WHERE user_id = ?", [gone]).fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM marts.recommendations WHERE user_id = ?",
                           [gone]).fetchone()[0] == 0
    for bundle in (p for p in (data / "exports").iterdir() if p.is_dir()):
        for file in bundle.glob("*.jsonl"):
            users = {json.loads(line).get("user_id") for line in file.read_text(encoding="utf-8").splitlines()}
            assert gone not in users, f"{bundle.name}/{file.name}"
