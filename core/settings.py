"""The one settings object: flags, then `BODOGE_*` environment variables, then defaults.

Why one object: a setting such as the crawl's max page age crosses three processes (the
CLI, the Dagster worker or daemon, the Scrapy child). Written as a flag in one, a variable
in the next and an argument in the third, it would be parsed and checked three times and
its default copied, and copies drift. Here each setting is one field of
`Settings`: its default, its variable, its check and its one-line help are written once,
beside each other. Every process reads the same fields the same way:

- the CLI: `Settings.load(args)` (a flag wins, else the variable, else the default);
- a parent hands its settings to a child process with `to_env()` (every field, so nothing
  of the parent's own environment leaks through), the child reads them with
  `Settings.from_env()`: the CLI to the Dagster worker, daemon and web UI, the crawl to its
  Scrapy process, `bodoge dashboard` to the Streamlit server;
- Dagster resources hold the variables' text and parse it with `Settings.from_text`.

A bad value is a `SettingError`: one line naming the flag or variable (exit 2 on the CLI).
`core` is the bottom layer: nothing here imports the rest of the project.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


#: Variables that carry a secret (the BGG token, or the file holding it): never settings, never
#: written by `to_env`, read only where needed and kept from every process that does not need them.
SECRET_VARIABLES = ("BODOGE_BGG_TOKEN", "BODOGE_BGG_TOKEN_FILE", "BODOGE_API_TOKEN", "BODOGE_API_TOKEN_FILE")


class SettingError(ValueError):
    """A setting with a bad value; its message is the operator's one line."""


@dataclass(frozen=True, slots=True)
class Spec:
    """How one setting is written down: its variable, flag, check and help."""

    env: str
    parse: Callable[[Any], Any]
    help: str
    flag: str | None = None
    derived: str | None = None  # how an unset default is found, for the help ("DATA_DIR/backups")

    @property
    def where(self) -> str:
        """How an operator names it: the flag where there is one, else the variable."""
        return self.flag or self.env


def _setting(default: Any, env: str, parse: Callable[[Any], Any], help: str, flag: str | None = None,
             derived: str | None = None) -> Any:
    return field(default=default, metadata={"spec": Spec(env=env, parse=parse, help=help, flag=flag,
                                                         derived=derived)})


# -- checks: each takes the text of a flag or variable, or a value already typed ----------


def _text(value: Any) -> str | None:
    return str(value).strip() or None


def _path(value: Any) -> Path:
    return Path(str(value).strip()).expanduser()


def is_http_url(text: str) -> bool:
    """Whether `text` is an http(s) URL naming a host: the one rule for every URL setting
    (`--base-url`, `--push`, `--alert-url`, `BODOGE_BGG_API_URL`); each caller says which flag
    failed it in its own one line."""
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _http_url(value: Any) -> str:
    text = str(value).strip()
    if not is_http_url(text):
        raise SettingError(f"must be an http(s) URL, not {value!r}")
    return text


def _switch(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("0", "1", "false", "true"):
        raise SettingError(f"must be 0 or 1, not {value!r}")
    return text in ("1", "true")


MAX_BUCKETS = 64
"""The most member buckets a night may have: a few dozen static partitions is what Dagster
handles well (docs/scaling.md)."""
MEMBERS_PER_BUCKET = 50_000
"""The default rule's bucket size: discovery took 14.9 GB for 400,000 members in one process
and 4.7 GB for 89,961, and the goal is at most 4 GB per bucket process (docs/scaling.md,
"How many buckets")."""


def buckets_for(members: int) -> int:
    """The number of member buckets when BODOGE_DISCOVERY_BUCKETS is unset: one per
    `MEMBERS_PER_BUCKET` members (rounded up), at least 1 and at most `MAX_BUCKETS`."""
    return max(1, min(MAX_BUCKETS, -(-max(members, 0) // MEMBERS_PER_BUCKET)))

BUCKET_EXECUTORS = ("multiprocess", "in_process", "docker", "k8s")
"""How the member buckets run (`pipelines.defs.recsys.fanout`): Dagster's multiprocess executor
(one process per bucket, the default), in turn in the night's own process, or a container /
Kubernetes job per bucket (`dagster-docker`, `dagster-k8s`, imported only when chosen)."""


def _bucket_executor(value: Any) -> str:
    text = str(value).strip().lower().replace("-", "_")
    if text not in BUCKET_EXECUTORS:
        raise SettingError(f"must be one of {', '.join(BUCKET_EXECUTORS)}, not {value!r}")
    return text


DISCOVERY_ENGINES = ("compiled", "reference")
"""``models.discovery.model.ENGINES``, named here because settings sit below the models
(a test holds the two equal)."""


def _engine(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in DISCOVERY_ENGINES:
        raise SettingError(f"must be {' or '.join(DISCOVERY_ENGINES)}, not {value!r}")
    return text


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _whole(value: Any) -> int | None:
    if isinstance(value, (bool, float)):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _number(read: Callable[[Any], Any], fits: Callable[[Any], bool], says: str) -> Callable[[Any], Any]:
    """A check: `read` the number (None if it is not one), refuse it unless it `fits`, with
    `says` (its `{value!r}` is the value as given) as the one line."""

    def check(value: Any) -> Any:
        number = read(value)
        if number is None or not fits(number):
            raise SettingError(says.format(value=value))
        return number

    return check


_page_budget = _number(_whole, lambda n: n >= 1, "must be a whole number of at least 1, not {value!r}")
_max_age_days = _number(_float, lambda d: 1.0 <= d <= 365.0, "must be a number of days from 1 to 365, not {value!r}")
_fraction = _number(_float, lambda f: 0.0 <= f <= 1.0, "must be a number between 0 and 1, not {value!r}")
_bundles = _number(_whole, lambda n: n >= 1, "must be a whole number of bundles, at least 1 (got {value!r})")
_pause_seconds = _number(_float, lambda s: 0 <= s <= 3600, "must be a number of seconds from 0 to 3600, not {value!r}")
_buckets = _number(_whole, lambda n: 1 <= n <= MAX_BUCKETS,
                   "must be a whole number of member buckets from 1 to 64, not {value!r}")
_workers = _number(_whole, lambda n: 0 <= n <= MAX_BUCKETS,
                   "must be a whole number of bucket processes from 0 (one per core) to 64, not {value!r}")
_retry_seconds = _number(_float, lambda s: 0 < s <= 24 * 3600,
                         "must be a number of seconds between 0 and 86400, not {value!r}")


@dataclass(frozen=True, slots=True)
class Paths:
    """The data directory and everything placed in it."""

    data_dir: Path
    warehouse: Path

    # Each place docs/data.md's "Where the data goes" lists, named once.
    exports = property(lambda self: self.data_dir / "exports", doc="Export bundles and LATEST.")
    http_cache = property(lambda self: self.data_dir / "httpcache", doc="Scrapy's cache (`crawl --http-cache`).")
    models = property(lambda self: self.data_dir / "models", doc="Interactions, evaluation, the champion.")
    dagster_home = property(lambda self: self.data_dir / "dagster_home", doc="The Dagster instance.")
    logs = property(lambda self: self.data_dir / "logs", doc="What each nightly run printed.")
    tmp = property(lambda self: self.data_dir / "tmp", doc="Crawls' scratch folders.")
    buckets = property(lambda self: self.data_dir / "buckets",
                       doc="Discovery's member buckets: each bucket's lists, until the night appends them.")
    published = property(lambda self: self.data_dir / "published.duckdb", doc="The night readers open.")

    @property
    def champion(self) -> Path:
        """The saved champion (the nightly writes it, `bodoge recommend` re-ranks with it)."""
        return self.models / "champion"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Every `BODOGE_*` setting of a night, the crawl and the dashboard, checked on creation."""

    data_dir: Path = _setting(Path("data"), "BODOGE_DATA_DIR", _path,
                              "where the warehouse and exports live", "--data-dir")
    warehouse: Path | None = _setting(None, "BODOGE_WAREHOUSE", _path,
                                      "the DuckDB file the night writes", "--warehouse",
                                      "DATA_DIR/warehouse.duckdb")
    base_url: str | None = _setting(None, "BODOGE_BASE_URL", _text,
                                    "the site to crawl, e.g. https://bodoge.hoobby.net", "--base-url")
    push_url: str | None = _setting(None, "BODOGE_PUSH_URL", _text,
                                    "POST the night's export bundle to the site's endpoint", "--push")
    alert_url: str | None = _setting(None, "BODOGE_ALERT_URL", _text,
                                     "POST one JSON alert here per failed or stale night", "--alert-url")
    backup_dir: Path | None = _setting(None, "BODOGE_BACKUP_DIR", _path,
                                       "where warehouse backups live", "--backup-dir",
                                       "DATA_DIR/backups")
    full: bool = _setting(False, "BODOGE_CRAWL_FULL", _switch,
                          "crawl everything; without it, incremental once the warehouse holds a complete crawl",
                          "--full")
    max_pages: int | None = _setting(None, "BODOGE_CRAWL_MAX_PAGES", _page_budget,
                                     "the crawl's page budget; what is left goes first next night", "--max-pages")
    max_age_days: float = _setting(7.0, "BODOGE_CRAWL_MAX_AGE_DAYS", _max_age_days,
                                   "revalidate pages before they are this many days old", "--max-age-days")
    crawl_floor: float = _setting(0.5, "BODOGE_CRAWL_FLOOR", _fraction,
                                  "stop the night when the crawl accounts for less than this share of the "
                                  "last good nights' median (0 switches it off)")
    keep_exports: int = _setting(7, "BODOGE_KEEP_EXPORTS", _bundles, "how many export bundles to keep")
    push_retry_seconds: float = _setting(300.0, "BODOGE_PUSH_RETRY_SECONDS", _retry_seconds,
                                         "how long a night retries delivering its bundle")
    discovery_engine: str = _setting("compiled", "BODOGE_DISCOVERY_ENGINE", _engine,
                                     "how discovery computes its lists: compiled (the kernel library) or "
                                     "reference (plain numpy: the same lists, slower; docs/discovery.md); the night, "
                                     "`bodoge recommend` and `bodoge api` (checked at its start) all read it")
    discovery_buckets: int | None = _setting(None, "BODOGE_DISCOVERY_BUCKETS", _buckets,
                                             "member buckets discovery ranks apart (Dagster partitions over a stable "
                                             "hash of user_id; 1 is one bucket of everyone; the same lists either "
                                             "way: docs/scaling.md)", None,
                                             "one per 50,000 members of the published night (at least 1)")
    bucket_executor: str = _setting("multiprocess", "BODOGE_BUCKET_EXECUTOR", _bucket_executor,
                                    "how the member buckets run when there are several: multiprocess (a process "
                                    "per bucket, Dagster's multiprocess executor), in_process (in turn, in the "
                                    "night's process), docker or k8s (a container or Kubernetes job per bucket; "
                                    "needs dagster-docker or dagster-k8s: docs/scaling.md)")
    bucket_workers: int = _setting(0, "BODOGE_BUCKET_WORKERS", _workers,
                                   "how many bucket processes run at once (0: one per core)")
    bucket_executor_config: Path | None = _setting(None, "BODOGE_BUCKET_EXECUTOR_CONFIG", _path,
                                                   "a YAML file of the docker or k8s executor's config (image, "
                                                   "network, volumes: deploy/)")
    dashboard_db: Path | None = _setting(None, "BODOGE_DASHBOARD_DB", _path,
                                         "the file the dashboard reads", None,
                                         "DATA_DIR/published.duckdb")
    # BoardGameGeek, the second source (docs/bgg.md). Its token is no setting: a setting is
    # written into every child's environment, resource and repr, and the token must be in
    # none of them; `scrapers.bgg_sync.read_token` reads it where it is needed.
    bgg_api_url: str = _setting("https://boardgamegeek.com/xmlapi2", "BODOGE_BGG_API_URL", _http_url,
                                "BGG's XML API2", "--api-url")
    bgg_links: Path | None = _setting(None, "BODOGE_BGG_LINKS", _path,
                                      "the links file, CSV user_id,bgg_user; without it, no BGG sync", "--links")
    bgg_overrides: Path | None = _setting(None, "BODOGE_BGG_OVERRIDES", _path,
                                          "manual game matches, CSV bgg_id,game_id", "--overrides")
    bgg_delay: float = _setting(5.0, "BODOGE_BGG_DELAY", _pause_seconds,
                                "seconds between BGG requests (BGG asks heavy clients for patience)", "--delay")
    bgg_max_age_days: float = _setting(7.0, "BODOGE_BGG_MAX_AGE_DAYS", _max_age_days,
                                       "re-fetch a BGG thing, or a whole collection, only past this age",
                                       "--max-age-days")

    def __post_init__(self) -> None:
        for f in fields(self):
            value, spec = getattr(self, f.name), f.metadata["spec"]
            if value is None or value is f.default:
                object.__setattr__(self, f.name, f.default)  # None: the default
                continue
            try:
                object.__setattr__(self, f.name, spec.parse(value))
            except SettingError as exc:
                raise SettingError(f"{spec.where} {exc}") from None

    @classmethod
    def load(cls, flags: Any = None, environ: Mapping[str, str] | None = None,
             *, only: tuple[str, ...] | None = None) -> Settings:
        """Flags (an argparse Namespace or a mapping; None or "" = not given), then `environ`
        (default os.environ; an empty variable counts as unset), then the defaults.

        `only` reads just these fields from the environment (a reader that needs the data
        directory is not stopped by a bad crawl setting). An explicit `--data-dir` keeps the
        warehouse inside it unless `--warehouse` says otherwise.
        """
        given = {name: value for name, value in (vars(flags) if hasattr(flags, "__dict__") else flags or {}).items()
                 if value is not None and value != ""}
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            spec = f.metadata["spec"]
            if f.name in given:
                values[f.name] = given[f.name]
            elif (only is None or f.name in only) and (text := environ.get(spec.env, "").strip()):
                try:
                    values[f.name] = spec.parse(text)
                except SettingError as exc:
                    raise SettingError(f"{spec.env} {exc}") from None
        if "data_dir" in given and "warehouse" not in given:
            values.pop("warehouse", None)
        return cls(**values)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """A child process's settings: what its parent wrote with `to_env()`."""
        return cls.load(environ=environ)

    @classmethod
    def from_text(cls, texts: Mapping[str, str]) -> Settings:
        """Settings from fields' text by field name ("" = the default), never the environment:
        what a Dagster resource was given is what it uses."""
        specs = env_names()
        return cls.load(environ={specs[name]: text for name, text in texts.items()})

    def to_env(self) -> dict[str, str]:
        """Every setting as the variable a child process reads (`from_env`), paths absolute.

        Every field is written ("" when unset), so the child sees these settings and none
        its parent's environment happened to hold.
        """
        env = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "data_dir":
                value = self.paths.data_dir
            elif f.name == "warehouse":
                value = self.paths.warehouse
            if isinstance(value, bool):
                text = "1" if value else "0"
            elif isinstance(value, Path):
                text = str(value.resolve())
            else:
                text = "" if value is None else str(value)
            env[f.metadata["spec"].env] = text
        return env

    def replace(self, **changes: Any) -> Settings:
        """A copy with these fields changed (checked like any other)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return Settings(**{**values, **changes})

    @property
    def paths(self) -> Paths:
        """The data directory's layout, absolute."""
        data = self.data_dir.resolve()
        return Paths(data_dir=data, warehouse=(self.warehouse or data / "warehouse.duckdb").resolve())

    @property
    def backups(self) -> Path:
        """Where backups go: `--backup-dir`/BODOGE_BACKUP_DIR, else DATA_DIR/backups."""
        return (self.backup_dir or self.paths.data_dir / "backups").resolve()

    @property
    def dashboard_file(self) -> Path:
        """The file the dashboard reads: BODOGE_DASHBOARD_DB, else the published night."""
        return self.dashboard_db or self.paths.published


def spec(name: str) -> Spec:
    """The variable, flag, check and help of the setting `name`."""
    return _SPECS[name]


def default(name: str) -> Any:
    """The default of the setting `name` (None: derived, or unset)."""
    return _DEFAULTS[name]


def read(name: str, text: str | None = None, environ: Mapping[str, str] | None = None) -> Any:
    """One setting: from `text` (a Dagster resource's) when given, else the environment, else
    its default; a SettingError (one line, naming the variable) when malformed."""
    if text is not None:
        return getattr(Settings.from_text({name: text}), name)
    return getattr(Settings.load(environ=environ, only=(name,)), name)


def env_names() -> dict[str, str]:
    """{field name: its BODOGE_* variable}."""
    return {name: s.env for name, s in _SPECS.items()}


_SPECS: dict[str, Spec] = {f.name: f.metadata["spec"] for f in fields(Settings)}
_DEFAULTS: dict[str, Any] = {f.name: None if f.default is MISSING else f.default for f in fields(Settings)}
