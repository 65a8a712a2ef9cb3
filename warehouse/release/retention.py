"""Keeping export bundles: few of them, none holding a member who is private now, no litter.

Why each rule:
- Bundles are never read again once the site has the newest, yet each one holds every
  member's recommendations; keeping them forever keeps data nobody needs. At most
  `BODOGE_KEEP_EXPORTS` (default 7) stay; the one LATEST names is never deleted.
- A member who turns private must leave no trace, old bundles included. The warehouse
  keeps no list of private members (that list would itself be a trace), so the rule is
  the other way round: a bundle keeps only the lines of members the warehouse knows as
  public *now* (`warehouse.privacy.public`); anyone else (turned private, deleted) is cut from every per-user file,
  and the manifest's counts and sha256s are rewritten so the bundle still verifies.
  Whole lines are cut, never edited, so every line left still matches the bundle's JSON
  Schemas (`schemas/`: they name no member and are left as they are).
  A running crawl cuts the members it finds private at once (`cut_members_from_bundles`,
  through `warehouse.privacy.cut`; the journal of `warehouse.privacy.erasure` holds their
  ids only until that cut is done).
- A process killed while exporting leaves `exports/.tmp-*`, possibly holding members who
  are private by now; the next export (or prune) removes it.

Run `prune_bundles` whenever the warehouse's view of who is public may have changed: at
the night's release (`warehouse.release.release`, once LATEST names the new bundle), and right
after a crawl, as part of the privacy cut (`warehouse.privacy.cut`: so a night that fails
later still scrubs).
It assumes one exporter at a time (the nightly run is the only writer).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from core.settings import SettingError, read
from warehouse.privacy.public import public_users
from warehouse.release.bundle_io import DELTAS, MANIFEST, TMP_PREFIX, ExportError, drop_dir, replace_synced

log = logging.getLogger("bodoge.export")


# Manifest counts derived from a per-user file: (count of lines, count of items), where present.
_PER_USER_COUNTS = {
    "recommendations.jsonl": ("users", "recommendations"),
    "next_to_play.jsonl": ("next_to_play_users", "next_to_play"),
    "watch_next.jsonl": ("watch_next_users", "watch_next"),
}


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What one prune did: bundles deleted by age, bundles rewritten, litter removed."""

    deleted: list[str] = field(default_factory=list)
    scrubbed: list[str] = field(default_factory=list)
    litter: list[str] = field(default_factory=list)


def keep_exports(*, environ: Mapping[str, str] | None = None) -> int:
    """How many bundles to keep: BODOGE_KEEP_EXPORTS (`core.settings`), or a one-line ExportError."""
    try:
        return read("keep_exports", environ=environ)
    except SettingError as exc:
        raise ExportError(str(exc)) from None


def prune_bundles(con: duckdb.DuckDBPyConnection, exports_dir: Path, *, keep: int | None = None) -> PruneReport:
    """Remove litter, delete bundles beyond `keep` (env default), cut non-public members from the rest."""
    keep = keep_exports() if keep is None else keep
    if not exports_dir.is_dir():
        return PruneReport()
    litter = remove_litter(exports_dir)
    deleted = retain_bundles(exports_dir, keep=keep)
    scrubbed = scrub_bundles(con, exports_dir)
    return PruneReport(deleted=deleted, scrubbed=scrubbed, litter=litter)


def remove_litter(exports_dir: Path) -> list[str]:
    """Delete `.tmp-*` folders and `*.tmp` files a dead export left; logs one line if any."""
    if not exports_dir.is_dir():
        return []
    gone = []
    for path in sorted(exports_dir.iterdir()):
        if path.is_dir() and path.name.startswith(TMP_PREFIX):
            shutil.rmtree(path)
            gone.append(path.name)
        elif path.is_file() and path.name.endswith(".tmp"):
            path.unlink()
            gone.append(path.name)
    for bundle in _bundles(exports_dir):
        for tmp in sorted(bundle.glob("*.tmp")):
            tmp.unlink()
            gone.append(f"{bundle.name}/{tmp.name}")
    if gone:
        log.warning("exports: removed %d leftover(s) of an interrupted export: %s", len(gone), ", ".join(gone))
    return gone


def retain_bundles(exports_dir: Path, *, keep: int) -> list[str]:
    """Delete the oldest bundles beyond `keep`, never the one LATEST names; returns their names."""
    latest = latest_name(exports_dir)
    newest_first = sorted(_bundles(exports_dir), key=_created_key, reverse=True)
    kept = [b for b in newest_first if b.name == latest]
    doomed = []
    for bundle in newest_first:
        if bundle.name == latest:
            continue
        if len(kept) < keep:
            kept.append(bundle)
        else:
            doomed.append(bundle)
    for bundle in doomed:
        drop_dir(bundle)
    if doomed:
        log.info("exports: deleted %d bundle(s) beyond the %d kept: %s", len(doomed), keep,
                 ", ".join(b.name for b in doomed))
    return [b.name for b in doomed]


def scrub_bundles(con: duckdb.DuckDBPyConnection, exports_dir: Path) -> list[str]:
    """Cut every member not public now from every kept bundle; returns the bundles rewritten."""
    public = public_users(con)
    latest = latest_name(exports_dir)
    scrubbed = []
    for bundle in _every_bundle(exports_dir):
        try:
            changed = _scrub_bundle(bundle, public)
        except (OSError, ValueError, KeyError) as exc:
            if bundle.name == latest:
                raise ExportError(f"export bundle {bundle} is unreadable: {exc}") from exc
            log.warning("exports: deleted unreadable bundle %s (%s)", bundle.name, exc)
            drop_dir(bundle)
            continue
        if changed:
            scrubbed.append(bundle.name)
    if scrubbed:
        log.info("exports: removed members no longer public from %d bundle(s)", len(scrubbed))
    return scrubbed


def scrub_new_bundle(con: duckdb.DuckDBPyConnection, bundle: Path, members: set[str]) -> bool:
    """Cut the members not public now from a bundle just written; True if it changed.

    ``members`` are the ids the bundle was written with (from the marts), so when all of
    them are public no file is read. Why not ``scrub_bundles`` here: the release scrubs
    every bundle moments later, and the crawl did right after it; reading every kept
    bundle once more at the export cost ~5 s a bundle at the real site's size.
    """
    public = public_users(con)
    if members <= public:
        return False
    return _scrub_bundle(bundle, public)


def cut_members_from_bundles(exports_dir: Path, users: set[str]) -> list[str]:
    """Cut these members (found private by a running crawl) from every bundle; returns those rewritten.

    Why beside `scrub_bundles`: the crawl knows whom it found private before the warehouse
    can say who is public, and must not wait for the end of the crawl. A file that does
    not hold any of their ids as a JSON string is left unread.
    """
    if not users or not exports_dir.is_dir():
        return []
    needles = [json.dumps(str(u)).encode("utf-8") for u in users]
    rewritten = []
    for bundle in _every_bundle(exports_dir):
        try:
            changed = _scrub_bundle(bundle, lambda user: user not in users, needles=needles)
        except (OSError, ValueError, KeyError) as exc:
            raise ExportError(f"export bundle {bundle} is unreadable: {exc}") from exc
        if changed:
            rewritten.append(bundle.name)
    if rewritten:
        log.info("exports: removed members found private from %d bundle(s)", len(rewritten))
    return rewritten


def _scrub_bundle(bundle: Path, public: set[str] | Callable[[str], bool], *, needles: list[bytes] | None = None) -> bool:
    """Rewrite one bundle's per-user files down to `public` (a set, or a test of an id);
    the manifest last. True if changed. With `needles`, a file holding none of them is skipped."""
    keeps = public if callable(public) else public.__contains__
    manifest = json.loads((bundle / MANIFEST).read_text(encoding="utf-8"))
    rewritten: dict[str, tuple[bytes, int, int]] = {}
    for name in manifest["files"]:
        if not name.endswith(".jsonl"):  # the schemas
            continue
        data = (bundle / name).read_bytes()
        if needles is not None and not any(n in data for n in needles):
            continue
        if _as_listed(data, manifest["files"][name]) and _keeps_everyone(data, keeps):
            continue
        kept, n_items, dropped = _public_lines(data, keeps)
        if dropped:
            rewritten[name] = (b"".join(kept), len(kept), n_items)
    if not rewritten:
        return False
    counts = manifest.setdefault("counts", {})
    for name, (data, n_lines, n_items) in rewritten.items():
        digest = replace_synced(bundle / name, data)
        manifest["files"][name] = {"sha256": digest, "bytes": len(data)}
        lines_key, items_key = _PER_USER_COUNTS.get(name, (None, None))
        if lines_key in counts:
            counts[lines_key] = n_lines
        if items_key in counts:
            counts[items_key] = n_items
    manifest["scrubbed_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    replace_synced(bundle / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8"))
    return True


def _as_listed(data: bytes, listed: object) -> bool:
    """Whether ``data`` is the file the manifest lists (its sha256): what the export wrote
    and validated, so valid JSON throughout. A changed or broken file is read line by line
    (and an unreadable bundle found) as before."""
    return isinstance(listed, dict) and listed.get("sha256") == hashlib.sha256(data).hexdigest()


_LEADING_USER = re.compile(rb'\{"user_id":"([^"\\\n]*)"')
"""A line as the export writes it: ``{"user_id":"<id>"`` first, the id without escapes."""
_NEXT_USER = re.compile(rb'\n\{"user_id":"([^"\\\n]*)"')
"""The same after a line's end: a literal prefix, which ``re`` scans for fast (a
multi-line ``^`` would try every byte)."""


def _keeps_everyone(data: bytes, keeps: Callable[[str], bool]) -> bool:
    """True when no line of ``data`` would be cut, read off the lines' first bytes.

    Why: a night scrubs every kept bundle twice (at the export and at the release) and
    each crawl once more; parsing every line of seven bundles of 100,000 members took
    ~25 s a bundle. The export writes each per-user line as ``{"user_id":"<id>",…``, so
    the ids can be read without parsing. Only a file that is exactly that shape is
    answered here: every line opens with the key, ``"user_id"`` occurs once a line (no
    second, duplicate key), and no ``\\u`` escape could spell the key another way.
    Anything else (a blank line, another writer's layout, a cut to make) returns False
    and ``_public_lines`` reads every line as JSON, as before.
    """
    if b"\\u" in data or b"\r" in data:
        return False
    if b'"user_id"' not in data:
        return True  # no line has the key (similar games): every line stays
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    first = _LEADING_USER.match(data)
    ids = ([first.group(1)] if first else []) + _NEXT_USER.findall(data)
    if len(ids) != n_lines or data.count(b'"user_id"') != n_lines:
        return False
    try:
        return all(keeps(user.decode("utf-8")) for user in ids)
    except UnicodeDecodeError:
        return False


def _public_lines(data: bytes, keeps: Callable[[str], bool]) -> tuple[list[bytes], int, int]:
    """The lines to keep (byte for byte), their items, and how many were dropped.

    A line with a `user_id` is per-user and stays only for a public member; any other line
    (a game's similar games) stays as it is.
    """
    kept, n_items, dropped = [], 0, 0
    for line in data.splitlines(keepends=True):
        if not line.strip():
            continue
        obj = json.loads(line)
        if isinstance(obj, dict) and "user_id" in obj and not keeps(str(obj["user_id"])):
            dropped += 1
            continue
        kept.append(line if line.endswith(b"\n") else line + b"\n")
        n_items += len(obj.get("items", [])) if isinstance(obj, dict) else 0
    return kept, n_items, dropped


def _bundles(exports_dir: Path) -> list[Path]:
    """Complete bundles: visible folders with a manifest."""
    return [
        p for p in exports_dir.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).is_file()
    ]


def _every_bundle(exports_dir: Path) -> list[Path]:
    """The whole bundles and the delta bundles (`exports/deltas/`): what a privacy cut reads."""
    deltas = exports_dir / DELTAS
    return sorted(_bundles(exports_dir)) + (sorted(_bundles(deltas)) if deltas.is_dir() else [])


def _created_key(bundle: Path) -> tuple[str, str]:
    try:
        created = str(json.loads((bundle / MANIFEST).read_text(encoding="utf-8")).get("created_at", ""))
    except (OSError, ValueError):
        created = ""
    return created, bundle.name


def latest_name(exports_dir: Path) -> str | None:
    """The bundle exports/LATEST names, or None before the first export."""
    latest = exports_dir / "LATEST"
    return latest.read_text(encoding="utf-8").strip() if latest.is_file() else None
