"""A real PostgreSQL server for the tests: a fresh cluster in a temp folder, stopped at the end.

Why real: the instance on PostgreSQL is about Dagster's own tables (runs, the event log,
the concurrency slots) under real processes; only a real server shows that they land
there and that recovery frees a slot held in them. PostgreSQL refuses to run as root, so
as root the cluster belongs to an unprivileged user (`postgres`, else `nobody`) and every
server command runs through `runuser`. The binaries are Debian's
(/usr/lib/postgresql/<version>/bin) or on PATH; without them the tests skip, saying so.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.serve_process import free_port

PASSWORD = "s3cret-Pg-pass-7781"  # must never show in a log, a line or dagster.yaml
USER = "bodoge"


def find_binaries() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: the newest Debian install, else PATH."""
    def version(p: Path) -> tuple[int, ...]:
        return tuple(int(x) for x in p.parent.parent.name.split(".") if x.isdigit())

    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=version)
    for initdb in reversed(debian):
        if (initdb.parent / "pg_ctl").exists() and (initdb.parent / "postgres").exists():
            return initdb.parent
    found = shutil.which("initdb")
    return Path(found).resolve().parent if found and shutil.which("pg_ctl") else None


@dataclass(frozen=True, slots=True)
class Server:
    """A running cluster on 127.0.0.1:port; `url(db)` carries the password, `admin()` connects."""

    port: int

    def url(self, db: str) -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{db}"

    def create_database(self, db: str) -> str:
        """A new empty database; returns its URL."""
        import psycopg2

        con = psycopg2.connect(self.url("postgres"))
        try:
            con.autocommit = True
            con.cursor().execute(f'CREATE DATABASE "{db}"')
        finally:
            con.close()
        return self.url(db)

    def query(self, db: str, sql: str, args: tuple = ()) -> list[tuple]:
        import psycopg2

        con = psycopg2.connect(self.url(db))
        try:
            cur = con.cursor()
            cur.execute(sql, args)
            return cur.fetchall()
        finally:
            con.close()


def _runner() -> tuple[list[str], int | None, int | None]:
    """The command prefix that runs as an unprivileged user, and that user's uid and gid."""
    if os.geteuid() != 0:
        return [], None, None
    for name in ("postgres", "nobody"):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        runuser = shutil.which("runuser")
        if runuser:
            return [runuser, "-u", name, "--"], user.pw_uid, user.pw_gid
    pytest.skip("running as root with neither runuser nor a postgres/nobody user: PostgreSQL will not start")


@contextmanager
def postgres_server() -> Iterator[Server]:
    """initdb, start on a free loopback port (socket in the temp folder), yield; always stop."""
    bindir = find_binaries()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH")
    prefix, uid, gid = _runner()
    root = Path(tempfile.mkdtemp(prefix="bodoge-pg-"))
    data, sock, log = root / "cluster", root / "sock", root / "server.log"
    pwfile = root / "pwfile"
    sock.mkdir()
    pwfile.write_text(PASSWORD + "\n", encoding="utf-8")
    if uid is not None:
        for p in (root, sock, pwfile):
            os.chown(p, uid, gid)
    port = free_port()

    def run(*args: str, timeout: float = 120) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=timeout, cwd=root)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()}\n{log.read_text() if log.exists() else ''}")

    started = False
    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", USER, "--pwfile", str(pwfile), "-A", "scram-sha-256",
            "-E", "UTF8", "--no-sync")
        run(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o",
            f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        started = True
        yield Server(port=port)
    finally:
        if started:
            subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
                           capture_output=True, timeout=120, cwd=root)
        shutil.rmtree(root, ignore_errors=True)
