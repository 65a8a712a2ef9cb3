"""Pages that depend on no game or member: robots.txt, login, errors and the home page."""

from __future__ import annotations

from samplesite.model import Site
from samplesite.pages.layout import document, e, fmt

ROBOTS_DISALLOW = ("/login", "/mypage", "/shop/cart")


def robots_txt(crawl_delay: float | None = None) -> str:
    """The sample's Disallow lines; a Crawl-delay line only when asked for."""
    lines = ["User-agent: *", *(f"Disallow: {p}" for p in ROBOTS_DISALLOW)]
    if crawl_delay is not None:
        lines.append(f"Crawl-delay: {crawl_delay:g}")
    return "\n".join(lines) + "\n"


def login_page() -> str:
    main = (
        '<main id="sessions-new">\n'
        "  <h1>ログイン</h1>\n"
        '  <p class="notice">このページを見るにはログインが必要です。</p>\n'
        '  <form class="login-form" action="/login" method="post">\n'
        '    <input type="email" name="session[email]">\n'
        '    <input type="password" name="session[password]">\n'
        '    <button type="submit">ログインする</button>\n'
        "  </form>\n"
        "</main>\n"
    )
    return document("ログイン", main)


def not_found_page() -> str:
    main = (
        '<main id="errors-not-found">\n'
        '  <h1>ページが見つかりません</h1>\n'
        '  <p class="notice">お探しのページは削除されたか、URLが間違っている可能性があります。</p>\n'
        "</main>\n"
    )
    return document("ページが見つかりません", main)


def error_page(status: int) -> str:
    label = {500: "サーバーエラー", 503: "ただいまアクセスが集中しています",
             429: "リクエストが多すぎます"}.get(status, "エラー")
    return document(label, f'<main id="errors-{status}">\n  <h1>{e(label)}</h1>\n</main>\n')


def home(site: Site) -> str:
    """The home page: the number of games and the three entry points."""
    main = (
        '<main id="home">\n'
        f'  <p class="home-lead">登録ボードゲーム {fmt(len(site.games))}個</p>\n'
        '  <ul class="home-links">\n'
        '    <li><a href="/games">ボードゲームを探す</a></li>\n'
        '    <li><a href="/spaces">ボードゲームカフェ</a></li>\n'
        '    <li><a href="/friends">会員一覧</a></li>\n'
        "  </ul>\n</main>\n"
    )
    return document(None, main)

