"""A project's rubric versions as its managers wrote them: the list, and any one of them.

Version 1 is the default rubric (feedback.rubrics.defaults) until the project writes its own:
the first version stored is 2 (feedback.services.rubrics).
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from feedback.models import RubricVersion
from feedback.rubrics.defaults import default_rubric
from feedback.rubrics.questions import Rubric
from feedback.services.rubrics import DEFAULT_VERSION, StoredRubric

# The newest versions a page lists: a project changes its rubric seldom, but never unboundedly.
VERSIONS_LISTED = 50


@dataclass(frozen=True)
class VersionRow:
    version: int
    by: str  # "" for the default rubric, which nobody wrote
    created: float | None


def rubric_versions(project_id: int) -> list[VersionRow]:
    """The project's versions, newest first, ending with the default rubric's version 1."""
    rows = (
        RubricVersion.objects.filter(project_id=project_id)
        .order_by("-version")
        .values_list("version", "by", "created")[:VERSIONS_LISTED]
    )
    listed = [VersionRow(version, by, created) for version, by, created in rows]
    if len(listed) < VERSIONS_LISTED:
        listed.append(VersionRow(DEFAULT_VERSION, "", None))
    return listed


def rubric_version(project_id: int, version: int) -> StoredRubric | None:
    """The project's rubric as version `version` had it, or None if it had no such version."""
    if version == DEFAULT_VERSION:
        return StoredRubric(DEFAULT_VERSION, default_rubric())
    questions = (
        RubricVersion.objects.filter(project_id=project_id, version=version)
        .values_list("questions", flat=True)
        .first()
    )
    if questions is None:
        return None
    return StoredRubric(version, Rubric.model_validate({"questions": orjson.loads(questions)}))
