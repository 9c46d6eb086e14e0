from __future__ import annotations

import pytest
from django.test import Client

from learnportal import demo

pytestmark = pytest.mark.django_db


def test_overview_sends_anonymous_visitors_to_log_in() -> None:
    response = Client().get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_demo_login_reaches_the_overview_with_components_and_history() -> None:
    demo.seed_demo()
    client = Client()
    response = client.post("/login/", {"username": "reviewer", "password": demo.DEMO_PASSWORD})
    assert response.status_code == 302
    page = client.get("/").content.decode()
    assert "code_review" in page
    assert "turns waiting for a rating" in page


def test_wrong_password_says_so_and_does_not_log_in() -> None:
    demo.seed_demo()
    client = Client()
    response = client.post("/login/", {"username": "reviewer", "password": "nope"})
    assert "do not match" in response.content.decode()
    assert client.get("/").status_code == 302
