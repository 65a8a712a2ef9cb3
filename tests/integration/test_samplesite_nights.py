"""The sample site night after night (samplesite.nights) and its change signals.

Here: the tests that run Dagster in this process, build a demo warehouse or site, or talk to a
local HTTP stub; the rest of this subject: tests/unit/test_samplesite_nights.py.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from samplesite import SampleSiteServer, generate_site
from samplesite.nights import site_on_night


@pytest.fixture(scope="module")
def site():
    return generate_site(n_games=300, n_users=600, seed=3)


def test_game_pages_answer_conditional_requests_unless_validators_are_off(site):
    n2 = site_on_night(site, 2)
    g = n2.games[n2.catalogue_order[-1]]
    with SampleSiteServer(n2, transient_faults=False) as srv:
        first = urllib.request.urlopen(srv.base_url + g.url)
        etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
        assert etag and modified
        for header, value in (("If-None-Match", etag), ("If-Modified-Since", modified)):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(urllib.request.Request(srv.base_url + g.url, headers={header: value}))
            assert err.value.code == 304
        changed = urllib.request.urlopen(urllib.request.Request(srv.base_url + g.url,
                                                                headers={"If-None-Match": '"other"'}))
        assert changed.status == 200
    with SampleSiteServer(n2, transient_faults=False, validators=False) as srv:
        plain = urllib.request.urlopen(srv.base_url + g.url)
        assert plain.headers["ETag"] is None and plain.headers["Last-Modified"] is None
