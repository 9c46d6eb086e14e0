"""An agent process for the buffer's crash tests (tests/client/test_buffer.py), run by path.

`buffering_agent.py URL TOKEN FLUSHED LATE MODE`: buffers FLUSHED experiences, calls flush(),
buffers LATE more, prints `flushed` and the modules it imported, then, with MODE `wait`, waits
to be killed; with MODE `exit`, ends without closing the buffer (atexit closes it).
"""

from __future__ import annotations

import json
import sys
import time

from learnportal_client import LearnClient, Retry


def main(url: str, token: str, flushed: int, late: int, mode: str) -> None:
    client = LearnClient(url, token, retry=Retry(attempts=1), max_batch=1000)
    buffer = client.buffer(max_items=50, max_interval=3600)
    for i in range(flushed):
        buffer.add_experience({"experience_id": f"flushed-{i}", "reward": 1.0})
    buffer.flush()
    for i in range(late):
        buffer.add_experience({"experience_id": f"late-{i}", "reward": 1.0})
    server_side = sorted(m for m in sys.modules if m.split(".")[0] in {"django", "rest_framework"})
    print(json.dumps({"flushed": flushed, "server_modules": server_side}), flush=True)
    if mode == "wait":
        time.sleep(600)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
