from a2e.caps.proc.protocol import (
    PROC_TYPE_MAP,
    ProcSpawnRequest,
    ProcSpawnResponse,
    ProcKillRequest,
    ProcKillResponse,
    ProcReadEvent,
    ProcWriteRequest,
    ProcWriteResponse,
    ProcStatusRequest,
    ProcStatusResponse
)
from a2e.caps.proc.plugin import (
    ProcPlugin
)

__all__ = [
    "ProcPlugin",
    "ProcSpawnRequest",
    "ProcSpawnResponse",
    "ProcKillRequest",
    "ProcKillResponse",
    "ProcReadEvent",
    "ProcWriteRequest",
    "ProcWriteResponse",
    "ProcStatusRequest",
    "ProcStatusResponse",
    "PROC_TYPE_MAP"
]
