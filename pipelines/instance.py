"""Where the Dagster instance keeps its runs: SQLite in DATA_DIR/dagster_home, or PostgreSQL.

Why a module of its own: `bodoge run`, `bodoge serve` and the runs they start all open
the instance from `DATA_DIR/dagster_home/dagster.yaml`, so one place decides what that
file says.

- SQLite stays the default (the demo, a laptop): nothing to install, nothing to set. The
  file names `instance_class: pipelines.sqlite_events.BodogeInstance`: Dagster's own
  instance and storage in the same folder, with each event-log file kept open rather than
  opened for every event (pipelines/sqlite_events.py says why).
- `BODOGE_DAGSTER_PG_URL=postgresql://user:pass@host:5432/db` puts run storage, schedule
  storage, the event log and the concurrency pools (the `warehouse_writer` slot) in
  PostgreSQL, for a service that must survive its disk or be watched from elsewhere.
  The file names the variable (`postgres_url: {env: BODOGE_DAGSTER_PG_URL}`), so the
  password is never written to disk, and every description of it here hides it.
- A file bodoge wrote carries MARKER on its first line and is rewritten to match the
  environment; a file without it is the operator's own (docs/operations.md shows one) and is
  never rewritten: the operator's explicit choice wins, and a contradiction between it and
  BODOGE_DAGSTER_PG_URL is refused in one line rather than guessed.
- Going back from PostgreSQL to SQLite is never silent: a lost environment file must not
  fork the run history, so the operator deletes the file to mean it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

PG_URL_ENV = "BODOGE_DAGSTER_PG_URL"
MARKER = "# Written by bodoge (pipelines/instance.py): rewritten to match BODOGE_DAGSTER_PG_URL."
CONNECT_TIMEOUT_SECONDS = 10
# What dagster-postgres can use: psycopg2 (SQLAlchemy is held below 2.1, where a bare
# postgresql:// would mean psycopg 3, whose NOTIFY dagster-postgres 0.29 cannot send).
DRIVERS = ("postgresql", "postgresql+psycopg2")

# One writer at a time on the warehouse, whoever starts the run; the daemon's run
# monitoring fails runs whose worker died (bodoge run recovers its own, see worker).
# op_granularity_run_buffer: the daemon launches one queued run even while a dead run
# still holds the warehouse_writer slot. Without it the queue waits for that slot for
# ever, and only a launched run can recover the dead one (pipelines/run_guard.py).
# free_slots_after_run_end_seconds: a run that ended (failed, canceled) without releasing
# its slot gives it back a minute later instead of at the next night's recovery.
# max_runtime_seconds: a run alive but hung past 4 days is failed and its slot freed; a
# legitimate run never takes that long (the first full crawl is about 71 hours).
MAX_RUNTIME_SECONDS = 4 * 24 * 3600
FREE_SLOTS_AFTER_SECONDS = 60
_COMMON = (
    "concurrency:\n  pools:\n    default_limit: 1\n    op_granularity_run_buffer: 1\n"
    "run_monitoring:\n  enabled: true\n"
    f"  free_slots_after_run_end_seconds: {FREE_SLOTS_AFTER_SECONDS}\n"
    f"  max_runtime_seconds: {MAX_RUNTIME_SECONDS}\n"
    "telemetry:\n  enabled: false\n"
)
# What bodoge wrote before this module: no marker, still bodoge's own (rewritten).
LEGACY = (
    "concurrency:\n  pools:\n    default_limit: 1\n"
    "run_monitoring:\n  enabled: true\n"
    "telemetry:\n  enabled: false\n"
)
_POSTGRES = f"storage:\n  postgres:\n    postgres_url:\n      env: {PG_URL_ENV}\n"


class InstanceConfigError(ValueError):
    """The instance's settings contradict each other or its database cannot be reached."""


@dataclass(frozen=True, slots=True)
class Storage:
    """Which storage the instance uses, said without a password."""

    kind: str  # "PostgreSQL" or "SQLite"
    where: str  # user@host:port/db, or the SQLite folder
    config: Path
    owner: str  # "bodoge" (rewritten to match the environment) or "operator" (never touched)
    switched: bool = False  # this call moved a SQLite instance to PostgreSQL

    def __str__(self) -> str:
        whose = "written by bodoge" if self.owner == "bodoge" else "the operator's own, never rewritten"
        line = f"on {self.kind} ({self.where}); {self.config}: {whose}"
        if self.switched:
            line += f"; switched from SQLite: runs recorded before stay in {self.config.parent / 'history'}, not copied"
        return line


# SQLite: Dagster's default storage in the instance's folder, its event log kept open
# (pipelines/sqlite_events.py). Named as the instance's class, which gives the storage's
# defaults from the folder it is read from: a copied or moved data directory stays whole.
_SQLITE = "instance_class:\n  module: pipelines.sqlite_events\n  class: BodogeInstance\n"


def render(*, postgres: bool) -> str:
    """The dagster.yaml bodoge writes: SQLite (Dagster's default storage, kept open) or PostgreSQL."""
    return f"{MARKER}\n{_COMMON}{_POSTGRES if postgres else _SQLITE}"


def configure(home: Path, environ: Mapping[str, str] | None = None) -> Storage:
    """Make `home/dagster.yaml` say what the environment asks for; InstanceConfigError if it cannot.

    A PostgreSQL server is asked once (a short connection), so a wrong password or a server
    that is down is one line before any process starts, not a failed night.
    """
    environ = os.environ if environ is None else environ
    url = (environ.get(PG_URL_ENV) or "").strip() or None
    if url:
        check_url(url)
    home.mkdir(parents=True, exist_ok=True)
    path = home / "dagster.yaml"
    text = path.read_text(encoding="utf-8") if path.exists() else None
    if text is not None and not _ours(text):
        return _operator_file(path, text, environ, url)
    was_postgres = text is not None and _POSTGRES in text
    if url is None:
        if was_postgres:
            raise InstanceConfigError(
                f"{path} keeps this Dagster instance on PostgreSQL but {PG_URL_ENV} is not set: "
                f"set it (is the service's environment file loaded?), or delete that file to go back to SQLite")
        _write(path, text, render(postgres=False))
        return Storage("SQLite", str(home / "history"), path, "bodoge")
    check_reachable(url)
    _write(path, text, render(postgres=True))
    switched = text is not None and not was_postgres and (home / "history" / "runs.db").exists()
    return Storage("PostgreSQL", safe_url(url), path, "bodoge", switched=switched)


def check_url(url: str) -> None:
    """A postgresql:// URL with a database name (SQLAlchemy, under Dagster, takes no other)."""
    parts = urlsplit(url)
    if parts.scheme not in DRIVERS or not parts.path.strip("/"):
        raise InstanceConfigError(
            f"{PG_URL_ENV}: not a postgresql://user:password@host:port/database URL: {safe_url(url)}")


def check_reachable(url: str) -> None:
    """Connect once and leave; the server's first line of complaint (it never holds the password)."""
    import psycopg2

    try:
        plain = "postgresql" + url[len(urlsplit(url).scheme):]  # libpq knows no +driver
        psycopg2.connect(plain, connect_timeout=CONNECT_TIMEOUT_SECONDS).close()
    except psycopg2.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InstanceConfigError(
            f"cannot reach the Dagster instance's PostgreSQL at {safe_url(url)}: {first}") from None


def safe_url(url: str) -> str:
    """user@host:port/database: what an operator needs to recognise the server, no password."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    user = unquote(parts.username) + "@" if parts.username else ""
    host = parts.hostname or "(local socket)"
    return f"{parts.scheme}://{user}{host}{f':{port}' if port else ''}{parts.path}"


def describe(instance: Any) -> str:
    """A live instance's run storage, said without a password (logged by every run and by serve)."""
    storage = instance.run_storage
    url = getattr(storage, "postgres_url", None)
    if url:
        return f"on PostgreSQL ({safe_url(url)})"
    name = type(storage).__name__.removesuffix("RunStorage")
    return f"on {'SQLite' if name == 'Sqlite' else name or 'its own storage'} ({instance.root_directory})"


def _ours(text: str) -> bool:
    return text.startswith(MARKER) or text == LEGACY


def _write(path: Path, old: str | None, new: str) -> None:
    if old == new:
        return
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)


def _operator_file(path: Path, text: str, environ: Mapping[str, str], url: str | None) -> Storage:
    """The operator's own dagster.yaml: described, checked against the environment, never rewritten."""
    import yaml

    try:
        config = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise InstanceConfigError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(config, dict):
        raise InstanceConfigError(f"{path}: not a mapping of Dagster instance settings")
    pg = (config.get("storage") or {}).get("postgres") if isinstance(config.get("storage"), dict) else None
    modules = " ".join(str((config.get(k) or {}).get("module", "")) for k in ("run_storage", "event_log_storage")
                       if isinstance(config.get(k), dict))
    if pg is None and "dagster_postgres" not in modules:
        if url:
            raise InstanceConfigError(
                f"{PG_URL_ENV} is set but {path} (the operator's own, never rewritten) keeps the instance on "
                f"SQLite: add the storage: postgres block of docs/operations.md to it, or unset {PG_URL_ENV}")
        own = any(k in config for k in ("storage", "run_storage", "event_log_storage"))
        return Storage("the storage that file configures" if own else "SQLite", str(path.parent), path, "operator")
    if not isinstance(pg, dict):
        return Storage("PostgreSQL", "as that file's storage classes say", path, "operator")
    pg_url = _resolve(pg.get("postgres_url"), environ, path)
    if pg_url is None:
        fields = {k: _resolve(v, environ, path) for k, v in (pg.get("postgres_db") or {}).items()}
        from dagster_postgres.utils import get_conn_string

        pg_url = get_conn_string(
            username=str(fields.get("username") or ""), password=str(fields.get("password") or ""),
            hostname=str(fields.get("hostname") or ""), db_name=str(fields.get("db_name") or ""),
            port=str(fields.get("port") or 5432), params=fields.get("params") or None,
            scheme=str(fields.get("scheme") or "postgresql"))
    check_reachable(pg_url)
    return Storage("PostgreSQL", safe_url(pg_url), path, "operator")


def _resolve(value: Any, environ: Mapping[str, str], path: Path) -> Any:
    """A config value, or the variable it names ({env: NAME}); a missing variable is one line."""
    if isinstance(value, dict) and "env" in value:
        name = str(value["env"])
        if not environ.get(name):
            raise InstanceConfigError(f"{path} reads the environment variable {name}, which is not set")
        return environ[name]
    return value
