"""Tying the crawl subprocess's life to its parent's.

Why: an unattended night must never leave a crawler running on its own. If the parent
dies (SIGKILL, OOM killer) the kernel sends the child SIGTERM (Linux's
PR_SET_PDEATHSIG), and Scrapy stops gracefully on it; if the parent is interrupted
while it waits, it stops the child itself before passing the interruption on.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import subprocess
import sys

PR_SET_PDEATHSIG = 1


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


def stop_process(process: subprocess.Popen, *, timeout: float) -> int:
    """SIGTERM `process`, wait up to `timeout` seconds for it to stop cleanly, then SIGKILL.

    Returns its exit code (negative for a signal, as Popen reports it).
    """
    if process.poll() is None:
        process.terminate()
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()
