"""Cafe pages: the index of cafes, a cafe and the games it offers."""

from __future__ import annotations

from samplesite.model import Cafe, Site
from samplesite.pages.layout import document, e, fmt, n_pages, pagination

CAFE_GAMES_PAGE_SIZE = 20
SPACES_PAGE_SIZE = 20


def spaces_index(site: Site, page: int) -> str:
    """One page of /spaces: cafe names and addresses."""
    total = n_pages(len(site.cafes), SPACES_PAGE_SIZE)
    lis = "".join(
        f'    <li class="spaces-list-item"><a href="{c.url}">{e(c.name)}</a>'
        f'<span class="spaces-list-address">{e(c.address)}</span></li>\n'
        for c in site.cafes[(page - 1) * SPACES_PAGE_SIZE: page * SPACES_PAGE_SIZE])
    main = ('<main id="spaces-index">\n'
            f'  <p class="spaces-index-total">全{fmt(len(site.cafes))}件</p>\n'
            f'  <ul class="spaces-list">\n{lis}  </ul>\n'
            f"{pagination('/spaces', page, total)}</main>\n")
    return document("ボードゲームカフェ", main)


def _space_info(c: Cafe) -> str:
    return ('  <dl class="spaces-info">\n'
            f'    <dt>住所</dt><dd class="spaces-address">{e(c.address)}</dd>\n'
            f'    <dt>営業時間</dt><dd class="spaces-hours">{e(c.hours)}</dd>\n'
            "  </dl>\n")


def space(c: Cafe) -> str:
    """A cafe page: address, hours and the link to its games."""
    main = (f'<main id="spaces-show" data-space-slug="{c.slug}">\n'
            f'  <h1 class="spaces-name">{e(c.name)}</h1>\n{_space_info(c)}'
            f'  <p class="spaces-games-link"><a href="{c.url}/games">遊べるボードゲーム '
            f"{fmt(len(c.game_indices))}個</a></p>\n</main>\n")
    return document(c.name, main)


def space_games(site: Site, c: Cafe, page: int) -> str:
    """One page of the games a cafe offers, in catalogue order."""
    total = n_pages(len(c.game_indices), CAFE_GAMES_PAGE_SIZE)
    items = []
    for i in c.game_indices[(page - 1) * CAFE_GAMES_PAGE_SIZE: page * CAFE_GAMES_PAGE_SIZE]:
        g = site.games[i]
        spec = " / ".join(t for t in (g.players_text, g.playtime_text, g.age_list_text,
                                      g.year_list_text) if t)
        en = f'<span class="spaces-games-item-english">{e(g.name_en)}</span>' if g.name_en else ""
        items.append(
            '    <li class="spaces-games-item">\n'
            f'      <a href="{g.url}"><img src="{e(g.image_url)}" alt="">\n'
            f'        <span class="spaces-games-item-japanese">{e(g.name_ja)}</span>{en}</a>\n'
            f'      <span class="spaces-games-item-spec">{e(spec)}</span>\n'
            "    </li>\n")
    main = (
        f'<main id="spaces-games" data-space-slug="{c.slug}">\n'
        f'  <h1 class="spaces-name">{e(c.name)}</h1>\n{_space_info(c)}'
        f'  <p class="spaces-games-total">遊べるボードゲーム {fmt(len(c.game_indices))}個</p>\n'
        f'  <ul class="spaces-games-list">\n{"".join(items)}  </ul>\n'
        f"{pagination(f'{c.url}/games', page, total)}"
        "</main>\n"
    )
    return document(f"{c.name}の遊べるボードゲーム", main)

