"""The proposal object of the wire: validated strictly, identified by its content."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import orjson
from django.conf import settings
from pydantic import ConfigDict, Field, ValidationError, model_validator

from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import FreeJson, Name, ShortName, StrictModel, Text
from learnportal_protocol.wire import invalid_from
from refinement.paths import SKILL_PATHS, STEP, Location, Target, locate
from refinement.vocabulary import LearningsAccess

OPS: dict[Target, set[str]] = {
    Target.ROUTER_WEIGHT: {"update"},
    Target.SKILL_FILE: {"create", "update", "delete"},
    Target.STEP_CONFIG: {"update"},
}
STEP_FIELD_TYPES = {"learnings_access": str, "learning_objective": str, "lock_learnings": bool}

# The validator's rules as JSON Schema, one variant per target and op, so that the OpenAPI
# document says what a proposal must be. Paths follow the grammar of refinement.paths, in the
# regex dialect JSON Schema speaks (no named groups; the `_global` lookahead is implied there,
# as a step id starts with a letter or digit).
_WEIGHT = {"type": "number", "minimum": 0, "maximum": 1}
_TEXT, _ABSENT = {"type": "string"}, {"type": "null"}
_ANY: dict[str, Any] = {}  # any JSON value, null too
SKILL_FILE_PATH = "|".join(
    "(?:{})".format(re.sub(r"\(\?P<\w+>", "(", p.pattern).replace("(?!_global/)", ""))
    for p in SKILL_PATHS
)


def _variant(target: Target, op: str, path: str, old: Any, new: Any) -> dict[str, Any]:
    """One kind of edit; a value that may be null may also be left out."""
    return {
        "type": "object",
        "properties": {
            "target": {"const": target.value},
            "op": {"const": op},
            "path": {"type": "string", "pattern": path, "maxLength": 400},
            "old_value": old,
            "new_value": new,
        },
        "required": ["target", "op", "path"]
        + [
            name for name, value in (("old_value", old), ("new_value", new)) if not _nullable(value)
        ],
    }


def _nullable(schema: dict[str, Any]) -> bool:
    return schema in (_ABSENT, _ANY) or any(_nullable(s) for s in schema.get("anyOf", []))


SKILL_FILE_VARIANTS = [
    _variant(Target.SKILL_FILE, "create", SKILL_FILE_PATH, _ABSENT, _TEXT),
    _variant(Target.SKILL_FILE, "update", SKILL_FILE_PATH, _TEXT, _TEXT),
    _variant(Target.SKILL_FILE, "delete", SKILL_FILE_PATH, _TEXT, _ABSENT),
]
PROPOSAL_VARIANTS = [
    _variant(
        Target.ROUTER_WEIGHT,
        "update",
        r"^router\.weights\.[^\n]{1,200}$",
        {"anyOf": [_WEIGHT, _ABSENT]},
        _WEIGHT,
    ),
    *SKILL_FILE_VARIANTS,
    *(
        _variant(Target.STEP_CONFIG, "update", rf"^steps\.{STEP}\.{field}$", _ANY, new)
        for field, new in (
            ("learnings_access", {"type": "string", "enum": sorted(LearningsAccess)}),
            ("learning_objective", _TEXT),
            ("lock_learnings", {"type": "boolean"}),
        )
    ),
]


class ProposalInput(StrictModel):
    """`{target, op, path, old_value, new_value}`; the host's own keys may ride along."""

    model_config = ConfigDict(
        strict=True,
        extra="allow",
        allow_inf_nan=False,
        json_schema_extra={"oneOf": list(PROPOSAL_VARIANTS)},  # a list of JSON values to pydantic
    )

    target: Target
    op: str
    path: str = Field(min_length=1, max_length=400)
    old_value: FreeJson = None
    new_value: FreeJson = None
    proposal_id: ShortName = ""
    plan_id: ShortName = ""
    reason: Text = ""
    step_id: Name = ""

    @model_validator(mode="after")
    def _check(self) -> ProposalInput:
        if self.op not in OPS[self.target]:
            raise FieldError(
                "op", f"{self.target.value} takes op {' or '.join(sorted(OPS[self.target]))}"
            )
        location = locate(self.target, self.path)
        if location is None:
            raise FieldError("path", f"{self.path!r} is not a path a {self.target.value} may write")
        if self.target is Target.ROUTER_WEIGHT:
            for name in ("old_value", "new_value"):
                value = getattr(self, name)
                if name == "old_value" and value is None:
                    continue
                if (
                    isinstance(value, bool)
                    or not isinstance(value, int | float)
                    or not 0 <= value <= 1
                ):
                    raise FieldError(name, "a routing weight is a number in [0, 1]")
        elif self.target is Target.SKILL_FILE:
            for name in ("old_value", "new_value"):
                value = getattr(self, name)
                if value is not None and not isinstance(value, str):
                    raise FieldError(name, "a file's value is its whole text, or null when absent")
            size = skill_file_bytes(self.new_value)
            if size > settings.LEARNPORTAL_SKILL_FILE_MAX_BYTES:
                raise FieldError(
                    "new_value",
                    f"a skill file is at most {settings.LEARNPORTAL_SKILL_FILE_MAX_BYTES} bytes "
                    f"(LEARNPORTAL_SKILL_FILE_MAX_BYTES); this one is {size}",
                )
            if self.op == "create" and (self.old_value is not None or self.new_value is None):
                raise FieldError("old_value", "create goes from null to the new text")
            if self.op == "update" and (self.old_value is None or self.new_value is None):
                raise FieldError("new_value", "update goes from the current text to the new text")
            if self.op == "delete" and (self.old_value is None or self.new_value is not None):
                raise FieldError("new_value", "delete goes from the current text to null")
        else:
            expected = STEP_FIELD_TYPES[location.field]
            if not isinstance(self.new_value, expected):
                raise FieldError("new_value", f"{location.field} is a {expected.__name__}")
            if location.field == "learnings_access" and self.new_value not in set(LearningsAccess):
                words = ", ".join(LearningsAccess)
                raise FieldError("new_value", f"learnings_access is one of {words}")
        return self

    @property
    def location(self) -> Location:
        location = locate(self.target, self.path)
        assert location is not None  # checked by the validator
        return location

    @property
    def content_hash(self) -> str:
        """What a reviewer approved: the edit itself, not the ids riding along."""
        edit = [self.target.value, self.op, self.path, self.old_value, self.new_value, self.step_id]
        return hashlib.sha256(orjson.dumps(edit)).hexdigest()


def skill_file_bytes(value: Any) -> int:
    """A skill file's size: the UTF-8 bytes of its text (0 for none)."""
    return len(value.encode()) if isinstance(value, str) else 0


def parse_proposal(raw: dict[str, Any]) -> ProposalInput:
    # The envelope's free JSON was checked as storable, so it always dumps.
    try:
        return ProposalInput.model_validate_json(orjson.dumps(raw))
    except ValidationError as exc:
        raise invalid_from(exc, ("proposal",)) from None
