"""The comparisons' queue: each person is leased one comparison at a time to judge, by the
turns' rules (feedback.queue): distinct people as many as the project's ratings per turn, never
leased to more people at once than it still needs, nobody offered one they judged or skipped,
the most urgent first, a lease lasting the project's `lease_seconds`.

Each person sees the candidates in an order of their own (`shown_order`): drawn from the
comparison and the person, so that it is the same each time they are shown it and the
position a candidate had can be measured against how it fared (the leaderboard's position
bias).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection, transaction
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce, Greatest

from core.accounts.roles import Action
from core.projects.rules import lease_seconds, ratings_per_turn
from core.projects.selection import project_pk
from feedback.comparisons.models import (
    Candidate,
    Comparison,
    ComparisonLease,
    ComparisonSkip,
    Judgment,
)
from feedback.gold.comparisons import gold_comparison_due, is_gold_comparison
from feedback.gold.models import GoldComparison
from feedback.gold.queue import pause_check
from learnportal_protocol.errors import detail, not_found

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from core.accounts.principals import Principal

_gold_of_lease = GoldComparison.objects.filter(comparison=OuterRef("comparison"))
CLAIM_ATTEMPTS = 8  # as feedback.queue's: candidates found taken under the lock, passed over


@dataclass(frozen=True)
class ComparisonHeld:
    """The comparison a person holds until `expires`, and its candidates (id, response) in
    the order shown to them."""

    comparison: Comparison
    shown: list[tuple[str, str]]
    expires: float


def shown_order(comparison: int, candidates: list[str], username: str) -> list[str]:
    """The candidates in the order `username` sees them: a permutation of its own for each
    person and comparison, the same every time."""

    def draw(candidate: str) -> bytes:
        return hashlib.sha256(f"{comparison}\x00{username}\x00{candidate}".encode()).digest()

    return sorted(candidates, key=draw)


def candidates_shown(comparison: int, username: str) -> list[tuple[str, str]]:
    """The comparison's candidates (id, response), in the order shown to `username`."""
    rows = Candidate.objects.filter(comparison_id=comparison).values_list(
        "candidate_id", "response"
    )
    responses = dict(rows)
    return [(c, responses[c]) for c in shown_order(comparison, list(responses), username)]


def comparison_next(principal: Principal, *, now: float | None = None) -> ComparisonHeld | None:
    """Lease the next comparison to this person, or give back the one they hold; None when
    none is left for them."""
    principal.require(Action.QUEUE)
    now = time.time() if now is None else now
    who = principal.name
    project = project_pk(principal.project)
    pause_check(who, project)
    with transaction.atomic():
        held = (
            ComparisonLease.objects.select_related("comparison")
            .filter(username=who, expires__gt=now, comparison__project_id=project)
            .filter(Q(comparison__judgments_needed__gt=0) | Exists(_gold_of_lease))
            .first()
        )
        if held is not None:
            comparison, expires = held.comparison, held.expires
        else:
            claimed = gold_comparison_due(who, project) or _claim(who, project, now)
            if claimed is None:
                ComparisonLease.objects.filter(username=who).delete()
                return None
            comparison, expires = claimed, now + lease_seconds(project)
            ComparisonLease.objects.update_or_create(
                username=who, defaults={"comparison": comparison, "expires": expires}
            )
            _shown(comparison)
    return ComparisonHeld(comparison, candidates_shown(comparison.pk, who), expires)


def comparison_assign(comparison: Comparison, username: str, *, now: float | None = None) -> None:
    """Lease `comparison` to this person whatever the queue would offer them, in place of any
    lease they hold: an operator's hand-out (the demo's colleagues each judge comparisons past
    the judgments they need, which only a lease allows), as feedback.queue.queue_assign."""
    now = time.time() if now is None else now
    expires = now + lease_seconds(comparison.project_id)
    ComparisonLease.objects.update_or_create(
        username=username, defaults={"comparison": comparison, "expires": expires}
    )
    _shown(comparison)


def _shown(comparison: Comparison) -> None:
    if not comparison.shown:
        Comparison.objects.filter(pk=comparison.pk).update(shown=True)
        comparison.shown = True


def comparison_release(principal: Principal, comparison: int) -> None:
    """Give back the comparison this person holds, for someone else (or them, later)."""
    principal.require(Action.QUEUE)
    with transaction.atomic():
        if not _lease_ended(principal.name, comparison):
            raise _not_yours(comparison)


def comparison_skip(principal: Principal, comparison: int) -> None:
    """Pass on the comparison this person holds: it is never offered to them again."""
    principal.require(Action.QUEUE)
    with transaction.atomic():
        if not _lease_ended(principal.name, comparison):
            raise _not_yours(comparison)
        ComparisonSkip.objects.get_or_create(
            username=principal.name, comparison_id=comparison, defaults={"created": time.time()}
        )


def comparisons_recount(project: int) -> None:
    """Work out again the judgments each of the project's comparisons needs: after its
    ratings per turn changed (core.projects.rules.queue_rules_changed)."""
    judged = Subquery(
        Judgment.objects.filter(comparison=OuterRef("pk"))
        .order_by()
        .values("comparison")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )
    needed = Value(ratings_per_turn(project)) - Coalesce(judged, Value(0))
    Comparison.objects.filter(project_id=project).update(
        judgments_needed=Greatest(needed, Value(0))
    )


def live_holders(comparison: int, now: float) -> set[str]:
    """Who holds a live lease on the comparison."""
    leases = ComparisonLease.objects.filter(comparison_id=comparison, expires__gt=now)
    return set(leases.values_list("username", flat=True))


def lease_end(username: str, comparison: int) -> None:
    """End `username`'s lease on the comparison, if they hold one (they judged it)."""
    _lease_ended(username, comparison)


def _lease_ended(username: str, comparison: int) -> bool:
    deleted, _ = ComparisonLease.objects.filter(
        username=username, comparison_id=comparison
    ).delete()
    return bool(deleted)


def _not_yours(comparison: int) -> Exception:
    return not_found(
        f"You hold no lease on comparison {comparison}.",
        [detail(["comparison"], "not a comparison leased to you")],
    )


def _live_leases(now: float) -> Subquery:
    return Subquery(
        ComparisonLease.objects.filter(comparison=OuterRef("pk"), expires__gt=now)
        .order_by()
        .values("comparison")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )


def _candidates(who: str, project: int, now: float) -> QuerySet[Comparison]:
    judged = Judgment.objects.filter(comparison=OuterRef("pk"), annotator=who)
    skipped = ComparisonSkip.objects.filter(comparison=OuterRef("pk"), username=who)
    return (
        Comparison.objects.filter(project_id=project, judgments_needed__gt=0)
        .exclude(is_gold_comparison())
        .exclude(Exists(judged))
        .exclude(Exists(skipped))
        .alias(held=Coalesce(_live_leases(now), Value(0)))
        .filter(held__lt=F("judgments_needed"))
        .order_by("-priority", "id")
    )


def _claim(who: str, project: int, now: float) -> Comparison | None:
    """The comparison to lease to `who`, its row locked on PostgreSQL and its leases counted
    again under the lock (as feedback.queue claims a turn)."""
    passed: list[int] = []
    for _ in range(CLAIM_ATTEMPTS):
        found = _candidates(who, project, now).exclude(pk__in=passed)
        if connection.vendor == "postgresql":
            found = found.select_for_update(skip_locked=True, of=("self",))
        comparison = found.first()
        if comparison is None or connection.vendor != "postgresql":
            return comparison
        if len(live_holders(comparison.pk, now) - {who}) < comparison.judgments_needed:
            return comparison
        passed.append(comparison.pk)
    return None
