"""Arize Phoenix, the peer of the trace ingest: its own venv under var/bench/ (never the
project's), a fresh working directory (SQLite), served on a free loopback port."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from bench.harness.databases import ROOT, BenchError
from bench.harness.peers import peer_command, peer_data, peer_serving
from bench.harness.servers import free_port

if TYPE_CHECKING:
    from collections.abc import Iterator

PHOENIX = "arize-phoenix==20.26.1"
PHOENIX_VENV = ROOT / "var" / "bench" / "phoenix-venv"


class PhoenixUnavailable(BenchError):
    pass


@contextlib.contextmanager
def phoenix_server() -> Iterator[tuple[str, int]]:
    """Phoenix on a free loopback port with a fresh SQLite working dir: (base URL, its pid)."""
    binary = peer_command(PHOENIX_VENV, PHOENIX, "phoenix", PhoenixUnavailable)
    data = peer_data("phoenix")
    port = free_port()
    settings = {
        "PHOENIX_WORKING_DIR": str(data),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    base = f"http://127.0.0.1:{port}"
    with peer_serving("phoenix", [str(binary), "serve"], settings, data, f"{base}/healthz",
                      PhoenixUnavailable) as proc:  # fmt: skip
        yield base, proc.pid
