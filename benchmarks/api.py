"""`bodoge api` under load, side by side with a bare endpoint of the same server.

Run: ``uv run python -m benchmarks.api --data-dir DIR [--seconds 10] [--clients 64] [--json]``
where DIR holds a published night (``bodoge demo``, or ``benchmarks.scale --work-dir DIR``
for the real size: 25,000 games, 100,000 members). Without ``--data-dir`` a demo night is
built in a temporary folder first.

What it measures, in one run (progress on stderr, one JSON object last on stdout):

* ``stored``: stored discovery lists (``GET /v1/members/{id}/discovery``, random members)
  from ``--clients`` keep-alive connections for ``--seconds``: requests/s, p50/p99 ms;
  ``bare``: the same load on ``GET /bare`` of the same service, a constant body of the same
  size (the median answer's), and ``stored_ratio``: stored requests/s over bare;
* ``fold_in``: ``POST`` of a member's collection with one game added, one request at a time:
  p50/p99 ms per request; ``scoring``: the champion's part for one folded member alone
  (``Recommender.with_rows(...).score``), p50 ms, for the night's champion and for an
  item-to-item champion (cosine) at ``--scoring-games`` games;
* ``rss_mb``: the service's resident memory after the load;
* ``move_seconds``: from the instant a new night's release (the real export and release code
  on the night's own warehouse) replaces ``published.duckdb`` to the service answering with it.

The load generator is a bounded asyncio HTTP/1.1 client in its own process, so its work
and the service's do not share a GIL (they do share the machine's cores: on 2 cores the
client costs the service about one of them; the ratio to the bare endpoint carries that).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import orjson


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _client(port: int, paths: list[str], until: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    at = random.randrange(len(paths))
    while time.perf_counter() < until:
        path = paths[at % len(paths)]
        at += 1
        started = time.perf_counter()
        writer.write(f"GET {path} HTTP/1.1\r\nHost: b\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
        await reader.readexactly(length)
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
        latencies.append(time.perf_counter() - started)
    writer.close()


def _load(port: int, paths: list[str], clients: int, seconds: float, out: Any) -> None:
    """In a process of its own: `clients` connections for `seconds`; sends the latencies."""
    latencies: list[float] = []

    async def run() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(*[_client(port, paths, until, latencies) for _ in range(clients)])

    started = time.perf_counter()
    asyncio.run(run())
    out.send((time.perf_counter() - started, latencies))


def load(port: int, paths: list[str], *, clients: int, seconds: float) -> dict[str, float]:
    receive, send = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.get_context("spawn").Process(target=_load, args=(port, paths, clients, seconds, send))
    process.start()
    elapsed, latencies = receive.recv()
    process.join()
    ms = np.array(latencies) * 1000
    return {"requests": len(latencies), "requests_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(float(np.percentile(ms, 50)), 2), "p99_ms": round(float(np.percentile(ms, 99)), 2)}


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _collection(data_dir: Path, user_id: str) -> list[dict[str, Any]]:
    import duckdb

    with duckdb.connect(str(data_dir / "published.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT game_id, have, played, favorite, watching, rating FROM marts.collections "
                           "WHERE user_id = ?", [user_id]).fetchall()
    return [dict(zip(("game_id", "have", "played", "favorite", "watching", "rating"), row)) for row in rows]


def scoring(data_dir: Path, users: list[str], games: int) -> dict[str, Any]:
    """The champion's part for one folded member alone, p50 ms: the night's champion, and a
    cosine item-kNN fitted on a random catalogue of `games` games."""
    import scipy.sparse as sp

    from models.discovery.foldin import FoldIn
    from models.interactions import InteractionMatrix
    from models.knn import ItemKNNCosine
    from warehouse.release.served import served_dir

    bundle = (data_dir / "exports" / "LATEST").read_text().strip()
    fold = FoldIn.load(served_dir(data_dir, bundle))
    timings = []
    for user in users:
        rows = fold.night_rows(user)
        matrix = InteractionMatrix.from_frame(rows, fold.weights, game_ids=fold.state.interactions.game_ids).matrix
        assert fold.state.model is not None, "the night has no champion"
        started = time.perf_counter()
        fold.state.model.with_rows(matrix).score(np.zeros(1, dtype=np.int64))
        timings.append(time.perf_counter() - started)
    rng = np.random.default_rng(0)
    n_users = max(20_000, games * 2)
    train = sp.random(n_users, games, density=30 / games, format="csr", dtype=np.float32, random_state=rng)
    train.data[:] = 1.0
    knn = ItemKNNCosine().fit(train)
    knn_timings = []
    for row in range(200):
        started = time.perf_counter()
        knn.with_rows(train[[row]]).score(np.zeros(1, dtype=np.int64))
        knn_timings.append(time.perf_counter() - started)
    return {"champion": fold.state.champion,
            "champion_p50_ms": round(float(np.median(timings)) * 1000, 3),
            "item_to_item_games": games, "item_to_item_p50_ms": round(float(np.median(knn_timings)) * 1000, 3)}


def fold_in(url: str, data_dir: Path, users: list[str], games: list[str]) -> dict[str, float]:
    import httpx

    timings = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for at, user in enumerate(users):
            body = {"collection": _collection(data_dir, user) + [{"game_id": games[at % len(games)], "have": True}]}
            started = time.perf_counter()
            answer = client.post(f"/v1/members/{user}/discovery", json=body)
            timings.append(time.perf_counter() - started)
            answer.raise_for_status()
    ms = np.array(timings[1:]) * 1000  # the first loads the night's model
    return {"requests": len(ms), "p50_ms": round(float(np.percentile(ms, 50)), 2),
            "p99_ms": round(float(np.percentile(ms, 99)), 2), "first_ms": round(timings[0] * 1000, 1)}


def move(url: str, data_dir: Path) -> float:
    """Seconds from a new night's release to the service answering with it."""
    import duckdb
    import httpx

    from warehouse.release.export import export_bundle
    from warehouse.release.release import release_night

    night = f"bench-{int(time.time())}"
    published = data_dir / "published.duckdb"
    before = os.stat(published).st_ino
    swapped: list[float] = []

    def watch() -> None:  # the instant the release replaces the published night
        while os.stat(published).st_ino == before:
            time.sleep(0.002)
        swapped.append(time.perf_counter())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with duckdb.connect(str(data_dir / "warehouse.duckdb")) as con:
        for table in ("recommendations", "next_to_play", "watch_next"):
            con.execute(f"UPDATE marts.{table} SET run_id = ?", [night + "-run"])
        bundle = export_bundle(con, data_dir / "exports")
        release_night(con, data_dir, run_id=night, bundle_run_id=bundle.run_id)
    while httpx.get(url + "/v1/night", timeout=60).json()["night_id"] != night:
        time.sleep(0.01)
    answered = time.perf_counter()
    watcher.join()
    return round(answered - swapped[0], 2)


def run(data_dir: Path, *, seconds: float, clients: int, scoring_games: int) -> dict[str, Any]:
    import httpx

    bundle = data_dir / "exports" / (data_dir / "exports" / "LATEST").read_text().strip()
    lines = [orjson.loads(line) for line in (bundle / "recommendations.jsonl").open("rb")]
    users = [line["user_id"] for line in lines]
    random.Random(0).shuffle(users)
    sizes = sorted(len(orjson.dumps({"user_id": line["user_id"], "night_id": "x" * 36, "items": line["items"][:10]}))
                   for line in lines[:2000])
    body = sizes[len(sizes) // 2]
    port = _port()
    env = {**os.environ, "BODOGE_API_BARE_BYTES": str(body), "OPENBLAS_NUM_THREADS": "1"}
    print(f"api: serving {data_dir} ({len(users):,} members)", file=sys.stderr, flush=True)
    service = subprocess.Popen([sys.executable, "-m", "bodoge.cli", "api", "--data-dir", str(data_dir),
                                "--port", str(port)], env=env, stdout=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        started = time.perf_counter()
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if service.poll() is not None:
                raise SystemExit("benchmarks.api: the service exited")
            time.sleep(0.1)
        ready = round(time.perf_counter() - started, 1)
        paths = [f"/v1/members/{user}/discovery" for user in users]
        load(port, paths[:200], clients=clients, seconds=1.0)  # warm
        print("api: stored lists under load", file=sys.stderr, flush=True)
        stored = load(port, paths, clients=clients, seconds=seconds)
        print("api: the bare endpoint under the same load", file=sys.stderr, flush=True)
        bare = load(port, ["/bare"], clients=clients, seconds=seconds)
        print("api: fold-in, one request at a time", file=sys.stderr, flush=True)
        games = [item["game_id"] for line in lines[:50] for item in line["items"][:1]]
        folded = fold_in(url, data_dir, users[:101], games)
        rss = _rss_mb(service.pid)
        print("api: moving to a new night", file=sys.stderr, flush=True)
        moved = move(url, data_dir)
    finally:
        os.killpg(service.pid, signal.SIGTERM)
        service.wait(timeout=60)
    print("api: scoring alone", file=sys.stderr, flush=True)
    scored = scoring(data_dir, users[:200], scoring_games)
    return {
        "members": len(users), "clients": clients, "seconds": seconds, "body_bytes": body, "ready_seconds": ready,
        "stored": stored, "bare": bare, "stored_ratio": round(stored["requests_per_s"] / bare["requests_per_s"], 3),
        "fold_in": folded, "scoring": scored, "rss_mb": rss, "move_seconds": moved,
        "targets": {
            "stored_requests_per_s >= 1000": stored["requests_per_s"] >= 1000,
            "stored_p99_ms <= 25": stored["p99_ms"] <= 25,
            "fold_in_p50_ms <= 10": folded["p50_ms"] <= 10, "fold_in_p99_ms <= 50": folded["p99_ms"] <= 50,
            "item_to_item_scoring_p50_ms <= 1": scored["item_to_item_p50_ms"] <= 1,
            "rss_mb <= 2048": rss <= 2048,
        },
        "loadavg": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="a data directory holding a published night (default: a demo night)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--scoring-games", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="only the JSON line on stdout")
    args = parser.parse_args(argv)
    data_dir = args.data_dir
    if data_dir is None:
        data_dir = Path(tempfile.mkdtemp(prefix="bench-api-")) / "night"
        print(f"api: building a demo night in {data_dir}", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "bodoge.cli", "demo", "--data-dir", str(data_dir)], check=True,
                       stdout=subprocess.DEVNULL)
    result = run(data_dir, seconds=args.seconds, clients=args.clients, scoring_games=args.scoring_games)
    if not args.json:
        print(json.dumps(result, indent=2), file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
