"""The catalogue's BoardGameGeek columns: hidden, and said so, when no listed game has poll data."""

from __future__ import annotations

import polars as pl

from dashboards.views.catalogue import without_empty_poll


def _games(best: list) -> pl.DataFrame:
    return pl.DataFrame({"game_id": ["a", "b"], "best_players": best, "recommended_players": [None, None]},
                        schema_overrides={"best_players": pl.List(pl.Int32), "recommended_players": pl.List(pl.Int32)})


def test_no_poll_data_hides_the_columns_and_says_so() -> None:
    shown, note = without_empty_poll(_games([None, None]))
    assert shown.columns == ["game_id"] and "No BGG data" in note


def test_any_poll_data_keeps_both_columns() -> None:
    shown, note = without_empty_poll(_games([[3, 4], None]))
    assert shown.columns == ["game_id", "best_players", "recommended_players"] and note == ""


def test_time_axes_read_in_24_hour_form() -> None:
    """Issue 42: the model chart's axis read "03 PM"; every time axis says %H:%M."""
    import ast
    from pathlib import Path

    import dashboards
    from dashboards.charts import time_x

    assert "%H:%M" in time_x("trained_at", "trained").to_dict()["axis"]["format"]
    for path in (Path(dashboards.__file__).parent / "views").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        temporal = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Constant)
                    and isinstance(node.value, str) and node.value.endswith(":T")]
        assert temporal == [], f"{path.name}: use dashboards.charts.time_x for a time axis"
