"""An agent process for the buffers' crash tests (tests/client/test_buffer.py), run by path.

`buffering_agent.py URL TOKEN FLUSHED LATE MODE KIND`: with KIND `sync` a LearnBuffer, with
`async` an AsyncLearnBuffer in `asyncio.run`; buffers FLUSHED experiences, calls flush(),
buffers LATE more, prints `flushed` and the modules it imported, then, by MODE:

- `wait`: waits to be killed;
- `term`: installs the client's signal hook (`flush_on_signals()`) and waits to be stopped
  with SIGTERM, as a container, systemd or Kubernetes stops it;
- `exit`: ends without closing the buffer (for `sync`, atexit closes it; for `async`, the
  event loop ends with the buffer's task still running);
- `outlive`: closes the client with the buffer still open, and ends.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import TYPE_CHECKING

from learnportal_client import AsyncLearnClient, LearnClient, Retry

if TYPE_CHECKING:
    from learnportal_client import AsyncLearnBuffer, LearnBuffer

ONE_TRY = Retry(attempts=1)


def add(buffer: LearnBuffer | AsyncLearnBuffer, prefix: str, count: int) -> None:
    for i in range(count):
        buffer.add_experience({"experience_id": f"{prefix}-{i}", "reward": 1.0})


def say_flushed(flushed: int) -> None:
    # A copy first: the sender thread may import a module meanwhile, and a dict iterated while
    # it grows raises (a `sync` agent once crashed so).
    loaded = list(sys.modules)
    server_side = sorted(m for m in loaded if m.split(".")[0] in {"django", "rest_framework"})
    print(json.dumps({"flushed": flushed, "server_modules": server_side}), flush=True)


def blocking(url: str, token: str, flushed: int, late: int, mode: str) -> None:
    client = LearnClient(url, token, retry=ONE_TRY, max_batch=1000)
    if mode == "term":
        client.flush_on_signals()
    buffer = client.buffer(max_items=50, max_interval=3600)
    add(buffer, "flushed", flushed)
    buffer.flush()
    add(buffer, "late", late)
    say_flushed(flushed)
    if mode in ("wait", "term"):
        time.sleep(600)
    if mode == "outlive":
        client.close()


async def awaited(url: str, token: str, flushed: int, late: int, mode: str) -> None:
    async with AsyncLearnClient(url, token, retry=ONE_TRY, max_batch=1000) as client:
        if mode == "term":
            client.flush_on_signals()
        buffer = client.buffer(max_items=50, max_interval=3600)
        add(buffer, "flushed", flushed)
        await buffer.flush()
        add(buffer, "late", late)
        say_flushed(flushed)
        if mode in ("wait", "term"):
            await asyncio.sleep(600)
    # `outlive` (and `exit`): the client is closed here, with its buffer still open


if __name__ == "__main__":
    url, token, flushed, late, mode, kind = sys.argv[1:7]
    if kind == "async":
        asyncio.run(awaited(url, token, int(flushed), int(late), mode))
    else:
        blocking(url, token, int(flushed), int(late), mode)
