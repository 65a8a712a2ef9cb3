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
    """One page: its URL path, menu title, script file (in this folder) and icon."""

    slug: str
    title: str
    file: str
    icon: str
    default: bool = False

    @property
    def route(self) -> str:
        """The page's URL path: the default page lives at the root, the others at /<slug>."""
        return "" if self.default else self.slug

    @property
    def path(self) -> Path:
        return VIEWS_DIR / self.file


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview", "概要 Overview", "overview.py", ":material/dashboard:", default=True),
    PageSpec("catalogue", "カタログ Catalogue", "catalogue.py", ":material/casino:"),
    PageSpec("popularity", "人気 Popularity", "popularity.py", ":material/trending_up:"),
    PageSpec("collections", "コレクション Collections", "member_collections.py", ":material/shelves:"),
    PageSpec("recommendations", "おすすめ Recommendations", "recommendations.py", ":material/recommend:"),
    PageSpec("cafes", "カフェ Cafes", "cafes.py", ":material/local_cafe:"),
    PageSpec("data-quality", "データ品質 Data quality", "data_quality.py", ":material/fact_check:"),
)
