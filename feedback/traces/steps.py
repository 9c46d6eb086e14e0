"""A step as `POST /api/turns/` sends it and the OTLP ingest makes it (docs/contract.md,
"Traces"), and the checks of a turn's steps that need no database: unique ids, each one's
attributes within their bytes, an end no earlier than the start."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import orjson
from django.conf import settings
from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from learnportal_protocol.errors import cut, detail, invalid
from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.models import (
    INT64,
    FreeJsonObject,
    Name,
    RequiredName,
    StrictModel,
    Text,
    Timestamp,
)

if TYPE_CHECKING:
    from feedback.models import Turn, TurnStep


class StepKind(StrEnum):
    LLM = "llm"
    TOOL = "tool"
    RETRIEVAL = "retrieval"
    AGENT = "agent"
    CHAIN = "chain"
    OTHER = "other"


class StepStatus(StrEnum):
    OK = "ok"
    ERROR = "error"


Count = Annotated[int, Field(ge=0, le=INT64)]
# The step id that names the session a turn begins rather than a step of it (feedback.sessions):
# no step has it.
SESSION_STEP = "@session"


def rated_part(step_id: str) -> str:
    """What of its turn a feedback with this `step_id` rates, in words: "" the whole turn,
    "the session" it begins, or "step <id>"."""
    if not step_id:
        return ""
    return "the session" if step_id == SESSION_STEP else f"step {cut(step_id, 40)}"


class Step(StrictModel):
    step_id: RequiredName = Field(description="unique in its turn: the span id, in hex")
    parent_id: Name = Field(default="", description="the step it is part of; empty: the top")
    name: RequiredName
    kind: StepKind = StepKind.OTHER
    input: Text = ""
    output: Text = ""
    start: Timestamp | None = Field(default=None, description="epoch seconds")
    end: Timestamp | None = Field(default=None, description="epoch seconds, not before start")
    status: StepStatus = StepStatus.OK
    error: Text = ""
    tokens_in: Count | None = None
    tokens_out: Count | None = None
    cost: Annotated[float, Field(ge=0.0)] | None = None
    attributes: FreeJsonObject = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Step:
        if self.step_id == SESSION_STEP:
            raise FieldError("step_id", f"{SESSION_STEP!r} names a session, not a step")
        if self.start is not None and self.end is not None and self.end < self.start:
            raise FieldError("end", f"end {self.end} is before start {self.start}")
        if self.parent_id == self.step_id:
            raise FieldError("parent_id", "a step is not its own parent")
        limit = settings.LEARNPORTAL_MAX_STEP_ATTRIBUTES_BYTES
        if self.attributes and len(orjson.dumps(self.attributes)) > limit:
            raise FieldError("attributes", f"more than {limit} bytes of JSON")
        return self


def _few(steps: object) -> object:
    limit = settings.LEARNPORTAL_MAX_STEPS
    if isinstance(steps, list) and len(steps) > limit:
        raise ValueError(f"a turn has at most {limit} steps (LEARNPORTAL_MAX_STEPS)")
    return steps


def steps_unique(steps: list[Step]) -> list[Step]:
    """A turn's steps as sent: at most LEARNPORTAL_MAX_STEPS, each id once (an AfterValidator:
    places are below the list)."""
    limit = settings.LEARNPORTAL_MAX_STEPS
    if len(steps) > limit:
        raise ValueError(f"a turn has at most {limit} steps")
    seen: set[str] = set()
    for index, step in enumerate(steps):
        if step.step_id in seen:
            raise FieldError((index, "step_id"), f"{step.step_id!r} is already a step of this turn")
        seen.add(step.step_id)
    return steps


def step_depths(parents: dict[str, str]) -> dict[str, int]:
    """Each step's depth in the tree (1 at the top) from its parent's id ("" for none). A parent
    not among them (yet: spans of a trace come in any order) counts as the top; a step on a
    cycle, or below one, has no depth."""
    depths: dict[str, int] = {}
    for first in parents:
        path: list[str] = []
        step = first
        while step in parents and step not in depths and step not in path:
            path.append(step)
            step = parents[step]
        if step in depths:
            base = depths[step]
        elif step in path:
            continue
        else:
            base = 0  # the top, or a parent not here
        for below in reversed(path):
            base += 1
            depths[below] = base
    return depths


# A turn's steps as sent, checked before any is validated for their count.
Steps = Annotated[list[Step], BeforeValidator(_few), AfterValidator(steps_unique)]


def step_component(step: TurnStep, turn: Turn) -> str:
    """The component a stored step is a call of: a tool step's tool (its name: the OTLP ingest
    names a tool step after `gen_ai.tool.name` or `tool.name`), else the turn's."""
    return step.name if step.kind == StepKind.TOOL else turn.component_name


def step_kinds_named(text: str, field: str) -> list[str]:
    """The step kinds a comma-separated `text` names (a query's), or `invalid` naming `field`."""
    named = [part.strip() for part in text.split(",") if part.strip()]
    known = {kind.value for kind in StepKind}
    unknown = [name for name in named if name not in known]
    if unknown:
        said = f"{cut(unknown[0], 40)!r} is not a step kind: one of {', '.join(sorted(known))}"
        raise invalid(f"{field}: {said}", [detail([field], said)])
    return sorted(set(named))
