"""What every page of the sample site shares: the response, the document shell, escaping, pagination.

Why one place: the parsers key on the header, footer and pagination markup of the real
site, so every page kind must wrap its `<main>` the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from samplesite.model import SITE_NAME

HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"

_HEADER = (
    '<header class="header"><a class="header-logo" href="/">ボードゲーム情報</a>\n'
    '  <nav><a href="/games">ボードゲームを探す</a><a href="/spaces">ボードゲームカフェ</a>'
    '<a href="/friends">会員一覧</a><a href="/login">ログイン</a></nav>\n'
    "</header>\n"
)
_FOOTER = '<footer class="footer">© hoobby</footer>\n'


@dataclass(frozen=True, slots=True)
class Response:
    """What the server sends: status, Content-Type, body bytes and extra headers."""

    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def body_bytes(self) -> bytes:
        return self.body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def e(text: object) -> str:
    """HTML-escape text for element content and attribute values."""
    return escape(str(text), quote=True)


def fmt(n: int) -> str:
    """Counts as the site prints them, with thousands separators (1,234)."""
    return f"{n:,}"


def document(title: str | None, main: str, *, head: str = "") -> str:
    """The whole HTML document around `main`: title "<title> | site name", header and footer."""
    full = f"{e(title)} | {SITE_NAME}" if title else SITE_NAME
    return (
        '<!DOCTYPE html>\n<html lang="ja">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{full}</title>\n{head}</head>\n<body>\n{_HEADER}{main}{_FOOTER}</body>\n</html>\n"
    )


def pagination(base: str, page: int, total: int) -> str:
    """`<nav class="pagination">`: a window of page links, 前へ and 次へ (rel="next")."""
    sep = "&" if "?" in base else "?"
    parts = ['  <nav class="pagination">\n']
    if page > 1:
        parts.append(f'    <a class="prev" rel="prev" href="{e(base)}{sep}page={page - 1}">前へ</a>\n')
    for p in range(max(1, page - 2), min(total, page + 2) + 1):
        if p == page:
            parts.append(f'    <span class="page current">{p}</span>\n')
        else:
            parts.append(f'    <a class="page" href="{e(base)}{sep}page={p}">{p}</a>\n')
    if page < total:
        parts.append(f'    <a class="next" rel="next" href="{e(base)}{sep}page={page + 1}">次へ</a>\n')
    parts.append("  </nav>\n")
    return "".join(parts)


def n_pages(n: int, size: int) -> int:
    """Pages of a listing of n items, `size` a page; an empty listing still has its page 1."""
    return max(1, -(-n // size))

