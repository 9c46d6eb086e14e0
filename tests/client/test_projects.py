"""A team's side through the client, as a person with their own token: the projects they are
in, a project's members and rubric, and a rating on that rubric; each refusal a LearnError."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import httpx
import pytest

import core.projects.answers
import feedback.answers
from core.projects.services import project_add
from feedback.models import Rating
from learnportal_client import (
    AsyncLearnClient,
    ConflictError,
    ForbiddenError,
    InvalidError,
    Invitation,
    LearnClient,
    Member,
    MemberList,
    NotFoundError,
    Project,
    ProjectList,
    RatingCreated,
    Rubric,
)
from tests.builders import turn
from tests.client.conftest import person_token
from tests.factories import ApiTokenFactory, UserFactory

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pydantic import BaseModel

    from tests.client.conftest import Portal

QUESTIONS: list[dict[str, Any]] = [
    {"kind": "boolean", "key": "solved", "label": "Solved", "required": True},
    {"kind": "text", "key": "why", "label": "Why"},
]


@pytest.mark.parametrize(
    ("mine", "hosts"),
    [
        (Project, core.projects.answers.ProjectAnswer),
        (ProjectList, core.projects.answers.ProjectList),
        (Member, core.projects.answers.MemberAnswer),
        (MemberList, core.projects.answers.MemberList),
        (Invitation, core.projects.answers.InvitationAnswer),
        (Rubric, feedback.answers.RubricAnswer),
        (RatingCreated, feedback.answers.RatingCreated),
    ],
)
def test_the_clients_team_answers_read_only_fields_the_host_answers(
    mine: type[BaseModel], hosts: type[BaseModel]
) -> None:
    assert set(mine.model_fields) <= set(hosts.model_fields)


def person_client(portal: Portal, name: str, role: str) -> LearnClient:
    return LearnClient(portal.url, person_token(name, role, project="beta"))


@pytest.fixture
def beta(portal: Portal) -> None:
    project_add(slug="beta", name="Beta")


@pytest.fixture
def lead(portal: Portal, beta: None) -> Iterator[LearnClient]:
    with person_client(portal, "lead", "manager") as client:
        yield client


@pytest.fixture
def aria(portal: Portal, beta: None) -> Iterator[LearnClient]:
    with person_client(portal, "aria", "annotator") as client:
        yield client


def queued_in_beta(portal: Portal, name: str) -> None:
    """A turn `name` queued by beta's agent."""
    beta_agent = ApiTokenFactory.create(name="beta-agent", role="agent", project="beta").raw
    with LearnClient(portal.url, beta_agent) as agent:
        agent.submit_turns([{"correlation_id": name, "rated_turn": turn()}])


def test_a_manager_writes_the_rubric_and_an_annotator_rates_on_it(
    portal: Portal, lead: LearnClient, aria: LearnClient
) -> None:
    assert [p.slug for p in aria.projects().results] == ["beta"]
    assert aria.rubric("beta").version == 1
    written = lead.rubric_replace("beta", QUESTIONS, preference="solved")
    assert (written.version, written.preference) == (2, "solved")
    assert [q["key"] for q in aria.rubric("beta").questions] == ["solved", "why"]
    queued_in_beta(portal, "t-1")
    rated = aria.rate("t-1", {"solved": True, "why": "it ran"}, correction="Better.")
    assert rated.rubric_version == 2
    stored = Rating.objects.get(rating_id=rated.rating_id)
    assert (stored.answers, stored.correction) == ({"solved": True, "why": "it ran"}, "Better.")


def test_an_annotator_rates_one_tool_step_of_a_turn(
    portal: Portal, lead: LearnClient, aria: LearnClient
) -> None:
    tool_ok = {"kind": "boolean", "key": "tool_ok", "label": "Tool OK", "step_kinds": ["tool"]}
    lead.rubric_replace("beta", [*QUESTIONS, tool_ok])
    beta_agent = ApiTokenFactory.create(name="beta-agent", role="agent", project="beta").raw
    step = {"step_id": "s1", "name": "search", "kind": "tool", "output": "found"}
    with LearnClient(portal.url, beta_agent) as agent:
        agent.submit_turns([{"correlation_id": "t-1", "rated_turn": turn(), "steps": [step]}])
    rated = aria.rate("t-1", {"tool_ok": False}, step_id="s1")
    assert Rating.objects.get(rating_id=rated.rating_id).step_id == "s1"
    with pytest.raises(InvalidError) as refused:
        aria.rate("t-1", {"tool_ok": False}, step_id="s2")
    assert refused.value.details[0]["loc"] == ["step_id"]


def test_a_manager_sets_and_ends_a_membership(lead: LearnClient, aria: LearnClient) -> None:
    UserFactory.create(username="rene", role="reviewer")
    assert lead.member_set("beta", "rene", "reviewer").role == "reviewer"
    listed = {m.username: m.role for m in lead.members("beta").results}
    assert listed == {"aria": "annotator", "lead": "manager", "rene": "reviewer"}
    lead.member_remove("beta", "rene")
    assert "rene" not in {m.username for m in lead.members("beta").results}
    with pytest.raises(NotFoundError):
        lead.member_remove("beta", "rene")


def test_a_manager_invites_a_new_person_and_the_link_lets_them_in(
    portal: Portal, lead: LearnClient, aria: LearnClient
) -> None:
    invited = lead.invite("beta", "ines", "reviewer")
    assert (invited.username, invited.role, invited.invited) == ("ines", "reviewer", True)
    assert invited.url.startswith(portal.url + "/welcome/")
    assert invited.expires > time.time()
    assert {m.username: m.invited for m in lead.members("beta").results}["ines"] is True
    with httpx.Client(base_url=portal.url, follow_redirects=True) as browser:
        form = browser.get(invited.url)
        token = form.text.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
        password = "ines-chooses-this-1"
        sent = browser.post(
            str(form.url),
            data={
                "csrfmiddlewaretoken": token,
                "new_password1": password,
                "new_password2": password,
            },
            headers={"Referer": str(form.url)},
        )
    assert sent.status_code == 200 and sent.url.path == "/"
    assert {m.username: m.invited for m in lead.members("beta").results}["ines"] is False
    with pytest.raises(ConflictError) as taken:
        lead.invite("beta", "aria", "annotator")
    assert [d["loc"] for d in taken.value.details] == [["username"]]
    with pytest.raises(ForbiddenError):
        aria.invite("beta", "ivo", "annotator")


def test_the_teams_refusals_are_learn_errors(
    client: LearnClient, lead: LearnClient, aria: LearnClient
) -> None:
    with pytest.raises(ForbiddenError):
        client.rate("t-1", {"correctness": 0.5})  # an agent's token
    with pytest.raises(ForbiddenError):
        aria.rubric_replace("beta", QUESTIONS)
    with pytest.raises(ForbiddenError):
        aria.members("beta")
    with pytest.raises(NotFoundError):
        aria.rubric("default")
    with pytest.raises(InvalidError) as refused:
        lead.rubric_replace("beta", QUESTIONS, preference="why")
    assert [d["loc"] for d in refused.value.details] == [["preference"]]
    with pytest.raises(NotFoundError):
        aria.rate("no-such-turn", {"solved": True})
    assert Rating.objects.count() == 0


def test_a_question_with_answers_is_not_removed(
    portal: Portal, lead: LearnClient, aria: LearnClient
) -> None:
    lead.rubric_replace("beta", QUESTIONS)
    queued_in_beta(portal, "t-1")
    aria.rate("t-1", {"solved": False})
    with pytest.raises(ConflictError):
        lead.rubric_replace("beta", QUESTIONS[1:])
    assert lead.rubric("beta").version == 2


def test_a_manager_changes_the_queue_settings_and_others_may_not(
    lead: LearnClient, aria: LearnClient
) -> None:
    changed = lead.project_update("beta", priority_negative=0, priority_unsure=5, blind=False)
    assert (changed.priority_negative, changed.priority_unsure, changed.blind) == (0, 5, False)
    assert aria.project("beta").priority_unsure == 5
    with pytest.raises(InvalidError) as refused:
        lead.project_update("beta", priority_unsure=10)
    assert [d["loc"] for d in refused.value.details] == [["priority_unsure"]]
    with pytest.raises(ForbiddenError):
        aria.project_update("beta", priority_unsure=1)
    assert lead.project("beta").priority_unsure == 5


def test_a_rating_given_on_an_older_rubric_version_is_a_conflict(
    portal: Portal, lead: LearnClient, aria: LearnClient
) -> None:
    lead.rubric_replace("beta", QUESTIONS)
    queued_in_beta(portal, "t-1")
    drawn = aria.rubric("beta").version
    lead.rubric_replace("beta", [*QUESTIONS, {"kind": "text", "key": "more", "label": "More"}])
    with pytest.raises(ConflictError) as refused:
        aria.rate("t-1", {"solved": True}, rubric_version=drawn)
    assert [d["loc"] for d in refused.value.details] == [["rubric_version"]]
    assert Rating.objects.count() == 0
    assert aria.rate("t-1", {"solved": True}, rubric_version=drawn + 1).rubric_version == drawn + 1


@pytest.fixture
def asa(portal: Portal, lead: LearnClient) -> str:
    lead.rubric_replace("beta", QUESTIONS)
    user = UserFactory.create(username="asa", role="annotator", project="beta")
    return ApiTokenFactory.create(name="asa-own", user=user).raw


async def test_the_async_client_reads_the_same(portal: Portal, asa: str) -> None:
    async with AsyncLearnClient(portal.url, asa) as client:
        assert [p.slug for p in (await client.projects()).results] == ["beta"]
        assert [q["key"] for q in (await client.rubric("beta")).questions] == ["solved", "why"]
        with pytest.raises(ForbiddenError):
            await client.members("beta")
        with pytest.raises(ForbiddenError):
            await client.project_update("beta", priority_unsure=3)
