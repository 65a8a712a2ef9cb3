"""Is a process still the one we knew (pid plus kernel start time plus boot id, read from
/proc)?

Why in `ops`, under every layer but `core`: the crawl's scratch folders, the nightly run
guard and the published night's temporary files all ask it, from different layers.
Tying a child's life to its parent's is `ops.children`.

Why not the pid alone: pids repeat, soonest after a container restart (the new pid
namespace counts from 1 again), and a dead run whose pid now names another process was
taken for alive: its pool slot was never freed and every later night waited for it. A
record written now is an `identity()`, `<pid>:<start time>:<boot id>`; the start time
(clock ticks since boot, field 22 of /proc/<pid>/stat) tells two processes with one pid
apart, and the boot id (/proc/sys/kernel/random/boot_id) tells a reboot apart, after
which start times count from zero again.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
# A record holding only a pid (written before identities) names a live process only if
# that process started before the record was written; this much clock slack is allowed
# (/proc/stat gives the boot time in whole seconds).
LEGACY_SLACK_SECONDS = 2.0


def proc_stat(pid: int) -> list[str]:
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
    fields = proc_stat(pid)
    return fields[19] if len(fields) > 19 else None


def process_started_at(pid: int) -> float | None:
    """When `pid` started, in seconds since the epoch, or None where /proc lacks it."""
    ticks = process_start_time(pid)
    try:
        boot = next(line.split()[1] for line in Path("/proc/stat").read_text(encoding="utf-8").splitlines()
                    if line.startswith("btime "))
    except (OSError, StopIteration, IndexError):
        return None
    if ticks is None or not ticks.isdigit():
        return None
    return int(boot) + int(ticks) / os.sysconf("SC_CLK_TCK")


def boot_id() -> str | None:
    """This boot's random id (a new one at every boot), or None without /proc."""
    try:
        return BOOT_ID.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def identity(pid: int | None = None) -> str:
    """`<pid>:<start time>:<boot id>` naming this process (or `pid`) for good; the bare pid
    where /proc cannot say more. Store this, never the pid alone; ask `owner_alive`."""
    pid = os.getpid() if pid is None else pid
    start, boot = process_start_time(pid), boot_id()
    return f"{pid}:{start}:{boot}" if start and boot else str(pid)


def identity_pid(record: str) -> int | None:
    """The pid an identity (or an old plain-pid record) names, or None if it names none."""
    first = _fields(record)[0]
    return int(first) if first.isdigit() and int(first) > 0 else None


def owner_alive(record: str, *, written_at: float | None) -> bool:
    """True while the process `record` names runs: an `identity()`, `<pid> <start time>` or a pid.

    `written_at` (seconds since the epoch) is when the record was written: a record of a
    pid alone (written before identities existed) names a live process only if that
    process started before the record was written, since one that started later has only
    been given the dead owner's number. Without `written_at` a plain pid is trusted.
    """
    pid = identity_pid(record)
    if pid is None:
        return False  # names no process: no live owner
    fields = _fields(record)
    if len(fields) > 2 and fields[2] != boot_id():
        return False  # written before a reboot: every process of that boot is gone
    if len(fields) > 1 and fields[1]:
        return process_alive(pid, start_time=fields[1])
    if not process_alive(pid):
        return False
    started = process_started_at(pid)
    return written_at is None or started is None or started <= written_at + LEGACY_SLACK_SECONDS


def _fields(record: str) -> list[str]:
    return re.split(r"[:\s]+", record.strip())


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
    fields = proc_stat(pid)
    if fields and fields[0] == "Z":  # a zombie: dead, only not yet reaped by its parent
        return False
    if start_time is not None and len(fields) > 19 and fields[19] != start_time:
        return False
    return True
