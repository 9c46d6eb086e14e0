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

from learnportal import dispatch
from learnportal.a2e import messages
from learnportal.accounts.credentials import Credential, principals
from learnportal.accounts.models import hash_token
from learnportal.protocol.errors import ErrorCode
from learnportal.protocol.wire import invalid_from, request_id_of
from learnportal.ratelimit import rate_limited, retry_after_for

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


@dataclass
class Outcome:
    """The replies to put on the session's stream, and the session afterwards."""

    record: SessionRecord
    replies: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False


def handle(
    record: SessionRecord, body: bytes, header: Credential | None, address: str = "?"
) -> Outcome:
    """Answer one message of the session `record`; `header` is the request's bearer, if any.

    A learn/* request is counted against the rate limit by dispatch; a base message here, under
    the session's principal, or its client's `address` before the session has one.
    """
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or data.get("type") not in messages.BASE_REQUESTS:
        return _learn(record, body)
    retry_after = retry_after_for(_rate_key(record, address))
    if retry_after is not None:
        refusal = rate_limited(retry_after)
        reply = messages.error(
            refusal.code, refusal.message, request_id_of(data), retry_after=retry_after
        )
        return Outcome(record, [reply])
    kind = data["type"]
    if kind == messages.HANDSHAKE_REQ:
        return _handshake(record, data, header)
    if kind == messages.PING:
        req_id = data.get("id")
        uptime = time.time() - record.created
        return Outcome(record, [messages.pong(req_id if isinstance(req_id, str) else "", uptime)])
    return Outcome(record, ended=True)  # shutdown


def _rate_key(record: SessionRecord, address: str) -> str:
    principal = principals.principal(record.credential) if record.credential else None
    return principal.key if principal is not None else f"ip:{address}"


def _handshake(record: SessionRecord, data: dict[str, Any], header: Credential | None) -> Outcome:
    try:
        request = messages.HandshakeRequest.model_validate(data)
    except ValidationError as exc:
        refusal = invalid_from(exc)
        req_id = request_id_of(data)
        reply = messages.error(ErrorCode.INVALID, refusal.message, req_id, refusal.details)
        return Outcome(record, [reply])
    if request.auth_token:
        credential: Credential | None = Credential("token", hash_token(request.auth_token))
    else:
        credential = header or record.credential
    reason = ""
    if credential is None:
        reason = NO_CREDENTIAL
    elif record.credential is not None and credential != record.credential:
        reason = OTHER_CREDENTIAL
    elif principals.principal(credential) is None:
        reason = BAD_CREDENTIAL
    if reason:
        return Outcome(record, [messages.handshake_response(request.id, record.sid, reason)])
    bound = replace(record, credential=credential, handshaken=True)
    return Outcome(bound, [messages.handshake_response(request.id, record.sid)])


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
