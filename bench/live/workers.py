"""Small requests served by 1 and by 2 uvicorn worker processes (issue 11, items 5 and 6).

One database, two servers on it: `uvicorn --workers 1` and `--workers 2` (what `WEB_CONCURRENCY`
sets in `make run`), both with `bench/baseline_settings.py` so that the bare Django view
`/bench/bare/` stands beside `learn/stats/req`. Rounds interleave the two servers (and swap their
order each round) so both meet the same drift of a shared machine; in each round each server
gets the bare view and learn/stats for `seconds` seconds each from `concurrency` keep-alive
connections.

The client must not eat the CPU it measures: wrk (C, one thread, epoll; HTTP/1.1 keep-alive
connections, a Lua script for the POST) is the load generator, installed with apt-get when
missing and allowed (bench-only, never a test dependency). Not ApacheBench: `ab -k` speaks
HTTP/1.0, and uvicorn never keeps an HTTP/1.0 connection open (its httptools protocol sets
`keep_alive = http_version != "1.0" and ...`), so every ab request opened a new connection
(ab counted 0 keep-alive requests). Without wrk a multi-process Python client (`http.client`
keep-alive, the connections shared among a process a core) stands in, and the block says which
ran (`BENCH_CLIENT=python` chooses it). Around each run the CPU seconds of every server
process, of the client and of the whole machine are read from /proc, so that a figure that
misses can be told apart from a machine that was saturated.
"""

from __future__ import annotations

import contextlib
import http.client
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from bench.harness import payloads
from bench.harness.children import run_child
from bench.harness.databases import ROOT, BenchError, Database
from bench.harness.report import log
from bench.harness.servers import Server, Stack

PATHS = {"bare": "/bench/bare/", "stats": "/api/learn/"}
TICK = os.sysconf("SC_CLK_TCK")


# --- CPU accounting from /proc ---------------------------------------------------------------


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, or 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _tree(pid: int) -> list[int]:
    """The process and its descendants (uvicorn's supervisor and its workers)."""
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        todo += _children(p)
    return pids


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # without guest time, which is counted in user already
    return (total - idle) / TICK, total / TICK


# --- load generators -------------------------------------------------------------------------


def wrk_path() -> str | None:
    """wrk, installed (apt-get) when missing and this process may."""
    found = shutil.which("wrk")
    if found or os.environ.get("BENCH_NO_APT"):
        return found
    apt = shutil.which("apt-get")
    if apt and os.geteuid() == 0:
        log("workers: installing wrk (bench only)")
        subprocess.run(
            [apt, "install", "-y", "-q", "wrk"],
            capture_output=True,
            check=False,
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
        )
    return shutil.which("wrk")


WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = [==[%(body)s]==]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %(token)s"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT %%d %%d %%d %%d %%d\\n", summary.requests, summary.duration, e.status,
    e.connect + e.read + e.write + e.timeout, latency:percentile(50)))
end
"""


def run_wrk(wrk: str, url: str, script: str, concurrency: int, seconds: float) -> dict[str, Any]:
    """wrk with one thread: `concurrency` HTTP/1.1 keep-alive connections on one epoll loop."""
    command = [wrk, "-t1", f"-c{concurrency}", f"-d{seconds:g}s", "--timeout", "30s"]
    result = subprocess.run(
        [*command, "-s", script, url], capture_output=True, text=True, check=False
    )
    match = re.search(r"^RESULT (\d+) (\d+) (\d+) (\d+) (\d+)", result.stdout, re.M)
    if result.returncode != 0 or not match:
        raise BenchError(f"wrk failed ({result.returncode}): {result.stdout}{result.stderr}")
    requests, micros, status, socket_errors, p50 = (int(g) for g in match.groups())
    return {
        "requests": requests,
        "seconds": micros / 1e6,
        "errors": status + socket_errors,
        "ms_p50": p50 / 1000,
    }


def _py_worker(args: tuple[str, int, str, bytes, dict[str, str], int, float, Any]) -> None:
    host, port, path, body, headers, connections, until, queue = args
    conns = [http.client.HTTPConnection(host, port, timeout=60) for _ in range(connections)]
    count, errors, latencies = 0, 0, []
    while time.time() < until:
        # One request on each connection in turn: keep-alive, one in flight per connection.
        for conn in conns:
            t0 = time.perf_counter()
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            latencies.append(time.perf_counter() - t0)
            count += 1
            errors += response.status != 200
    for conn in conns:
        conn.close()
    queue.put((count, errors, statistics.median(latencies) if latencies else 0.0))


def run_python(
    url: str, body: bytes, token: str, concurrency: int, seconds: float
) -> dict[str, Any]:
    """The fallback: a process a core (the bench's share of the connections in each)."""
    host, port = url.removeprefix("http://").split("/", 1)[0].split(":")
    path = "/" + url.removeprefix("http://").split("/", 1)[1]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    processes = max(1, min(concurrency, os.cpu_count() or 1))
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    start = time.time()
    until = start + 0.5 + seconds
    procs = [
        context.Process(
            target=_py_worker,
            args=((host, int(port), path, body, headers, concurrency // processes, until, queue),),
        )
        for _ in range(processes)
    ]
    for proc in procs:
        proc.start()
    results = [queue.get(timeout=seconds + 120) for _ in procs]
    for proc in procs:
        proc.join()
    return {
        "requests": sum(r[0] for r in results),
        "seconds": time.time() - start,
        "errors": sum(r[1] for r in results),
        "ms_p50": 1000 * statistics.median(r[2] for r in results),
    }


# --- the section -----------------------------------------------------------------------------


def workers(
    database: Database,
    *,
    debug: bool,
    rounds: int,
    seconds: float,
    concurrency: int,
    counts: tuple[int, ...] = (1, 2),
) -> dict[str, Any]:
    wrk = None if os.environ.get("BENCH_CLIENT") == "python" else wrk_path()
    client = "wrk" if wrk else "python"
    log(f"workers: load from {'wrk' if wrk else 'a multi-process Python client'}")
    with Stack(
        database,
        "workers",
        server_kind="uvicorn",
        debug=debug,
        settings_module="bench.baseline_settings",
    ) as stack:
        run_child(stack.env, "seed_calls", token=stack.tokens["seeder"], target=1000)
        token = stack.tokens["agent"]
        assert stack.server is not None
        servers: dict[int, Server] = {}
        body = payloads.stats_body("component-07", "workers")
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
            handle.write(WRK_SCRIPT % {"body": body.decode(), "token": token})
        script = handle.name
        try:
            for n in counts:
                if n == stack.server.workers:
                    servers[n] = stack.server
                    continue
                log_path = ROOT / "var" / f"bench-{os.getpid()}-workers-{n}.log"
                servers[n] = Server("uvicorn", stack.env, log_path, workers=n)
                servers[n].start(token)
            _check_answers(servers, token, body)

            def drive(n: int, path: str, for_seconds: float) -> dict[str, Any]:
                url = servers[n].base_url + PATHS[path]
                proc = servers[n].proc
                assert proc is not None
                pids = _tree(proc.pid)
                cpu0 = {pid: _proc_cpu(pid) for pid in pids}
                backends0 = {pid: _proc_cpu(pid) for pid in _backends(stack)}
                self0 = os.times()
                busy0, total0 = _machine_busy()
                if wrk:
                    run = run_wrk(wrk, url, script, concurrency, for_seconds)
                else:
                    run = run_python(url, body, token, concurrency, for_seconds)
                busy1, total1 = _machine_busy()
                self1 = os.times()
                backends = {pid: _proc_cpu(pid) for pid in _backends(stack)}
                wall = run["seconds"] or for_seconds
                per_process = {pid: (_proc_cpu(pid) - cpu0[pid]) / wall for pid in pids}
                database_cpu = sum(cpu - backends0.get(pid, 0.0) for pid, cpu in backends.items())
                client_cpu = (
                    self1.children_user
                    + self1.children_system
                    - self0.children_user
                    - self0.children_system
                ) / wall
                return run | {
                    "rps": run["requests"] / wall,
                    "server_cores": sum(per_process.values()),
                    "per_process_cores": sorted(per_process.values(), reverse=True),
                    "client_cores": client_cpu,
                    "database_cores": database_cpu / wall,
                    "machine_cores": (busy1 - busy0) / ((total1 - total0) / (os.cpu_count() or 1)),
                }

            log("workers: warming every worker process up (not counted)")
            for n in counts:
                for path in PATHS:
                    drive(n, path, min(2.0, seconds))
            runs: dict[tuple[int, str], list[dict[str, Any]]] = {}
            for r in range(rounds):
                order = list(counts) if r % 2 == 0 else list(reversed(counts))
                for n in order:
                    for path in PATHS if r % 2 == 0 else reversed(PATHS):
                        run = drive(n, path, seconds)
                        runs.setdefault((n, path), []).append(run)
                        log(
                            f"workers: round {r + 1}/{rounds}, {n} worker(s), {path}: "
                            f"{run['rps']:,.0f} req/s; server {run['server_cores']:.2f} cores, "
                            f"client {run['client_cores']:.2f}, machine {run['machine_cores']:.2f}"
                        )
        finally:
            for server in servers.values():
                server.stop()
                if not database.keep:
                    with contextlib.suppress(OSError):
                        server.log_path.unlink()
            with contextlib.suppress(OSError):
                os.unlink(script)
    errors = sum(run["errors"] for rs in runs.values() for run in rs)
    if errors:
        raise BenchError(f"workers: {errors} non-200 replies")
    figures: dict[str, Any] = {}
    for (n, path), rs in runs.items():
        wall = sum(run["seconds"] for run in rs)
        figures[f"{path}_{n}"] = {
            "workers": n,
            "path": path,
            "requests": sum(run["requests"] for run in rs),
            "rps": sum(run["requests"] for run in rs) / wall,
            "rps_rounds": [run["rps"] for run in rs],
            "ms_p50": statistics.median(run["ms_p50"] for run in rs),
            "server_cores": statistics.mean(run["server_cores"] for run in rs),
            "per_process_cores": [
                statistics.mean(run["per_process_cores"][i] for run in rs)
                for i in range(len(rs[0]["per_process_cores"]))
            ],
            "client_cores": statistics.mean(run["client_cores"] for run in rs),
            "database_cores": statistics.mean(run["database_cores"] for run in rs),
            "machine_cores": statistics.mean(run["machine_cores"] for run in rs),
        }
    low, high = counts[0], counts[-1]
    return {
        "client": client,
        "concurrency": concurrency,
        "rounds": rounds,
        "seconds": seconds,
        "counts": list(counts),
        "figures": figures,
        "ratio_stats": figures[f"stats_{high}"]["rps"] / figures[f"stats_{low}"]["rps"],
        "ratio_bare": figures[f"bare_{high}"]["rps"] / figures[f"bare_{low}"]["rps"],
    }


def _backends(stack: Stack) -> list[int]:
    """PostgreSQL: the server processes holding a connection to this section's database (on
    this machine, so /proc has them); SQLite runs inside the server's own processes."""
    if stack.database.kind != "postgresql":
        return []
    conn = stack.connect()
    try:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchall()
    finally:
        conn.close()
    return [int(row[0]) for row in rows]


def _check_answers(servers: dict[int, Server], token: str, body: bytes) -> None:
    """Each server answers both paths as it should before anything is timed."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    for server in servers.values():
        for path, expect in (("bare", "bare"), ("stats", "learn/stats/resp")):
            host, port = server.base_url.removeprefix("http://").split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            conn.request("POST", PATHS[path], body=body, headers=headers)
            response = conn.getresponse()
            reply = orjson.loads(response.read())
            conn.close()
            if response.status != 200 or reply.get("type") != expect:
                raise BenchError(f"workers: {path} answered {response.status} {reply}")
