"""The BGG sync: real Scrapy crawls over HTTP against the replay server, into a real DuckDB warehouse.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_bgg_sync.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapers.bgg_sync import BggSyncError, TokenError, read_links, read_token


def _links(tmp_path: Path, rows: str = "u1,alice\nu2,bob\nu3,nobody-here\n") -> Path:
    path = tmp_path / "links.csv"
    path.write_text("user_id,bgg_user\n" + rows, encoding="utf-8")
    return path


def test_token_sources_and_links_file_errors(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("from-a-file\n", encoding="utf-8")
    assert read_token({"BODOGE_BGG_TOKEN_FILE": str(tmp_path / "token")}) == "from-a-file"
    assert read_token({"BODOGE_BGG_TOKEN": " env ", "BODOGE_BGG_TOKEN_FILE": str(tmp_path / "token")}) == "env"
    with pytest.raises(TokenError, match="no BoardGameGeek token"):
        read_token({})
    bad = tmp_path / "bad.csv"
    bad.write_text("member,bgg\n", encoding="utf-8")
    with pytest.raises(BggSyncError, match="header user_id,bgg_user"):
        read_links(bad)
    assert read_links(_links(tmp_path, "u2,bob\n\nu1,alice\n")) == [("u1", "alice"), ("u2", "bob")]
