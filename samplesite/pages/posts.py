"""Post pages: a rule write-up or a review, under the spec list and counters of its game."""

from __future__ import annotations

from samplesite.model import Post, Site
from samplesite.pages.games import interests, spec_list
from samplesite.pages.layout import document, e


def post_page(site: Site, p: Post) -> str:
    """A rule or review post: its game's specs, author, views, nice count, date and sections."""
    g = site.games[p.game_index]
    sections = "".join(f"    <h2>{e(h)}</h2>\n    <p>{e(t)}</p>\n" for h, t in p.sections)
    main = (
        f'<main id="posts-show" data-post-id="{p.post_id}" data-post-kind="{p.kind}">\n'
        f"{spec_list(g, '  ')}"
        f'  <h1 class="posts-title"><a href="{g.url}">{e(g.name_ja)}</a> {e(p.title_suffix)}</h1>\n'
        '  <div class="posts-meta">\n'
        f'    <a class="posts-author" href="/friends/{p.author_user_id}">{e(p.author_name)}</a>\n'
        f'    <span class="posts-views">{p.views}名</span>\n'
        f'    <span class="posts-nice-count">{p.nice}</span>\n'
        f'    <time class="posts-date" datetime="{p.published_at}">{e(p.age_label)}</time>\n'
        "  </div>\n"
        f'  <article class="posts-body">\n{sections}  </article>\n'
        f"{interests(g)}"
        "</main>\n"
    )
    return document(p.title, main)


