"""One path for every `learn/*` message, whatever the transport.

parse → check rate → look up the handler → run it → wrap the result in the response envelope.
Handlers are services that take the principal and the parsed request and return the response
fields; they raise LearnError to refuse, which rolls back whatever they wrote. `HANDLERS` holds
the functions themselves, so that a reader (or an editor) goes from a message type to its code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.db import DatabaseError, IntegrityError
from redis.exceptions import RedisError

from core.accounts.principals import Principal
from core.ratelimit import rate_limit_check
from core.timing import stage
from feedback import handlers as feedback
from learnportal.dberrors import database_error, redis_error
from learnportal_protocol import RESPONSE_MODELS, parse_request, response_type_for
from learnportal_protocol.errors import MIN_RETRY_AFTER, ErrorCode, LearnError
from learnportal_protocol.wire import request_id_of
from refinement import handlers as refinement
from refinement.store import behaviour_policy

if TYPE_CHECKING:
    from learnportal_protocol.messages import Envelope

logger = logging.getLogger(__name__)

Handler = Callable[[Principal, Any], dict[str, Any]]
HOST_FAILED = (
    "The host failed to answer this request (the error is in its log); nothing was changed. "
    "Retry later."
)

HANDLERS: dict[str, Handler] = {
    "learn/feedback/req": feedback.handle_feedback,
    # feedback never imports refinement: the routing policy experiences were chosen under is
    # passed in here.
    "learn/experience/req": partial(feedback.handle_experience, policy=behaviour_policy),
    "learn/stats/req": feedback.handle_stats,
    "learn/adapt/req": refinement.handle_adapt,
    "learn/refinement/plan/req": refinement.handle_plan,
    "learn/refinement/review/req": refinement.handle_review,
    "learn/refinement/apply/req": refinement.handle_apply,
    "learn/refinement/rollback/req": refinement.handle_rollback,
    "learn/refinement/history/req": refinement.handle_history,
}


class Reply:
    """A response or error envelope with the HTTP status it maps to."""

    __slots__ = ("body", "retry_after", "status")

    def __init__(self, status: int, body: dict[str, Any], retry_after: int | None = None) -> None:
        self.status = status
        self.body = body
        self.retry_after = retry_after


def dispatch(principal: Principal, body: bytes | str) -> Reply:
    req_id = ""
    try:
        rate_limit_check(principal.key)
        with stage("parse: orjson, jiter checks, pydantic"):
            request = parse_request(body, max_batch=settings.LEARNPORTAL_MAX_BATCH)
        req_id = request.id
        return Reply(200, run(principal, request))
    except LearnError as error:
        return error_reply(error, req_id or request_id(body))
    except Exception:
        # A defect of the host's own: what the handler wrote is rolled back, and the caller (a
        # socket's later frames too) gets an envelope, never a dropped connection or a 500.
        logger.exception("learn/* request failed inside the host")
        failed = LearnError(ErrorCode.UNAVAILABLE, HOST_FAILED, retry_after=MIN_RETRY_AFTER)
        return error_reply(failed, req_id or request_id(body))


def run(principal: Principal, request: Envelope) -> dict[str, Any]:
    """Run one parsed request; raise LearnError for any refusal."""
    handler = HANDLERS[request.type]
    try:
        try:
            fields = handler(principal, request)
        except IntegrityError:
            # A concurrent request committed the same ids first and this one's transaction was
            # rolled back: run it once more, so that it meets those rows as a retry (same content
            # counts, other content is a `conflict` with details) instead of failing.
            fields = handler(principal, request)
    except DatabaseError as exc:
        raise database_error(exc, during=request.type) from exc
    except RedisError as exc:
        raise redis_error(exc, during=request.type) from exc
    with stage("response envelope"):
        response = RESPONSE_MODELS[response_type_for(request.type)](req_id=request.id, **fields)
        return response.model_dump(mode="json")


def error_reply(error: LearnError, req_id: str = "") -> Reply:
    return Reply(error.http_status, error.envelope(req_id), error.retry_after)


def request_id(body: bytes | str) -> str:
    """The `id` of a request envelope, however malformed the rest is; empty if none."""
    try:
        return request_id_of(orjson.loads(body))
    except orjson.JSONDecodeError:
        return ""
