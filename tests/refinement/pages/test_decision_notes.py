"""An approval's note and a rejection's reason: the portal takes what REST takes and refuses
what REST refuses (REST with pydantic's message, the portal saying what to do), and never saves a value it did not keep whole."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import orjson
import pytest

from refinement.models import Plan, Proposal, ProposalStatus, Review
from tests.refinement.helpers import plan_of

if TYPE_CHECKING:
    from django.test import Client

    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

TOO_LONG = "String should have at most 5000 characters"  # REST's words, pydantic's
FORM_TOO_LONG = "Too long: keep it to 5000 characters."  # the portal's: what to do


def _pending() -> Proposal:
    plan = Plan.objects.get(requested_by="token:demo-agent")
    proposal = plan.proposals.filter(status=ProposalStatus.PENDING).order_by("id").first()
    assert proposal is not None
    return proposal


def _in_the_portal(
    client: Client, proposal: Proposal, decision: str, **data: str
) -> ClientResponse:
    url = f"/plans/{plan_of(proposal).plan_id}/proposals/{proposal.proposal_id}/{decision}/"
    return client.post(url, data)


def _over_rest(client: Client, proposal: Proposal, decision: str, **body: str) -> ClientResponse:
    url = f"/api/proposals/{proposal.proposal_id}/{decision}/"
    return client.post(url, orjson.dumps(body), content_type="application/json")


Decide = Callable[..., "ClientResponse"]


def _decisions(proposal: Proposal) -> list[Review]:
    return list(proposal.reviews.filter(kind__in=["approve", "reject"]))


@pytest.mark.parametrize("send", [_in_the_portal, _over_rest], ids=["portal", "rest"])
def test_an_approval_note_of_2500_characters_is_saved_whole(reviewer: Client, send: Decide) -> None:
    proposal = _pending()
    note = "Looks right. " * 192 + "Ship"  # 2,500 characters

    response = send(reviewer, proposal, "approve", note=note)

    assert response.status_code in {200, 302}
    assert Proposal.objects.get(pk=proposal.pk).status == ProposalStatus.APPROVED
    assert [review.note for review in _decisions(proposal)] == [note]


def test_an_approval_note_of_5001_characters_is_refused_in_the_portal_saying_what_to_do(
    reviewer: Client,
) -> None:
    proposal = _pending()

    response = _in_the_portal(reviewer, proposal, "approve", note="n" * 5_001)

    assert response.status_code == 400
    assert f'data-field="note">{FORM_TOO_LONG}' in response.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).status == ProposalStatus.PENDING
    assert _decisions(proposal) == []


def test_an_approval_note_of_5001_characters_is_refused_over_rest(reviewer: Client) -> None:
    proposal = _pending()

    response = _over_rest(reviewer, proposal, "approve", note="n" * 5_001)

    assert response.status_code == 400
    assert response.json()["details"] == [{"loc": ["note"], "msg": TOO_LONG}]
    assert Proposal.objects.get(pk=proposal.pk).status == ProposalStatus.PENDING
    assert _decisions(proposal) == []


@pytest.mark.parametrize("send", [_in_the_portal, _over_rest], ids=["portal", "rest"])
def test_a_rejection_reason_over_5000_characters_is_refused_and_nothing_changes(
    reviewer: Client, send: Decide
) -> None:
    proposal = _pending()

    response = send(reviewer, proposal, "reject", reason="r" * 5_001)

    assert response.status_code == 400
    assert (FORM_TOO_LONG if send is _in_the_portal else TOO_LONG) in response.content.decode()
    assert Proposal.objects.get(pk=proposal.pk).status == ProposalStatus.PENDING
    assert _decisions(proposal) == []


def test_the_portal_keeps_a_note_exactly_as_rest_does(reviewer: Client) -> None:
    proposal = _pending()

    _in_the_portal(reviewer, proposal, "approve", note="  spaced  ")

    assert [review.note for review in _decisions(proposal)] == ["  spaced  "]


def test_the_note_field_on_the_confirmation_tells_the_browser_its_limit(reviewer: Client) -> None:
    proposal = _pending()
    url = f"/plans/{plan_of(proposal).plan_id}/proposals/{proposal.proposal_id}/approve/"

    page = reviewer.get(url).content.decode()

    assert 'name="note"' in page and 'maxlength="5000"' in page
