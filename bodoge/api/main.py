"""`bodoge api`: run the HTTP API under uvicorn, with the contract's token and address rules.

Why these rules: the API answers with members' lists; on a loopback address only this machine
(the site's own server, a reverse proxy) reaches it, anywhere else it must ask for the token
(`BODOGE_API_TOKEN`, or the first line of the file `BODOGE_API_TOKEN_FILE`), which is never
logged, printed or passed on in a child's environment. SIGTERM is graceful: uvicorn stops
taking connections and lets the requests in flight finish (`GRACE_SECONDS`).
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import socket
from pathlib import Path
from typing import Any

GRACE_SECONDS = 10
"""How long a SIGTERM waits for the requests in flight."""
TOKEN_VARIABLES = ("BODOGE_API_TOKEN", "BODOGE_API_TOKEN_FILE")
_DATA_DIR_VARIABLE = "BODOGE_API_DATA_DIR"
BARE_VARIABLE = "BODOGE_API_BARE_BYTES"
"""Set by `benchmarks.api` only: serve `GET /bare`, a constant body of that many bytes."""


class ApiError(ValueError):
    """The service cannot start as asked: one line for the operator."""


def read_token(env: dict[str, str] | None = None) -> str | None:
    """The API token, or None when neither variable is set."""
    source = os.environ if env is None else env
    token = source.get("BODOGE_API_TOKEN", "").strip()
    if not token and source.get("BODOGE_API_TOKEN_FILE"):
        path = Path(source["BODOGE_API_TOKEN_FILE"])
        try:
            lines = path.read_text(encoding="utf-8").strip().splitlines()
        except OSError as exc:
            raise ApiError(f"cannot read the API token file {path}: {exc.strerror or exc}") from None
        token = lines[0].strip() if lines else ""
        if not token:
            raise ApiError(f"the API token file {path} is empty")
    return token or None


def loopback(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(ipaddress.ip_address(info[4][0]).is_loopback for info in socket.getaddrinfo(host, None))
        except OSError:
            return False


def app_from_env() -> Any:
    """The application for uvicorn's workers (a factory: each worker process builds its own)."""
    from bodoge.api.app import create_app
    from bodoge.api.serving import Serving

    bare = os.environ.get(BARE_VARIABLE, "")
    return create_app(Serving(Path(os.environ[_DATA_DIR_VARIABLE])), token=read_token(),
                      bare_bytes=int(bare) if bare.isdigit() else None)


def serve(*, data_dir: Path, host: str, port: int, workers: int) -> int:
    """Check the rules, then run uvicorn until SIGTERM/SIGINT."""
    # One Polars thread per process, before Polars loads: a fold-in ranks one member, where
    # Polars' pool costs more to wake than the work (9 ms a fold-in against 11 ms); the
    # requests run side by side on the API's threads instead.
    os.environ.setdefault("POLARS_MAX_THREADS", "1")
    import uvicorn

    token = read_token()
    if token is None and not loopback(host):
        raise ApiError(f"refusing to listen on {host} without a token: set BODOGE_API_TOKEN "
                       "(or BODOGE_API_TOKEN_FILE), or listen on 127.0.0.1")
    if not Path(data_dir).is_dir():
        raise ApiError(f"no data directory {data_dir}")
    from core.settings import SettingError, read

    try:
        read("discovery_engine")  # what fold-in computes by (models.discovery.store.load_state), checked now
    except SettingError as bad:
        raise ApiError(str(bad)) from None
    os.environ[_DATA_DIR_VARIABLE] = str(Path(data_dir).resolve())
    api_log = logging.getLogger("bodoge.api")
    api_log.setLevel(min(logging.INFO, logging.getLogger().level))  # `bodoge -v api`: a line per request
    print(f"bodoge api: serving {data_dir} on http://{host}:{port} ({workers} worker(s), "
          f"{'token required' if token else 'no token: loopback only'})", flush=True)
    uvicorn.run("bodoge.api.main:app_from_env", factory=True, host=host, port=port, workers=workers,
                access_log=False, timeout_graceful_shutdown=GRACE_SECONDS, log_level="warning",
                loop="uvloop", http="httptools", lifespan="on")
    return 0


def register_api(sub: Any) -> None:
    from bodoge.args import add_data_dir, port_number, positive_int

    p = sub.add_parser("api", help="serve the published night to the site over HTTP (docs/api.md)")
    add_data_dir(p, warehouse=False)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (not loopback: a token is required)")
    p.add_argument("--port", type=port_number, default=8000)
    p.add_argument("--workers", type=positive_int, default=1, help="worker processes (each holds the night)")
    p.set_defaults(handler=cmd_api)


def cmd_api(args: argparse.Namespace) -> int:
    from core.config import resolve_paths

    return serve(data_dir=resolve_paths(data_dir=args.data_dir).data_dir, host=args.host, port=args.port,
                 workers=args.workers)
