"""`python -m ops.tether --parent-pid PID -- COMMAND…`: COMMAND and everything it starts
live no longer than PID.

Why: `bodoge serve` killed with SIGKILL (or by the OOM killer) runs no handler, and its
daemon and web UI used to stay behind with all they had started: two code servers
(`dagster api grpc`), a night in progress (the run worker, its log tails, its crawler),
the web UI still answering. The kernel's parent-death signal (`ops.children.die_with_parent`)
reaches only a direct child, and Dagster starts its processes from worker threads (a
parent-death signal would fire when such a thread ends), so each Dagster process cannot
ask for it itself. This process asks for it once, for the whole tree: it runs COMMAND as
its child, in its own process group, and when it is told to stop (the kernel's SIGTERM
when PID dies, or `bodoge serve`'s SIGTERM/SIGINT) it passes that one signal on to its
group, waits up to GRACE_SECONDS, then kills whatever is left. It is a child subreaper,
so processes orphaned below it (a crawler whose run worker died, in a group of its own)
come back to it and are waited for, and killed, too. If COMMAND ends by itself, what it
left running is stopped the same way and this process ends as COMMAND did.

The night in progress is stopped as a SIGTERM to `bodoge serve` stops it: its run worker
dies, its crawler stops gracefully (its run says `interrupted`), and the next night
marks the run failed and frees its slot (`pipelines/recovery.py`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from typing import overload
from types import FrameType

from ops.children import become_subreaper, descendants, die_with_parent, kill_quietly, signal_group

GRACE_SECONDS = 20.0  # below `ops.children.stop_groups`' 30 s (bodoge serve), so this sweep ends first
POLL_SECONDS = 0.1


class _Stop:
    """The first stop signal received before the stop began; later ones (the kernel repeats
    the parent-death signal once per exiting thread of the parent, and this process
    signals its own group) change nothing."""

    signum: int | None = None
    began = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None and not self.began:
            self.signum = signum


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.tether")
    parser.add_argument("--parent-pid", type=int, required=True, help="stop everything when this process dies")
    parser.add_argument("--grace", type=float, default=GRACE_SECONDS, help="seconds between the stop signal and SIGKILL")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="after --: the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command after --")
    stop = _Stop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    die_with_parent(parent_pid=args.parent_pid)
    become_subreaper()
    if stop.signum is not None:  # the parent was gone before anything started
        _die_of(stop.signum)
    child = os.posix_spawnp(command[0], command, os.environ)
    status = run_until_stopped(child, stop, grace=args.grace)
    if stop.signum is not None:
        _die_of(stop.signum)
    if os.WIFSIGNALED(status):
        _die_of(os.WTERMSIG(status))
    return os.waitstatus_to_exitcode(status)


def run_until_stopped(child: int, stop: _Stop, *, grace: float) -> int:
    """Wait for `child`; once it ends or a stop signal comes, stop every descendant.

    Returns the child's wait status. Orphans re-parented here are reaped as they end.
    """
    status: int | None = None
    stopping_since: float | None = None
    while True:
        status = _reap(child, status)
        if stopping_since is None and (stop.signum is not None or status is not None):
            stop.began = True
            _signal_group(stop.signum or signal.SIGTERM)
            stopping_since = time.monotonic()
        if stopping_since is not None:
            left = descendants(os.getpid())
            if not left and status is not None:
                return _reap(child, status)  # the zombies of the last ones to end, too
            if time.monotonic() - stopping_since > grace:
                for pid in left:
                    kill_quietly(pid, signal.SIGKILL)
        time.sleep(POLL_SECONDS)


@overload
def _reap(child: int, status: int) -> int: ...
@overload
def _reap(child: int, status: int | None) -> int | None: ...
def _reap(child: int, status: int | None) -> int | None:
    """Collect every ended child (COMMAND, or an orphan handed to this subreaper)."""
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == child:
            status = wait_status


def _signal_group(signum: int) -> None:
    """`signum` to this process group (this process's handler only records it), or to each
    descendant when this process does not lead its group (never to the caller's group)."""
    if os.getpgrp() != os.getpid():
        for pid in descendants(os.getpid()):
            kill_quietly(pid, signum)
        return
    signal_group(os.getpgrp(), signum)


def _die_of(signum: int) -> None:
    """End this process by `signum`, as COMMAND (or a process without a handler) would."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    sys.exit(128 + signum)  # not reached: the default action ends the process


if __name__ == "__main__":
    sys.exit(main())
