"""Which night is served, moved to a new one between requests, and who may not be answered for.

Why a watcher thread: loading a night (its bundle's line index, its members) takes seconds at
the real size, and no request may wait on it or see half of it. A thread looks at
`published.duckdb` and the erasure journal every `POLL_SECONDS`; when the published night is
another file (inode, size or time changed: the release replaces it whole, the privacy cut
rewrites it), it loads the new night beside the old and swaps one reference. A request takes
the reference once (`use`) and answers from that night only; the old night's files are
closed when its last request is done. So a publish drops no request and mixes no nights.

The erasure journal (`warehouse.privacy.erasure`) is read at the same pace: a member it names
answers 404 within `POLL_SECONDS`, before any writer has cut them, and the service holds
nothing of theirs once the cut night is loaded (the night's model was fitted on them, so it
is removed by the cut and fold-in answers 503 until the next night).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bodoge.api.night import Night, NoNight, file_identity
from warehouse.journal import journal_path, pending
from warehouse.release.publish import published_path

log = logging.getLogger("bodoge.api")

POLL_SECONDS = 0.2
"""How often the watcher looks for a new night and at the erasure journal."""


class Serving:
    """The night being served (`use`) and the members the journal names (`hidden`)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.night: Night | None = None
        self.hidden: frozenset[str] = frozenset()
        self.last_error: str | None = None
        self._users: dict[int, int] = {}
        self._retired: list[Night] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._journal: tuple[int, int, int] | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Load what is published now, then watch in the background."""
        self.refresh()
        self._thread = threading.Thread(target=self._watch, name="bodoge-api-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            nights = [n for n in (self.night, *self._retired) if n is not None]
            self.night, self._retired = None, []
        for night in nights:
            night.close()

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self.refresh()
            except Exception as error:  # the watcher outlives any one bad night
                self.last_error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                log.warning("api: %s", self.last_error)

    def refresh(self) -> None:
        """Read the journal; load the published night when it is another file than the one served."""
        self._read_journal()
        path = published_path(self.data_dir)
        try:
            identity = file_identity(path)
        except OSError:
            return  # nothing published (yet, or for a moment): keep serving what is loaded
        current = self.night
        if current is not None and current.identity == identity:
            if current.model_gone():
                log.info("api: the night's model was removed (a privacy cut): fold-in waits for the next night")
            return
        try:
            night = Night.load(self.data_dir, before=current)
        except NoNight as error:
            if str(error) != self.last_error:
                log.warning("api: %s", error)
            self.last_error = str(error)
            return
        self.last_error = None
        with self._lock:
            old, self.night = self.night, night
            if old is not None:
                self._retired.append(old)
            self._close_idle()
        if old is not None:
            log.info("api: moved from night %s to night %s", old.night_id, night.night_id)

    def _read_journal(self) -> None:
        path = journal_path(self.data_dir)
        try:
            identity: tuple[int, int, int] | None = file_identity(path)
        except OSError:
            identity = None
        if identity == self._journal:
            return
        self._journal = identity
        self.hidden = frozenset(pending(self.data_dir)) if identity is not None else frozenset()

    # ------------------------------------------------------------------ requests

    @contextmanager
    def use(self) -> Iterator[Night | None]:
        """The night a request answers from, held until it is done (None: none loaded)."""
        with self._lock:
            night = self.night
            if night is not None:
                self._users[id(night)] = self._users.get(id(night), 0) + 1
        try:
            yield night
        finally:
            if night is not None:
                with self._lock:
                    self._users[id(night)] -= 1
                    self._close_idle()

    def _close_idle(self) -> None:
        """Close retired nights no request holds (under the lock)."""
        keep = []
        for night in self._retired:
            if self._users.get(id(night), 0) > 0:
                keep.append(night)
            else:
                self._users.pop(id(night), None)
                night.close()
        self._retired = keep

    def public(self, night: Night, user_id: str) -> bool:
        """A member the night knows and the journal does not name."""
        return user_id in night.members and user_id not in self.hidden
