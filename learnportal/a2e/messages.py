"""The A2E base protocol's messages, as the SDK's models (a2e/caps/base/protocol.py) read them."""

from __future__ import annotations

from typing import Annotated, Any

from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, StrictStr, StringConstraints

from learnportal_protocol import Capability
from learnportal_protocol.errors import RETRYABLE, bounded
from learnportal_protocol.ids import new_message_id, now
from learnportal_protocol.models import NO_NUL, Name

HANDSHAKE_REQ = "handshake/req"
PING = "ping"
SHUTDOWN = "shutdown"
VERSION = "1.0"
CAPABILITY = "learning"
MAX_PARALLEL = 4  # each /send is answered on its own request: the SDK's own default


class BaseRequest(BaseModel):
    """A base message an agent sends (ping, shutdown), read as learn/* reads a request: strict
    types, an id of at most NAME_LENGTH characters without control characters (so no NUL).
    Other keys are ignored: they belong to the agent's SDK (the SDK's Shutdown has `timeout`)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    type: StrictStr
    id: Name = Field(default_factory=new_message_id)


class HandshakeRequest(BaseRequest):
    """What an agent says first."""

    agent_id: Name = ""
    agent_caps: list[Name] = Field(default_factory=list, max_length=100)
    auth_token: Annotated[str, StringConstraints(max_length=1000, pattern=NO_NUL)] = ""


REQUEST_MODELS: dict[str, type[BaseRequest]] = {
    HANDSHAKE_REQ: HandshakeRequest,
    PING: BaseRequest,
    SHUTDOWN: BaseRequest,
}


def _base(type_: str, req_id: str) -> dict[str, Any]:
    return {
        "type": type_,
        "id": new_message_id(),
        "version": VERSION,
        "ts": now(),
        "req_id": req_id,
    }


def learning_capability() -> dict[str, Any]:
    metadata = Capability().model_dump(mode="json")
    del metadata["capability"]
    metadata["max_batch"] = settings.LEARNPORTAL_MAX_BATCH
    return {"capability": CAPABILITY, "enabled": True, "metadata": metadata}


def handshake_response(req_id: str, session_id: str, reason: str = "") -> dict[str, Any]:
    """`ok` with the learning capability, or refused with `reason` (then no capability)."""
    return {
        **_base("handshake/resp", req_id),
        "session_id": session_id,
        "accepted_caps": [] if reason else [learning_capability()],
        "max_parallel": MAX_PARALLEL,
        "ok": not reason,
        "reason": reason,
    }


def pong(req_id: str, uptime_seconds: float) -> dict[str, Any]:
    return {**_base("pong", req_id), "uptime_seconds": uptime_seconds}


def error(
    code: str,
    message: str,
    req_id: str = "",
    details: list[dict[str, Any]] | None = None,
    retry_after: int | None = None,
) -> dict[str, Any]:
    """The A2E `error` message; `detail` carries the learn/error's `details` (and retry time)."""
    message, bounded_details = bounded(message, details or [])
    detail: dict[str, Any] = {"details": bounded_details}
    if retry_after is not None:
        detail["retry_after"] = retry_after
    return {
        **_base("error", req_id),
        "code": code,
        "message": message,
        "detail": detail,
        "retryable": code in {c.value for c in RETRYABLE},
        "capability_name": CAPABILITY,
    }


def error_from_learn(envelope: dict[str, Any]) -> dict[str, Any]:
    """A `learn/error` envelope of the dispatch, as the A2E `error` message."""
    return error(
        envelope["code"],
        envelope["message"],
        envelope["req_id"],
        envelope["details"],
        envelope.get("retry_after"),
    )
