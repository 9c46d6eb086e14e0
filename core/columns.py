"""The columns raw SQL names, read from the models' `_meta`, so that SQL follows its model.

The hot paths write and read through the cursor (feedback.bulk says why), and SQL names columns.
Written by hand, a renamed field would leave its SQL behind until the statement ran; read here,
a renamed field fails the first time its SQL is built, by name:

    TURN = Columns(Turn)
    f"UPDATE {table} SET {TURN.priority} = %s WHERE id = %s"
    TURN("correlation_id", "priority")  # a tuple, as feedback.bulk.insert_rows takes one

The implicit primary key `id` is the one column SQL names by hand. Only names are looked up:
no model instance is made, and the statements cost what they did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import FieldDoesNotExist
from django.db import models

if TYPE_CHECKING:
    from collections.abc import Iterable


class Columns:
    """The column of each field of `model`, by the field's name (`.name` or `("a", "b")`).

    Its own names start with `_`, which no field's does, so that every other attribute is a
    field's: a field called `model` or `stored` is a column like any other.
    """

    def __init__(self, model: type[models.Model]) -> None:
        self._model = model

    def __getattr__(self, field: str) -> str:
        if field.startswith("_"):
            raise AttributeError(field)
        try:
            found = self._model._meta.get_field(field)
        except FieldDoesNotExist:
            found = None
        if not isinstance(found, models.Field) or not found.column:
            raise AttributeError(f"{self._model.__name__} has no column for a field {field!r}")
        return str(found.column)

    def __call__(self, *fields: str) -> tuple[str, ...]:
        return tuple(self.__getattr__(field) for field in fields)


def stored_columns(
    model: type[models.Model], *, leaving_out: Iterable[str] = ()
) -> tuple[str, ...]:
    """Every column `model` stores but its primary key (and the fields `leaving_out`), in the
    order of its fields."""
    left_out = set(Columns(model)(*leaving_out))
    return tuple(
        str(field.column)
        for field in model._meta.concrete_fields
        if not field.primary_key and field.column not in left_out
    )
