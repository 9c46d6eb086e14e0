from __future__ import annotations


class FieldError(ValueError):
    """A rule that belongs to a place inside the value validated, so that details can point at it.

    `field` is one key, or the path of keys and indexes below the validated value.
    """

    def __init__(self, field: str | tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc: tuple[str | int, ...] = (field,) if isinstance(field, str) else field
