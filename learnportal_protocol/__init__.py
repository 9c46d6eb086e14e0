"""The `learn/*` protocol: pure pydantic models and parsing, with no Django imports.

Views, consumers, tests and Python clients all import from here.
"""

from __future__ import annotations

from learnportal_protocol.errors import ErrorCode, LearnError, error_envelope
from learnportal_protocol.messages import (
    ALL_MESSAGE_TYPES,
    PROTOCOL_VERSION,
    REQUEST_MODELS,
    RESPONSE_MODELS,
    Capability,
    response_type_for,
)
from learnportal_protocol.models import (
    Action,
    ComponentPerformanceRecord,
    Experience,
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
    RatedTurn,
    RiskLevel,
)
from learnportal_protocol.wire import parse_request

__all__ = [
    "ALL_MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "REQUEST_MODELS",
    "RESPONSE_MODELS",
    "Action",
    "Capability",
    "ComponentPerformanceRecord",
    "ErrorCode",
    "Experience",
    "Feedback",
    "FeedbackDimension",
    "FeedbackPolarity",
    "FeedbackSource",
    "LearnError",
    "RatedTurn",
    "RiskLevel",
    "error_envelope",
    "parse_request",
    "response_type_for",
]
