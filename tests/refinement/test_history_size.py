"""No amplification through the learning store (issue 20, item 1, with a token): a skill file has
a size limit and a risk that grows with its size, and a history reply is bounded in bytes, its
rest a cursor away."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from refinement.models import HistoryEntry, StoreValue
from refinement.review import SKILL_FILE_HIGH_BYTES, SKILL_FILE_MEDIUM_BYTES
from tests.builders import apply_req, file_proposal, history_req, review_req
from tests.harness import Actor, Send, ok, refused

REFERENCE = "learnings/_global/references/{}.md"


def test_a_skill_file_over_the_limit_is_invalid_naming_its_new_value(
    transport: Send, agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_SKILL_FILE_MAX_BYTES = 2048
    big = file_proposal(REFERENCE.format("big"), None, "é" * 1025)  # 2050 bytes of UTF-8
    for request in (review_req(big), apply_req(big)):
        body = refused(transport(agent, request), 400, "invalid")
        assert [d["loc"] for d in body["details"]] == [["proposal", "new_value"]]
        assert "at most 2048 bytes" in body["details"][0]["msg"]
    assert not StoreValue.objects.filter(path=REFERENCE.format("big")).exists()
    assert ok(transport(agent, review_req(file_proposal(REFERENCE.format("ok"), None, "é" * 1024))))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("size", "risk"),
    [
        (SKILL_FILE_MEDIUM_BYTES, "low"),
        (SKILL_FILE_MEDIUM_BYTES + 1, "medium"),
        (SKILL_FILE_HIGH_BYTES + 1, "high"),
    ],
)
def test_a_skill_files_review_risk_grows_with_its_size(agent: Actor, size: int, risk: str) -> None:
    proposal = file_proposal(REFERENCE.format("notes"), None, "x" * size)
    reply = agent.learn(review_req(proposal)).json()
    assert reply["risk_level"] == risk, reply


def test_a_large_file_a_machine_would_apply_alone_waits_for_a_person(agent: Actor) -> None:
    proposal = file_proposal(REFERENCE.format("notes"), None, "x" * (SKILL_FILE_MEDIUM_BYTES + 1))
    reply = agent.learn(apply_req(proposal)).json()
    assert reply["applied_edits"] == 0 and "approval" in reply["error"]


def history(actor: Actor, **fields: Any) -> dict[str, Any]:
    response = actor.learn({**history_req(), **fields})
    assert response.status_code == 200, response.json()
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.django_db
def test_a_history_reply_stays_within_its_byte_budget_and_pages_on_to_every_entry(
    boss: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_HISTORY_REPLY_BYTES = 64 * 1024
    for n in range(6):  # the admin's applies are the human approval, whatever their risk
        text = f"{n} " + "x" * 30_000
        assert (
            boss.learn(apply_req(file_proposal(REFERENCE.format(n), None, text))).status_code == 200
        )
    seen: list[dict[str, Any]] = []
    cursor = ""
    while True:
        body = history(rev, **({"cursor": cursor} if cursor else {}))
        entries = body["entries"]
        assert entries
        assert len(entries) == 1 or len(orjson.dumps(entries)) <= 64 * 1024
        seen.extend(entries)
        if body["next_cursor"] is None:
            break
        cursor = body["next_cursor"]
    assert len(seen) == HistoryEntry.objects.count() == 6
    assert [e["ts"] for e in seen] == sorted((e["ts"] for e in seen), reverse=True)


@pytest.mark.django_db
def test_a_history_request_may_ask_for_fewer_entries(boss: Actor, rev: Actor) -> None:
    for n in range(3):
        assert (
            boss.learn(apply_req(file_proposal(REFERENCE.format(n), None, "x"))).status_code == 200
        )
    first = history(rev, limit=1)
    assert len(first["entries"]) == 1 and first["next_cursor"]
    second = history(rev, limit=1, cursor=first["next_cursor"])
    assert second["entries"] != first["entries"]
    everything = history(rev)
    assert everything["entries"][:2] == first["entries"] + second["entries"]
    assert everything["next_cursor"] is None


def test_a_bad_history_cursor_or_limit_is_invalid_naming_it(transport: Send, rev: Actor) -> None:
    for fields, loc in (({"cursor": "yesterday"}, ["cursor"]), ({"limit": 0}, ["limit"])):
        body = refused(transport(rev, {**history_req(), **fields}), 400, "invalid")
        assert body["details"][0]["loc"] == loc
