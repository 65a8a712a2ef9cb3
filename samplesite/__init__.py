"""A deterministic sample of the board game site (bodoge.hoobby.net) and a real HTTP server for it.

Why: no machine here reaches the real site, so spiders are built and tested against
pages of exactly its shape, and crawls are compared with the generator's ground truth.

    site = generate_site(n_games=2000, n_users=5000, seed=0)
    with SampleSiteServer(site) as srv:
        ...crawl srv.base_url...
    frames = truth_frames(site)
"""

from samplesite.faults import permanent_faults, transient_fault
from samplesite.generator import generate_site
from samplesite.model import REFERENCE_NOW, Site
from samplesite.pages.layout import Response
from samplesite.render import render
from samplesite.server import SampleSiteServer, serve_forever
from samplesite.truth import truth_frames, write_truth
from samplesite.urls import iter_urls

__all__ = [
    "REFERENCE_NOW",
    "Response",
    "SampleSiteServer",
    "Site",
    "generate_site",
    "iter_urls",
    "permanent_faults",
    "render",
    "serve_forever",
    "transient_fault",
    "truth_frames",
    "write_truth",
]
