from __future__ import annotations


class FieldError(ValueError):
    """A model-level rule that belongs to one field, so that error details can point at it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
