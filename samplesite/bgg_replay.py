"""A local replay of BoardGameGeek's XML API2 (`/xmlapi2/thing`, `/xmlapi2/collection`), on 127.0.0.1.

Why a real server: the BGG spider must be tested the way it meets BGG — sockets, the
bearer token, 202 "come back later", 429 and 503 with Retry-After, an unknown user's
`<errors>` document — and no machine here reaches BGG. Answers come from the project's
own fixtures (`samplesite/bgg_fixtures/`, always there) and, when given, a folder of
saved real responses named as the `boardgamegeek` client saves them
(`thing__…_id-<id>_….xml`, `collection__…_username-<user>….xml`), read in place, never copied.

Behaviours are scripted per request key (`thing`, `collection:<user>`, `*`): each
matching request takes the next scripted status before the real answer, e.g.
`script={"collection:alice": [202, 202], "thing": [429]}`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from lxml import etree

from samplesite.background import BackgroundServer, OwnedServer

FIXTURES_DIR = Path(__file__).resolve().parent / "bgg_fixtures"
"""The project's own BGG-shaped responses (fictional games 9000xx; members alice and bob)."""
MAX_THING_IDS = 20
_TERMS = "https://boardgamegeek.com/xmlapi/termsofuse"
_ACCEPTED = (b'<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<message>Your request for this '
             b"collection has been accepted and will be processed.  Please try again later for access.</message>\n")
_ROBOTS = b"User-agent: *\nDisallow: /geekmail\nDisallow: /login\n"


def _errors(message: str) -> bytes:
    """BGG's error document, as it answers an unknown user."""
    return (f'<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<errors>\n  <error>\n'
            f"    <message>{message}</message>\n  </error>\n</errors>\n").encode("utf-8")


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """One replayed HTTP answer."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Logged:
    """One request as the replay saw it: never the token, only whether it was right."""

    target: str
    status: int
    authorized: bool
    at: float


class _Handler(BaseHTTPRequestHandler):
    server: OwnedServer
    protocol_version = "HTTP/1.1"
    server_version = "bodoge-bgg-replay/1.0"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet by design
        return

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        owner = self.server.owner
        authorized = self.headers.get("Authorization", "") == f"Bearer {owner.token}"
        answer = owner.answer(self.path, authorized=authorized)
        owner._record(Logged(target=self.path, status=answer.status, authorized=authorized, at=time.monotonic()))
        self.send_response(answer.status)
        self.send_header("Content-Type", "text/plain" if self.path == "/robots.txt" else "text/xml; charset=utf-8")
        self.send_header("Content-Length", str(len(answer.body)))
        for key, value in answer.headers:
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(answer.body)


class BggReplayServer(BackgroundServer):
    """Serve BGG's XML API2 from fixture files in a background thread.

    >>> with BggReplayServer(token="t") as srv:      # doctest: +SKIP
    ...     srv.api_url   # http://127.0.0.1:PORT/xmlapi2

    `collections[user]` replaces (or adds) a user's collection document between
    requests, to replay a collection that changed. `requests` is the log.
    """

    handler = _Handler
    thread_name = "bgg-replay"

    def __init__(self, *, token: str, saved_dir: Path | None = None, fixtures_dir: Path = FIXTURES_DIR,
                 script: dict[str, list[int]] | None = None, retry_after: str = "1", robots: bytes = _ROBOTS,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.token = token
        self.dirs = [d for d in (fixtures_dir, saved_dir) if d is not None and d.is_dir()]
        self.script = {key: list(statuses) for key, statuses in (script or {}).items()}
        self.retry_after = retry_after
        self.robots = robots
        self.collections: dict[str, bytes] = {}
        self.requests: list[Logged] = []
        self._lock = threading.Lock()

    # -- answers ------------------------------------------------------------------
    def answer(self, target: str, *, authorized: bool) -> Answer:
        """What BGG would answer `target` (path and query), scripted behaviours first."""
        parts = urlsplit(target)
        if parts.path == "/robots.txt":
            return Answer(status=200, body=self.robots)
        if not authorized:
            return Answer(status=401, body=_errors("Unauthorized"))
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        endpoint = parts.path.rstrip("/").rsplit("/", 1)[-1]
        key = f"collection:{query.get('username', '').lower()}" if endpoint == "collection" else endpoint
        scripted = self._next_scripted(key)
        if scripted == 202:
            return Answer(status=202, body=_ACCEPTED)
        if scripted is not None:
            return Answer(status=scripted, body=_errors(f"HTTP {scripted}"), headers=(("Retry-After", self.retry_after),))
        if endpoint == "thing" and parts.path.startswith("/xmlapi2/"):
            return self._things(query.get("id", ""))
        if endpoint == "collection" and parts.path.startswith("/xmlapi2/"):
            return self._collection(query.get("username", ""), query.get("modifiedsince"))
        return Answer(status=404, body=_errors("Not found"))

    def _next_scripted(self, key: str) -> int | None:
        with self._lock:
            for name in (key, "*"):
                if self.script.get(name):
                    return self.script[name].pop(0)
        return None

    def _things(self, ids: str) -> Answer:
        wanted = [i for i in ids.split(",") if i.strip()]
        if len(wanted) > MAX_THING_IDS:
            return Answer(status=400, body=_errors(f"Cannot load more than {MAX_THING_IDS} items"))
        root = etree.Element("items", termsofuse=_TERMS)
        for thing_id in wanted:
            item = self._thing_item(thing_id.strip())
            if item is not None:
                root.append(item)
        return Answer(status=200, body=etree.tostring(root, xml_declaration=True, encoding="utf-8"))

    def _thing_item(self, thing_id: str) -> Any:
        if not thing_id.isdigit():
            return None
        for path in self._find(f"thing-{thing_id}.xml", f"thing__*_id-{thing_id}_*.xml"):
            doc = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True))
            for item in doc.getroot().findall("item"):
                if item.get("id") == thing_id:
                    return item
        return None

    def _collection(self, username: str, since: str | None) -> Answer:
        name = username.strip().lower()
        body = self.collections.get(name)
        if body is None:
            paths = self._find(f"collection-{name}.xml", f"collection__*_username-{name}.xml",
                               f"collection__*_username-{name}_version-0.xml")
            body = paths[0].read_bytes() if paths else None
        if body is None:
            return Answer(status=200, body=_errors("Invalid username specified"))
        return Answer(status=200, body=_modified_since(body, since) if since else body)

    def _find(self, *patterns: str) -> list[Path]:
        """Files matching any pattern (case-insensitively, as BGG treats user names), fixtures first."""
        found = []
        for folder in self.dirs:
            names = {p.name.lower(): p for p in folder.iterdir()}
            for pattern in patterns:
                found += [names[n] for n in sorted(names) if Path(n).match(pattern.lower())]
        return found

    # -- serving ------------------------------------------------------------------
    def _record(self, entry: Logged) -> None:
        with self._lock:
            self.requests.append(entry)

    @property
    def api_url(self) -> str:
        """What `bodoge bgg sync --api-url` takes."""
        return f"{self.base_url}/xmlapi2"

    def start(self) -> str:
        """Bind, serve in a daemon thread, and return the API URL."""
        super().start()
        return self.api_url


def _parse_when(text: str) -> datetime | None:
    """BGG's `modifiedsince` (YY-MM-DD or YYYY-MM-DD, optionally HH:MM:SS) and `lastmodified`."""
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%y-%m-%d %H:%M:%S", "%y-%m-%d"):
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    return None


def _modified_since(body: bytes, since: str) -> bytes:
    """A collection document cut to the items changed at or after `since`, as BGG answers it."""
    threshold = _parse_when(since)
    if threshold is None:
        return _errors("Invalid modifiedsince")
    root = etree.fromstring(body, etree.XMLParser(resolve_entities=False, no_network=True))
    for item in root.findall("item"):
        status = item.find("status")
        when = _parse_when(status.get("lastmodified", "")) if status is not None else None
        if when is None or when < threshold:
            root.remove(item)
    root.set("totalitems", str(len(root.findall("item"))))
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", standalone=True)


def serve_forever(*, token: str, saved_dir: Path | None, port: int) -> None:
    """Serve in the foreground until interrupted (`bodoge bgg replay`)."""
    with BggReplayServer(token=token, saved_dir=saved_dir, port=port) as srv:
        print(f"BGG replay: {srv.api_url} (saved responses: {saved_dir or 'none'}); Ctrl-C to stop", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
