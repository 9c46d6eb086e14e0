"""The `learn/*` protocol: pure pydantic models and parsing, with no Django imports.

Views, consumers, tests and Python clients all import from here.
"""

from learnportal.protocol.errors import ErrorCode, LearnError, error_envelope
from learnportal.protocol.messages import (
    ALL_MESSAGE_TYPES,
    PROTOCOL_VERSION,
    REQUEST_MODELS,
    RESPONSE_MODELS,
    response_type_for,
)
from learnportal.protocol.models import (
    Action,
    ComponentPerformanceRecord,
    Experience,
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
    RatedTurn,
)
from learnportal.protocol.wire import parse_request

CAPABILITY = {
    "capability": "learning",
    "namespace": "learn/*",
    "plugin": "LearnPlugin",
    "version": PROTOCOL_VERSION,
}

__all__ = [
    "ALL_MESSAGE_TYPES",
    "CAPABILITY",
    "PROTOCOL_VERSION",
    "REQUEST_MODELS",
    "RESPONSE_MODELS",
    "Action",
    "ComponentPerformanceRecord",
    "ErrorCode",
    "Experience",
    "Feedback",
    "FeedbackDimension",
    "FeedbackPolarity",
    "FeedbackSource",
    "LearnError",
    "RatedTurn",
    "error_envelope",
    "parse_request",
    "response_type_for",
]
