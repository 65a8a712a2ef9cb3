"""Whether a listing read over all its pages is whole: the rows read against the total it states.

Why: one page cannot prove a listing whole. A closed page with rows and no next link is
the last page (a one-page listing draws no pagination block at all on Kaminari-style
sites), but the listing may have changed between two page reads, or a page may have
held fewer rows than it should. Where the site states the listing's total (全N個 on the
catalogue and a collection, 遊べるボードゲーム N個 on a cafe's games, 全N人 on the
directory; for a collection whose pages state none, the directory's マイボードゲーム N),
the distinct rows read over every page (games, or members) must equal it.

Why distinct rows: a listing that changes between two page reads shifts its rows across
the page boundary. A card updated on page 2 after page 1 was read jumps to the front:
page 2 then repeats page 1's last card and the moved card is never seen. The rows read
still add up to the total; only the distinct ones fall short.

The rule, each way:
- fewer distinct rows than the total (`short_of_total`): rows were missed, so a complete
  outcome would delete entries the site still has;
- more distinct rows than the total (`over_total`): the listing changed under the read
  (or the total is not what it seems);
- pages stating different totals, or a row read twice (`moved`): the listing changed
  mid-read, even where the count happens to agree.
Any of them makes a collection or cafe listing `incomplete`: nothing is deleted, what
was read is kept, and the next night reads it whole again (the site may simply have
changed between page reads). The catalogue and the directory delete nothing either
way; their disagreement is counted and logged. Each is counted in the crawl stats as
`bodoge/listings/<problem>`. Without a stated total only a repeated row can be seen.
"""

from __future__ import annotations

from typing import Any

SHORT_OF_TOTAL = "short_of_total"
OVER_TOTAL = "over_total"
MOVED = "moved"
#: Meta keys that carry a walk's count across its pages (catalogue and directory): rows
#: read, the distinct keys read (one set, shared by the walk's pages), stated totals, page.
TALLY_ROWS, TALLY_KEYS, TALLY_STATED, TALLY_PAGE = "tally_rows", "tally_keys", "tally_stated", "tally_page"
#: Meta keys of a paginated listing (collection, cafe): the totals its pages stated so far,
#: and the set of game ids read (its rows read are the spider's `listing_seen`).
LISTING_STATED, LISTING_KEYS = "listing_stated", "listing_keys"


def add_total(stated: tuple[int, ...], total: int | None) -> tuple[int, ...]:
    """The distinct totals stated so far, with this page's (None: the page states none)."""
    return stated if total is None or total in stated else (*stated, total)


def total_problem(rows: int, distinct: int, stated: tuple[int, ...], expect: int | None = None) -> str | None:
    """None when the rows read agree with the listing's total, else which way they disagree.

    `rows` counts every row read, `distinct` the different ones; `stated` holds the
    distinct totals the pages stated; `expect` is a total known from elsewhere (the
    directory's count of a collection), used only when no page stated one. Without any
    total, a listing read once through is whole by its last page.
    """
    totals = stated or (() if expect is None else (expect,))
    if len(totals) > 1 or rows != distinct:
        return MOVED
    if not totals or distinct == totals[0]:
        return None
    return SHORT_OF_TOTAL if distinct < totals[0] else OVER_TOTAL


def describe(what: str, rows: int, distinct: int, pages: int, stated: tuple[int, ...], expect: int | None) -> str:
    """One log line: what was read against what the site states."""
    said = "/".join(f"{t:,}" for t in stated) if stated else (
        f"{expect:,} (directory count)" if expect is not None else "no total")
    return f"{what}: {rows:,} rows ({distinct:,} distinct) read over {pages:,} page(s), the site states {said}"


def tally_meta(meta: dict[str, Any], keys: list[str], total: int | None) -> dict[str, Any]:
    """The meta for the next page of a catalogue or directory walk, this page's row keys counted."""
    seen: set[str] = meta.get(TALLY_KEYS) or set()
    seen.update(keys)
    return {
        TALLY_ROWS: meta.get(TALLY_ROWS, 0) + len(keys),
        TALLY_KEYS: seen,
        TALLY_STATED: add_total(meta.get(TALLY_STATED, ()), total),
        TALLY_PAGE: meta.get(TALLY_PAGE, 1) + 1,
    }
