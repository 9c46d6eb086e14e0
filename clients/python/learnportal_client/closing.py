"""`with` for what the client opens (clients, sessions, buffers): the block's end closes it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from types import TracebackType


class Closing(ABC):
    @abstractmethod
    def close(self) -> Any:
        """Let go of what this holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
