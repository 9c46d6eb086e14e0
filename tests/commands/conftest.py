from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    # adduser and the demo logins hash passwords; a slow hasher would dominate the run time.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
