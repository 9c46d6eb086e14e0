"""`/api/projects/<slug>/guidelines/`: every principal of the project reads its guidelines and
their versions, its managers save new ones, a person acknowledges one; another project's slug
is not found, and a bad body is refused naming its field, changing nothing."""

from __future__ import annotations

from typing import Any

import pytest

from core.projects.models import GuidelinesAcknowledgement, GuidelinesVersion, Project
from core.projects.services import project_add
from tests.harness import Actor, human_actor, token_actor

pytestmark = pytest.mark.django_db

URL = "/api/projects/default/guidelines/"


@pytest.fixture
def lead(db: None) -> Actor:
    return human_actor("lead", "manager")


def put(actor: Actor, guidelines: str = "# Be kind", **questions: Any) -> Any:
    return actor.rest("put", URL, {"guidelines": guidelines, "questions": questions})


def test_a_project_without_guidelines_answers_version_0(ann: Actor) -> None:
    answer = ann.rest("get", URL)
    assert answer.status_code == 200
    assert answer.json() == {
        "version": 0,
        "by": "",
        "created": None,
        "guidelines": "",
        "questions": {},
        "ack_required": False,
        "acknowledged": 0,
        "due": None,
        "versions": [],
    }


def test_a_manager_saves_a_version_and_every_principal_of_the_project_reads_it(
    lead: Actor, ann: Actor, agent: Actor
) -> None:
    saved = put(lead, tone="Warm, never curt.")
    assert saved.status_code == 200, saved.content
    assert saved.json()["version"] == 1
    assert saved.json()["acknowledged"] == 1  # its author has read it
    for reader in (ann, agent):
        body = reader.rest("get", URL).json()
        assert (body["version"], body["guidelines"], body["questions"]) == (
            1,
            "# Be kind",
            {"tone": "Warm, never curt."},
        )
        assert [v["version"] for v in body["versions"]] == [1]
        assert body["versions"][0]["by"] == "lead"
    assert lead.rest("get", "/api/projects/default/").json()["guidelines"] == "# Be kind"


def test_the_same_texts_again_make_no_new_version(lead: Actor) -> None:
    put(lead, tone="Warm.")
    assert put(lead, tone="Warm.").json()["version"] == 1
    assert put(lead, tone="Cold.").json()["version"] == 2
    assert [v["version"] for v in lead.rest("get", URL).json()["versions"]] == [2, 1]


def test_each_version_is_read_by_its_number(lead: Actor, ann: Actor) -> None:
    put(lead, "first")
    put(lead, "second")
    one = ann.rest("get", f"{URL}1/")
    assert one.status_code == 200
    assert (one.json()["version"], one.json()["guidelines"]) == (1, "first")
    for missing in ("3", "0", "99999999999999999999"):
        refused = ann.rest("get", f"{URL}{missing}/")
        assert refused.status_code == 404, missing
        assert refused.json()["details"][0]["loc"] == ["version"]


def test_only_managers_and_site_admins_save_them(ann: Actor, rev: Actor, boss: Actor) -> None:
    for refused in (ann, rev, token_actor("bot", "agent")):
        assert put(refused).status_code == 403
    assert not GuidelinesVersion.objects.exists()
    assert put(boss).status_code == 200


@pytest.mark.parametrize(
    ("body", "place"),
    [
        ({"guidelines": 3}, ["guidelines"]),
        ({"guidelines": "x" * 100_001}, ["guidelines"]),
        ({"questions": {"Bad Key": "x"}}, ["questions", "Bad Key", "[key]"]),
        ({"questions": {"tone": "x" * 10_001}}, ["questions", "tone"]),
        ({"questions": ["tone"]}, ["questions"]),
        ({"extra": 1}, ["extra"]),
    ],
)
def test_a_bad_body_is_refused_naming_its_field_and_changes_nothing(
    lead: Actor, body: dict[str, Any], place: list[Any]
) -> None:
    put(lead, "kept")
    refused = lead.rest("put", URL, body)
    assert refused.status_code == 400, refused.content
    assert refused.json()["code"] == "invalid"
    assert place in [d["loc"] for d in refused.json()["details"]]
    assert GuidelinesVersion.objects.count() == 1
    assert Project.objects.get(slug="default").guidelines == "kept"


def test_another_projects_guidelines_are_not_found_as_one_that_does_not_exist(
    ann: Actor, lead: Actor
) -> None:
    project_add(slug="alpha", name="Alpha")
    alpha_lead = human_actor("alpha-lead", "manager", project="alpha")
    alpha_lead.rest("put", "/api/projects/alpha/guidelines/", {"guidelines": "secret"})
    for url in (
        "/api/projects/alpha/guidelines/",
        "/api/projects/alpha/guidelines/1/",
        "/api/projects/nowhere/guidelines/",
    ):
        refused = ann.rest("get", url)
        assert refused.status_code == 404
        assert refused.json()["code"] == "not_found"
        assert b"secret" not in refused.content
    assert (
        lead.rest("put", "/api/projects/alpha/guidelines/", {"guidelines": "x"}).status_code == 404
    )
    acked = ann.rest("post", "/api/projects/alpha/guidelines/acknowledge/", {"version": 1})
    assert acked.status_code == 404
    assert Project.objects.get(slug="alpha").guidelines == "secret"


def test_a_person_acknowledges_a_version_that_exists(lead: Actor, ann: Actor) -> None:
    put(lead)
    url = f"{URL}acknowledge/"
    missing = ann.rest("post", url, {"version": 2})
    assert missing.status_code == 404
    assert missing.json()["details"][0]["loc"] == ["version"]
    assert ann.rest("post", url, {}).status_code == 400
    assert ann.rest("post", url, {"version": 0}).json()["details"][0]["loc"] == ["version"]
    assert ann.rest("post", url, {"version": 1}).json() == {"version": 1, "due": None}
    assert ann.rest("post", url, {"version": 1}).status_code == 200  # once is enough, twice is fine
    assert GuidelinesAcknowledgement.objects.filter(version=1).count() == 2  # lead's and ann's
    assert ann.rest("get", URL).json()["acknowledged"] == 1
    assert token_actor("bot", "agent").rest("post", url, {"version": 1}).status_code == 403


def test_the_setting_is_in_the_projects_settings(lead: Actor, ann: Actor) -> None:
    changed = lead.rest("patch", "/api/projects/default/", {"guidelines_ack_required": True})
    assert changed.status_code == 200
    assert changed.json()["guidelines_ack_required"] is True
    put(lead)
    assert ann.rest("get", URL).json()["due"] == 1
    assert ann.rest("get", URL).json()["ack_required"] is True
    bad = lead.rest("patch", "/api/projects/default/", {"guidelines_ack_required": "yes"})
    assert bad.status_code == 400
    assert bad.json()["details"][0]["loc"] == ["guidelines_ack_required"]


def test_new_guidelines_over_patch_are_a_new_version(lead: Actor) -> None:
    put(lead, "old", tone="Warm.")
    lead.rest("patch", "/api/projects/default/", {"guidelines": "new"})
    body = lead.rest("get", URL).json()
    assert (body["version"], body["guidelines"], body["questions"]) == (2, "new", {"tone": "Warm."})
