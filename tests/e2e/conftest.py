"""Fixtures of the end-to-end tier that several files share.

Why here and not imported into each test file: pytest keeps a fixture's cached value per
place it is defined, so a session-scoped fixture imported into five files would run five
times. Defined once here, `crash_night_template` and `nights_first_crawl_template` run once
per xdist worker.
"""

from tests.support.crawl_fixtures import nights_first_crawl, nights_first_crawl_template  # noqa: F401 - fixtures

from tests.support.nightly_process import crash_site_server, crash_night, crash_night_template  # noqa: F401 - fixtures
