"""Identifiers and timestamps the spec (docs/learning-capability-spec.txt) fills in when a client leaves them out."""

from __future__ import annotations

import threading
import time
import uuid

_lock = threading.Lock()
_last_ns = 0


def new_message_id() -> str:
    return str(uuid.uuid4())


def now() -> float:
    return time.time()


def new_feedback_id() -> str:
    """`b_{ns}`, strictly increasing so that two feedbacks made in one nanosecond still differ."""
    global _last_ns
    with _lock:
        _last_ns = max(time.time_ns(), _last_ns + 1)
        return f"b_{_last_ns}"


def new_experience_id() -> str:
    return str(uuid.uuid4())
