"""Is a process still the one we knew (pid plus kernel start time, read from /proc), and
tying a child's life to its parent's.

Why in the bottom layer: the crawl's scratch folders, the nightly run guard and the
published night's temporary files all ask the first, from different layers; the crawler,
the nightly worker and the dashboard's Streamlit server all need the second.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1


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


def orphaned(parent_pid: int | None) -> bool:
    """True once the parent this process was started by has died (it has been re-parented).

    Why: when a parent with several threads dies, Linux re-parents the child to each of its
    exiting threads in turn and sends the parent-death signal at every step, so the child
    can get SIGTERM twice. A second SIGTERM normally means "stop now, uncleanly"; for an
    orphan it is only the same news again and must not cut the graceful stop short (it
    did: the crawl's run record was left 'running').
    """
    return parent_pid is not None and os.getppid() != parent_pid
