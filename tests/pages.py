"""The demo cast, logged in: `annotator`, `reviewer` and `admin` clients on the seeded demo.

Fixtures for the page tests of every app: each pages folder's conftest.py imports them.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from learnportal import demo
from learnportal.accounts.models import User


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    # The demo cast is created for every test; the real hasher would dominate the run.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def seeded(db: None) -> None:
    demo.seed_demo()


def _client_for(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def annotator(seeded: None) -> Client:
    return _client_for("annotator")


@pytest.fixture
def reviewer(seeded: None) -> Client:
    return _client_for("reviewer")


@pytest.fixture
def second_reviewer(seeded: None) -> Client:
    User.objects.create_user(username="rev2", password="x-correct-horse", role="reviewer")
    return _client_for("rev2")
