"""A webhook receiver on 127.0.0.1 for tests: it records what arrives and answers as told.

Run in a thread by the `receiver` fixture, or as a process (`python -m ...receiver PORT LOG
DELAY`) by the crash test: it appends each request's webhook-id to LOG.arrived when it
arrives, and the request as a JSON line to LOG once answered.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: str


@dataclass
class Receiver:
    url: str
    server: ThreadingHTTPServer
    received: list[Received] = field(default_factory=list)
    status: int = 200
    location: str = ""
    delay: float = 0.0
    log: str = ""
    arrived_at: list[float] = field(default_factory=list)  # time.monotonic() of each arrival
    answering: int = 0
    most_at_once: int = 0  # the most requests it was answering at one time
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ids(self) -> list[str]:
        return [r.headers["webhook-id"] for r in self.received]


def serve(port: int = 0, *, log: str = "", delay: float = 0.0) -> Receiver:
    holder: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            me = holder["me"]
            body = self.rfile.read(int(self.headers.get("content-length", "0"))).decode()
            got = Received({k.lower(): v for k, v in self.headers.items()}, body)
            with me.lock:
                me.arrived_at.append(time.monotonic())
                me.answering += 1
                me.most_at_once = max(me.most_at_once, me.answering)
            if me.log:  # on arrival, before the delay: the crash test kills the sender then
                with open(me.log + ".arrived", "a") as out:
                    out.write(got.headers["webhook-id"] + "\n")
            if me.delay:
                time.sleep(me.delay)
            with me.lock:
                me.answering -= 1
            me.received.append(got)
            if me.log:
                with open(me.log, "a") as out:
                    out.write(json.dumps({"headers": got.headers, "body": got.body}) + "\n")
            self.send_response(me.status)
            if me.location:
                self.send_header("location", me.location)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    me = Receiver(f"http://127.0.0.1:{server.server_address[1]}/hook", server, delay=delay, log=log)
    holder["me"] = me
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return me


if __name__ == "__main__":
    port, log, delay = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    print(serve(port, log=log, delay=delay).url, flush=True)
    while True:
        time.sleep(3600)
