"""Comparisons the host forms from turns, where a project asks for them (`compare_turns`): the
turns of one session that answer one prompt, from two or more components, are the candidates
of one comparison (each component's first such turn), formed in the transaction that stores the
turn that makes a second component.

A comparison formed is known by a key of its session and prompt (`comparison_id`
`turns-<hash>`), so the same turns never form two. A later component joins it while nobody has
been shown it (leased, even if given back) and it has room (`LEARNPORTAL_MAX_CANDIDATES`);
after that it stays as it was shown.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection
from django.db.models import Min

from core.projects.rules import compare_turns, ratings_per_turn
from feedback.comparisons.models import Candidate, Comparison, Judgment
from feedback.models import Turn

if TYPE_CHECKING:
    from collections.abc import Collection

FORMED_BY = "the host"
KEY_PREFIX = "turns-"


def formed_key(session_id: str, prompt: str) -> str:
    digest = hashlib.sha256(f"{session_id}\x00{prompt}".encode()).hexdigest()
    return f"{KEY_PREFIX}{digest[:40]}"


def comparisons_from_turns(project: int, correlation_ids: Collection[str]) -> int:
    """Form or extend the comparisons the project's newly stored turns `correlation_ids` make
    (inside the transaction that stored them): how many candidates were added."""
    if not correlation_ids or not compare_turns(project):
        return 0
    in_project = Turn.objects.filter(project_id=project)
    new = in_project.filter(correlation_id__in=correlation_ids).exclude(session_id="")
    asked = set(new.values_list("session_id", "prompt"))
    if not asked:
        return 0
    keys = {formed_key(*pair): pair for pair in asked}
    _lock(sorted(keys))
    sessions, prompts = {s for s, _ in asked}, {p for _, p in asked}
    # Each (session, prompt)'s components with the first turn each gave, in that order: one
    # row a component, whatever the session holds.
    firsts = (
        in_project.filter(session_id__in=sessions, prompt__in=prompts)
        .exclude(component_name="")
        .values("session_id", "prompt", "component_name")
        .annotate(first=Min("id"))
        .values_list("session_id", "prompt", "first")
    )
    wanted_ids = [first for session, prompt, first in firsts if (session, prompt) in asked]
    turns = in_project.filter(pk__in=wanted_ids).order_by("id")
    groups: dict[str, dict[str, Turn]] = {}
    for turn in turns.only("id", "session_id", "prompt", "component_name", "model", "response"):
        groups.setdefault(formed_key(turn.session_id, turn.prompt), {})[turn.component_name] = turn
    wanted = {key: (keys[key][1], by) for key, by in groups.items() if len(by) > 1}
    return _formed(project, wanted)


def _lock(keys: list[str]) -> None:
    """On PostgreSQL, hold each key's advisory lock until commit, in key order: two requests
    storing two components' turns of one prompt at once then form its comparison one after the
    other, the second seeing the first's turn (SQLite has one writer)."""
    if connection.vendor != "postgresql" or not keys:
        return
    with connection.cursor() as cursor:
        for key in keys:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])


def _formed(project: int, wanted: dict[str, tuple[str, dict[str, Turn]]]) -> int:
    if not wanted:
        return 0
    most = settings.LEARNPORTAL_MAX_CANDIDATES
    # Locked: a lease taken meanwhile (feedback.comparisons.queue claims the row) is seen.
    stored = {
        c.comparison_id: c
        for c in Comparison.objects.select_for_update().filter(
            project_id=project, comparison_id__in=wanted
        )
    }
    judged = set(
        Judgment.objects.filter(comparison__in=stored.values()).values_list(
            "comparison_id", flat=True
        )
    )
    present: dict[int, list[str]] = {}
    for comparison, component in Candidate.objects.filter(
        comparison__in=stored.values()
    ).values_list("comparison_id", "component_name"):
        present.setdefault(comparison, []).append(component)
    now = time.time()
    made = [
        Comparison(
            project_id=project,
            comparison_id=key,
            prompt=prompt,
            submitted_by=FORMED_BY,
            created=now,
            judgments_needed=ratings_per_turn(project),
        )
        for key, (prompt, _) in wanted.items()
        if key not in stored
    ]
    Comparison.objects.bulk_create(made)
    candidates: list[Candidate] = []
    for row in made:
        turns = list(wanted[row.comparison_id][1].values())[:most]
        candidates += [_candidate(row, position, turn) for position, turn in enumerate(turns)]
    for key, row in stored.items():
        # Shown to someone, judged, or someone's own comparison: it stays as it is.
        if row.shown or row.pk in judged or row.submitted_by != FORMED_BY:
            continue
        have = present.get(row.pk, [])
        joining = [t for name, t in wanted[key][1].items() if name not in have]
        room = max(0, most - len(have))
        candidates += [
            _candidate(row, len(have) + i, turn) for i, turn in enumerate(joining[:room])
        ]
    Candidate.objects.bulk_create(candidates)
    return len(candidates)


def _candidate(comparison: Comparison, position: int, turn: Turn) -> Candidate:
    return Candidate(
        comparison=comparison,
        candidate_id=uuid.uuid4().hex,
        position=position,
        response=turn.response,
        component_name=turn.component_name,
        model=turn.model,
        turn_id=turn.pk,
    )
