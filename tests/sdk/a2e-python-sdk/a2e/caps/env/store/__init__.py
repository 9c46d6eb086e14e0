from a2e.caps.env.store.base import EpisodeStore
from a2e.caps.env.store.db import SQLiteEpisodeStore


__all__ = [
    "EpisodeStore",
    "SQLiteEpisodeStore"
]
