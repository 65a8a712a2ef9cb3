"""The one settings object (`core.settings`): flags, then `BODOGE_*`, then defaults, once.

What each test guards: a flag wins over the environment and the environment over the
default; a bad value, as a flag or a variable, is one line and exit 2 before anything
starts; what a parent writes for a child (`to_env`) is exactly what the child reads back
(`from_env`), across a real process boundary, with nothing of the parent's own
environment leaking through; each variable has one meaning (the dashboard's file is not
the night's warehouse); and no default is written a second time anywhere in the project.
"""

from __future__ import annotations

import ast
from functools import partial
from pathlib import Path

import pytest

from bodoge.cli import build_parser, main
from core.settings import Settings, SettingError, default, env_names, spec
from tests.support.source_trees import parsed

ROOT = Path(__file__).resolve().parents[2]
ENV = env_names()

#: A value of every setting other than its default.
OTHER = {
    "data_dir": "elsewhere", "warehouse": "elsewhere/night.duckdb", "base_url": "http://127.0.0.1:9",
    "push_url": "http://127.0.0.1:9/in", "alert_url": "http://127.0.0.1:9/alert", "backup_dir": "bk",
    "full": "1", "max_pages": "40", "max_age_days": "3", "crawl_floor": "0.25", "keep_exports": "2",
    "push_retry_seconds": "12.5", "dashboard_db": "copy.duckdb", "bgg_api_url": "http://127.0.0.1:9/xmlapi2",
    "bgg_links": "links.csv", "bgg_overrides": "overrides.csv", "bgg_delay": "0", "bgg_max_age_days": "3",
    "discovery_engine": "reference", "discovery_buckets": "4", "bucket_executor": "in_process",
    "bucket_workers": "3", "bucket_executor_config": "deploy/bucket-executor.docker.yaml",
}
#: A malformed value of every setting that has a check.
BAD = {"full": "yes", "max_pages": "0", "max_age_days": "0.5", "crawl_floor": "half", "keep_exports": "2.5",
       "push_retry_seconds": "soon", "bgg_api_url": "boardgamegeek.com", "bgg_delay": "-1",
       "bgg_max_age_days": "0", "discovery_engine": "numba", "discovery_buckets": "65",
       "bucket_executor": "threads", "bucket_workers": "-1"}


def test_every_setting_is_covered_here() -> None:
    assert set(OTHER) == set(ENV), "a new setting needs a value in OTHER (and in BAD if it has a check)"


def test_a_flag_wins_over_the_environment_and_the_environment_over_the_default() -> None:
    parser = build_parser()
    environ = {ENV["max_age_days"]: "5", ENV["max_pages"]: "9", ENV["full"]: "1"}
    flags = parser.parse_args(["run", "--max-age-days", "3", "--max-pages", "4"])
    assert Settings.load(flags, environ).max_age_days == 3.0  # the flag
    assert Settings.load(flags, environ).full is True  # no flag: the environment
    assert Settings.load(parser.parse_args(["run"]), environ).max_pages == 9
    bare = Settings.load(parser.parse_args(["run"]), {})
    assert (bare.max_age_days, bare.max_pages, bare.full) == (default("max_age_days"), None, False)
    assert bare.keep_exports == default("keep_exports") and bare.paths.data_dir == Path("data").resolve()
    # An empty variable counts as unset; an empty flag too.
    assert Settings.load({"max_age_days": ""}, {ENV["max_age_days"]: " "}).max_age_days == default("max_age_days")


def test_every_setting_reads_its_variable() -> None:
    loaded = Settings.load(environ={ENV[name]: text for name, text in OTHER.items()})
    for name, text in OTHER.items():
        assert getattr(loaded, name) == spec(name).parse(text), name


def test_an_explicit_data_dir_keeps_the_warehouse_inside_it(tmp_path: Path) -> None:
    environ = {ENV["warehouse"]: str(tmp_path / "theirs.duckdb")}
    assert Settings.load({}, environ).paths.warehouse == tmp_path / "theirs.duckdb"
    mine = Settings.load({"data_dir": tmp_path / "mine"}, environ).paths
    assert mine.warehouse == tmp_path / "mine" / "warehouse.duckdb"
    both = Settings.load({"data_dir": tmp_path / "mine", "warehouse": tmp_path / "w.duckdb"}, environ)
    assert both.paths.warehouse == tmp_path / "w.duckdb"


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_variable_is_one_line_naming_it(name: str, tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv(ENV[name], BAD[name])
    code = main(["run", "--base-url", "http://127.0.0.1:9", "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith(f"bodoge: error: {ENV[name]} must be "), err
    assert repr(BAD[name]) in err[0]
    assert list(tmp_path.iterdir()) == []  # nothing started: no log, no Dagster instance


@pytest.mark.parametrize("name", ["max_pages", "max_age_days"])  # the checked settings that have a flag
def test_a_bad_flag_is_one_line_naming_it(name: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["run", spec(name).flag, BAD[name]])
    err = capsys.readouterr().err.splitlines()
    assert stop.value.code == 2 and len(err) == 1, err
    assert err[0].startswith(f"bodoge: error: argument {spec(name).flag}: must be ") and repr(BAD[name]) in err[0]


def test_the_same_check_refuses_a_value_given_in_code() -> None:
    with pytest.raises(SettingError, match="^--max-age-days must be a number of days from 1 to 365, not 0$"):
        Settings(max_age_days=0)
    with pytest.raises(SettingError, match="^BODOGE_KEEP_EXPORTS must be a whole number of bundles"):
        Settings(keep_exports=0)


def test_to_env_and_from_env_are_a_round_trip(tmp_path: Path) -> None:
    given = Settings.load(environ={ENV[name]: text for name, text in OTHER.items()})
    env = given.to_env()
    assert set(env) == set(ENV.values())
    back = Settings.from_env(env)
    assert back.to_env() == env
    assert back.paths == given.paths and back.max_age_days == 3.0 and back.full is True
    assert Settings.from_env(Settings().to_env()) == Settings.from_env(Settings.from_env(Settings().to_env()).to_env())


def test_the_site_crawler_gets_no_secret(tmp_path: Path, monkeypatch) -> None:
    """An operator's BGG token (or its file) is in the night's environment; the site's Scrapy
    process needs neither, so neither crosses into it."""
    from core.settings import SECRET_VARIABLES
    from scrapers.crawl_setup import child_environment

    for name in SECRET_VARIABLES:
        monkeypatch.setenv(name, "secret-" + name)
    crawl_env = child_environment(Settings(data_dir=tmp_path, base_url="http://127.0.0.1:9"))
    assert not [value for value in crawl_env.values() if "secret-" in value]
    assert crawl_env[ENV["base_url"]] == "http://127.0.0.1:9"


def test_dagster_resources_parse_what_they_hold_with_the_same_checks(monkeypatch) -> None:
    from pipelines.defs.resources import CrawlSettings, resources

    assert CrawlSettings(max_age_days="3", full="1").settings().max_age_days == 3.0
    with pytest.raises(SettingError, match="^BODOGE_CRAWL_MAX_AGE_DAYS must be"):
        CrawlSettings(max_age_days="400").settings()
    monkeypatch.delenv(ENV["max_age_days"], raising=False)
    crawl = resources().resources["crawl"]
    assert crawl.settings().max_age_days == default("max_age_days")  # unset: the one default


def test_the_dashboard_reads_its_own_variable_not_the_nights_warehouse(tmp_path: Path, monkeypatch) -> None:
    from dashboards.ui import warehouse_path

    monkeypatch.setenv(ENV["warehouse"], str(tmp_path / "night.duckdb"))
    monkeypatch.setenv(ENV["data_dir"], str(tmp_path))
    monkeypatch.delenv(ENV["dashboard_db"], raising=False)
    assert warehouse_path() == tmp_path / "published.duckdb"
    monkeypatch.setenv(ENV["dashboard_db"], str(tmp_path / "copy.duckdb"))
    assert warehouse_path() == tmp_path / "copy.duckdb"


# -- every default written once ----------------------------------------------------------

#: Words that name each setting in code, beside its field name, variable and flag.
ALIASES = {"max_age_days": ("max_age", "max-age"), "keep_exports": ("keep",), "crawl_floor": ("_floor", "floor_"),
           "push_retry_seconds": ("retry",), "data_dir": ("data_dir", "data-dir"),
           "bgg_api_url": ("api_url", "api-url"), "bgg_max_age_days": ("max_age", "max-age")}
SKIP = {Path("core/settings.py")}


def _names_in(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            names.add(sub.attr)
        elif isinstance(sub, ast.keyword) and sub.arg:
            names.add(sub.arg)
        elif isinstance(sub, ast.arg):
            names.add(sub.arg)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and len(sub.value) < 60:
            names.add(sub.value)
    return {n.lower() for n in names}


def _constants_in(node: ast.AST) -> list[object]:
    return [sub.value for sub in ast.walk(node) if isinstance(sub, ast.Constant) and not isinstance(sub.value, bool)]


def _pairs(tree: ast.AST):
    """(the names, the constants) of each place a default could be written: an assignment, a
    call's keyword or argument list, a function's parameter with its default, an `or` chain.
    The names come as a call (`functools.partial`): most places hold no default's value, and
    their names are never needed."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.keyword, ast.BoolOp)):
            yield node.lineno if hasattr(node, "lineno") else 0, partial(_names_in, node), _constants_in(node)
        elif isinstance(node, ast.Call):
            given = [*node.args, *(k.value for k in node.keywords)]
            yield node.lineno, partial(_names_in, node), [c for a in given for c in _constants_in(a)]
        elif isinstance(node, ast.arguments):
            params = [*node.posonlyargs, *node.args]
            for arg, value in zip(params[len(params) - len(node.defaults):], node.defaults, strict=True):
                yield value.lineno, partial(set, [arg.arg.lower()]), _constants_in(value)
            for arg, value in zip(node.kwonlyargs, node.kw_defaults, strict=True):
                if value is not None:
                    yield value.lineno, partial(set, [arg.arg.lower()]), _constants_in(value)


def second_definitions(root: Path = ROOT) -> list[str]:
    """Each place outside core/settings.py that writes a setting's default beside its name."""
    words = {name: {name, ENV[name].lower(), *(spec(name).flag or "").lower().split(), *ALIASES.get(name, ())}
             for name in ENV}
    defaults = {name: str(value) if isinstance(value, Path) else value
                for name in ENV if (value := default(name)) not in (None, False)}
    found = []
    for package in ("core", "scrapers", "warehouse", "models", "samplesite", "pipelines", "bodoge", "dashboards",
                    "benchmarks"):
        for path in sorted((root / package).rglob("*.py")):
            if path.relative_to(root) in SKIP:
                continue
            for line, names_of, constants in _pairs(parsed(path)):
                written = [name for name, value in defaults.items() if any(c == value for c in constants)]
                names = names_of() if written else set()
                for name in written:
                    if any(word in n for word in words[name] for n in names):
                        found.append(f"{path.relative_to(root)}:{line}: the default of {name} ({defaults[name]!r})")
    return sorted(set(found))


def test_no_default_is_written_a_second_time() -> None:
    assert second_definitions() == []


def test_the_default_finder_finds_a_planted_copy(tmp_path: Path) -> None:
    (tmp_path / "bodoge").mkdir()
    (tmp_path / "bodoge" / "planted.py").write_text(
        'DEFAULT_MAX_AGE_DAYS = 7.0\n'
        'def crawl(max_age_days=7):\n    pass\n'
        'p.add_argument("--max-age-days", type=float, default=7.0)\n'
        'KEEP = int(os.environ.get("BODOGE_KEEP_EXPORTS") or 7)\n', encoding="utf-8")
    found = second_definitions(tmp_path)
    assert sorted({f.split(":")[1] for f in found}) == ["1", "2", "4", "5"], found  # a line once per setting it copies


def test_the_settings_table_in_the_docs_is_what_the_settings_print() -> None:
    """docs/operations.md's table is printed from the one object: no default written twice."""
    from core.settings_doc import DOC, current, settings_table

    doc = DOC.read_text(encoding="utf-8")
    assert current(doc) == doc, "docs/operations.md is not current: run `uv run python -m core.settings_doc --write`"
    assert "`BODOGE_CRAWL_MAX_AGE_DAYS` | `--max-age-days` | `7`" in settings_table()


def test_the_discovery_engines_are_the_models_own() -> None:
    """`core` sits below `models`, so it names the engines itself: the same names."""
    from core.settings import DISCOVERY_ENGINES
    from models.discovery.model import ENGINES

    assert DISCOVERY_ENGINES == ENGINES
    assert Settings.load(environ={"BODOGE_DISCOVERY_ENGINE": "Reference"}).discovery_engine == "reference"
    with pytest.raises(SettingError, match="^BODOGE_DISCOVERY_ENGINE must be compiled or reference, not 'numba'$"):
        Settings.load(environ={"BODOGE_DISCOVERY_ENGINE": "numba"})
