"""The generated sample site as frozen dataclasses.

Why frozen: a `Site` is generated once from (n_games, n_users, seed, faults) and then
read concurrently by the HTTP server's threads and by the truth builder; nothing may
change it afterwards, so the pages and the ground truth can never drift apart.

Collections are the one large table (hundreds of thousands of entries), so they are
kept columnar in numpy arrays (`Collections`); a page reads its member's rows from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SITE_ORIGIN = "https://bodoge.hoobby.net"
SITE_NAME = "ボードゲーム情報"
# The fixed "now" of every generated site: never the wall clock, so pages are byte-identical.
REFERENCE_NOW = "2026-11-01T00:00:00+09:00"
# When every game page of night 1 was last modified (a day before the reference now).
GAME_PAGES_SINCE = "2026-10-31T00:00:00+09:00"
IMAGE_HOST = "https://image-bodoge.cdn-hoobby.net"
NO_IMAGE = f"{IMAGE_HOST}/noimage_game.png"


@dataclass(frozen=True, slots=True)
class Credit:
    """A designer or maker as credited on a game page: `/designers/<ref_id>` + label."""

    ref_id: int
    label: str


@dataclass(frozen=True, slots=True)
class Game:
    """One game: the values it means, and the exact texts the pages show for them.

    A `*_text` of None means the page shows nothing for it (no element, or an empty
    cell in lists). The values (min_players, ...) are what a perfect parser extracts.
    """

    index: int
    game_id: str  # the URL slug
    numeric_id: int  # data-game-id
    name_ja: str
    name_en: str | None
    min_players: int | None
    max_players: int | None
    min_minutes: int | None
    max_minutes: int | None
    min_age: int | None
    year: int | None
    players_text: str | None
    playtime_text: str | None
    age_page_text: str | None  # game/post pages: "10歳～", "8歳から", "未登録"
    age_list_text: str | None  # lists: "10歳～"
    year_page_text: str | None  # "2025年～"
    year_list_text: str | None  # "2025年"
    image_url: str
    catchcopy: str | None
    overview: str
    designers: tuple[Credit, ...]
    makers: tuple[Credit, ...]
    mechanics: tuple[str, ...]  # slugs, page order
    themes: tuple[str, ...]  # slugs, page order
    mechanic_labels: tuple[str, ...]
    theme_labels: tuple[str, ...]
    cluster: int
    popularity: float
    n_watching: int
    n_played: int
    n_favorite: int
    n_have: int
    malformed: bool  # fault: the page is permanently broken (HTTP 200, no title/spec)
    post_ids: tuple[int, ...]  # newest first
    cafe_slugs: tuple[str, ...]

    @property
    def url(self) -> str:
        """The absolute URL path of the game page."""
        return f"/games/{self.game_id}"

    @property
    def canonical_url(self) -> str:
        return f"{SITE_ORIGIN}{self.url}"


@dataclass(frozen=True, slots=True)
class Member:
    """A member of the directory. `private` ones answer their collection with the login page."""

    index: int
    user_id: str
    name: str
    private: bool
    n_boardgames: int  # the directory's "マイボードゲーム N" (all entries)

    @property
    def url(self) -> str:
        return f"/friends/{self.user_id}"

    @property
    def collection_url(self) -> str:
        return f"{self.url}/boardgames"


@dataclass(frozen=True, slots=True, eq=False)
class Collections:
    """All collection entries, columnar, grouped by member and sorted newest-updated first.

    Entries of member i are rows offsets[i]:offsets[i+1]. Private members' entries are
    included (they count in the game pages' counters) but never rendered.
    """

    offsets: np.ndarray  # int64, n_members + 1
    member: np.ndarray  # int32 member index per entry
    game: np.ndarray  # int32 game index per entry
    have: np.ndarray  # bool
    played: np.ndarray
    favorite: np.ndarray
    watching: np.ndarray
    rating: np.ndarray  # int8, 0 = unrated
    updated_at: np.ndarray  # str, ISO 8601 with +09:00

    def __len__(self) -> int:
        return int(self.game.shape[0])

    def rows(self, member_index: int, status: str | None = None) -> np.ndarray:
        """Row numbers of a member's entries (optionally one status), newest first."""
        lo, hi = int(self.offsets[member_index]), int(self.offsets[member_index + 1])
        rows = np.arange(lo, hi, dtype=np.int64)
        if status is not None:
            rows = rows[getattr(self, status)[lo:hi]]
        return rows


@dataclass(frozen=True, slots=True)
class Post:
    """A rule/instruction (`rule`) or review (`review`) post about one game."""

    post_id: int
    kind: str  # "rule" | "review"
    game_index: int
    game_id: str
    author_index: int
    author_user_id: str
    author_name: str
    title: str  # the text of h1.posts-title (= the game page's link text)
    title_suffix: str  # the part of the title after the game name
    published_at: str
    age_label: str  # "約1ヶ月前"
    views: int
    nice: int
    sections: tuple[tuple[str, str], ...]  # (h2, paragraph)
    http500: bool  # fault: the page answers HTTP 500 every time

    @property
    def url(self) -> str:
        return f"/games/{self.game_id}/{self.kind}s/{self.post_id}"


@dataclass(frozen=True, slots=True)
class Cafe:
    """A board game cafe (スペース) and the games it offers, in page order."""

    index: int
    slug: str
    name: str
    address: str
    hours: str
    game_indices: tuple[int, ...]

    @property
    def url(self) -> str:
        return f"/spaces/{self.slug}"


@dataclass(frozen=True, slots=True, eq=False)
class Taste:
    """The hidden signal the generator draws collections from; never rendered, never in the truth.

    Why on the `Site`: the later nights (`samplesite.nights`) draw what members add the way the
    first night drew their collections (popularity × exp(β·affinity), affinity = member taste ·
    game taste) and the new cards' statuses and ratings from that affinity and the game's
    quality, so they need the very vectors night 1 was drawn with, and a new game or member
    needs its own row.
    """

    games: np.ndarray  # (n_games, K) float32, each row sums to 1
    members: np.ndarray  # (n_members, K) float32, each row sums to 1
    quality: np.ndarray  # (n_games,) float64, the games' hidden quality (shifts ratings)
    cluster_p: np.ndarray  # (K,) the clusters' shares, which a new member's primary taste is drawn from


@dataclass(frozen=True, slots=True, eq=False)
class Site:
    """Everything the sample site serves, plus lookups used by the renderer."""

    seed: int
    n_games: int
    n_users: int
    faults: bool
    now: str
    games: tuple[Game, ...]
    catalogue_order: tuple[int, ...]  # game indices as the catalogue lists them
    members: tuple[Member, ...]  # directory order
    collections: Collections
    posts: tuple[Post, ...]
    cafes: tuple[Cafe, ...]
    designers: dict[int, str]  # /designers/<id> -> label
    makers: dict[int, str]
    taste: Taste
    game_by_slug: dict[str, int] = field(default_factory=dict)
    member_by_id: dict[str, int] = field(default_factory=dict)
    post_by_id: dict[int, int] = field(default_factory=dict)
    cafe_by_slug: dict[str, int] = field(default_factory=dict)
    designer_games: dict[int, tuple[int, ...]] = field(default_factory=dict)
    maker_games: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: When each game page last changed (ISO, JST), for Last-Modified; absent = GAME_PAGES_SINCE.
    game_modified: dict[int, str] = field(default_factory=dict)
    #: Games that disappeared on a later night (samplesite.nights): their page answers 404.
    gone_games: frozenset[int] = frozenset()
