"""The suite's settings: the project's in development mode, so that a bare `pytest` works in a
fresh clone (no `.env`, no `make`), with a fast password hasher for the cast's logins."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from learnportal.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
