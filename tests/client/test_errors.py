"""One subclass of `LearnError` for each code: the protocol's `ErrorCode` and the client's two.

What the host refuses arrives as its code's subclass over HTTP and over a socket, and
`except LearnError` with `.code` works as it always did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from learnportal_client import (
    NO_RETRY,
    AsyncLearnClient,
    ConflictError,
    InvalidError,
    LearnClient,
    LearnError,
    NotFoundError,
    RateLimitedError,
    StrategyNotAllowedError,
    UnauthenticatedError,
    UnreachableError,
)
from learnportal_client.errors import ERRORS, INVALID_REPLY, UNREACHABLE
from learnportal_protocol.errors import ErrorCode, error_envelope
from learnportal_protocol.messages import LearnRefinementRollbackRequest

if TYPE_CHECKING:
    from tests.client.conftest import Portal


def test_every_code_of_the_protocol_and_of_the_client_has_its_own_subclass() -> None:
    assert set(ERRORS) == {code.value for code in ErrorCode} | {UNREACHABLE, INVALID_REPLY}
    assert len(set(ERRORS.values())) == len(ERRORS)
    for code, kind in ERRORS.items():
        error = LearnError.of(code, "said")
        assert type(error) is kind
        assert isinstance(error, LearnError)
        assert (error.code, error.message, str(error)) == (code, "said", f"{code}: said")


def test_a_subclass_is_made_without_its_code_and_keeps_what_a_learn_error_holds() -> None:
    error = RateLimitedError("slow down", [{"loc": ["x"], "msg": "m"}], status=429, retry_after=2)
    assert (error.code, error.status, error.retry_after, error.retryable) == (
        "rate_limited",
        429,
        2,
        True,
    )
    assert error.details == [{"loc": ["x"], "msg": "m"}]
    assert not ConflictError("stale").retryable


def test_a_code_the_client_does_not_know_is_a_plain_learn_error() -> None:
    error = LearnError.of_envelope({"type": "learn/error", "code": "payment_required"})
    assert type(error) is LearnError
    assert error.code == "payment_required"


def test_an_envelope_of_each_host_code_becomes_that_codes_subclass() -> None:
    for code in ErrorCode:
        error = LearnError.of_envelope(error_envelope(code, "m", req_id="r1"), status=400)
        assert type(error) is ERRORS[code.value]
        assert (error.req_id, error.status) == ("r1", 400)


def test_a_refusal_over_http_raises_its_subclass_which_except_learn_error_still_catches(
    client: LearnClient,
) -> None:
    with pytest.raises(NotFoundError) as missing:
        client.refinement_rollback("no-such-id")
    assert (missing.value.code, missing.value.status) == ("not_found", 404)
    with pytest.raises(StrategyNotAllowedError):  # no LEARNPORTAL_CUSTOM_STRATEGY on this host
        client.adapt(strategy="custom")
    try:
        client.feedback([{"polarity": "positive", "score": 2.0}])
    except LearnError as refused:
        assert isinstance(refused, InvalidError)
        assert refused.item_indexes("feedbacks") == {0}
    else:
        pytest.fail("a score of 2 was accepted")


def test_a_refusal_over_a_socket_raises_its_subclass(client: LearnClient) -> None:
    with client.session() as session:
        with pytest.raises(NotFoundError):
            session.refinement_rollback("no-such-id")
        (reply,) = session.pipeline([LearnRefinementRollbackRequest(refinement_id="no-such-id")])
        assert isinstance(reply, NotFoundError)


async def test_a_bad_token_is_unauthenticated_over_http_and_over_a_socket(portal: Portal) -> None:
    async with AsyncLearnClient(portal.url, "not-a-token", max_batch=100) as client:
        with pytest.raises(UnauthenticatedError):
            await client.stats()
        with pytest.raises(UnauthenticatedError):
            async with await client.session() as session:
                await session.stats()


def test_no_answer_is_unreachable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    transport = httpx.MockTransport(refuse)
    client = LearnClient("http://host", "t", transport=transport, retry=NO_RETRY)
    with client, pytest.raises(UnreachableError) as unanswered:
        client.stats()
    assert unanswered.value.code == "unreachable"
