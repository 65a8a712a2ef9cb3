"""The layers only point down: no import cycle between the project's top-level packages,
nor between any two modules, inside a package or across packages.

Every module of every package is parsed (ast, nothing imported), including imports made
inside functions, since a lazy import is still a dependency. `core` is the bottom layer and
imports no other package of the project; `ops` sits just above it and imports only `core`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.support.source_trees import walked

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "ops", "scrapers", "warehouse", "models", "samplesite", "pipelines", "bodoge", "dashboards")
#: Every folder of modules whose imports must not go round in a circle.
MODULE_ROOTS = (*PACKAGES, "benchmarks")


def package_imports(root: Path = ROOT) -> dict[str, dict[str, set[str]]]:
    """{package: {imported package: {module files that import it}}}, project packages only."""
    graph: dict[str, dict[str, set[str]]] = {name: {} for name in PACKAGES}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for node in walked(path):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top in graph and top != package:
                        graph[package].setdefault(top, set()).add(str(path.relative_to(root)))
    return graph


def find_cycle(graph: Mapping[str, Mapping[str, object]]) -> list[str] | None:
    """One cycle as [a, b, …, a], or None (depth-first search with an on-stack set)."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def assert_no_cycle(graph: Mapping[str, Mapping[str, set[str]]], where: str) -> None:
    """Fail naming the circle and, for each step, `where` it is made (`in` files, `line` numbers)."""
    cycle = find_cycle(graph)
    if cycle:
        steps = "; ".join(f"{a} → {b} ({where} {', '.join(sorted(graph[a][b]))})"
                          for a, b in zip(cycle, cycle[1:], strict=False))
        raise AssertionError(f"import cycle {' → '.join(cycle)}: {steps}")


def plant(root: Path, folders: tuple[str, ...], modules: dict[str, str]) -> None:
    """A tree of empty packages named `folders`, with `modules` ({relative path: source}) in it."""
    for folder in folders:
        (root / folder).mkdir()
        (root / folder / "__init__.py").write_text("", encoding="utf-8")
    for path, source in modules.items():
        (root / path).write_text(source, encoding="utf-8")


def test_no_import_cycle_between_top_level_packages() -> None:
    assert_no_cycle(package_imports(), "in")


def test_core_is_the_bottom_layer() -> None:
    assert package_imports()["core"] == {}


def test_ops_sits_just_above_core() -> None:
    """Operations (lock, scratch, children, signals, readiness, errors) serve every layer
    above, so they may lean on `core` alone."""
    assert set(package_imports()["ops"]) <= {"core"}


def test_the_cycle_finder_finds_a_planted_cycle(tmp_path: Path) -> None:
    """The walker and the finder together catch a lazy import that closes a loop."""
    plant(tmp_path, PACKAGES, {"warehouse/push.py": "def f():\n    from scrapers.x import y\n",
                               "scrapers/pipelines.py": "import warehouse.raw\n"})
    graph = package_imports(tmp_path)
    assert find_cycle(graph) in (["scrapers", "warehouse", "scrapers"], ["warehouse", "scrapers", "warehouse"])
    assert find_cycle({"a": {"b": 1}, "b": {}}) is None


def module_imports(root: Path = ROOT) -> dict[str, dict[str, set[str]]]:
    """{module: {module it imports: {line numbers}}}, the project's modules only.

    A name is resolved to the longest module it names (`from a.b import c` is the module
    `a.b.c` when that is a file, else `a.b`); relative imports are resolved against the
    importing module's package. A package's `__init__` is the package's own name.
    """
    modules: dict[str, Path] = {}
    for folder in MODULE_ROOTS:
        for path in sorted((root / folder).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, dict[str, set[str]]] = {name: {} for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in walked(path):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            for target in targets:
                found = resolve(target)
                if found and found != name:
                    graph[name].setdefault(found, set()).add(str(node.lineno))
    return graph


def test_no_import_cycle_between_modules() -> None:
    """Inside a package too: a circle of lazy imports works until someone moves one of them."""
    assert_no_cycle(module_imports(), "line")


def test_the_module_walker_finds_a_planted_cycle_inside_a_package(tmp_path: Path) -> None:
    plant(tmp_path, MODULE_ROOTS, {"models/a.py": "def f():\n    from . import b\n",
                                   "models/b.py": "from models.a import f\n",
                                   "models/c.py": "from models import a\n"})
    graph = module_imports(tmp_path)
    assert find_cycle(graph) in (["models.a", "models.b", "models.a"], ["models.b", "models.a", "models.b"])
    assert graph["models.c"] == {"models.a": {"1"}}
    with pytest.raises(AssertionError, match=r"import cycle models\.\w → models\.\w → .*\(line 2\)"):
        assert_no_cycle(graph, "line")


def test_assets_checks_and_sensors_read_settings_from_resources_only() -> None:
    """Only `pipelines/defs/resources.py` looks at the environment; everything else gets a resource."""
    readers = []
    for path in sorted((ROOT / "pipelines" / "defs").rglob("*.py")):
        if path.name == "resources.py":
            continue
        for node in walked(path):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv"):
                readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not readers, f"settings read from the environment outside resources.py: {readers}"


def test_the_kernel_library_imports_nothing_above_it() -> None:
    """`models/fast/` holds every compiled loop and leans on numpy, numba and itself only,
    as implicit's `cpu/` and LensKit's `_accel`: callers above hand it plain arrays."""
    graph = module_imports()
    kernels = [name for name in graph if name.startswith("models.fast")]
    assert "models.fast.kernels" in kernels
    above = {f"{name} → {target} (line {', '.join(sorted(lines))})"
             for name in kernels for target, lines in graph[name].items() if not target.startswith("models.fast")}
    assert not above, f"the kernel library imports above it: {sorted(above)}"


def test_every_compiled_loop_lives_in_the_kernel_library() -> None:
    """A loop compiled elsewhere would escape the cache's stamp (`models/fast/` alone)."""
    outside = []
    for folder in MODULE_ROOTS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.is_relative_to(ROOT / "models" / "fast"):
                continue
            for node in walked(path):
                if isinstance(node, ast.FunctionDef) and any(
                    (isinstance(d, ast.Name) and d.id in ("compiled", "njit", "jit"))
                    or (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id in ("njit", "jit"))
                    for d in node.decorator_list
                ):
                    outside.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not outside, f"compiled loops outside models/fast/: {outside}"


def test_the_crawl_asset_reaches_the_other_copies_only_through_the_privacy_cut() -> None:
    """Issue 38: the crawl asset cut members no longer public out of the export, the published
    night and the backups by calling each of them; now it calls `warehouse.privacy.cut` alone."""
    imported = module_imports()["pipelines.defs.ingest.assets"]
    assert "warehouse.privacy.cut" in imported
    assert [m for m in imported if m.startswith(("warehouse.release", "warehouse.backup"))] == []


def test_the_migrations_know_the_schema_only() -> None:
    """Issue 38: `warehouse.migrate` took and restored backups itself; whoever migrates does it
    now, around the migrations (`warehouse.backup.migration`)."""
    imported = module_imports()["warehouse.migrate"]
    assert [m for m in imported if m.startswith("warehouse.backup")] == []


def test_readers_never_reach_the_privacy_cut() -> None:
    """Issue 38: every reader opened the published night through a path that cut the members
    the erasure journal names, rewriting the file. Readers read; the writers cut
    (tests/e2e/test_erasure.py::test_no_reader_writes_the_published_night_even_with_an_erasure_pending)."""
    graph = module_imports()
    for reader in ("warehouse.readers", "pipelines.alerts", "dashboards.ui", "bodoge.api.serving", "bodoge.api.night"):
        assert [m for m in graph[reader] if m.startswith("warehouse.privacy")] == [], reader
