"""Child processes: tying their life to ours, and stopping them (and what they started).

Why one module: the crawler, the nightly worker, the dashboard's Streamlit server and
`bodoge serve`'s daemon and web UI are all children that must never outlive the command
that started them, however it ended. A child asks the kernel for a signal when its parent
dies (`die_with_parent`); a parent interrupted while it waits stops the child itself
(`stop`), or a whole process group (`stop_groups`); `ops.tether` does both for a tree
whose members cannot ask for themselves.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from ops.procs import proc_stat

#: The line a nightly worker prints its outcome on when it cannot write its result file (a full
#: disk): `pipelines.worker` prints it, `bodoge.jobs` reads it.
RESULT_PREFIX = "nightly-result: "

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


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
        fields = proc_stat(int(entry.name))
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


def stop(process: subprocess.Popen, *, signum: int = signal.SIGTERM, timeout: float = 15.0) -> int:
    """Send `signum` to `process`, wait up to `timeout` seconds for it to stop cleanly, then SIGKILL.

    Why wait: a child's port or scratch folder is free only once it is gone; a caller that
    returned earlier would leave a server answering on it. Returns its exit code (negative
    for a signal, as Popen reports it); a process already ended is only reaped.
    """
    if process.poll() is None:
        process.send_signal(signum)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


def stop_groups(processes: Mapping[str, subprocess.Popen], *, signum: int = signal.SIGTERM,
                timeout: float = 30.0) -> None:
    """Stop children that each lead a process group of their own (`start_new_session`).

    Signal each leader (a tethered one passes the one signal on to its group, then sweeps);
    a leader already gone has its group signalled here. Wait up to `timeout` seconds in
    all, then SIGKILL every group, since a group may outlive its leader.
    """
    for proc in processes.values():
        if proc.poll() is None:
            proc.send_signal(signum)
        else:
            signal_group(proc.pid, signum)
    deadline = time.monotonic() + timeout
    for proc in processes.values():
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc in processes.values():
        signal_group(proc.pid, signal.SIGKILL)
        proc.wait()


def signal_group(pgid: int, signum: int) -> None:
    """`signum` to process group `pgid`; a group already gone (or not ours) is no error."""
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def kill_quietly(pid: int, signum: int) -> None:
    """`signum` to `pid`; a process already gone (or not ours) is no error."""
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
