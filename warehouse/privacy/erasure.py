"""Members a crawl finds private leave what readers and the site see at once, even if the crawl dies.

Why: the crawl writer purges a private member from raw at its next batch commit, but the
published night (`published.duckdb`) and the export bundles are other files; cut only after
the crawl finished, a crawl killed in between would leave the member's name, collection
and recommendations readable until a later crawl finished. The rule:

1. The moment the crawl learns a member is private, their id is appended to the
   journal `DATA_DIR/erasures.pending` and fsynced (`Eraser.learned`), before the writer
   goes on. A kill -9 can come at any instant after this; the journal survives it.
2. At the writer's next commit (made at once when the member is in the published night),
   raw has lost them; the published night, every export bundle and the models' files
   are cut (`warehouse.privacy.cut.cut_everywhere`), then their ids leave the journal
   (`Eraser.committed`).
3. If the crawl died between 1 and 2, the writers finish the cut, at once: the process
   that ran the crawl (`scrapers.crawl.run_crawl`) as soon as the crawl process is gone,
   and, if it died too, the next nightly run at start-up. Either purges them from raw,
   cuts the published night, the bundles and the models' files, and empties the journal
   (`settle_pending`). Every one of these cuts also reaches the kept backups and the files a
   restore kept (`warehouse.duckdb.replaced-*`): a restore in that window would otherwise
   bring the member back. Readers never write (`warehouse.readers`): they open the published
   night as it is.

The journal is the only place a private member's id is written, and only for as long as
their cut is pending: it is emptied as soon as every cut is done (CONTRACT: a private
collection leaves no trace).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import duckdb

from warehouse.journal import JOURNAL_NAME, journal_path, pending  # noqa: F401 - the journal's names, here too
from warehouse.privacy.cut import cut_everywhere
from warehouse.release.bundle_io import fsync_dir

log = logging.getLogger("bodoge.privacy")

def note(data_dir: Path, users: list[str] | set[str]) -> None:
    """Append `users` to the journal and fsync it (and the folder, when the file is new)."""
    if not users:
        return
    path = journal_path(data_dir)
    new = not path.exists()
    _write_ids(path, users, os.O_APPEND)
    if new:
        fsync_dir(path.parent)


def settle(data_dir: Path, users: set[str]) -> None:
    """Drop `users` from the journal (replaced atomically; removed once empty)."""
    path = journal_path(data_dir)
    left = pending(data_dir) - set(users)
    if not left:
        path.unlink(missing_ok=True)
        fsync_dir(path.parent)
        return
    tmp = path.with_name(path.name + ".tmp")
    _write_ids(tmp, left, os.O_TRUNC)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _write_ids(path: Path, users: set[str] | list[str], mode: int) -> None:
    """Write one id a line (appended or truncating, per `mode`), owner-only, and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o600)
    try:
        os.write(fd, "".join(f"{u}\n" for u in sorted(users)).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def settle_pending(data_dir: Path, warehouse: str | Path, *, backups: Path | None = None) -> set[str]:
    """A writer's part when a crawl died before its cut (the crawl's parent once the crawl
    process is gone, the next night at start-up): purge the journal's members from raw,
    cut the published night, the bundles, the models' files, the backups (`backups`, else
    where the settings put them) and the replaced files, empty the journal; returns who was
    settled (nothing to do, and nothing opened, without a journal)."""
    users = pending(data_dir)
    if not users:
        return set()
    from warehouse.backup.backup import default_backups
    from warehouse.raw import ensure_raw_schema

    with duckdb.connect(str(warehouse)) as con:
        ensure_raw_schema(con)
        cut_everywhere(data_dir, users, purge=con, backups=backups or default_backups(data_dir),
                       warehouse=Path(warehouse))
    settle(data_dir, users)
    log.warning("privacy: %d member(s) a killed crawl found private were cut everywhere", len(users))
    return users


def settle_restored(data_dir: Path, warehouse: Path, *, backups: Path,
                    public_before: set[str] | None) -> set[str]:
    """After `bodoge restore` swapped a backup in: the journal's members, and members the
    replaced warehouse no longer knew as public (`public_before`, None when it could not be
    read), leave the restored warehouse (every schema: raw and marts), then every copy by
    name (published night, bundles, models, backups, replaced files, the one just kept
    included); the journal is emptied. Returns who was cut. The caller holds the nightly lock.

    Why: the backup was made while they were public; restoring it must not bring them back.
    A cut the guard refuses (`warehouse.privacy.erase`: the replaced warehouse shows most
    members private) is logged and only the journal's members are cut.
    """
    from warehouse.privacy.erase import TooManyToErase, erase_members_not_in, erase_named

    journal = pending(data_dir)
    with duckdb.connect(str(warehouse)) as con:
        gone = erase_named(con, journal)
        if public_before is not None:
            try:
                gone |= erase_members_not_in(con, public_before)
            except TooManyToErase as exc:
                log.warning("restore: not cut against the replaced warehouse: %s", exc)
        if gone:
            con.execute("CHECKPOINT")
    users = gone | journal
    if users:
        cut_everywhere(data_dir, users, backups=backups, warehouse=warehouse)
        log.warning("privacy: %d member(s) not public now cut from the restored warehouse and every copy", len(users))
    if journal:
        settle(data_dir, journal)
    return users


class Eraser:
    """The crawl writer's side: journal a private member at once, cut them after the commit.

    `learned` returns True when the member is in the published night now (read once, when
    the crawl starts), so the writer commits at once instead of at its next full batch:
    their rows leave what readers see within the page that showed the login page. A
    published night that cannot be read (damaged) is no reason to stop the crawl: who it
    shows is then unknown (`published` is None), so every member found private is cut by
    name from every copy, at once.
    """

    def __init__(self, data_dir: Path, warehouse: str | Path | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.warehouse = Path(warehouse) if warehouse else None
        self.published = _published_members(self.data_dir)
        self._learned: set[str] = set()

    def learned(self, user: str) -> bool:
        """Journal `user` (durably, before anything else); whether a commit is urgent."""
        note(self.data_dir, [user])
        self._learned.add(user)
        return self.published is None or user in self.published

    def committed(self) -> None:
        """Raw no longer holds the members learned so far: cut them everywhere, then forget them."""
        if not self._learned:
            return
        users, self._learned = self._learned, set()
        # Those the published night does not show leave the models' files only: a night that
        # failed after training may have kept them there.
        # Backups and replaced files by name too: a kill after this point leaves the journal
        # empty, and a restore before the next finished crawl would bring them back.
        from warehouse.backup.backup import default_backups

        done = cut_everywhere(self.data_dir, users, shown=self.published,
                              backups=default_backups(self.data_dir), warehouse=self.warehouse)
        if self.published is not None and users & self.published:
            self.published -= users
            log.info("privacy: %d member(s) found private cut from the published night, %d bundle(s) rewritten",
                     len(done.published), len(done.bundles))
        settle(self.data_dir, users)


def _published_members(data_dir: Path) -> set[str] | None:
    """Every member id the published night names (empty before the first night; None when
    the file cannot be read, said in one line: a derived file the night replaces)."""
    from warehouse.release.publish import first_line, member_columns, published_path, unreadable_line

    path = published_path(data_dir)
    if not path.is_file():
        return set()
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            users: set[str] = set()
            for schema, table, column in member_columns(con):
                users |= {r[0] for r in con.execute(
                    f"SELECT DISTINCT {column} FROM {schema}.{table} WHERE {column} IS NOT NULL").fetchall()}
            return users
    except duckdb.Error as exc:
        log.warning("privacy: %s", unreadable_line(path, first_line(exc)))
        return None
