"""What one message sent on an A2E session does: the base messages here, learn/* by dispatch.

Every `learn/*` request goes through learnportal.dispatch as over `/api/learn/` and `/ws/learn/`
(the same parse, rate limit, roles, handlers and audit); only the refusal changes shape, from a
`learn/error` envelope to the A2E base protocol's `error` message. The session's credential is
judged on every message by the principal's state now (accounts.credentials), as a socket's is on
every frame: once revoked, the message is refused and the session ends.

Runs on the consumers' one sync thread, like the WebSocket's, for the database connection.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import orjson
from django.db import connection
from pydantic import ValidationError

from core.accounts.credentials import Credential, principals
from core.accounts.models import hash_token
from core.ratelimit import rate_limited, retry_after_for
from learnportal import dispatch
from learnportal.a2e import messages
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.wire import invalid_from, loads_strict, request_id_of

if TYPE_CHECKING:
    from learnportal.a2e.sessions import SessionRecord

NO_CREDENTIAL = (
    "This session has no credential: send handshake/req with auth_token, "
    "or the header Authorization: Bearer <token>."
)
BAD_CREDENTIAL = "The token is unknown or has been revoked."
OTHER_CREDENTIAL = "This session is bound to another credential."
HANDSHAKE_FIRST = "Send handshake/req first: it opens the session."
CREDENTIAL_ENDED = "This session's credential was revoked or deactivated; the session has ended."


TOO_MANY_SESSIONS = (
    "This credential holds as many A2E sessions as it may: shut one down, or let one expire."
)


@dataclass
class Outcome:
    """The replies to put on the session's stream, and the session afterwards.

    `over_limit`: the replies instead, if the session may not be kept bound (its principal holds
    as many sessions as it may already)."""

    record: SessionRecord
    replies: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False
    over_limit: list[dict[str, Any]] = field(default_factory=list)


def handle(
    record: SessionRecord,
    body: bytes,
    header: Credential | None,
    session_id: str = "",
) -> Outcome:
    """Answer one message of the session `record`; `header` is the request's bearer, if any,
    `session_id` the id the agent presented (its handshake/resp names it).

    A learn/* request of a session that shook hands is counted against the rate limit by
    dispatch; every other message here, under the session's owner (its principal, or its
    client's address before it has one).
    """
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        data = None
    kind = data.get("type") if isinstance(data, dict) else None
    model = messages.REQUEST_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None and record.credential is not None and record.handshaken:
        return _learn(record, body)
    retry_after = retry_after_for(record.owner)
    if retry_after is not None:
        refusal = rate_limited(retry_after)
        reply = messages.error(
            refusal.code, refusal.message, request_id_of(data), retry_after=retry_after
        )
        return Outcome(record, [reply])
    if model is None:
        return _learn(record, body)
    try:
        loads_strict(body)  # a repeated key is refused, as in learn/*
        request = model.model_validate(data)
    except LearnError as refusal:
        return Outcome(record, [_invalid(refusal, data)])
    except ValidationError as exc:
        return Outcome(record, [_invalid(invalid_from(exc), data)])
    if isinstance(request, messages.HandshakeRequest):
        return _handshake(record, request, header, session_id or record.sid)
    if request.type == messages.PING:
        return Outcome(record, [messages.pong(request.id, time.time() - record.created)])
    return Outcome(record, ended=True)  # shutdown


def _invalid(refusal: LearnError, data: Any) -> dict[str, Any]:
    return messages.error(ErrorCode.INVALID, refusal.message, request_id_of(data), refusal.details)


def _handshake(
    record: SessionRecord,
    request: messages.HandshakeRequest,
    header: Credential | None,
    session_id: str,
) -> Outcome:
    bearer = record.bearer
    if request.auth_token:
        credential: Credential | None = Credential("token", hash_token(request.auth_token))
    else:
        credential = header or record.credential
        bearer = bearer or (header is not None and credential == header)
    reason = ""
    principal = None
    if credential is None:
        reason = NO_CREDENTIAL
    elif record.credential is not None and credential != record.credential:
        reason = OTHER_CREDENTIAL
    elif (principal := principals.principal(credential)) is None:
        reason = BAD_CREDENTIAL
    if reason or principal is None:
        return Outcome(record, [messages.handshake_response(request.id, session_id, reason)])
    bound = replace(
        record, credential=credential, bearer=bearer, handshaken=True, owner=principal.key
    )
    refused = messages.handshake_response(request.id, session_id, TOO_MANY_SESSIONS)
    return Outcome(
        bound, [messages.handshake_response(request.id, session_id)], over_limit=[refused]
    )


def _learn(record: SessionRecord, body: bytes) -> Outcome:
    credential = record.credential
    if credential is None or not record.handshaken:
        code = ErrorCode.UNAUTHENTICATED if credential is None else ErrorCode.INVALID
        text = NO_CREDENTIAL if credential is None else HANDSHAKE_FIRST
        return Outcome(record, [messages.error(code, text, dispatch.request_id(body))])
    principal = principals.principal(credential)
    if principal is None:
        refusal = messages.error(
            ErrorCode.UNAUTHENTICATED, CREDENTIAL_ENDED, dispatch.request_id(body)
        )
        return Outcome(record, [refusal], ended=True)
    reply = dispatch.dispatch(principal, body)
    if reply.status == 503:
        connection.close()  # never keep a connection the database refused
    if reply.body.get("type") == "learn/error":
        return Outcome(record, [messages.error_from_learn(reply.body)])
    return Outcome(record, [reply.body])


def release_connection() -> None:
    connection.close()
