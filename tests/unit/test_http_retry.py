"""`core.http.post_with_retry` over urllib3's Retry keeps our rules: the first retry waits
the base delay, Retry-After wins when longer but never past the cap, a header that cannot
be read asks for nothing, a 4xx is final, a refused connection is said as the socket said it.
Real HTTP servers on localhost; only the waits are recorded instead of slept.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/integration/test_http_retry.py.
"""

from __future__ import annotations



from core.http import backoff_delay


def test_the_crawlers_backoff_reads_retry_after_the_same_way() -> None:
    assert backoff_delay(0, base=1.0, cap=30.0) == 1.0
    assert backoff_delay(3, base=1.0, cap=30.0, retry_after="20") == 20.0
    assert backoff_delay(0, base=1.0, cap=30.0, retry_after="99999") == 30.0
    assert backoff_delay(2, base=1.0, cap=30.0, retry_after="Wed, 21 Oct 2015 07:28:00 GMT") == 4.0  # past: no wait
    assert backoff_delay(1, base=1.0, cap=30.0, retry_after="later") == 2.0
