"""`bodoge dashboard` stopped by a signal takes its Streamlit server with it.

Why: the command starts Streamlit as a child; stopped by SIGTERM (a service manager, a
nightly script) it used to die alone and leave the server answering on the port. Here a
real `bodoge dashboard` gets a real signal, and the port must be closed afterwards.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ops.procs import process_alive

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def children_of(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="utf-8").split()]


def start_dashboard(warehouse: Path, port: int) -> subprocess.Popen:
    """A real `bodoge dashboard`, returned once it says the server answers."""
    cli = subprocess.Popen(
        [sys.executable, "-m", "bodoge.cli", "dashboard", "--port", str(port), "--warehouse", str(warehouse)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", cwd=REPO,
    )
    assert cli.stdout is not None
    ready = cli.stdout.readline()  # printed once the server answers its health check
    assert ready.startswith(f"dashboard: http://127.0.0.1:{port}"), (ready, cli.stderr.read() if cli.poll() else "")
    return cli


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_server_and_frees_the_port(empty_warehouse: Path, signum: int, code: int) -> None:
    port = free_port()
    cli = start_dashboard(empty_warehouse, port)
    try:
        servers = children_of(cli.pid)
        assert servers and port_open(port)

        cli.send_signal(signum)
        _, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    assert cli.returncode == code, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert signal.Signals(signum).name in err and "down" in err, err
    deadline = time.monotonic() + 5
    while any(process_alive(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(process_alive(pid) for pid in servers)
    assert not port_open(port)


def test_a_killed_command_takes_its_server_with_it(empty_warehouse: Path) -> None:
    """SIGKILL runs no handler in `bodoge dashboard`; the kernel tells the server instead."""
    port = free_port()
    cli = start_dashboard(empty_warehouse, port)
    servers = children_of(cli.pid)
    assert servers and port_open(port)
    cli.kill()
    cli.communicate(timeout=30)
    deadline = time.monotonic() + 30
    while any(process_alive(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(process_alive(pid) for pid in servers), "Streamlit outlived its command"
    assert not port_open(port)
