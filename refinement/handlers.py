"""`learn/*` handlers for adapt and the refinement lifecycle (issue 3 fills these in)."""

from __future__ import annotations

from typing import Any

from learnportal.accounts.principals import Principal
from learnportal.protocol.errors import ErrorCode, LearnError


def _not_yet(principal: Principal, request: Any) -> dict[str, Any]:
    raise LearnError(
        ErrorCode.NOT_IMPLEMENTED, f"{request.type} is understood but not served by this host yet."
    )


handle_adapt = handle_plan = handle_review = handle_apply = handle_rollback = handle_history = (
    _not_yet
)
