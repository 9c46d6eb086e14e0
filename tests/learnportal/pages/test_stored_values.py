"""No stored value breaks a page: every page and GET endpoint, as every role, renders whatever the
database holds, and answers hostile query parameters with a 400 or a form error, never a 500.

The rows are the demo's, then the worst the protocol takes, then aged as rows stored before
ingest bounded timestamps and names may be (written straight to the database): a feedback's
`ts` of 1e12, a component name with a newline and control characters, huge texts, JSON that
is no object. The URLs are the resolver's own, so that a new page is crawled too: a route
whose parameter no value below fills fails, asking for one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import pytest
from django.db import models
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from core.accounts.models import ApiToken, User
from core.projects.models import GuidelinesVersion, Project
from feedback.comparisons.models import Candidate, Comparison, Judgment
from feedback.exports import FORMATS
from feedback.import_staging import TOKEN_BYTES
from feedback.models import ComponentStats, Experience, Feedback, Turn
from learnportal_protocol.models import TIMESTAMP_MAX
from refinement.models import Plan, Proposal, Refinement, Step, StoreValue
from tests.builders import experience, experience_req, feedback, feedback_req, turn
from webhooks.models import Delivery, Endpoint

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.harness import Actor

pytestmark = pytest.mark.django_db

LEGACY_TS = 1e12  # year 33658: stored before timestamps were bounded at ingest
LEGACY_NAME = "two\nlines\t\x07<b>bold</b> \u202e"
HUGE_TEXT = "x" * 200_000
# Epoch seconds, wherever a model keeps them (and the hour buckets derived from them).
TIME_FIELDS = {
    "ts",
    "created",
    "updated",
    "received",
    "last_called",
    "created_at",
    "next_attempt_at",
    "last_attempt_at",
    "delivered_at",
    "expires",
}
AGED_APPS = ("feedback", "refinement", "webhooks")
HOSTILE_QUERY = {
    "since": "1e20",
    "until": "-1",
    "cursor": "cD1hYmM=",  # DRF's cursor form, whose position "abc" is no turn id
    "limit": "99999999999999999999",
    "page": "-1",
    "component": "a\x00b",
    "component_name": "\x00",
    "session": "\x00",
    "session_id": "\x00",
    "correlation_id": "\x00",
    "annotator": "\x00",
    "source": "robot",
    "polarity": "\x00",
    "dimension": "\n",
    "has_correction": "maybe",
    "unrated": "2",
    "open": "\x00",
    "status": "\x00",
    "before": "1_99999999999999999999",
    "after": "1e400_1",
    "a": "9" * 5000,
    "b": "-99999999999999999999",
    "sort": "\x00",
    "order": "\n",
    "step": "../x",
    "path": "\x00",
    "actor": "\x00",
    "kind": "\x00",
    "refinement": "\x00",
    "context": "{",
    "format": "\x00",
}


def _post(actor: Actor, body: dict[str, Any]) -> None:
    response = actor.learn(body)
    assert response.status_code == 200, response.content


def store_the_worst_legal_values(agent: Actor, env: Actor) -> None:
    """Through the protocol: the edges of every range it takes."""
    _post(
        env,
        feedback_req(
            feedback(source="env", ts=0.0, score=-1.0, confidence=0.0, component_name="edge"),
            feedback(source="env", ts=TIMESTAMP_MAX, score=1.0, confidence=1.0),
            feedback(
                source="env",
                ts=TIMESTAMP_MAX,
                polarity="corrective",
                correction=HUGE_TEXT,
                correction_span=[0, 3],
                comment=HUGE_TEXT,
                rated_turn=turn(model="edge", response="abc", environment={"n": 2**63 - 1}),
            ),
        ),
    )
    _post(
        agent,
        experience_req(
            experience(component="edge", ts=0.0, reward=-1e308, action={"duration_ms": 0.0}),
            experience(
                component="edge", ts=TIMESTAMP_MAX, reward=1e308, action={"duration_ms": 1e308}
            ),
            experience(component="edge", step=2**63 - 1, state={"deep": [[[[{"a": None}]]]]}),
        ),
    )


def _time_fields(model: type[models.Model]) -> list[str]:
    return [
        f.name
        for f in model._meta.concrete_fields
        if isinstance(f, models.FloatField) and f.name in TIME_FIELDS
    ]


def age_rows_as_legacy() -> None:
    """Straight to the database, as rows stored before the rules were: every other row of every
    model keeps its times at 1e12; names with control characters; texts no JSON reads."""
    from django.apps import apps

    for label in AGED_APPS:
        for model in apps.get_app_config(label).get_models():
            fields = _time_fields(model)
            pks = list(model._default_manager.order_by("pk").values_list("pk", flat=True)[::2])
            if fields and pks:
                model._default_manager.filter(pk__in=pks).update(**dict.fromkeys(fields, LEGACY_TS))
    stats = ComponentStats.objects.order_by("pk").first()
    assert stats is not None
    ComponentStats.objects.filter(pk=stats.pk).update(component_name=LEGACY_NAME)
    Feedback.objects.filter(component_name=stats.component_name).update(component_name=LEGACY_NAME)
    Experience.objects.filter(component_name=stats.component_name).update(
        component_name=LEGACY_NAME
    )
    first_turn = Turn.objects.order_by("pk").first()
    assert first_turn is not None
    Turn.objects.filter(pk=first_turn.pk).update(
        component_name=LEGACY_NAME,
        session_id=LEGACY_NAME,
        prompt=HUGE_TEXT,
        environment="{not json",
    )
    Feedback.objects.filter(pk=Feedback.objects.order_by("pk")[0].pk).update(
        rated_turn='{"prompt": 1}', comment=HUGE_TEXT
    )
    Experience.objects.filter(pk=Experience.objects.order_by("pk")[0].pk).update(
        state="[]", action="null"
    )
    candidate = Candidate.objects.order_by("pk").first()
    assert candidate is not None
    Candidate.objects.filter(pk=candidate.pk).update(
        component_name=LEGACY_NAME, model=LEGACY_NAME, response=HUGE_TEXT
    )
    Comparison.objects.filter(pk=candidate.comparison_id).update(prompt=HUGE_TEXT)
    judgments = list(Judgment.objects.order_by("pk").values_list("pk", flat=True)[:3])
    assert len(judgments) == 3
    Judgment.objects.filter(pk=judgments[0]).update(shown={"a": 1}, ranks="x")
    Judgment.objects.filter(pk=judgments[1]).update(shown=["no-such-candidate"], ranks=[0, 1])
    Judgment.objects.filter(pk=judgments[2]).update(rationale=HUGE_TEXT, preference=7)
    default = Project.objects.get(slug="default")
    Project.objects.filter(pk=default.pk).update(guidelines_ack_required=True)
    for version, questions in ((1, {"Bad Key\n": LEGACY_NAME}), (2, {"tone": HUGE_TEXT})):
        GuidelinesVersion.objects.create(
            project=default,
            version=version,
            guidelines=HUGE_TEXT if version == 2 else LEGACY_NAME,
            questions=questions if version == 1 else [1, 2],
            by=LEGACY_NAME,
            created=LEGACY_TS,
        )


def _values() -> dict[str, list[str]]:
    """What fills each URL parameter: the stored rows' own keys, the legacy ones among them."""
    users = list(User.objects.values_list("pk", flat=True))
    return {
        "pk": [str(pk) for pk in Turn.objects.values_list("pk", flat=True)[:3]],
        "comparison": [str(pk) for pk in Comparison.objects.values_list("pk", flat=True)[:3]],
        "plan_id": list(Plan.objects.values_list("plan_id", flat=True)[:3]),
        "proposal_id": list(Proposal.objects.values_list("proposal_id", flat=True)[:3]),
        "decision": ["approve", "reject"],
        "refinement_id": list(Refinement.objects.values_list("refinement_id", flat=True)[:3])
        or ["none"],
        "name": list(ComponentStats.objects.values_list("component_name", flat=True)),
        "path": list(StoreValue.objects.values_list("path", flat=True)[:5]),
        "step_id": list(Step.objects.values_list("step_id", flat=True)[:2]) or ["s1"],
        "person_id": [str(pk) for pk in users[:2]],
        "token_id": [str(pk) for pk in ApiToken.objects.values_list("pk", flat=True)[:2]],
        "endpoint_id": [str(pk) for pk in Endpoint.objects.values_list("pk", flat=True)[:1]]
        or ["1"],
        "delivery_id": [str(pk) for pk in Delivery.objects.values_list("pk", flat=True)[:1]]
        or ["1"],
        "kind": [*FORMATS, "answers", "comparisons"],
        "token": ["0" * 2 * TOKEN_BYTES, "not-an-upload"],  # an import's upload: none is kept
        "slug": list(Project.objects.values_list("slug", flat=True)[:2]),
        "username": list(User.objects.values_list("username", flat=True)[:2]),
        "uidb64": [urlsafe_base64_encode(force_bytes(pk)) for pk in users[:2]],
        "version": [str(v) for v in GuidelinesVersion.objects.values_list("version", flat=True)]
        or ["1"],
    }


PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")


def _routes(
    patterns: list[URLPattern | URLResolver], prefix: str = ""
) -> Iterator[tuple[str, str]]:
    """(route, its name) of every URL pattern, with its includes' prefixes; admin's left out
    (Django's own pages)."""
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                continue
            yield from _routes(entry.url_patterns, route)
        else:
            yield route, str(entry.name)


def urls() -> list[str]:
    """Every URL the resolver serves, each parameter filled with every value stored for it."""
    values = _values()
    found: list[str] = []
    for route, name in _routes(get_resolver().url_patterns):
        if route.startswith("^"):
            continue  # the catch-all JSON 404 of api/: no page of its own
        names = PARAMETER.findall(route)
        missing = [n for n in names if n not in values]
        assert not missing, f"{name} ({route}): give {missing} values in _values()"
        filled = [route]
        for n in names:
            filled = [
                re.sub(rf"<(?:\w+:)?{n}>", quote(v, safe="/").replace("\\", "\\\\"), url, count=1)
                for url in filled
                for v in values[n]
            ]
        found += ["/" + url for url in filled]
    return found


def _clients(agent: Actor) -> dict[str, Client]:
    people = {}
    for username in ("annotator", "reviewer", "admin"):
        client = Client(raise_request_exception=False)
        client.force_login(User.objects.get(username=username))
        people[username] = client
    agent.client.raise_request_exception = False  # a 500 is counted, not raised
    return {**people, "agent": agent.client, "anonymous": Client(raise_request_exception=False)}


def _answer(client: Client, url: str, query: dict[str, str]) -> tuple[int, str | None]:
    """The status of a GET, and what broke (a 500) if anything did."""
    response = client.get(url + ("?" + urlencode(query) if query else ""))
    if response.status_code >= 500:
        return response.status_code, f"{url} {sorted(query)[:3]}: {response.status_code}"
    if response.status_code == 200 and response.get("Content-Type", "").startswith("text/html"):
        response.content.decode()  # the whole page rendered
    return response.status_code, None


def test_every_page_and_endpoint_renders_the_worst_stored_values(
    seeded: None, agent: Actor, env: Actor
) -> None:
    store_the_worst_legal_values(agent, env)
    age_rows_as_legacy()
    pages = urls()
    assert any("%0A" in page for page in pages), "no legacy name was crawled"
    broken: list[str] = []
    clients = _clients(agent)
    refused: list[str] = []  # the pages whose answer the hostile parameters changed, as admin
    for role, client in clients.items():
        for url in pages:
            (plain, problem), (hostile, hostile_problem) = (
                _answer(client, url, query) for query in ({}, HOSTILE_QUERY)
            )
            broken += [f"{role}: {p}" for p in (problem, hostile_problem) if p]
            if role == "admin" and hostile != plain:
                refused.append(url)
    assert refused, "no page refused a hostile parameter"
    # Each hostile parameter alone too, as the admin, who may see every page: one refusal
    # must not hide another parameter's 500. Only where the parameters were refused: a page
    # that answered them as it answers none (the same 200, or the route's own 404 or 405)
    # refused none of them, so none was hidden behind another.
    for url in refused:
        for name, value in HOSTILE_QUERY.items():
            _, problem = _answer(clients["admin"], url, {name: value})
            if problem:
                broken.append(f"admin: {problem}")
    assert broken == []
    stats = agent.learn({"type": "learn/stats/req", "id": "after-the-worst"})
    assert stats.status_code == 200, stats.content
    legacy = clients["admin"].get(f"/components/{quote(LEGACY_NAME)}/")
    assert legacy.status_code == 200
    assert "two\nlines" in legacy.content.decode()
