"""Pages of the site → typed items, and the links the spiders follow.

Every function takes a `parsel.Selector` (a spider passes `response.selector`) and the
page URL. They lean on stable hooks: class names, data-attributes, `href` shapes
(`/games/<slug>`, `/friends/<id>`, `?mechanics=`), the Japanese labels and the text
formats (via `scrapers.fields`), never on deep positional paths, because the site's
markup is partly reconstructed and will drift. Each hook has a fallback.

A page whose required hooks are missing raises `PageParseError`; a login page (a
private collection) or an empty listing gives [] from the listing functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from parsel import Selector

from scrapers.fields import (
    classify_spec,
    normalize,
    parse_age,
    parse_count,
    parse_minutes,
    parse_players,
    parse_rating,
    parse_year,
)
from scrapers.items import CafeGame, CollectionEntry, Game, GameSummary, Member, Post


class PageParseError(ValueError):
    """A page lacks a hook its items need (truncated HTML, changed markup): quarantine it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: The four マイボードゲーム statuses, by the label the site shows.
STATUS_LABELS: dict[str, str] = {"持ってる": "have", "経験あり": "played", "お気に入り": "favorite", "興味あり": "watching"}
STATUSES: tuple[str, ...] = ("have", "played", "favorite", "watching")

#: `<main id>` of pages with content: such a page is never the login page.
CONTENT_MAIN_IDS: tuple[str, ...] = (
    "games-index", "games-show", "posts-show", "friends-index", "friends-boardgames", "spaces-games",
)
#: Texts of the "nothing here" marker (the collection one is confirmed on the real site).
EMPTY_TEXTS: tuple[str, ...] = ("検索結果が存在しない", "マイボードゲームが未登録", "見つかりませんでした")
_LIST_CONTAINERS = ".games-table, .list--interests, .friends-list, .spaces-games-list"

_GAME_PATH = re.compile(r"^/games/([^/?#]+)/?$")
_GAME_ANY_PATH = re.compile(r"^/games/([^/?#]+)")
_POST_PATH = re.compile(r"^/games/([^/?#]+)/(rules|reviews)/(\d+)")
_MEMBER_PATH = re.compile(r"^/friends/(\d+)")
_MEMBER_PROFILE_PATH = re.compile(r"^/friends/(\d+)/?$")
_SPACE_PATH = re.compile(r"^/spaces/([^/?#]+)")
_JAPANESE = re.compile("[\u3040-\u30ff\u3400-\u9fff]")
_WS = re.compile(r"\s+")

_CREDIT_LABELS: dict[str, tuple[str, ...]] = {
    "designers": ("ゲームデザイナー", "デザイナー"),
    "mechanics": ("メカニクス",),
    "themes": ("テーマ",),
}
_CREDIT_HREFS: dict[str, re.Pattern[str]] = {
    "designers": re.compile(r"/designers/"),
    "mechanics": re.compile(r"[?&]mechanics="),
    "themes": re.compile(r"[?&]themes="),
}
_HINT_WORDS: dict[str, str] = {
    "players": "players", "player": "players", "ninzu": "players",
    "playtime": "minutes", "time": "minutes", "minutes": "minutes",
    "age": "age", "year": "year", "release": "year",
}
#: Class words of the elements that hold a game's name, never its specs.
_NAME_WORDS = frozenset({"japanese", "english", "name", "title"})
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table tbody td th thead tr ul".split()
)
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())


# --- small helpers -------------------------------------------------------------------


def _clean(text: str | None) -> str | None:
    """Display text with whitespace collapsed (no NFKC: names keep their `（）` and `：`)."""
    cleaned = _WS.sub(" ", text or "").strip()
    return cleaned or None


def _string(sel: Selector | None) -> str | None:
    """The cleaned text content of one element (None for no element or no text)."""
    return _clean(sel.xpath("string(.)").get()) if sel is not None else None


def _first(sels: Any) -> Selector | None:
    """The first selector of a list, or None."""
    return sels[0] if len(sels) else None


def _main(selector: Selector) -> Selector:
    """The page's `<main>` (where the content is), else `<body>`, else the document."""
    return _first(selector.xpath("//main")) or _first(selector.xpath("//body")) or selector


def _path(href: str | None) -> str:
    """The path of an href or URL, percent-decoded ("" when there is none)."""
    return unquote(urlsplit(href.strip()).path) if href else ""


def game_slug(href: str | None) -> str | None:
    """The game slug of a `/games/<slug>` href or URL (also of its rule/review pages)."""
    match = _GAME_ANY_PATH.match(_path(href))
    return match[1] if match else None


def member_id(href: str | None) -> str | None:
    """The member id of a `/friends/<id>` href or URL, as a string (`"17406"`)."""
    match = _MEMBER_PATH.match(_path(href))
    return match[1] if match else None


def space_slug(href: str | None) -> str | None:
    """The cafe slug of a `/spaces/<slug>` href or URL."""
    match = _SPACE_PATH.match(_path(href))
    return match[1] if match else None


def _canonical(selector: Selector) -> str | None:
    """The page's canonical URL (`<link rel=canonical>`, else `og:url`)."""
    return selector.xpath("//link[@rel='canonical']/@href").get() or selector.xpath(
        "//meta[@property='og:url']/@content"
    ).get()


def _game_link(scope: Selector) -> tuple[str, Selector] | None:
    """The first link to a game page (`/games/<slug>`, not a post) inside scope, with its slug."""
    for link in scope.xpath(".//a[@href]"):
        match = _GAME_PATH.match(_path(link.attrib["href"]))
        if match:
            return match[1], link
    return None


def _has_japanese(text: str | None) -> bool:
    """Whether the text has kana or kanji (a Japanese name rather than a romanised one)."""
    return bool(text and _JAPANESE.search(text))


def _class_words(el: Any) -> frozenset[str]:
    """The words of an element's class names (`games-spec-age` → games, spec, age)."""
    return frozenset(w for w in re.split(r"[\s\-_]+", (el.get("class") or "").lower()) if w)


def _text_fragments(root: Any) -> Iterator[tuple[str, frozenset[str]]]:
    """Each text node under an lxml element with the class words of its enclosing elements."""

    def walk(node: Any, words: frozenset[str]) -> Iterator[tuple[str, frozenset[str]]]:
        if not isinstance(node.tag, str) or node.tag in ("script", "style"):
            return
        own = words | _class_words(node)
        if node.text:
            yield node.text, own
        for child in node:
            yield from walk(child, own)
            if child.tail:
                yield child.tail, own

    yield from walk(root, frozenset())


def _block_text(sel: Selector, *, skip_headings: bool = False) -> str | None:
    """An element's text with one line per paragraph, heading, list item or `<br>`."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if not isinstance(node.tag, str) or node.tag in ("script", "style"):
            return
        if skip_headings and node.tag in _HEADINGS:
            return
        block = node.tag in _BLOCK_TAGS
        parts.append("\n" if block else "")
        parts.append(node.text or "")
        for child in node:
            walk(child)
            parts.append(child.tail or "")
        parts.append("\n" if block else "")

    walk(sel.root)
    lines = (_clean(line) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line) or None


def _absolute(url: str, href: str) -> str | None:
    """href resolved against the page URL; None for another host or a non-web link."""
    href = href.strip()
    if not href or href.startswith(("#", "javascript:", "mailto:")):
        return None
    target = urljoin(url, href)
    page_host, target_host = urlsplit(url).netloc, urlsplit(target).netloc
    if page_host and target_host and page_host != target_host:
        return None
    return target


# --- specs, counters, credits --------------------------------------------------------


def _hint(words: frozenset[str]) -> str | None:
    """The spec field a class name announces (`games-spec-age` → age), if any."""
    for word, kind in _HINT_WORDS.items():
        if word in words:
            return kind
    return None


def _spec_pieces(raw: str) -> Iterator[tuple[str, str | None]]:
    """Classified pieces of one text node: split on `/` and `|`, then on spaces if needed."""
    for piece in re.split(r"[/|]", normalize(raw)):
        piece = piece.strip()
        if not piece:
            continue
        kind = classify_spec(piece)
        if kind:
            yield piece, kind
            continue
        tokens = [(tok, classify_spec(tok)) for tok in piece.split(" ")]
        if len(tokens) > 1 and any(kind for _, kind in tokens):
            yield from ((tok, kind) for tok, kind in tokens if kind)
        else:
            yield piece, None


_SPEC_PARSERS: dict[str, Any] = {
    "players": parse_players, "minutes": parse_minutes, "age": parse_age, "year": parse_year,
}


def _spec_values(scope: Selector) -> dict[str, int | None]:
    """min/max players, min/max minutes, min age and year found under scope.

    Each fragment is classified by its unit (人, 分, 歳, 年); one without a unit falls
    back to its element's class (`games-spec-age`). The first value of a field wins.
    Names (`…-japanese`, `…-title`) are skipped: a game may be called `2人`.
    """
    found: dict[str, Any] = {}
    for raw, words in _text_fragments(scope.root):
        if words & _NAME_WORDS:
            continue
        for piece, kind in _spec_pieces(raw):
            kind = kind or _hint(words)
            if kind and found.get(kind) in (None, (None, None)):
                found[kind] = _SPEC_PARSERS[kind](piece)
    players = found.get("players") or (None, None)
    minutes = found.get("minutes") or (None, None)
    return {
        "min_players": players[0], "max_players": players[1],
        "min_minutes": minutes[0], "max_minutes": minutes[1],
        "min_age": found.get("age"), "year": found.get("year"),
    }


def _status_of(el: Selector) -> str | None:
    """Which status an element stands for: its class (`have`), else its label (`持ってる`)."""
    words = _class_words(el.root)
    for status in STATUSES:
        if status in words:
            return status
    text = normalize(el.xpath("string(.)").get())
    return next((status for label, status in STATUS_LABELS.items() if label in text), None)


def _interest_counts(scope: Selector) -> dict[str, int | None]:
    """The game page's four counters (`games-interest-count`), keyed by status."""
    counts: dict[str, int | None] = {}
    boxes = scope.xpath(".//*[contains(concat(' ', normalize-space(@class), ' '), ' games-interest ')]")
    for box in boxes:
        status = _status_of(box)
        if status and status not in counts:
            number = box.xpath(".//*[contains(@class, 'interest-count')]").xpath("string(.)").get()
            counts[status] = parse_count(number if number is not None else box.xpath("string(.)").get())
    if not counts:  # fallback: an item that reads "9興味あり"
        for item in scope.xpath(".//li | .//a | .//button"):
            match = re.fullmatch(r"([\d,]+)\s*(\S+)", normalize(item.xpath("string(.)").get()))
            if match and match[2] in STATUS_LABELS:
                counts.setdefault(STATUS_LABELS[match[2]], parse_count(match[1]))
    return counts


def _credit_list(scope: Selector, field: str) -> list[str]:
    """Designers, mechanics or themes: the links next to the label, else by href shape."""
    links: list[Selector] = []
    for label in _CREDIT_LABELS[field]:
        heads = scope.xpath(
            ".//*[not(self::a) and normalize-space(.)=$label and not(*[normalize-space(.)=$label])]",
            label=label,
        )
        for head in heads:
            tag = head.root.tag
            box = head.xpath("following-sibling::*[1]") if tag in ("dt", "th") else head.xpath("..")
            links = list(box.xpath(".//a"))
            shaped = [a for a in links if _CREDIT_HREFS[field].search(a.attrib.get("href", ""))]
            links = shaped or links
            if links:
                break
        if links:
            break
    if not links:
        links = [a for a in scope.xpath(".//a[@href]") if _CREDIT_HREFS[field].search(a.attrib["href"])]
    names = (_string(a) for a in links)
    return list(dict.fromkeys(name for name in names if name))


# --- page kinds ----------------------------------------------------------------------


def is_login_page(selector: Selector) -> bool:
    """Whether the site answered with its login page (how a private collection looks)."""
    if selector.xpath("//*[@id='sessions-new']"):
        return True
    if any(selector.xpath("//*[@id=$id]", id=main_id) for main_id in CONTENT_MAIN_IDS):
        return False
    return bool(selector.xpath("//form[.//input[@type='password']]"))


def is_empty_listing(selector: Selector) -> bool:
    """Whether a listing page says it lists nothing (past the last page, or no collection).

    True for the site's `<p class="empty">` marker (or its text) and for a list container
    holding no game or member link; never for a page that has rows.
    """
    main = _main(selector)
    if _rows_present(main):
        return False
    text = normalize(main.xpath("string(.)").get())
    if main.css(".empty") or any(marker in text for marker in EMPTY_TEXTS):
        return True
    containers = main.css(_LIST_CONTAINERS)
    return bool(containers) and not any(
        _game_link(c) or any(member_id(h) for h in c.xpath(".//a/@href").getall()) for c in containers
    )


def _rows_present(main: Selector) -> bool:
    """Whether any known listing row (catalogue, card, member, cafe game) is on the page."""
    return bool(main.css(".games-table-row, .list--interests-item, .friends-list-item, .spaces-games-item"))


def _rows_with_game_links(scope: Selector) -> list[Selector]:
    """Fallback rows: the innermost `<li>`/`<tr>` elements that link to a game page."""
    rows = [row for row in scope.xpath(".//li | .//tr") if _game_link(row)]
    return [row for row in rows if not any(_game_link(inner) for inner in row.xpath(".//li | .//tr"))]


def _no_rows(selector: Selector, what: str) -> list[Any]:
    """[] for an empty listing; otherwise the page is not the listing it should be."""
    if is_empty_listing(selector):
        return []
    raise PageParseError(f"{what} has no rows and no empty-list marker")


def _row_names(row: Selector, link: Selector) -> tuple[str | None, str | None]:
    """(name_ja, name_en) of a listing row, from its `…-japanese`/`…-english` elements."""
    name_ja = _string(_first(row.xpath(".//*[contains(@class, 'japanese')]")))
    name_en = _string(_first(row.xpath(".//*[contains(@class, 'english')]")))
    if name_ja or name_en:
        return name_ja, name_en
    parts = [text for text in (_string(child) for child in link.xpath("./*")) if text]
    if len(parts) >= 2:  # one element per name, classes gone: tell them apart by script
        name_ja = next((p for p in parts if _has_japanese(p)), None)
        name_en = next((p for p in parts if not _has_japanese(p)), None)
        return name_ja, name_en
    text = _string(link) or _clean(link.xpath(".//img/@alt").get())
    return (text, None) if _has_japanese(text) else (None, text)


def catalog_items(selector: Selector, url: str) -> list[GameSummary]:
    """The rows of a catalogue page (`/games?page=N`): names and the spec cells."""
    if is_login_page(selector):
        return []
    main = _main(selector)
    rows = main.css(".games-table-row") or [r for r in _rows_with_game_links(main) if r.root.tag == "tr"]
    if not rows:
        return _no_rows(selector, "catalogue page")
    items = []
    for row in rows:
        found = _game_link(row)
        if not found:
            raise PageParseError("catalogue row has no game link")
        name_ja, name_en = _row_names(row, found[1])
        items.append(GameSummary(game_id=found[0], name_ja=name_ja, name_en=name_en, **_spec_values(row)))
    return items


def _game_id(selector: Selector, url: str) -> str | None:
    """A game page's slug: canonical link, then the page URL, then a title link."""
    for candidate in (_canonical(selector), url, *selector.xpath("//h1//a/@href").getall()):
        match = _GAME_PATH.match(_path(candidate))
        if match:
            return match[1]
    return None


def _game_names(selector: Selector, main: Selector) -> tuple[str | None, str | None]:
    """(name_ja, name_en) from the title's `-japanese`/`-english` spans, else h1 and `<title>`."""
    name_ja = _string(_first(main.xpath(".//*[contains(@class, 'title-japanese')]")))
    name_en = _string(_first(main.xpath(".//*[contains(@class, 'title-english')]")))
    if name_ja or name_en:
        return name_ja, name_en
    h1 = _string(_first(main.xpath(".//h1")))
    if not h1:
        return None, None
    title = (_clean(selector.xpath("//title/text()").get()) or "").rsplit(" | ", 1)[0]
    if " / " in title:
        ja, en = title.split(" / ", 1)
        return _clean(ja), _clean(en)
    return (h1, None) if _has_japanese(h1) else (None, h1)


def _overview(main: Selector) -> str | None:
    """The 概要 section's text, paragraphs joined by newlines (its heading left out)."""
    section = _first(main.xpath(".//*[contains(@class, 'games-overview')]"))
    if section is None:
        heading = _first(main.xpath(".//*[self::h2 or self::h3][normalize-space(.)='概要']"))
        section = _first(heading.xpath("..")) if heading is not None else None
    return _block_text(section, skip_headings=True) if section is not None else None


def game_item(selector: Selector, url: str) -> Game:
    """A game page (`/games/<slug>`): names, specs, the four counters, credits, overview."""
    main = _main(selector)
    name_ja, name_en = _game_names(selector, main)
    if not (name_ja or name_en):
        raise PageParseError("game page has no title")
    game_id = _game_id(selector, url)
    if not game_id:
        raise PageParseError("game page has no game id")
    spec_scope = _first(main.xpath(".//*[contains(concat(' ', normalize-space(@class), ' '), ' games-spec ')]"))
    counts = _interest_counts(main)
    is_web = urlsplit(url).scheme in ("http", "https")
    canonical = _canonical(selector)
    page_url = (urljoin(url, canonical) if is_web else canonical) if canonical else (url if is_web else None)
    return Game(
        game_id=game_id,
        name_ja=name_ja,
        name_en=name_en,
        **_spec_values(spec_scope if spec_scope is not None else main),
        n_watching=counts.get("watching"),
        n_played=counts.get("played"),
        n_favorite=counts.get("favorite"),
        n_have=counts.get("have"),
        designers=_credit_list(main, "designers"),
        mechanics=_credit_list(main, "mechanics"),
        themes=_credit_list(main, "themes"),
        overview=_overview(main),
        url=page_url,
    )


def post_item(selector: Selector, url: str) -> Post:
    """A rule/instruction or review post (`/games/<slug>/rules/<id>`, `/reviews/<id>`)."""
    main = _main(selector)
    canonical = _canonical(selector)
    refs = [m for m in (_POST_PATH.match(_path(u)) for u in (url, canonical)) if m]
    post_id = selector.xpath("//*[@data-post-id]/@data-post-id").get() or (refs[0][3] if refs else None)
    if not post_id:
        raise PageParseError("post page has no post id")
    kind = (selector.xpath("//*[@data-post-kind]/@data-post-kind").get() or "").strip().lower()
    kind = kind or (refs[0][2] if refs else "")
    kind = {"rules": "rule", "reviews": "review"}.get(kind, kind)
    if not kind:
        raise PageParseError("post page has no kind (rule or review)")
    h1 = _first(main.xpath(".//*[contains(@class, 'posts-title')]")) or _first(main.xpath(".//h1"))
    body_el = _first(main.xpath(".//*[contains(@class, 'posts-body')]")) or _first(main.xpath(".//article"))
    title, body = _string(h1), (_block_text(body_el) if body_el is not None else None)
    if not (title or body):
        raise PageParseError("post page has no title and no body")
    title_links = h1.xpath(".//a/@href").getall() if h1 is not None else []
    game_id = refs[0][1] if refs else next(filter(None, map(game_slug, title_links)), None)
    author = main.xpath(
        ".//*[contains(@class, 'posts-author')]/descendant-or-self::a/@href | .//a[@rel='author']/@href"
    ).getall()
    author_id = next(filter(None, map(member_id, author + main.xpath(".//a/@href").getall())), None)
    published = (
        main.xpath(".//*[contains(@class, 'posts-meta')]//time/@datetime").get()
        or main.xpath(".//time[@datetime]/@datetime").get()
    )
    return Post(
        post_id=post_id.strip(),
        game_id=game_id,
        post_kind=kind,
        author_user_id=author_id,
        title=title,
        body=body,
        published_at=_clean(published),
    )


def member_items(selector: Selector, url: str) -> list[Member]:
    """The rows of the member directory (`/friends?page=N`): id and display name."""
    if is_login_page(selector):
        return []
    main = _main(selector)
    rows = main.css(".friends-list-item") or [main]
    names: dict[str, str | None] = {}
    for row in rows:
        links = [(member_id(a.attrib["href"]), a) for a in row.xpath(".//a[@href]")]
        links = [(uid, a) for uid, a in links if uid and _MEMBER_PROFILE_PATH.match(_path(a.attrib["href"]))]
        if not links and row is not main:
            raise PageParseError("member row has no /friends/<id> link")
        for uid, link in links:
            name = _string(link) or _clean(link.xpath(".//img/@alt").get())
            if names.get(uid) is None:
                names[uid] = name
            if row is not main:
                break
    if not names:
        return _no_rows(selector, "member directory")
    return [Member(user_id=uid, name=name) for uid, name in names.items()]


def _collection_owner(selector: Selector, url: str) -> str | None:
    """The member whose collection this is: `data-friend-id`, the URL, then its tab links."""
    candidates = [selector.xpath("//*[@data-friend-id]/@data-friend-id").get()]
    candidates += [member_id(url)]
    candidates += [member_id(h) for h in selector.xpath("//a[contains(@href, '/boardgames')]/@href").getall()]
    return next((c.strip() for c in candidates if c and c.strip()), None)


def _iso_or_none(value: str | None) -> str | None:
    """An ISO 8601 timestamp in its canonical form (`…T…+09:00`), None when it is not one."""
    try:
        return datetime.fromisoformat((value or "").strip().replace("Z", "+00:00")).isoformat()
    except ValueError:
        return None


def _card_statuses(card: Selector) -> dict[str, bool]:
    """A card's four statuses from `friend-interest <status> on|off`."""
    statuses = dict.fromkeys(STATUSES, False)
    for el in card.xpath(".//*[contains(concat(' ', normalize-space(@class), ' '), ' friend-interest ')]"):
        status = _status_of(el)
        if status:
            words = _class_words(el.root)
            statuses[status] = bool(words & {"on", "active", "checked"}) and "off" not in words
    return statuses


def collection_items(selector: Selector, url: str) -> list[CollectionEntry]:
    """The cards of a member's マイボードゲーム (`/friends/<id>/boardgames?page=N`)."""
    if is_login_page(selector):
        return []
    main = _main(selector)
    cards = main.css(".list--interests-item") or [
        card
        for card in (
            _first(ul.xpath("ancestor::*[.//a[contains(@href, '/games/')]][1]"))
            for ul in main.xpath(".//*[contains(@class, 'friend-interests')]")
        )
        if card is not None
    ]
    if not cards:
        return _no_rows(selector, "collection page")
    user_id = _collection_owner(selector, url)
    if not user_id:
        raise PageParseError("collection page has no member id")
    entries = []
    for card in cards:
        found = _game_link(card)
        if not found:
            raise PageParseError("collection card has no game link")
        updated = card.xpath("./@data-updated-at | .//@data-updated-at").get()
        entries.append(
            CollectionEntry(
                user_id=user_id,
                game_id=found[0],
                **_card_statuses(card),
                rating=parse_rating(card.xpath(".//@data-rating-result").get()),
                updated_at=_iso_or_none(updated),
            )
        )
    return entries


def _space_name(selector: Selector, main: Selector) -> str | None:
    """The cafe's name: its h1, else the `<title>` without the site suffix."""
    name = _string(_first(main.xpath(".//*[contains(@class, 'spaces-name')]"))) or _string(_first(main.xpath(".//h1")))
    if name:
        return name
    title = (_clean(selector.xpath("//title/text()").get()) or "").rsplit(" | ", 1)[0]
    return _clean(title.removesuffix("の遊べるボードゲーム"))


def space_items(selector: Selector, url: str) -> list[CafeGame]:
    """The games a board game cafe offers (`/spaces/<slug>/games?page=N`)."""
    if is_login_page(selector):
        return []
    main = _main(selector)
    rows = main.css(".spaces-games-item") or _rows_with_game_links(main)
    if not rows:
        return _no_rows(selector, "cafe page")
    slug = selector.xpath("//*[@data-space-slug]/@data-space-slug").get() or space_slug(url) or space_slug(
        _canonical(selector)
    )
    if not slug:
        raise PageParseError("cafe page has no space slug")
    name = _space_name(selector, main)
    items = []
    for row in rows:
        found = _game_link(row)
        if not found:
            raise PageParseError("cafe row has no game link")
        name_ja, name_en = _row_names(row, found[1])
        items.append(
            CafeGame(
                space_slug=slug.strip(), space_name=name, game_id=found[0],
                name_ja=name_ja, name_en=name_en, **_spec_values(row),
            )
        )
    return items


# --- links the spiders follow --------------------------------------------------------


def next_page_url(selector: Selector, url: str) -> str | None:
    """The next page of a listing (`rel="next"`, else the 次へ link), absolute; None on the last."""
    hrefs = selector.xpath(
        "//a[contains(concat(' ', normalize-space(@rel), ' '), ' next ')]/@href"
        " | //link[@rel='next']/@href"
    ).getall()
    hrefs += selector.xpath("//a[starts-with(normalize-space(.), '次へ')]/@href").getall()
    return next(filter(None, (_absolute(url, h) for h in hrefs)), None)


def _links(selector: Selector, url: str, pattern: re.Pattern[str], scope: str = "//a/@href") -> list[str]:
    """Absolute same-site links whose path matches pattern, rebuilt from the match, in order."""
    found: dict[str, None] = {}
    for href in selector.xpath(scope).getall():
        target = _absolute(url, href)
        if not target:
            continue
        match = pattern.match(_path(target))
        if match:
            found[urljoin(target, match[0].rstrip("/"))] = None
    return list(found)


def game_links(selector: Selector, url: str) -> list[str]:
    """Links to game pages (`/games/<slug>`), absolute, without query, deduplicated."""
    return _links(selector, url, _GAME_PATH)


def post_links(selector: Selector, url: str) -> list[str]:
    """Links to rule/review posts (`/games/<slug>/rules|reviews/<id>`) on a game page."""
    return _links(selector, url, _POST_PATH)


def member_links(selector: Selector, url: str) -> list[str]:
    """Links to member profiles (`/friends/<id>`) in the member directory."""
    return _links(selector, url, _MEMBER_PATH)


def author_links(selector: Selector, url: str) -> list[str]:
    """Member links on a post page: the author (`posts-author`, `rel=author`) first, then any other."""
    author_scope = "//*[contains(@class, 'posts-author')]/descendant-or-self::a/@href | //a[@rel='author']/@href"
    authors = _links(selector, url, _MEMBER_PATH, author_scope)
    return list(dict.fromkeys(authors + member_links(selector, url)))


def space_links(selector: Selector, url: str) -> list[str]:
    """Links to board game cafes (`/spaces/<slug>`), as the cafe's own URL."""
    return _links(selector, url, _SPACE_PATH)


__all__ = [
    "PageParseError", "author_links", "catalog_items", "collection_items", "game_item", "game_links",
    "game_slug", "is_empty_listing", "is_login_page", "member_id", "member_items",
    "member_links", "next_page_url", "post_item", "post_links", "space_items", "space_links", "space_slug",
]
