"""Is a process still the one we knew (pid plus kernel start time plus boot id, read from
/proc), and tying a child's life to its parent's.

Why in `ops`, under every layer but `core`: the crawl's scratch folders, the nightly run
guard and the published night's temporary files all ask the first, from different layers;
the crawler, the nightly worker, the dashboard's Streamlit server and `bodoge serve`'s
children all need the second.

Why not the pid alone: pids repeat, soonest after a container restart (the new pid
namespace counts from 1 again), and a dead run whose pid now names another process was
taken for alive: its pool slot was never freed and every later night waited for it. A
record written now is an `identity()`, `<pid>:<start time>:<boot id>`; the start time
(clock ticks since boot, field 22 of /proc/<pid>/stat) tells two processes with one pid
apart, and the boot id (/proc/sys/kernel/random/boot_id) tells a reboot apart, after
which start times count from zero again.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import re
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
# A record holding only a pid (written before identities) names a live process only if
# that process started before the record was written; this much clock slack is allowed
# (/proc/stat gives the boot time in whole seconds).
LEGACY_SLACK_SECONDS = 2.0


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
    fields = _proc_stat(pid)
    if fields and fields[0] == "Z":  # a zombie: dead, only not yet reaped by its parent
        return False
    if start_time is not None and len(fields) > 19 and fields[19] != start_time:
        return False
    return True


def die_with_parent(*, parent_pid: int, signum: int = signal.SIGTERM) -> bool:
    """Ask the kernel to send `signum` to this process when its parent dies (Linux only).

    Called by the child itself at start rather than in `preexec_fn` (which is unsafe in a
    parent with threads, as Dagster's are). If the parent already died before this call,
    the child gets the signal at once. Returns False where the call is not available.
    """
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) != 0:
        return False
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os.kill(os.getpid(), signum)
    return True


def become_subreaper() -> bool:
    """Make this process the one its orphaned descendants are re-parented to (Linux only).

    Why: a process whose parent dies is normally handed to init, out of reach; a subreaper
    gets it instead, so it can still find (by parent pid) and stop everything it started,
    grandchildren in process groups of their own included. Returns False where unavailable.
    """
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def descendants(pid: int) -> set[int]:
    """The live (not zombie) processes below `pid`, at any depth, read from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _proc_stat(int(entry.name))
        if len(fields) > 1 and fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def orphaned(parent_pid: int | None) -> bool:
    """True once the parent this process was started by has died (it has been re-parented).

    Why: when a parent with several threads dies, Linux re-parents the child to each of its
    exiting threads in turn and sends the parent-death signal at every step, so the child
    can get SIGTERM twice. A second SIGTERM normally means "stop now, uncleanly"; for an
    orphan it is only the same news again and must not cut the graceful stop short (it
    did: the crawl's run record was left 'running').
    """
    return parent_pid is not None and os.getppid() != parent_pid
