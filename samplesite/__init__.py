"""A deterministic sample of the board game site (bodoge.hoobby.net) and a real HTTP server for it.

Why: no machine here reaches the real site, so spiders are built and tested against
pages of exactly its shape, and crawls are compared with the generator's ground truth.

    site = generate_site(n_games=2000, n_users=5000, seed=0)
    with SampleSiteServer(site) as srv:
        ...crawl srv.base_url...
    frames = truth_frames(site)
"""

from importlib import import_module
from typing import Any

# `render` is also the name of its module: once `samplesite.render` is imported, the
# package attribute is that module, so the function is bound here, eagerly.
from samplesite.render import render

# Loaded when first used (PEP 562), so a command that only needs one small module of the
# sample site (`bodoge --help` lists the variants) does not import Polars and NumPy.
_HOME = {
    "permanent_faults": "samplesite.faults", "transient_fault": "samplesite.faults",
    "generate_site": "samplesite.generator", "REFERENCE_NOW": "samplesite.model", "Site": "samplesite.model",
    "Response": "samplesite.pages.layout",
    "SampleSiteServer": "samplesite.server", "serve_forever": "samplesite.server",
    "truth_frames": "samplesite.truth", "write_truth": "samplesite.truth", "iter_urls": "samplesite.urls",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'samplesite' has no attribute {name!r}")
    return getattr(import_module(_HOME[name]), name)


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
