"""The assets' column schemas come from a night's tables, kept on disk by a digest of warehouse/
(pipelines.described.night_columns): what is read back is what DuckDB builds, and a change
under warehouse/ builds it afresh."""

from __future__ import annotations

from pathlib import Path

import pipelines.described as described
from warehouse.dictionary import reference_columns


def test_the_kept_columns_are_the_built_ones_and_follow_the_warehouse(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(described, "CACHE", tmp_path / "cache")
    described.night_columns.cache_clear()
    built = described.night_columns()
    assert built == reference_columns() and "marts.recommendations" in built
    kept = list((tmp_path / "cache").glob("night_columns-*.json"))
    assert len(kept) == 1
    described.night_columns.cache_clear()
    assert described.night_columns() == built  # read back from the file
    copy = tmp_path / "warehouse"  # the same code, one SQL file changed: another file, built afresh
    for path in described.WAREHOUSE.rglob("*"):
        if path.suffix in (".py", ".sql") and "__pycache__" not in path.parts:
            target = copy / path.relative_to(described.WAREHOUSE)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (copy / "sql" / "marts" / "games.sql").write_text(
        (copy / "sql" / "marts" / "games.sql").read_text(encoding="utf-8") + "\n-- changed\n", encoding="utf-8")
    monkeypatch.setattr(described, "WAREHOUSE", copy)
    described.night_columns.cache_clear()
    assert described.night_columns() == built
    assert [p.name for p in (tmp_path / "cache").glob("night_columns-*.json")] != [kept[0].name]
    described.night_columns.cache_clear()
