"""Altair charts with one look, and fonts that can draw Japanese.

Why one place: every chart gets the same CJK-capable font family (game and cafe names
are Japanese; Vega draws text itself, so the page's CSS does not reach it), the same
sizing, and the same tooltips, without each page repeating the configuration.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl
import streamlit as st

# Latin text keeps Streamlit's own face; Japanese glyphs fall through to a CJK font.
FONT_FAMILY = (
    '"Source Sans", "Source Sans Pro", "Noto Sans CJK JP", "Noto Sans JP", "IPAGothic", "IPAexGothic", sans-serif'
)


def show(chart: alt.TopLevelMixin, *, alt_text: str | None = None) -> None:
    """Render a chart full-width with the dashboard's fonts."""
    configured = (
        chart.configure(font=FONT_FAMILY)
        .configure_axis(labelFont=FONT_FAMILY, titleFont=FONT_FAMILY, labelLimit=260)
        .configure_legend(labelFont=FONT_FAMILY, titleFont=FONT_FAMILY)
        .configure_title(font=FONT_FAMILY)
        .configure_header(labelFont=FONT_FAMILY, titleFont=FONT_FAMILY)
    )
    st.altair_chart(configured, width="stretch", alt=alt_text)


def time_x(field: str, title: str) -> alt.X:
    """A time axis in 24-hour form, UTC as stored (Vega-Lite's default labels hours as "03 PM")."""
    return alt.X(f"{field}:T", title=title, axis=alt.Axis(format="%m-%d %H:%M", labelAngle=0, labelOverlap="greedy"))


ROW_HEIGHT = 24  # per bar of a horizontal bar chart: room for one line of label


def _count_axis(title: str | None, integer: bool, fmt: str | None = None) -> alt.Axis:
    """An axis for counts: no 0.5 ticks when the values are whole numbers."""
    if integer:
        return alt.Axis(title=title, tickMinStep=1, format=fmt or ",d")
    return alt.Axis(title=title, format=fmt) if fmt else alt.Axis(title=title)


def bars(
    frame: pl.DataFrame, *, x: str, y: str, x_title: str, y_title: str,
    sort: Any = None, x_type: str = "O", tooltip: list[str | alt.Tooltip] | None = None, height: int = 280,
    color: str | None = None, label_angle: int = 0, every_label: bool = True,
) -> alt.Chart:
    """Vertical bars of `y` per `x` (ordinal by default, in the given `sort` order).

    `every_label=False` lets Vega thin out labels that would overlap (e.g. 40 years).
    """
    encoding: dict[str, Any] = {
        "x": alt.X(
            f"{x}:{x_type}", title=x_title, sort=sort,
            axis=alt.Axis(labelAngle=label_angle, labelOverlap=False if every_label else "greedy"),
        ),
        "y": alt.Y(f"{y}:Q", axis=_count_axis(y_title, True)),
        "tooltip": tooltip or [x, y],
    }
    if color:
        encoding["color"] = alt.value(color)
    return alt.Chart(frame).mark_bar().encode(**encoding).properties(height=height)


def hbars(
    frame: pl.DataFrame, *, label: str, value: str, label_title: str | None, value_title: str,
    tooltip: list[str] | None = None, color: str | None = None, integer: bool = True, value_format: str | None = None,
) -> alt.Chart:
    """Horizontal bars, longest first: the shape for a top-N list of (Japanese) names."""
    encoding: dict[str, Any] = {
        "y": alt.Y(f"{label}:N", sort="-x", axis=alt.Axis(title=label_title, labelOverlap=False)),
        "x": alt.X(f"{value}:Q", axis=_count_axis(value_title, integer, value_format)),
        "tooltip": tooltip or [label, value],
    }
    if color:
        encoding["color"] = alt.value(color)
    return alt.Chart(frame).mark_bar().encode(**encoding).properties(height=rows_height(frame.height))


def rows_height(n_rows: int, per_row: int = ROW_HEIGHT) -> int:
    """Chart height for `n_rows` labelled bars plus the axis below them."""
    return 60 + per_row * max(n_rows, 3)


def paired_hbars(
    frame: pl.DataFrame, *, label: str, columns: dict[str, str], value_title: str, label_title: str | None
) -> alt.Chart:
    """Two or more measures per name side by side (e.g. members' count vs the site's counter)."""
    long = frame.unpivot(index=[label], on=list(columns), variable_name="measure", value_name="value").with_columns(
        pl.col("measure").replace_strict(columns)
    )
    order = frame[label].to_list()
    return (
        alt.Chart(long)
        .mark_bar()
        .encode(
            y=alt.Y(f"{label}:N", sort=order, axis=alt.Axis(title=label_title, labelOverlap=False)),
            yOffset=alt.YOffset("measure:N", sort=list(columns.values())),
            x=alt.X("value:Q", axis=_count_axis(value_title, True)),
            color=alt.Color("measure:N", title=None, sort=list(columns.values()), legend=alt.Legend(orient="top")),
            tooltip=[label, "measure", "value"],
        )
        .properties(height=40 + rows_height(frame.height, per_row=2 * ROW_HEIGHT - 8))
    )
