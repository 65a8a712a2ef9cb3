"""Issue 42's smaller frictions that are code: `bodoge run` without a site says how to serve the
demo's again."""

from __future__ import annotations

import pytest

from core.config import require_base_url


def test_no_site_says_how_to_serve_the_demos_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BODOGE_BASE_URL", raising=False)
    with pytest.raises(ValueError) as error:
        require_base_url(None)
    assert "\n" not in str(error.value) and "`bodoge site serve` serves it again" in str(error.value)
