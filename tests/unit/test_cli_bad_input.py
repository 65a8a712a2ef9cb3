"""Bad input on the command line ends in one line and a non-zero exit, never in a silent success.

Here: the tests that need no process, no socket and no Dagster run; the rest of this subject:
tests/e2e/test_cli_bad_input.py.
"""

from __future__ import annotations


import pytest

UNREACHABLE = "http://127.0.0.1:9"  # never contacted: the input is refused first


def test_run_crawl_refuses_bad_sections_and_page_budgets_itself(tmp_path) -> None:
    from scrapers.crawl import CrawlError, run_crawl

    for kwargs, message in (({"sections": []}, "no section"), ({"sections": ["games", "nope"]}, "unknown section"),
                            ({"max_pages": 0}, "at least 1")):
        with pytest.raises(CrawlError, match=message):
            run_crawl(base_url=UNREACHABLE, warehouse=tmp_path / "w.duckdb", progress=None, **kwargs)


def test_evaluate_accepts_what_the_contract_allows(tmp_path) -> None:
    from models.interactions import read_interactions

    path = tmp_path / "rows.csv"
    path.write_text("user_id,game_id,have,played,rating\n1,a,1,0,5\n2,b,true,FALSE,\n3,c,,,2.0\n", encoding="utf-8")
    rows = read_interactions(path)
    assert rows.get_column("rating").to_list() == [5.0, None, 2.0]
    assert rows.get_column("have").to_list() == [True, True, False]
