"""Rule/instruction and review posts (`/games/<slug>/rules/<id>`, `/games/<slug>/reviews/<id>`)."""

from __future__ import annotations

from parsel import Selector

from scrapers.items import Post
from scrapers.pages.complete import require_complete
from scrapers.pages.markup import (
    POST_PATH,
    PageParseError,
    block_text,
    canonical,
    clean,
    first,
    game_slug,
    main_of,
    member_id,
    path,
    string,
    xpath,
)

_KINDS = {"rules": "rule", "reviews": "review"}


def post_item(selector: Selector, url: str) -> Post:
    """A rule/instruction or review post (`/games/<slug>/rules/<id>`, `/reviews/<id>`)."""
    require_complete(selector, what="post page")
    root = selector.root
    main = main_of(root)
    refs = [m for m in (POST_PATH.match(path(u)) for u in (url, canonical(root))) if m]
    post_id = first(root, "//@data-post-id") or (refs[0][3] if refs else None)
    if not post_id:
        raise PageParseError("post page has no post id")
    kind = (first(root, "//@data-post-kind") or "").strip().lower()
    kind = kind or (refs[0][2] if refs else "")
    kind = _KINDS.get(kind, kind)
    if not kind:
        raise PageParseError("post page has no kind (rule or review)")
    h1 = first(main, ".//*[contains(@class, 'posts-title')]")
    if h1 is None:
        h1 = first(main, ".//h1")
    body_el = first(main, ".//*[contains(@class, 'posts-body')]")
    if body_el is None:
        body_el = first(main, ".//article")
    title, body = string(h1), (block_text(body_el) if body_el is not None else None)
    if not (title or body):
        raise PageParseError("post page has no title and no body")
    title_links = xpath(h1, ".//a/@href") if h1 is not None else []
    game_id = refs[0][1] if refs else next(filter(None, map(game_slug, title_links)), None)
    author = xpath(
        main, ".//*[contains(@class, 'posts-author')]/descendant-or-self::a/@href | .//a[@rel='author']/@href"
    )
    author_id = next(filter(None, map(member_id, author + xpath(main, ".//a/@href"))), None)
    published = first(main, ".//*[contains(@class, 'posts-meta')]//time/@datetime") or first(
        main, ".//time[@datetime]/@datetime"
    )
    return Post(
        post_id=post_id.strip(),
        game_id=game_id,
        post_kind=kind,
        author_user_id=author_id,
        title=title,
        body=body,
        published_at=clean(published),
    )
