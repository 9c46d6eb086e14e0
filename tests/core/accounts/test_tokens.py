"""createtoken, revoketoken and adduser: credentials an operator hands out."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.core.management import CommandError, call_command
from django.http import HttpRequest
from django.test import Client
from rest_framework.test import APIClient

from core.accounts.models import ApiToken, User
from feedback.models import Experience, Feedback

if TYPE_CHECKING:
    from tests.harness import APIClientResponse


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def bearer(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def learn(client: APIClient, body: dict[str, Any]) -> APIClientResponse:
    return client.post("/api/learn/", data=orjson.dumps(body), content_type="application/json")


STATS = {"type": "learn/stats/req"}


def feedback_body(**fields: object) -> dict[str, Any]:
    return {"type": "learn/feedback/req", "feedbacks": [{"polarity": "positive", **fields}]}


def experience_body() -> dict[str, Any]:
    return {"type": "learn/experience/req", "experiences": [{"reward": 1.0}]}


def test_createtoken_prints_only_the_raw_token_and_it_authenticates(db: None) -> None:
    output = run("createtoken", "runner-1", "--role", "agent")
    raw = output.strip()
    assert output == raw + "\n"
    assert re.fullmatch(r"lp_[A-Za-z0-9_-]{20,}", raw)
    response = learn(bearer(raw), STATS)
    assert response.status_code == 200
    assert response.json()["type"] == "learn/stats/resp"


def test_createtoken_stores_only_a_hash_of_the_token(db: None) -> None:
    raw = run("createtoken", "runner-1", "--role", "agent").strip()
    token = ApiToken.objects.get(name="runner-1")
    assert raw not in {token.key_hash, token.hint}
    assert not ApiToken.objects.filter(key_hash=raw).exists()


def test_an_agent_token_acts_as_an_agent(db: None) -> None:
    client = bearer(run("createtoken", "runner-1", "--role", "agent").strip())
    assert learn(client, feedback_body(source="env")).status_code == 403
    assert learn(client, experience_body()).status_code == 200
    assert learn(client, feedback_body(feedback_id="fb-1")).status_code == 200
    assert Feedback.objects.get(feedback_id="fb-1").source == "self"


def test_an_environment_token_may_send_env_feedback(db: None) -> None:
    client = bearer(run("createtoken", "gym", "--role", "environment").strip())
    response = learn(client, feedback_body(feedback_id="fb-env", source="env"))
    assert response.status_code == 200
    assert Feedback.objects.get(feedback_id="fb-env").source == "env"


def test_createtoken_user_acts_as_that_person_with_their_role(db: None) -> None:
    run("adduser", "carol", "--role", "annotator", "--password", "s3cret-pass")
    raw = run("createtoken", "carol", "--user").strip()
    assert re.fullmatch(r"lp_[A-Za-z0-9_-]{20,}", raw)
    client = bearer(raw)
    response = learn(client, feedback_body(feedback_id="fb-carol"))
    assert response.status_code == 200
    row = Feedback.objects.get(feedback_id="fb-carol")
    assert (row.annotator_id, row.source) == ("carol", "human")
    assert learn(client, experience_body()).status_code == 403
    assert learn(client, feedback_body(annotator_id="dave")).status_code == 403
    assert Experience.objects.count() == 0


def test_createtoken_user_of_an_admin_may_store_experiences(db: None) -> None:
    run("adduser", "root", "--role", "admin", "--password", "s3cret-pass")
    client = bearer(run("createtoken", "root", "--user").strip())
    assert learn(client, experience_body()).status_code == 200


def test_createtoken_user_needs_an_existing_person(db: None) -> None:
    with pytest.raises(CommandError):
        run("createtoken", "nobody", "--user")
    assert ApiToken.objects.count() == 0


def test_createtoken_refuses_a_duplicate_name(db: None) -> None:
    first = run("createtoken", "runner-1", "--role", "agent").strip()
    with pytest.raises(CommandError, match="exists"):
        run("createtoken", "runner-1", "--role", "environment")
    assert ApiToken.objects.filter(name="runner-1").count() == 1
    assert learn(bearer(first), STATS).status_code == 200


@pytest.mark.parametrize(
    "args",
    [("runner",), ("runner", "--role", "annotator"), ("runner", "--role", "agent", "--user")],
)
def test_createtoken_needs_exactly_one_machine_role_or_user(
    db: None, args: tuple[Any, ...]
) -> None:
    with pytest.raises(CommandError):
        run("createtoken", *args)
    assert ApiToken.objects.count() == 0


def test_revoketoken_makes_the_token_stop_working(db: None) -> None:
    raw = run("createtoken", "runner-1", "--role", "agent").strip()
    client = bearer(raw)
    assert learn(client, STATS).status_code == 200
    run("revoketoken", "runner-1")
    response = learn(client, STATS)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_revoketoken_leaves_other_tokens_working(db: None) -> None:
    run("createtoken", "runner-1", "--role", "agent")
    other = run("createtoken", "runner-2", "--role", "agent").strip()
    run("revoketoken", "runner-1")
    assert learn(bearer(other), STATS).status_code == 200


def test_revoketoken_of_an_unknown_token_errors(db: None) -> None:
    with pytest.raises(CommandError):
        run("revoketoken", "ghost")


@pytest.mark.parametrize("role", ["annotator", "reviewer", "admin"])
def test_adduser_creates_a_person_with_a_role_who_can_log_in(db: None, role: str) -> None:
    run("adduser", "erin", "--role", role, "--password", "long-enough-1")
    user = User.objects.get(username="erin")
    assert user.is_superuser is (role == "admin")
    assert user.effective_role.value == role
    client = Client()
    assert client.login(request=HttpRequest(), username="erin", password="long-enough-1")
    assert not Client().login(request=HttpRequest(), username="erin", password="wrong-password")
    assert client.get("/api/learn/").status_code == 200


def test_adduser_refuses_a_duplicate_name(db: None) -> None:
    run("adduser", "erin", "--role", "annotator", "--password", "long-enough-1")
    with pytest.raises(CommandError, match="exists"):
        run("adduser", "erin", "--role", "admin", "--password", "other-pass-2")
    assert User.objects.get(username="erin").effective_role == "annotator"


def test_adduser_refuses_a_machine_role(db: None) -> None:
    with pytest.raises(CommandError):
        run("adduser", "bot", "--role", "agent", "--password", "long-enough-1")
    assert not User.objects.filter(username="bot").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["x" * 151, "two\nlines", ""])
def test_createtoken_refuses_a_name_no_column_can_keep(name: str) -> None:
    with pytest.raises(CommandError, match="1 to 150 characters"):
        run("createtoken", name, "--role", "agent")
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "password", "message"),
    [
        ("x" * 151, "a long one", "at most 150 characters"),
        ("bad name!", "a long one", "Enter a valid username"),
        ("carol", "short", "too short"),
    ],
)
def test_adduser_refuses_what_the_account_rules_refuse(
    name: str, password: str, message: str
) -> None:
    with pytest.raises(CommandError, match=message):
        run("adduser", name, "--role", "annotator", "--password", password)
    assert not User.objects.exists()
