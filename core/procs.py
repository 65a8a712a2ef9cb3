"""Is a process still the one we knew? pid plus kernel start time, read from /proc.

Why in the bottom layer: the crawl's scratch folders, the nightly run guard and the
published night's temporary files all ask it, from different layers.
"""

from __future__ import annotations

import os
from pathlib import Path


def _proc_stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (state first), or [] without /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    # The command name (field 2) may hold spaces and parentheses; fields after it do not.
    return stat.rsplit(")", 1)[-1].split()


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot), or None where /proc lacks it.

    Why: pids are recycled; a pid plus its start time names one process for good.
    """
    fields = _proc_stat(pid)
    return fields[19] if len(fields) > 19 else None


def process_alive(pid: int, *, start_time: str | None = None) -> bool:
    """True while `pid` runs (and, when `start_time` is given, is still the same process)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's live process
    fields = _proc_stat(pid)
    if fields and fields[0] == "Z":  # a zombie: dead, only not yet reaped by its parent
        return False
    if start_time is not None and len(fields) > 19 and fields[19] != start_time:
        return False
    return True
