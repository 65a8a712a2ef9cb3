"""Reading one page for `bodoge parse`: a saved file, or a URL fetched politely."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path


class SourceError(Exception):
    """The page could not be read (no such file, HTTP error, unreachable host)."""


def read_source(source: str, *, timeout: float = 30.0) -> tuple[bytes, str]:
    """The page's bytes and the URL (or file path) its parser should resolve links against."""
    if source.startswith(("http://", "https://")):
        from core.http import USER_AGENT

        request = urllib.request.Request(source, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read(), response.geturl()
        except urllib.error.HTTPError as exc:
            raise SourceError(f"{source}: HTTP {exc.code}") from exc
        except (urllib.error.URLError, OSError) as exc:
            raise SourceError(f"{source}: {getattr(exc, 'reason', exc)}") from exc
    path = Path(source)
    if not path.is_file():
        raise SourceError(f"no such file: {source}")
    return path.read_bytes(), str(path.resolve())
