"""A crawl that cannot do its job says so: one line, a non-zero exit, an honest run record.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_crawl_failures.py.
"""

from __future__ import annotations






def test_crawl_problem_names_what_went_wrong() -> None:
    from scrapers.outcome import crawl_problem, run_status

    assert crawl_problem({"bodoge/pages/status/500": 123, "bodoge/written": {"quarantine": 123}}) == (
        "the site answered no page successfully: 123 pages, all HTTP 500")
    assert "2 HTTP 404, 5 HTTP 503" in crawl_problem({"bodoge/pages/status/503": 5, "bodoge/pages/status/404": 2})
    assert crawl_problem({"downloader/exception_count": 4}) == "the site answered no page: 4 download errors"
    assert "wrote nothing" in crawl_problem({"bodoge/pages/status/200": 3, "bodoge/written": {}})
    assert crawl_problem({"bodoge/pages/status/200": 3, "bodoge/written": {"game": 1}}) is None
    assert run_status(reason="shutdown", failure="x") == "interrupted"
    assert run_status(reason="finished", failure="x") == "failed"
    assert run_status(reason="closespider_pagecount", failure=None) == "finished"
