"""The sample site drawn without one directory signal at a time: nights 1→2→3 still equal their truth.

Why: the incremental night skips what the site's signals show unchanged, and each of
those signals may be missing on the real site (samplesite.variants). Night 1 (full)
measures each signal; the next nights must use the fallback for the one the site does
not show, record it in `raw.crawl_runs` and `raw.crawl_signals`, and land every change
exactly: every collection row, the members, and no trace of a member who turned private.
(`no-validators` and a signal lost mid-night: tests/test_signal_midnight.py, on the other worker.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from samplesite.model import Site
from samplesite.variants import NO_DIRECTORY_UPDATES, NO_PRIVATE_MARKER
from tests.support.night_truth import variant_nights


@pytest.mark.slow
def test_without_directory_update_times_every_known_member_gets_page_1(tmp_path: Path, site: Site) -> None:
    variant_nights(tmp_path, site, NO_DIRECTORY_UPDATES, signal="directory_updates", fallback="read-page-1")


@pytest.mark.slow
def test_without_the_private_marker_every_known_member_gets_page_1(tmp_path: Path, site: Site) -> None:
    variant_nights(tmp_path, site, NO_PRIVATE_MARKER, signal="private_marker", fallback="read-page-1")
