"""Game pages and the catalogue (all games, or those of one mechanic or theme), and credit pages.

Why together: they share the spec list and the interest counters a game shows, and the
permanent game-page faults (malformed pages) are rendered here.
"""

from __future__ import annotations

from core.statuses import STATUS_LABELS
from samplesite import faults, vocab
from samplesite.model import Game, Site
from samplesite.pages.layout import document, e, fmt, n_pages, pagination

CATALOGUE_PAGE_SIZE = 20


def spec_list(g: Game, indent: str = "      ") -> str:
    """The game's spec texts (players, time, age, year) as shown on game and post pages."""
    items = (("players", g.players_text), ("playtime", g.playtime_text),
             ("age", g.age_page_text), ("year", g.year_page_text))
    lis = "".join(f'{indent}  <li class="games-spec-item games-spec-{k}">{e(v)}</li>\n'
                  for k, v in items if v is not None)
    return f'{indent}<ul class="games-spec">\n{lis}{indent}</ul>\n'


def interests(g: Game, indent: str = "  ") -> str:
    """The game's four counters (興味あり, 経験あり, お気に入り, 持ってる)."""
    counts = (("watching", g.n_watching), ("played", g.n_played),
              ("favorite", g.n_favorite), ("have", g.n_have))
    lis = "".join(f'{indent}  <li class="games-interest {k}"><span class="games-interest-count">{n}'
                  f"</span>{STATUS_LABELS[k]}</li>\n" for k, n in counts)
    return f'{indent}<ul class="games-interests">\n{lis}{indent}</ul>\n'


def game_page(site: Site, g: Game) -> str:
    """A game page: catch area, counters, credits, overview, posts and cafes (malformed if a fault)."""
    title = f"{g.name_ja} / {g.name_en}" if g.name_en else g.name_ja
    head = f'<link rel="canonical" href="{e(g.canonical_url)}">\n'
    if not g.image_url.endswith("noimage_game.png"):
        head += f'<meta property="og:image" content="{e(g.image_url)}">\n'
    en = (f'        <span class="games-title-english">{e(g.name_en)}</span>\n' if g.name_en else "")
    catch = f'      <p class="games-catchcopy">{e(g.catchcopy)}</p>\n' if g.catchcopy else ""
    catcharea = (
        '  <div id="games-catcharea">\n'
        f'    <div class="games-catcharea-image"><img src="{e(g.image_url)}" alt="{e(g.name_ja)}"></div>\n'
        '    <div class="games-catcharea-body">\n'
        '      <h1 class="games-title">\n'
        f'        <span class="games-title-japanese">{e(g.name_ja)}</span>\n{en}'
        "      </h1>\n"
        f"{spec_list(g)}{catch}"
        "    </div>\n  </div>\n\n"
    )
    credit_rows: list[str] = []
    if g.designers:
        links = "".join(f'<a href="/designers/{d.ref_id}">{e(d.label)}</a>' for d in g.designers)
        credit_rows.append(f'<li><span class="games-credit-headline">ゲームデザイナー</span>{links}</li>')
    if g.makers:
        links = "".join(f'<a href="/makers/{m.ref_id}">{e(m.label)}</a>' for m in g.makers)
        credit_rows.append(f'<li><span class="games-credit-headline">メーカー・発売元</span>{links}</li>')
    if g.mechanics:
        links = "".join(f'<a href="/games?mechanics={s}">{e(lab)}</a>'
                        for s, lab in zip(g.mechanics, g.mechanic_labels))
        credit_rows.append(f'<li><span class="games-credit-headline">メカニクス</span>{links}</li>')
    if g.themes:
        links = "".join(f'<a href="/games?themes={s}">{e(lab)}</a>'
                        for s, lab in zip(g.themes, g.theme_labels))
        credit_rows.append(f'<li><span class="games-credit-headline">テーマ</span>{links}</li>')
    credit = ""
    if credit_rows:
        rows = "".join(f"      {r}\n" for r in credit_rows)
        credit = ('  <section class="games-credit">\n    <ul class="games-credit-list">\n'
                  f"{rows}    </ul>\n  </section>\n\n")
    overview = ('  <section class="games-overview">\n    <h2>概要</h2>\n'
                f"    <p>{e(g.overview)}</p>\n  </section>\n\n")
    posts = [site.posts[site.post_by_id[pid]] for pid in g.post_ids]
    post_html = ""
    if posts:
        blocks = []
        for kind, heading in (("rule", "ルール/インスト"), ("review", "レビュー")):
            mine = [p for p in posts if p.kind == kind]
            if not mine:
                continue
            lis = "".join(f'      <li class="games-post"><a href="{e(p.url)}">{e(p.title)}</a>'
                          f'<span class="games-post-meta">{e(p.age_label)}</span></li>\n' for p in mine)
            blocks.append(f"    <h2>{heading}</h2>\n    <ul class=\"games-posts-list\">\n{lis}    </ul>\n")
        post_html = f'  <section class="games-posts">\n{"".join(blocks)}  </section>\n\n'
    spaces = ""
    if g.cafe_slugs:
        lis = "".join(f'<li><a href="/spaces/{s}">{e(site.cafes[site.cafe_by_slug[s]].name)}</a></li>'
                      for s in g.cafe_slugs)
        spaces = ('  <section class="games-spaces">\n    <h2>このゲームが遊べるボードゲームカフェ</h2>\n'
                  f"    <ul>{lis}</ul>\n  </section>\n")
    if g.malformed:
        return _malformed_game_page(g, head, catcharea, credit + overview + post_html + spaces)
    main = (f'<main id="games-show" data-game-id="{g.numeric_id}">\n{catcharea}'
            f"{interests(g)}\n{credit}{overview}{post_html}{spaces}</main>\n")
    return document(title, main, head=head)


def _malformed_game_page(g: Game, head: str, catcharea: str, rest: str) -> str:
    """A permanently broken game page (fault): HTTP 200, but no title and no spec list.

    Two shapes, by game id parity: cut off mid-document just before the title, or the
    catch area replaced by a template error comment (counters and credits still there).
    """
    if faults.malformed_is_cut(g):
        full = document(None, f'<main id="games-show" data-game-id="{g.numeric_id}">\n{catcharea}</main>\n',
                     head=head)
        return full[: full.index('<h1 class="games-title">')]
    main = (f'<main id="games-show" data-game-id="{g.numeric_id}">\n'
            '  <div id="games-catcharea"><!-- ActionView::Template::Error --></div>\n\n'
            f"{interests(g)}\n{rest}</main>\n")
    return document(None, main, head=head)


def catalogue(site: Site, query: dict[str, list[str]], page: int) -> str:
    """One page of /games, newest first, filtered by `mechanics` (first) or `themes` when given."""
    order: list[int] | tuple[int, ...] = site.catalogue_order
    base = "/games"
    mech = next(iter(query.get("mechanics") or ()), None)
    theme = next(iter(query.get("themes") or ()), None)
    if mech is not None:
        order = [i for i in order if mech in site.games[i].mechanics]
        base = f"/games?mechanics={mech}"
    elif theme is not None:
        order = [i for i in order if theme in site.games[i].themes]
        base = f"/games?themes={theme}"
    total = n_pages(len(order), CATALOGUE_PAGE_SIZE)
    rows = []
    for i in order[(page - 1) * CATALOGUE_PAGE_SIZE: page * CATALOGUE_PAGE_SIZE]:
        g = site.games[i]
        en = f'<span class="games-table-name-english">{e(g.name_en)}</span>' if g.name_en else ""
        spec = "<br>".join(e(t) for t in (g.players_text, g.playtime_text) if t)
        rows.append(
            '      <tr class="games-table-row">\n'
            f'        <td class="games-table-name"><a href="{g.url}"><span class="games-table-name-japanese">'
            f"{e(g.name_ja)}</span>{en}</a></td>\n"
            f'        <td class="games-table-image"><img src="{e(g.image_url)}" alt=""></td>\n'
            f'        <td class="games-table-spec">{spec}</td>\n'
            f'        <td class="games-table-age">{e(g.age_list_text or "")}</td>\n'
            f'        <td class="games-table-year">{e(g.year_list_text or "")}</td>\n'
            "      </tr>\n")
    heading = ""
    if mech is not None or theme is not None:
        tags = vocab.MECHANICS if mech is not None else vocab.THEMES
        label = next((t.label for t in tags if t.slug == (mech or theme)), mech or theme)
        heading = f'  <h1 class="games-index-filter">{e(label)}</h1>\n'
    main = (
        '<main id="games-index">\n'
        f"{heading}"
        f'  <p class="games-index-total">全{fmt(len(order))}個</p>\n'
        '  <table class="games-table">\n'
        "    <thead><tr><th>ゲーム名</th><th></th><th>人数・時間</th><th>対象年齢</th><th>発売年</th></tr></thead>\n"
        f'    <tbody>\n{"".join(rows)}    </tbody>\n'
        "  </table>\n"
        f"{pagination(base, page, total)}"
        "</main>\n"
    )
    return document("ボードゲームを探す", main)


def credit_page(site: Site, kind: str, ref_id: int) -> str | None:
    """A designer or maker page listing their games; None for an unknown id (404)."""
    names = site.designers if kind == "designers" else site.makers
    games = site.designer_games if kind == "designers" else site.maker_games
    if ref_id not in names:
        return None
    lis = "".join(f'    <li><a href="{site.games[i].url}">{e(site.games[i].name_ja)}</a></li>\n'
                  for i in games.get(ref_id, ()))
    main = (f'<main id="{kind}-show" data-{kind[:-1]}-id="{ref_id}">\n'
            f'  <h1 class="{kind}-name">{e(names[ref_id])}</h1>\n'
            f'  <ul class="{kind}-games">\n{lis}  </ul>\n</main>\n')
    return document(names[ref_id], main)

