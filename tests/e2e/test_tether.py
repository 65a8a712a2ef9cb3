"""`ops.tether`: a command and all it starts live no longer than the tether's parent
(real processes, real signals; each case takes seconds, the `bodoge serve` one is
tests/e2e/test_serve.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.serve_process import process_tree, still_running

TETHER = [sys.executable, "-m", "ops.tether"]

# Starts, like the Dagster daemon does, a child in its own group that ignores SIGTERM
# (as a crawler whose parent died is in a group of its own) and one in its group.
TREE = """
import signal, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"],
                 process_group=0)
subprocess.Popen(["sleep", "600"])
time.sleep(600)
"""

# Stops in one second on SIGTERM, and says so if a second one came meanwhile.
SLOW_STOP = """
import pathlib, signal, sys, time
out = pathlib.Path(sys.argv[1])
got = []
def stop(signum, frame):
    got.append(signum)
    if len(got) > 1:
        (out / "twice").touch()
signal.signal(signal.SIGTERM, stop)
(out / "ready").touch()
while not got:
    time.sleep(0.05)
time.sleep(1)
(out / "clean").touch()
"""


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.1)
    return bool(predicate())


def test_a_killed_parent_takes_the_whole_tree_with_it() -> None:
    parent = subprocess.Popen([sys.executable, "-c", (
        "import os, subprocess, sys, time\n"
        f"subprocess.Popen({TETHER!r} + ['--parent-pid', str(os.getpid()), '--grace', '2', '--', sys.executable, "
        f"'-c', {TREE!r}], start_new_session=True)\n"
        "time.sleep(600)\n")])
    tree: dict = {}
    try:
        deadline = time.monotonic() + 30
        while len(tree) < 4 and time.monotonic() < deadline:  # the tether, its command, the command's two
            time.sleep(0.1)
            tree = process_tree(parent.pid)
        assert len(tree) == 4, tree
        parent.kill()  # kill -9: no handler runs; the kernel tells the tether
        parent.wait()
        assert wait_for(lambda: not still_running(tree), 15), still_running(tree)
    finally:
        parent.kill()
        for pid in still_running(tree):
            subprocess.run(["kill", "-9", str(pid)], check=False)


def test_a_repeated_stop_signal_does_not_cut_the_stop_short(tmp_path: Path) -> None:
    """The kernel repeats the parent-death signal once per exiting thread of the parent."""
    tether = subprocess.Popen([*TETHER, "--parent-pid", str(os.getpid()), "--", sys.executable, "-c", SLOW_STOP, str(tmp_path)],
                              start_new_session=True)
    try:
        assert wait_for(lambda: (tmp_path / "ready").exists(), 30)
        tether.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        tether.send_signal(signal.SIGTERM)
        assert tether.wait(timeout=15) == -signal.SIGTERM
        assert (tmp_path / "clean").exists() and not (tmp_path / "twice").exists()
    finally:
        tether.kill()


def test_a_command_that_ends_by_itself_ends_the_tether_as_it_ended_and_takes_its_leftovers(tmp_path: Path) -> None:
    pid_file = tmp_path / "leftover"
    command = ("import subprocess, sys; p = subprocess.Popen(['sleep', '600']); "
               f"open({str(pid_file)!r}, 'w').write(str(p.pid)); sys.exit(3)")
    tether = subprocess.Popen([*TETHER, "--parent-pid", str(os.getpid()), "--", sys.executable, "-c", command],
                              start_new_session=True)
    try:
        assert tether.wait(timeout=30) == 3
        leftover = int(pid_file.read_text())
        assert not Path(f"/proc/{leftover}").exists()
    finally:
        tether.kill()
