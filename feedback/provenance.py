"""Who may claim which feedback source: taken from the credential, never from the body."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.accounts.roles import HUMAN_ROLES, Role
from learnportal_protocol import Feedback, FeedbackSource
from learnportal_protocol.errors import detail

if TYPE_CHECKING:
    from core.accounts.principals import Principal

# Every person speaks as `human`, whatever their role; each machine role as itself.
DEFAULT_SOURCE: dict[Role, FeedbackSource] = {
    Role.AGENT: FeedbackSource.SELF,
    Role.ENVIRONMENT: FeedbackSource.ENV,
} | dict.fromkeys(HUMAN_ROLES, FeedbackSource.HUMAN)

ALLOWED_SOURCES: dict[Role, frozenset[FeedbackSource]] = {
    Role.AGENT: frozenset({FeedbackSource.SELF}),
    Role.ENVIRONMENT: frozenset({FeedbackSource.SELF, FeedbackSource.ENV}),
} | dict.fromkeys(HUMAN_ROLES, frozenset({FeedbackSource.HUMAN}))


def provenance_of(
    principal: Principal, item: Feedback, index: int
) -> tuple[FeedbackSource, str, list[dict[str, Any]]]:
    """(source, annotator_id, problems) for one feedback item from this principal.

    A source left out means "whatever this credential is": an agent's `self`, an environment's
    `env`, a person's `human`. A person's username is always the annotator id.
    """
    source = item.source if "source" in item.model_fields_set else DEFAULT_SOURCE[principal.role]
    problems = []
    if source not in ALLOWED_SOURCES[principal.role]:
        problems.append(
            detail(
                ["feedbacks", index, "source"],
                f"the {principal.role.value} role may not send feedback with source "
                f"'{source.value}'",
            )
        )
    annotator_id = item.annotator_id
    if principal.is_human:
        if annotator_id and annotator_id != principal.name:
            problems.append(
                detail(
                    ["feedbacks", index, "annotator_id"],
                    f"annotator_id must be your username '{principal.name}' or empty",
                )
            )
        annotator_id = principal.name
    elif annotator_id and annotator_id != principal.name:
        problems.append(
            detail(
                ["feedbacks", index, "annotator_id"],
                f"annotator_id must be this token's name '{principal.name}' or empty",
            )
        )
    return source, annotator_id, problems
