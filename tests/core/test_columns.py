"""Raw SQL's columns come from the models: a field's column by its name, a renamed or missing
field refused by name (core.columns)."""

from __future__ import annotations

import pytest

from core.columns import Columns, stored_columns
from feedback.models import ComponentBucket, ExperienceQuota, Lease, Turn


def test_a_fields_column_is_read_from_its_model() -> None:
    lease = Columns(Lease)
    assert (lease.username, lease.turn) == ("username", "turn_id")  # a foreign key's column
    assert lease("turn", "expires") == ("turn_id", "expires")


def test_a_field_the_model_does_not_have_is_refused_by_name() -> None:
    with pytest.raises(AttributeError, match="Lease has no column for a field 'holder'"):
        _ = Columns(Lease).holder
    with pytest.raises(AttributeError):
        Columns(Lease)("username", "holder")


def test_the_stored_columns_are_every_field_but_the_key_in_their_order() -> None:
    stored = stored_columns(ComponentBucket)
    assert "id" not in stored
    assert stored[:4] == ("project_id", "component_name", "hour", "calls_total")
    key = ("project", "component_name", "hour")
    assert stored_columns(ComponentBucket, leaving_out=key) == stored[3:]


def test_a_field_named_like_an_attribute_of_its_own_is_a_column_like_any_other() -> None:
    assert Columns(Turn).model == "model"
    assert Columns(Turn)("prompt", "model") == ("prompt", "model")
    assert Columns(ExperienceQuota).stored == "stored"
