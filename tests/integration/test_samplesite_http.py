"""The sample site over real HTTP: a server on 127.0.0.1 queried with urllib, its
transient faults, concurrency and the cut pages."""

from __future__ import annotations

import urllib.error
import urllib.request

import polars as pl
import pytest

from samplesite import SampleSiteServer, generate_site, iter_urls, permanent_faults, render, transient_fault
from samplesite.faults import TRUNCATED_REASON, cut_collections, cut_games
from samplesite.model import Site
from tests.support.samplesite_fixtures import small, small_truth  # noqa: F401

# --------------------------------------------------------------------------- HTTP server


def _get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read().decode("utf-8")


def test_server_serves_over_http(small: Site) -> None:
    with SampleSiteServer(small) as srv:
        base = srv.base_url
        assert base.startswith("http://127.0.0.1:")
        status, headers, body = _get(base + "/robots.txt")
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        assert body == "User-agent: *\nDisallow: /login\nDisallow: /mypage\nDisallow: /shop/cart\n"
        status, _, body = _get(base + "/no/such/page")
        assert status == 404 and "ページが見つかりません" in body
        assert _get(base + "/games/no-such-game")[0] == 404
        g = next(g for g in small.games if not g.malformed and transient_fault(small, g.url) is None)
        status, headers, body = _get(base + g.url)
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert body.encode("utf-8") == render(small, g.url).body
        bad_post = next(p for p in small.posts if p.http500)
        for _ in range(3):
            assert _get(base + bad_post.url)[0] == 500
        m = next(m for m in small.members if m.private)
        target = next(f"{m.collection_url}?page={p}" for p in range(1, 500)
                      if transient_fault(small, f"{m.collection_url}?page={p}") is None)
        assert 'id="sessions-new"' in _get(base + target)[2]
        assert ("GET", "/robots.txt", 200) in srv.requests
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(base + "/robots.txt", timeout=2)


def test_transient_faults_recover(small: Site) -> None:
    urls = list(iter_urls(small))
    first_503 = [u for u in urls if transient_fault(small, u) == 503]
    first_429 = [u for u in urls if transient_fault(small, u) == 429]
    assert 0.01 < len(first_503) / len(urls) < 0.03 and 0.004 < len(first_429) / len(urls) < 0.02
    with SampleSiteServer(small) as srv:
        u = first_503[0]
        assert _get(srv.base_url + u)[0] == 503
        status, _, body = _get(srv.base_url + u)
        assert status == 200 and body.encode("utf-8") == render(small, u).body
        v = first_429[0]
        status, headers, _ = _get(srv.base_url + v)
        assert status == 429 and headers["Retry-After"] == "1"
        assert _get(srv.base_url + v)[0] == 200
    with SampleSiteServer(small) as again:  # a new server instance fails once more
        assert _get(again.base_url + u)[0] == 503
    with SampleSiteServer(small, transient_faults=False, crawl_delay=1.5) as quiet:
        assert _get(quiet.base_url + u)[0] == 200
        assert "Crawl-delay: 1.5\n" in _get(quiet.base_url + "/robots.txt")[2]


def test_server_handles_concurrent_requests(small: Site) -> None:
    from concurrent.futures import ThreadPoolExecutor

    urls = list(iter_urls(small))[:200]
    with SampleSiteServer(small, port=0) as srv, ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda u: _get(srv.base_url + u)[0], urls))
        retried = list(pool.map(lambda u: _get(srv.base_url + u)[0], urls))
    assert set(statuses) <= {200, 429, 500, 503}
    assert all(s in (200, 500) for s in retried)
    broken = {u for u, reason in permanent_faults(small) if reason == "http 500"}
    assert retried.count(500) == sum(1 for u in urls if u in broken)


def test_cut_pages_answer_200_and_are_truncated_in_truth(small: Site, small_truth: dict[str, pl.DataFrame]) -> None:
    """The cut fault: HTTP 200 with the cut body's length, no closing markup, `truncated` in truth."""
    assert len(cut_games(small)) == 1 and len(cut_collections(small)) == 1
    cut_urls = [small.games[i].url for i in cut_games(small)]
    cut_urls += [small.members[i].collection_url for i in cut_collections(small)]
    reasons = dict(small_truth["quarantine"].iter_rows())
    assert all(reasons[u] == TRUNCATED_REASON for u in cut_urls)
    with SampleSiteServer(small, transient_faults=False) as srv:
        for url in cut_urls:
            status, headers, body = _get(srv.base_url + url)
            assert status == 200 and int(headers["Content-Length"]) == len(body.encode("utf-8"))
            assert "</html>" not in body and "<main" in body
            assert body.encode("utf-8") == render(small, url).body  # permanent: the same cut every time
    clean = generate_site(n_games=300, n_users=400, seed=7, faults=False)
    assert not cut_games(clean) and not cut_collections(clean)
    assert all(reason != TRUNCATED_REASON for _, reason in permanent_faults(clean))
