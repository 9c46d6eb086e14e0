"""Whose evidence counts for which component: evidence is attributed to who reported it.

A principal whose role is in LEARNPORTAL_SPEAK_FOR_ALL_ROLES (environments, reviewers, admins by
default) speaks for every component. Any other (an agent) speaks for its own components only:
those it reported a call of before anyone else who does not speak for all (a ComponentOwner
row of the project, claimed at ingest, first come first served). Its experiences of another's component are
stored and counted as calls, but they are no evidence for adapt, and its adapts move only its own.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection

from core.columns import Columns
from core.projects.selection import project_pk
from feedback.models import ComponentOwner

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.accounts.principals import Principal
    from core.accounts.roles import Role

OWNER = Columns(ComponentOwner)


def speaks_for_all(role: Role | str) -> bool:
    return str(role) in settings.LEARNPORTAL_SPEAK_FOR_ALL_ROLES


def owners_of(project: int, names: Iterable[str]) -> dict[str, str]:
    """Each named component of the project's owner, for those that have one."""
    wanted = sorted(set(names) - {""})
    return dict(
        ComponentOwner.objects.filter(project=project, component_name__in=wanted).values_list(
            "component_name", "owner"
        )
    )


def owners_claim(project: int, owner: str, names: Iterable[str]) -> dict[str, str]:
    """Claim every component of `names` in the project that nobody owns yet for `owner` (one
    statement, in name order, so that concurrent batches take the rows in one order); the
    owners of all."""
    wanted = sorted(set(names) - {""})
    if wanted:
        table = connection.ops.quote_name(ComponentOwner._meta.db_table)
        now = time.time()
        key = f"{OWNER.project}, {OWNER.component_name}"
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {table} ({key}, {OWNER.owner}, {OWNER.claimed}) "
                f"VALUES (%s, %s, %s, %s) ON CONFLICT ({key}) DO NOTHING",
                [(project, name, owner, now) for name in wanted],
            )
    return owners_of(project, wanted)


def attributed_components(principal: Principal, names: Iterable[str]) -> set[str]:
    """Which of these components of its project `principal` may report calls of as evidence
    (claiming those nobody owns yet): every one for a role that speaks for all."""
    wanted = set(names) - {""}
    if speaks_for_all(principal.role):
        return wanted
    owners = owners_claim(project_pk(principal.project), principal.key, wanted)
    return {name for name in wanted if owners.get(name) == principal.key}


def spoken_for(principal: Principal, names: list[str]) -> list[str]:
    """The components of `names` (in their order, of its project) that `principal` may adapt:
    all of them for a role that speaks for all, else those it owns."""
    if speaks_for_all(principal.role):
        return list(names)
    owners = owners_of(project_pk(principal.project), names)
    return [name for name in names if owners.get(name) == principal.key]


def candidate_sets(project: int, names: list[str]) -> list[list[str]]:
    """The project's components grouped as runtimes choose among them: each owner's own, and
    those of no owner together; each group in the order of `names`."""
    owners = owners_of(project, names)
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(owners.get(name, ""), []).append(name)
    return list(groups.values())
