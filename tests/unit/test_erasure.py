"""The erasure journal: a member found private leaves the published night and the bundles at once,
and a crawl that dies before the cut is finished by the writers (the crawl's parent, the next
night); readers never write.

The crawl-sized version (a real `bodoge run` killed with kill -9 right after the login page)
is tests/e2e/test_private_killed_crawl.py; these check each party on a small warehouse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from warehouse.db import connect
from warehouse.privacy.erasure import Eraser, journal_path, note, pending, settle_pending
from warehouse.release.publish import published_path
from warehouse.raw import RawWriter
from tests.support.night_checks import models_naming
from tests.support.erasure_night import MEMBER, _rows_of, night  # noqa: F401 - night is a fixture


def _with_models(data: Path) -> None:
    """What a night leaves under DATA_DIR/models/: the cleaned interactions, an evaluation list
    and the saved champion's id mapping, each naming MEMBER and member 500."""
    import polars as pl

    rows = pl.DataFrame({"user_id": [MEMBER, "500"], "game_id": ["khora", "khora"], "have": [True, True]})
    (data / "models" / "evaluation_lists").mkdir(parents=True)
    (data / "models" / "champion").mkdir()
    rows.write_parquet(data / "models" / "interactions.parquet")
    rows.select("user_id", "game_id").write_parquet(data / "models" / "evaluation_lists" / "time-ease.parquet")
    pl.DataFrame({"user_id": [MEMBER, "500"]}).write_parquet(data / "models" / "champion" / "users.parquet")
    (data / "models" / "tuning.json").write_text("{}", encoding="utf-8")


def _bundle_holds(data: Path, user: str) -> bool:
    lines = (data / "exports" / "run-1" / "recommendations.jsonl").read_text(encoding="utf-8").splitlines()
    return any(json.loads(line)["user_id"] == user for line in lines)


def test_the_crawl_writer_cuts_a_member_found_private_at_once_not_at_the_end_of_its_batch(night: Path) -> None:
    _with_models(night)
    with connect(night / "warehouse.duckdb") as con:
        writer = RawWriter(con, run_id="r2", batch_size=10_000, eraser=Eraser(night))
        writer.add("listing_crawl", {"listing": "collection", "key": MEMBER, "status": "private",
                                     "n_entries": 0, "n_pages": 1})
        # No flush asked for, the batch far from full: the login page alone cut them everywhere.
        assert con.execute("SELECT count(*) FROM raw.members WHERE user_id = ?", [MEMBER]).fetchone()[0] == 0
        assert _rows_of(published_path(night), MEMBER) == {}
        assert not _bundle_holds(night, MEMBER) and _bundle_holds(night, "500")
        assert models_naming(night / "models", MEMBER) == [] and models_naming(night / "models", "500") == [
            "evaluation_lists/time-ease.parquet", "interactions.parquet"]
        assert not (night / "models" / "champion").exists()  # fitted on them: re-fitted next night
        assert (night / "models" / "tuning.json").is_file()  # no member in it, kept
        assert not journal_path(night).exists()  # done: their id is written nowhere any more
        # A private member the published night never showed costs no commit and no copy.
        writer.add("listing_crawl", {"listing": "collection", "key": "999", "status": "private",
                                     "n_entries": 0, "n_pages": 1})
        assert pending(night) == {"999"} and writer._buffered == 1
        writer.flush()
        assert pending(night) == set()


def test_the_next_night_settles_the_journal_in_raw_the_published_night_and_every_bundle(night: Path) -> None:
    _with_models(night)
    note(night, [MEMBER])
    assert settle_pending(night, night / "warehouse.duckdb") == {MEMBER}
    with connect(night / "warehouse.duckdb") as con:
        for table in ("raw.members", "raw.collection_entries"):
            assert con.execute(f"SELECT count(*) FROM {table} WHERE user_id = ?", [MEMBER]).fetchone()[0] == 0
    assert _rows_of(published_path(night), MEMBER) == {}
    assert not _bundle_holds(night, MEMBER)
    assert models_naming(night / "models", MEMBER) == [] and not (night / "models" / "champion").exists()
    assert not journal_path(night).exists() and settle_pending(night, night / "warehouse.duckdb") == set()


def test_the_crawls_parent_cuts_at_once_what_a_killed_crawl_journalled_but_could_not_cut(
        night: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The crawl process died between the login page and its cut (step 3 of the journal's
    rule): `run_crawl`, a writer, settles the journal as soon as the crawl process is gone."""
    import scrapers.crawl
    from scrapers.crawl import CrawlError, run_crawl

    _with_models(night)

    def killed_after_the_login_page(cmd: list[str], **kwargs: object) -> tuple[int, list[str]]:
        note(night, [MEMBER])
        return -9, []

    monkeypatch.setattr(scrapers.crawl, "_run_child", killed_after_the_login_page)
    with pytest.raises(CrawlError, match="signal 9"):
        run_crawl(base_url="http://127.0.0.1:1", warehouse=night / "warehouse.duckdb", data_dir=night)
    with connect(night / "warehouse.duckdb") as con:
        assert con.execute("SELECT count(*) FROM raw.members WHERE user_id = ?", [MEMBER]).fetchone()[0] == 0
    assert _rows_of(published_path(night), MEMBER) == {}
    assert not _bundle_holds(night, MEMBER) and _bundle_holds(night, "500")
    assert models_naming(night / "models", MEMBER) == [] and not (night / "models" / "champion").exists()
    assert not journal_path(night).exists()


def test_a_cut_the_crawls_parent_cannot_make_fails_the_crawl_in_one_line_and_stays_journalled(
        night: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import scrapers.crawl
    from scrapers.crawl import CrawlError, run_crawl

    def killed_after_the_login_page(cmd: list[str], **kwargs: object) -> tuple[int, list[str]]:
        note(night, [MEMBER])
        broken = night / "exports" / "run-1" / "recommendations.jsonl"
        broken.write_text('{"user_id":"17406", not json\n', encoding="utf-8")
        return -9, []

    monkeypatch.setattr(scrapers.crawl, "_run_child", killed_after_the_login_page)
    with pytest.raises(CrawlError, match=r"^members the crawl found private are not cut yet: .*unreadable"):
        run_crawl(base_url="http://127.0.0.1:1", warehouse=night / "warehouse.duckdb", data_dir=night)
    assert pending(night) == {MEMBER}  # the next night tries again


def test_after_a_crawl_the_privacy_cut_leaves_only_members_public_now_in_every_copy(night: Path) -> None:
    """The cut by rule the crawl asset calls: whoever the warehouse no longer knows as public
    leaves the bundles, the published night and the backups, each still whole."""
    from warehouse.backup.backup import list_backups, make_backup, verify_backup
    from warehouse.privacy.cut import cut_everywhere

    backups = night / "backups"
    with connect(night / "warehouse.duckdb") as con:
        make_backup(con, night / "warehouse.duckdb", backups, run_id="night-1")
        # Tonight's crawl found MEMBER's login page: raw lost every row of theirs.
        for table, column in (("raw.collection_entries", "user_id"), ("raw.members", "user_id"),
                              ("raw.listing_crawls", "key")):
            con.execute(f"DELETE FROM {table} WHERE {column} = ?", [MEMBER])
        cut = cut_everywhere(night, public_from=con, backups=backups, keep=7)
    assert (cut.published, cut.bundles, cut.deleted_bundles) == ([MEMBER], ["run-1"], [])
    assert _rows_of(published_path(night), MEMBER) == {} and _rows_of(published_path(night), "500")
    assert not _bundle_holds(night, MEMBER) and _bundle_holds(night, "500")
    [backup] = list_backups(backups)
    assert cut.backups == [backup.name] and verify_backup(backup.path)
    assert _rows_of(backup.database, MEMBER) == {}
