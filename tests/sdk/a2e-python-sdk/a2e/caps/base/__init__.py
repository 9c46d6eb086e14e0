from a2e.caps.base.protocol import (
    A2EMessage,
    A2EError,
    A2EErrorCode,
    A2EEvent,
    A2E_BASE_TYPE_MAP
)

__all__ = [
    "A2EMessage",
    "A2EError",
    "A2EErrorCode",
    "A2EEvent",
    "A2E_BASE_TYPE_MAP",
]
