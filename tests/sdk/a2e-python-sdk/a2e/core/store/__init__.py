from a2e.core.store.base import SnapshotStore
from a2e.core.store.schema import SnapshotStoreConfig
from a2e.core.store.file import FileSnapshotStore
from a2e.core.store.db import SQLiteSnapshotStore

__all__ = [
    "SnapshotStoreConfig",
    "SnapshotStore",
    "FileSnapshotStore",
    "SQLiteSnapshotStore"
]
