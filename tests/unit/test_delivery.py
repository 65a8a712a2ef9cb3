"""A push endpoint that is down never stops the night; the bundle goes when the endpoint is back.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/test_delivery.py, tests/e2e/test_delivery.py.
"""

from __future__ import annotations


import pytest

from core.settings import default
from warehouse.release import delivery


def test_a_bad_push_retry_setting_is_one_line() -> None:
    with pytest.raises(ValueError, match="BODOGE_PUSH_RETRY_SECONDS must be a number of seconds"):
        delivery.retry_seconds("soon")
    assert delivery.retry_seconds("") == default("push_retry_seconds") and delivery.retry_seconds("2.5") == 2.5
