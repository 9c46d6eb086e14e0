"""The suite's settings: the project's in development mode, so that a bare `pytest` works in a
fresh clone (no `.env`, no `make`), with a fast password hasher for the cast's logins."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("DJANGO_DEBUG", "1")


def _redis_url_of_this_process(url: str, worker: str) -> str:
    """`make test` runs the suite in several processes (pytest-xdist: gw0, gw1, ...): each gets
    a Redis database of its own, the next after REDIS_URL's, so that their caches and live
    events (named by the database number) never meet."""
    parts = urlsplit(url)
    db = int(parts.path.strip("/") or "0") + int(worker.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{db % 16}"))


if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["REDIS_URL"] = _redis_url_of_this_process(
        os.environ["REDIS_URL"], os.environ["PYTEST_XDIST_WORKER"]
    )

from learnportal.settings import *  # noqa: E402, F403  (after REDIS_URL is settled)

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
