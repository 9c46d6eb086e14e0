from a2e.caps.memory.protocol import (
    MEMORY_TYPE_MAP,
    MemoryInitRequest,
    MemoryInitResponse,
    MemoryStoreRequest,
    MemoryStoreResponse,
    MemoryRetrieveRequest,
    MemoryRetrieveResponse,
    MemoryForgetRequest,
    MemoryForgetResponse,
    MemoryEntry,
    MemoryTier,
)
from a2e.caps.memory.plugin import (
    MemoryPlugin
)

__all__ = [
    "MemoryPlugin",
    "MemoryTier",
    "MemoryEntry",
    "MemoryInitRequest",
    "MemoryInitResponse",
    "MemoryStoreRequest",
    "MemoryStoreResponse",
    "MemoryRetrieveRequest",
    "MemoryRetrieveResponse",
    "MemoryForgetRequest",
    "MemoryForgetResponse",
    "MEMORY_TYPE_MAP"
]
