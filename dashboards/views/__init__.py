"""The dashboard's pages, in menu order: one small script per page.

Why a registry here rather than in app.py: the entry point, the AppTest suite and the
browser tests all walk the same list, so a new page is tested the moment it is listed.

Why the folder is `views/` and not `pages/`: Streamlit treats a `pages/` folder next to
the entry script as an old-style (v1) multipage app and then runs each file on its own
— without app.py, its page frame or its menu — whenever a page's URL is opened
directly. Any other folder name keeps `st.navigation` in charge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

VIEWS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class PageSpec:
    """One page: its URL path, title (menu and heading), script file (in this folder), icon
    and the caption under its heading.

    Why the heading and caption live here too: the menu and the page then cannot name a
    page differently; a page's script says only what it shows (``ui.page(slug, *parts)``).
    """

    slug: str
    title: str
    file: str
    icon: str
    caption: str
    default: bool = False

    @property
    def route(self) -> str:
        """The page's URL path: the default page lives at the root, the others at /<slug>."""
        return "" if self.default else self.slug

    @property
    def path(self) -> Path:
        return VIEWS_DIR / self.file


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview", "概要 Overview", "overview.py", ":material/dashboard:", default=True,
             caption="How much the warehouse holds, how fresh the crawl is, and how the last nightly run went."),
    PageSpec("catalogue", "カタログ Catalogue", "catalogue.py", ":material/casino:",
             caption="Distributions over the games the site lists; filter by year, mechanics and themes."),
    PageSpec("popularity", "人気 Popularity", "popularity.py", ":material/trending_up:",
             caption="Members' public collections against the site's own counters, and what changed since the "
                     "last crawl."),
    PageSpec("collections", "コレクション Collections", "member_collections.py", ":material/shelves:",
             caption="Collection sizes, the mix of statuses, and what members own by player count and play time."),
    PageSpec("recommendations", "おすすめ Recommendations", "recommendations.py", ":material/recommend:",
             caption="Model runs and their metrics, popularity bias of the recommendations, and a per-member "
                     "explorer."),
    PageSpec("outcomes", "答え合わせ Did the lists come true?", "outcomes.py", ":material/task_alt:",
             caption="What members did with the lists each night served: the share who took a game of their "
                     "top 10, against popularity and the previous champion, with intervals."),
    PageSpec("cafes", "カフェ Cafes", "cafes.py", ":material/local_cafe:",
             caption="Cafe offers against members' wants (興味あり and お気に入り), and the wanted games nobody offers."),
    PageSpec("data-quality", "データ品質 Data quality", "data_quality.py", ":material/fact_check:",
             caption="The night's checks (the count the overview shows), the rows the data-quality checks "
                     "found failing, and the quarantined pages."),
)


def page_spec(slug: str) -> PageSpec:
    """The page listed under ``slug``; a ``KeyError`` names the known ones."""
    for spec in PAGES:
        if spec.slug == slug:
            return spec
    raise KeyError(f"no dashboard page {slug!r}; known: {', '.join(p.slug for p in PAGES)}")
