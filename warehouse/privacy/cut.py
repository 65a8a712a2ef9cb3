"""The privacy cut: a member who turned private leaves every copy the pipeline keeps, in one call.

The rule: every writer that learns a member is no longer public calls `cut_everywhere`, and
nothing else cuts them. It learns it one of two ways, and each cuts what it cuts today:

- **by name**, the moment a crawl finds a member private (the login page: the crawl's
  `Eraser`, and the next night's start-up for a crawl killed before it could cut; both in
  `warehouse.privacy.erasure`; and a restore, for what it put back): their raw rows (unless
  the caller's own transaction purged them), the published night, every export bundle, the
  models' files (`warehouse.privacy.model_files`), a failed night's discovery buckets
  (`warehouse.buckets`, removed whole) and, when the caller names them, every
  kept backup and every `warehouse.duckdb.replaced-*` file a restore kept;
- **by rule**, right after a crawl, from the warehouse that says who is public now
  (`warehouse.privacy.public.public_users`): everyone else leaves every kept export
  bundle (with the bundles' retention and litter, `warehouse.release.retention`), the
  published night, every kept backup (`warehouse.backup.backup.scrub_backups`) and every
  kept replaced file (`warehouse.backup.backup.scrub_replaced`).

Why backups and replaced files by name too: a crawl killed after it found a member private
never reaches the cut by rule, and a restore in that window put the member back (issue 39).

Why one function: the copies live in other domains (release, backup, models), each cut the
way its own module writes it (whole, atomically); the crawl asset and the erasure journal
call this one step between raw and the export, and reach into none of them.

The writers of each copy keep it to the rule as they write it: the export cuts its new
bundle (`warehouse.release.export`), the release prunes the bundles once LATEST moved, and
every backup scrubs the older ones after it is made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse.backup.backup import cut_from_backups, scrub_backups, scrub_replaced
from warehouse.buckets import remove_buckets
from warehouse.privacy.erase import erase_members_not_in, erase_named, purge_members
from warehouse.privacy.model_files import cut_members_from_models
from warehouse.privacy.public import public_users
from warehouse.release.publish import cut_members, scrub_published
from warehouse.release.retention import cut_members_from_bundles, prune_bundles

@dataclass(frozen=True, slots=True)
class Cut:
    """What one cut did, copy by copy."""

    published: list[str] = field(default_factory=list)
    """Members cut out of the published night."""
    bundles: list[str] = field(default_factory=list)
    """Export bundles rewritten without them."""
    deleted_bundles: list[str] = field(default_factory=list)
    """Export bundles deleted by age (retention, in the cut by rule)."""
    backups: list[str] = field(default_factory=list)
    """Backups rewritten without them."""
    replaced: list[str] = field(default_factory=list)
    """Files a restore kept (`warehouse.duckdb.replaced-*`) rewritten without them."""
    models: list[str] = field(default_factory=list)
    """Files under models/ changed (relative paths; `champion/` when the champion was removed)."""


def cut_everywhere(
    data_dir: Path, found_private: Iterable[str] = (), *, shown: set[str] | None = None,
    purge: duckdb.DuckDBPyConnection | None = None,
    public_from: duckdb.DuckDBPyConnection | None = None, backups: Path | None = None, keep: int | None = None,
    warehouse: Path | None = None,
) -> Cut:
    """Cut members who are not public now from every copy under `data_dir` (module docstring).

    `found_private`: members a writer found private, by name. Raw loses them when `purge`
    (the warehouse) is given, else the caller's transaction already purged them; then the
    published night, every bundle under exports/ and the files under models/. With `shown`
    (the members the published night names, when the caller knows them), the others are
    cut from the models' files only: no copy of the night, no bundle read. With `backups`
    (the backup dir) every kept backup loses them, with `warehouse` (the live file's path)
    every replaced file a restore kept beside it.

    `public_from`: the warehouse that says who is public now; everyone else is cut from
    every bundle (after its litter and the bundles beyond `keep` go), the published night
    and, with `backups` and `warehouse`, every kept backup and replaced file.
    """
    data_dir = Path(data_dir)
    named = set(found_private)
    published: list[str] = []
    bundles: list[str] = []
    models: list[str] = []
    backed: list[str] = []
    replaced: list[str] = []
    if named:
        if purge is not None:
            purge_members(purge, named)
        visible = named if shown is None else named & shown
        if visible:
            published = cut_members(data_dir, visible)
            bundles = cut_members_from_bundles(data_dir / "exports", visible)
        models = cut_members_from_models(data_dir / "models", named)
        remove_buckets(data_dir / "buckets")  # a failed night's member buckets: ranked again rather than cut
        backed = cut_from_backups(Path(backups), named) if backups is not None else []
        replaced = scrub_replaced(Path(warehouse), lambda c: erase_named(c, named)) if warehouse is not None else []
    if public_from is None:
        return Cut(published=published, bundles=bundles, models=models, backups=backed, replaced=replaced)
    by_rule = _cut_by_rule(data_dir, public_from, backups=backups, keep=keep, warehouse=warehouse)
    return Cut(published=sorted(set(published) | set(by_rule.published)),
               bundles=sorted(set(bundles) | set(by_rule.bundles)), deleted_bundles=by_rule.deleted_bundles,
               backups=sorted(set(backed) | set(by_rule.backups)), models=models,
               replaced=sorted(set(replaced) | set(by_rule.replaced)))


def _cut_by_rule(data_dir: Path, con: duckdb.DuckDBPyConnection, *, backups: Path | None,
                 keep: int | None, warehouse: Path | None) -> Cut:
    """Everyone `con` does not know as public now leaves the bundles, the published night, the
    backups and the replaced files."""
    pruned = prune_bundles(con, data_dir / "exports", keep=keep)
    public = public_users(con)
    published = scrub_published(data_dir, public)
    rewritten = scrub_backups(backups, public) if backups is not None else []
    replaced = (scrub_replaced(Path(warehouse), lambda c: erase_members_not_in(c, public))
                if warehouse is not None else [])
    return Cut(published=published, bundles=pruned.scrubbed, deleted_bundles=pruned.deleted, backups=rewritten,
               replaced=replaced)
