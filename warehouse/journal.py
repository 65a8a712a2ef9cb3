"""Where the erasure journal lives and who it names: the part of it readers may touch.

Why apart from `warehouse.privacy.erasure` (which writes and settles it): readers leave out
the members it names while a cut is pending (`warehouse.readers`), and readers must never
reach the privacy cut itself (a reader that cut became a writer racing the night). Reading
the journal is all they need.
"""

from __future__ import annotations

from pathlib import Path

JOURNAL_NAME = "erasures.pending"


def journal_path(data_dir: Path) -> Path:
    """DATA_DIR/erasures.pending: one member id a line, for as long as their cut is pending."""
    return Path(data_dir) / JOURNAL_NAME


def pending(data_dir: Path) -> set[str]:
    """Member ids whose cut is still pending (empty without a journal)."""
    try:
        text = journal_path(data_dir).read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}
