"""Tying the crawl subprocess's life to its parent's, from the parent's side.

Why: an unattended night must never leave a crawler running on its own. If the parent
dies (SIGKILL, OOM killer) the kernel sends the child SIGTERM (`ops.procs.die_with_parent`),
and Scrapy stops gracefully on it; if the parent is interrupted while it waits, it stops
the child itself (here) before passing the interruption on.
"""

from __future__ import annotations

import subprocess



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
