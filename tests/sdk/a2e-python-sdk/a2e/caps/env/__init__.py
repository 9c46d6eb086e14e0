from a2e.caps.env.protocol import (
    ENV_TYPE_MAP,
    EnvResetRequest,
    EnvResetResponse,
    EnvStepRequest,
    EnvStepResponse,
    EnvObserveRequest,
    EnvObserveResponse,
    EnvCloseRequest,
    EnvCloseResponse,
    EnvObservation,
    EnvStatePush,
    EnvState
)
from a2e.caps.env.plugin import (
    EnvPlugin
)

__all__ = [
    "EnvPlugin",
    "EnvResetRequest",
    "EnvResetResponse",
    "EnvStepRequest",
    "EnvStepResponse",
    "EnvObserveRequest",
    "EnvObserveResponse",
    "EnvCloseRequest",
    "EnvCloseResponse",
    "EnvStatePush",
    "EnvObservation",
    "EnvState",
    "ENV_TYPE_MAP"
]
