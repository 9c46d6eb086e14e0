"""A project's guidelines, versioned: the project's own markdown and each rubric question's, who
saved each version and when, and who has read which.

Saving makes a new version only when a text changed; `Project.guidelines` is the newest
version's own text, so the project's settings read as before. A project that asks for it
(`guidelines_ack_required`) has each person acknowledge its newest version before they rate
again: `guidelines_read_check` is that rule, which every rating passes through
(feedback.services.feedbacks).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import OuterRef, Subquery

from core.accounts.roles import Action
from core.line_diffs import DiffLine, line_diff
from core.projects.models import (
    GUIDELINES_LENGTH,
    MAX_QUESTION_GUIDELINES,
    QUESTION_GUIDELINES_LENGTH,
    QUESTION_KEY_PATTERN,
    GuidelinesAcknowledgement,
    GuidelinesVersion,
    Project,
)
from core.projects.selection import project_pk
from learnportal_protocol.errors import conflict, cut, detail, invalid, not_found

if TYPE_CHECKING:
    from core.accounts.principals import Principal

VERSION_FIELD = "guidelines_version"
PROJECT_TEXT = "guidelines"  # the project's own text, in a diff's file names
MAX_VERSION = 2**31 - 1  # what the column holds: a larger number names no version
VERSIONS_LISTED = 100  # the newest versions a list shows; any older one is read by its number
_QUESTION_KEY = re.compile(QUESTION_KEY_PATTERN)


@dataclass(frozen=True)
class Guidelines:
    """One version; version 0 is a project that has written none."""

    version: int
    text: str = ""
    questions: dict[str, str] = field(default_factory=dict)
    by: str = ""
    created: float | None = None


NONE_YET = Guidelines(0)


def _of(row: GuidelinesVersion) -> Guidelines:
    # What the column holds is read as it is shown: a text for each key, nothing else.
    stored = row.questions if isinstance(row.questions, dict) else {}
    questions = {k: v for k, v in stored.items() if isinstance(k, str) and isinstance(v, str)}
    return Guidelines(row.version, row.guidelines, questions, row.by, row.created)


def guidelines_current(project_id: int) -> Guidelines:
    """The project's newest version, or NONE_YET."""
    row = GuidelinesVersion.objects.filter(project_id=project_id).order_by("-version").first()
    return NONE_YET if row is None else _of(row)


def guidelines_at(project_id: int, version: int, *, none_yet: bool = True) -> Guidelines:
    """Version `version` of the project's guidelines (0: NONE_YET, unless `none_yet` is False),
    or `not_found` naming `version`."""
    if version == 0 and none_yet:
        return NONE_YET
    row = (
        GuidelinesVersion.objects.filter(project_id=project_id, version=version).first()
        if 0 < version <= MAX_VERSION
        else None
    )
    if row is None:
        raise not_found(
            f"The project has no guidelines version {version}.",
            [detail(["version"], "no such version")],
        )
    return _of(row)


def guidelines_history(project_id: int) -> list[Guidelines]:
    """The newest VERSIONS_LISTED versions, newest first, without their texts."""
    rows = (
        GuidelinesVersion.objects.filter(project_id=project_id)
        .order_by("-version")
        .values_list("version", "by", "created")[:VERSIONS_LISTED]
    )
    return [Guidelines(version, by=by, created=created) for version, by, created in rows]


def guidelines_checked(text: str, questions: dict[str, str]) -> dict[str, str]:
    """The questions' guidelines as stored (the empty ones left out), or `invalid` naming each
    bad field: `["guidelines"]`, `["questions"]` or `["questions", key]`."""
    problems = []
    if len(text) > GUIDELINES_LENGTH:
        problems.append(detail(["guidelines"], f"at most {GUIDELINES_LENGTH} characters"))
    if "\x00" in text:
        problems.append(detail(["guidelines"], "may not hold a NUL character"))
    kept = {key: said for key, said in questions.items() if said.strip()}
    if len(kept) > MAX_QUESTION_GUIDELINES:
        problems.append(detail(["questions"], f"at most {MAX_QUESTION_GUIDELINES} questions"))
    else:
        for key, said in kept.items():
            if not _QUESTION_KEY.fullmatch(key):
                problems.append(detail(["questions", cut(key, 40)], "not a question's key"))
            elif len(said) > QUESTION_GUIDELINES_LENGTH:
                problems.append(
                    detail(["questions", key], f"at most {QUESTION_GUIDELINES_LENGTH} characters")
                )
            elif "\x00" in said:
                problems.append(detail(["questions", key], "may not hold a NUL character"))
        if not problems and sum(map(len, kept.values())) > GUIDELINES_LENGTH:
            problems.append(detail(["questions"], f"at most {GUIDELINES_LENGTH} characters in all"))
    if problems:
        raise invalid("; ".join(str(p["msg"]) for p in problems), problems)
    return kept


def guidelines_save(
    *, project: Project, text: str, questions: dict[str, str], by: Principal
) -> Guidelines:
    """Make `text` and `questions` the project's next version, if either changed; the current
    version otherwise. Its author has read it. The caller has checked that `by` may."""
    kept = guidelines_checked(text, questions)
    with transaction.atomic():
        # One writer of a project's versions at a time: the project's row, locked.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        current = guidelines_current(project.pk)
        if (current.text, current.questions) == (text, kept):
            return current
        saved = GuidelinesVersion.objects.create(
            project=project,
            version=current.version + 1,
            guidelines=text,
            questions=kept,
            by=by.name,
            created=time.time(),
        )
        Project.objects.filter(pk=project.pk).update(guidelines=text)
        project.guidelines = text
        if by.is_human and by.user_id is not None:
            _acknowledged(project.pk, by.user_id, saved.version)
    return _of(saved)


def guidelines_replace(
    *, member: Principal, project: Project, text: str, questions: dict[str, str]
) -> Guidelines:
    """`guidelines_save` as a member asks it: the project's managers and site admins only."""
    member.require(Action.MANAGE_PROJECT)
    return guidelines_save(project=project, text=text, questions=questions, by=member)


def _acknowledged(project_id: int, user_id: int, version: int) -> None:
    GuidelinesAcknowledgement.objects.get_or_create(
        project_id=project_id, user_id=user_id, version=version, defaults={"created": time.time()}
    )


def guidelines_acknowledge(*, principal: Principal, project: Project, version: int) -> int | None:
    """Record that this person has read `version` (`not_found` naming it if there is none);
    answer the version they must still acknowledge before they rate, if any."""
    principal.require(Action.QUEUE)
    guidelines_at(project.pk, version, none_yet=False)
    assert principal.user_id is not None  # a person: only people take turns to rate
    _acknowledged(project.pk, principal.user_id, version)
    return guidelines_due(principal)


def guidelines_last_read(principal: Principal) -> int:
    """The newest version of its project's guidelines this person has acknowledged (0: none)."""
    if principal.user_id is None:
        return 0
    versions = GuidelinesAcknowledgement.objects.filter(
        project_id=project_pk(principal.project), user_id=principal.user_id
    ).values_list("version", flat=True)
    return max(versions, default=0)


def guidelines_due(principal: Principal) -> int | None:
    """The version of its project's guidelines this person must acknowledge before they rate
    again: the newest, where the project asks for it and they have not; None otherwise, and for
    a machine, which reads no guidelines."""
    if not principal.is_human or principal.user_id is None:
        return None
    newest = (
        GuidelinesVersion.objects.filter(project=OuterRef("pk"))
        .order_by("-version")
        .values("version")[:1]
    )
    version = (
        Project.objects.filter(pk=project_pk(principal.project), guidelines_ack_required=True)
        .annotate(newest=Subquery(newest))
        .values_list("newest", flat=True)
        .first()
    )
    if version is None:
        return None
    read = GuidelinesAcknowledgement.objects.filter(
        project_id=project_pk(principal.project), user_id=principal.user_id, version=version
    ).exists()
    return None if read else int(version)


def guidelines_read_check(principal: Principal) -> None:
    """The rule: a person who has not acknowledged the newest version of their project's
    guidelines, where the project asks for it, may not rate; `conflict` naming
    `guidelines_version`."""
    due = guidelines_due(principal)
    if due is not None:
        raise conflict(
            f"Read version {due} of the project's guidelines and acknowledge it before you rate "
            f"(POST /api/projects/{principal.project}/guidelines/acknowledge/ "
            f'{{"version": {due}}}).',
            [detail([VERSION_FIELD], f"version {due} is not acknowledged yet")],
        )


@dataclass(frozen=True)
class GuidelinesChange:
    """What changed in one text: the project's own guidelines (`key` empty) or a question's."""

    key: str
    lines: list[DiffLine]


def guidelines_changes(old: Guidelines, new: Guidelines) -> list[GuidelinesChange]:
    """Each text that differs from `old` to `new`, the project's first, then the questions' by
    key, as a unified line diff."""
    sections = [("", old.text, new.text)] + [
        (key, old.questions.get(key, ""), new.questions.get(key, ""))
        for key in sorted(old.questions.keys() | new.questions.keys())
    ]
    return [
        GuidelinesChange(
            key,
            line_diff(
                before,
                after,
                fromfile=f"v{old.version}/{key or PROJECT_TEXT}",
                tofile=f"v{new.version}/{key or PROJECT_TEXT}",
            ),
        )
        for key, before, after in sections
        if before != after
    ]
