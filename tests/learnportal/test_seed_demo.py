"""seed_demo loads something to look at and is safe to run twice."""

from __future__ import annotations

import io
import time
from typing import Any

from django.core.management import call_command
from django.http import HttpRequest
from django.test import Client

from core.accounts.models import ApiToken, User
from feedback.models import ComponentStats, Experience, ExperienceQuota, Feedback, Turn
from learnportal import demo

MODELS = (User, ApiToken, Turn, Feedback, Experience, ExperienceQuota, ComponentStats)


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


def stats() -> list[dict[str, Any]]:
    return [row.as_record() for row in ComponentStats.objects.order_by("component_name")]


def seed(*args: str) -> str:
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_loads_people_turns_and_components_with_calls(db: None) -> None:
    seed()
    assert Turn.objects.exists()
    assert {u.username for u in User.objects.all()} >= {name for name, _ in demo.DEMO_USERS}
    records = stats()
    assert records and all(r["calls_total"] > 0 for r in records)
    assert Client().login(request=HttpRequest(), username="annotator", password=demo.DEMO_PASSWORD)


def test_a_fresh_demos_components_were_called_minutes_ago(db: None) -> None:
    before = time.time()
    seed()
    last_calls = [r["last_called"] for r in stats()]
    assert last_calls and all(before - 3600 < last <= time.time() for last in last_calls)


def test_a_second_seed_later_sends_the_same_records(db: None) -> None:
    demo.seed_demo(now=2_000_000_000.0)
    first = counts(), stats()
    demo.seed_demo(now=2_000_086_400.0)
    assert (counts(), stats()) == first


def test_seed_demo_twice_is_safe(db: None) -> None:
    seed()
    first_counts, first_stats = counts(), stats()
    seed()
    assert counts() == first_counts
    assert stats() == first_stats


def test_seed_demo_if_empty_does_nothing_when_there_are_turns(db: None) -> None:
    seed()
    before = counts()
    seed("--if-empty")
    assert counts() == before


def test_seed_demo_logins_prints_the_demo_logins_and_writes_nothing(db: None) -> None:
    output = seed("--logins")
    for username, _ in demo.DEMO_USERS:
        assert username in output
    assert demo.DEMO_PASSWORD in output
    assert counts() == dict.fromkeys(counts(), 0)


def test_the_demos_reviewer_sees_agreement_and_a_disagreement_the_annotator_cannot(
    db: None,
) -> None:
    seed()
    reviewer, annotator = Client(), Client()
    reviewer.force_login(User.objects.get(username="reviewer"))
    annotator.force_login(User.objects.get(username="annotator"))
    page = reviewer.get("/agreement/").content.decode()
    assert "No turn has scores from two people yet" not in page
    assert page.count("not enough data") == 2  # safety, correctness and helpfulness have alpha
    safety = page[page.index('data-dimension="safety"') :]
    assert "reading-reliable" in safety[: safety.index("</tr>")]
    listed = page[page.index('id="disagreements-title"') :]
    assert listed.index(">demo-rated-4</a>") < listed.index(">demo-rated-5</a>")
    # Blind: the annotator has not rated them, so the colleagues' scores stay hidden.
    rated_by_others = Turn.objects.get(correlation_id="demo-rated-4")
    seen = annotator.get(f"/turns/{rated_by_others.pk}/").content.decode()
    assert "Other ratings of this turn stay hidden" in seen
    assert "-0.80" not in seen and "-0.90" not in seen
    # The queue offers only the demo's own turns: the colleagues' are rated enough.
    queued = annotator.post("/api/queue/next/", content_type="application/json").json()
    assert queued["turn"]["correlation_id"].startswith("demo-turn-")
