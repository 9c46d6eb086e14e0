"""The annotators' queue: each person is leased one turn at a time to rate.

The rules (docs/contract.md, "The people's side"):
- a turn needs as many human ratings from distinct people as its project says
  (core.projects.rules); an agent's or environment's feedback never counts toward them;
- nobody is offered a turn they rated (a rating that counts) or skipped;
- a turn is never leased to more people at once than it still needs ratings;
- a lease lasts its project's `lease_seconds`, else LEARNPORTAL_LEASE_SECONDS; a person holds
  one lease at a time, and asking again while it lasts gives the same turn back; a human rating
  of the turn ends it (feedback.services.feedbacks);
- turns with negative `self`/`env` feedback or low-confidence ratings come first
  (feedback.queue_state);
- a person may undo their own rating for LEARNPORTAL_UNDO_SECONDS: a Retraction record beside it,
  never an edit, and the turn is leased back to them to rate again;
- gold items (feedback.gold) are mixed in at the project's rate, leased as any turn is, however
  many ratings they have; a person whose queue is paused by them is refused (`conflict`).

The same rules hold for steps (`queue_next(..., steps=kinds)`): each step of those kinds is a unit
of its own that needs the project's ratings per turn from distinct people (feedback.raters),
leased one to a person, the most urgent turn's first. A step's raters are counted when it is
offered (no kept count: the steps asked about are far fewer than the turns). And for sessions
(`queue_next(..., sessions=True)`, feedback.sessions): each session is a unit, leased through
the turn that begins it, the most urgent first.

One writer at a time per turn: on PostgreSQL the candidate turn's row is locked with
`SELECT ... FOR UPDATE SKIP LOCKED` (two people asking at once get different turns, neither
waits), then its live leases are counted again under that lock; on SQLite every transaction is
IMMEDIATE (learnportal/settings.py), so the whole of `queue_next` runs as the one writer.

The scan reads the turn's denormalised `ratings_needed` and `priority` through the partial index
`turn_queue_open`; nothing counts or offsets over the whole table.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from core.accounts.roles import Action
from core.columns import Columns
from core.events import broadcast_on_commit
from core.projects.rules import lease_seconds, ratings_per_turn
from core.projects.selection import project_pk
from feedback.assignments.rules import KeptFrom, kept_from
from feedback.bulk import insert_rows
from feedback.gold.models import GoldItem
from feedback.gold.queue import gold_due, pause_check
from feedback.models import (
    Feedback,
    Lease,
    Retraction,
    Skip,
    Turn,
    TurnStep,
)
from feedback.retractions import rating_rows_of, rating_take_back
from feedback.reviews.reads import overruled
from feedback.selectors.overview import live_counts
from feedback.selectors.visibility import counted_feedback
from feedback.sessions import SESSION_STEP, session_openers
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import conflict, detail, not_found

if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from django.db.models import QuerySet

    from core.accounts.principals import Principal

# A candidate found by the scan may turn out taken when counted again under its lock (another
# person's lease committed in between): try the next one, a few times, before saying "none".
CLAIM_ATTEMPTS = 8
# Most open turns `queue_progress` counts: past it, "10000 or more" (a count of the whole queue
# would grow with it).
PROGRESS_CAP = 10_000
LEASE = Columns(Lease)
LEASE_COLUMNS = LEASE("turn", "step_id", "username", "expires", "created")
# The same unit handed again while held keeps its start (SET reads the row as it was).
_HELD = Lease._meta.db_table
UPSERT_LEASE = (
    f"ON CONFLICT ({LEASE.username}) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in LEASE("turn", "step_id", "expires"))
    + f", {LEASE.created} = CASE WHEN {_HELD}.{LEASE.turn} = excluded.{LEASE.turn}"
    f" AND {_HELD}.{LEASE.step_id} = excluded.{LEASE.step_id}"
    f" AND {_HELD}.{LEASE.expires} > excluded.{LEASE.created}"
    f" THEN {_HELD}.{LEASE.created} ELSE excluded.{LEASE.created} END"
)
SKIP = Columns(Skip)
SKIP_COLUMNS = SKIP("turn", "step_id", "username", "created")
Unit = TypeVar("Unit", Turn, TurnStep)  # what a claim leases: a turn (or its session), a step


@dataclass(frozen=True)
class QueueLease:
    """The turn, the step of it, or the session it begins (`session`), a person holds, until
    `expires` (epoch seconds)."""

    turn: Turn
    expires: float
    step: TurnStep | None = None
    session: bool = False


@dataclass(frozen=True)
class QueueProgress:
    """`rated_today`: this person's counted ratings since midnight UTC; `left_for_me`: turns
    that still need ratings and that this person has neither rated nor skipped, counted up to
    PROGRESS_CAP (`left_at_least`: there are this many or more)."""

    rated_today: int
    left_for_me: int
    left_at_least: bool = False


def queue_next(
    principal: Principal,
    *,
    now: float | None = None,
    steps: Collection[str] = (),
    sessions: bool = False,
) -> QueueLease | None:
    """Lease the next turn to this person, or give back the one they hold; None when nothing
    is left for them. `steps`: the next step of one of these kinds instead (and the step lease
    they hold, of one of them); `sessions`: the next session (feedback.sessions)."""
    principal.require(Action.QUEUE)
    now = time.time() if now is None else now
    who = principal.name
    project = project_pk(principal.project)
    pause_check(who, project)
    with transaction.atomic():
        if sessions:
            return _next_session(who, project, now)
        if steps:
            return _next_step(who, project, now, sorted(steps))
        open_or_gold = Q(turn__ratings_needed__gt=0) | Exists(
            GoldItem.objects.filter(turn=OuterRef("turn"))
        )
        held = (
            Lease.objects.select_related("turn")
            .filter(open_or_gold, username=who, step_id="", expires__gt=now)
            .filter(turn__project_id=project)
            .first()
        )
        if held is not None:
            return QueueLease(turn=held.turn, expires=held.expires)
        turn = gold_due(who, project) or _claim(who, project, now)
        if turn is None:
            Lease.objects.filter(username=who).delete()
            return None
        expires = now + lease_seconds(project)
        _lease(turn, who, expires, now=now)
    return QueueLease(turn=turn, expires=expires)


def _next_step(who: str, project: int, now: float, kinds: list[str]) -> QueueLease | None:
    held = (
        Lease.objects.select_related("turn")
        .filter(username=who, expires__gt=now, turn__project_id=project)
        .exclude(step_id__in=("", SESSION_STEP))
        .first()
    )
    if held is not None:
        step = TurnStep.objects.filter(turn=held.turn, step_id=held.step_id, kind__in=kinds).first()
        if step is not None:
            return QueueLease(turn=held.turn, expires=held.expires, step=step)
    step = _claim_step(who, project, now, kinds)
    if step is None:
        Lease.objects.filter(username=who).delete()
        return None
    expires = now + lease_seconds(project)
    _lease(step.turn, who, expires, step.step_id, now=now)
    return QueueLease(turn=step.turn, expires=expires, step=step)


def _next_session(who: str, project: int, now: float) -> QueueLease | None:
    held = (
        Lease.objects.select_related("turn")
        .filter(username=who, step_id=SESSION_STEP, expires__gt=now, turn__project_id=project)
        .first()
    )
    if held is not None:
        return QueueLease(turn=held.turn, expires=held.expires, session=True)
    turn = _claim_session(who, project, now)
    if turn is None:
        Lease.objects.filter(username=who).delete()
        return None
    expires = now + lease_seconds(project)
    _lease(turn, who, expires, SESSION_STEP, now=now)
    return QueueLease(turn=turn, expires=expires, session=True)


def queue_assign(
    turn: Turn, username: str, *, step_id: str = "", now: float | None = None
) -> QueueLease:
    """Lease `turn` (or its step `step_id`) to this person whatever the queue would offer
    them, in place of any lease they hold: an operator's hand-out (the demo's colleagues each
    rate turns past the ratings they need, which only a lease allows: feedback.raters), and a
    reviewer's amendment, a rating in place of another's."""
    now = time.time() if now is None else now
    expires = now + lease_seconds(turn.project_id)
    _lease(turn, username, expires, step_id, now=now)
    return QueueLease(turn=turn, expires=expires)


def queue_release(principal: Principal, turn_id: int, step_id: str = "") -> None:
    """Give back the turn (or its step) this person holds, for someone else (or them, later)
    to rate."""
    principal.require(Action.QUEUE)
    with transaction.atomic():
        deleted, _ = Lease.objects.filter(
            username=principal.name, turn_id=turn_id, step_id=step_id
        ).delete()
    if not deleted:
        raise _not_yours(turn_id)


def queue_skip(principal: Principal, turn_id: int, step_id: str = "") -> None:
    """Pass on the turn (or its step) this person holds: it is never offered to them again."""
    principal.require(Action.QUEUE)
    with transaction.atomic():
        deleted, _ = Lease.objects.filter(
            username=principal.name, turn_id=turn_id, step_id=step_id
        ).delete()
        if not deleted:
            raise _not_yours(turn_id)
        insert_rows(
            Skip,
            SKIP_COLUMNS,
            [(turn_id, step_id, principal.name, time.time())],
            on_conflict=f"ON CONFLICT ({SKIP.username}, {SKIP.turn}, {SKIP.step_id}) DO NOTHING",
        )


def queue_undo(principal: Principal, feedback_id: str) -> Turn:
    """Undo this person's own rating, within LEARNPORTAL_UNDO_SECONDS of its arrival.

    The rating stays stored; a Retraction beside it makes it stop counting (in the turn's
    ratings, the component's score, every read through `counted_feedback`). The turn needs that
    rating again and is leased back to this person, so that they rate it anew.
    """
    principal.require(Action.QUEUE)
    now = time.time()
    window = settings.LEARNPORTAL_UNDO_SECONDS
    with transaction.atomic():
        project = project_pk(principal.project)
        rating = (
            Feedback.objects.select_for_update()
            .filter(
                project_id=project,
                feedback_id=feedback_id,
                source=FeedbackSource.HUMAN.value,
                annotator_id=principal.name,
            )
            .first()
        )
        if rating is None:
            raise not_found(
                f"You have no rating with feedback_id {feedback_id!r}.",
                [detail(["feedback_id"], "not a rating of yours")],
            )
        if Retraction.objects.filter(feedback=rating).exists():
            raise conflict(
                f"The rating {feedback_id!r} is undone already.",
                [detail(["feedback_id"], "undone already")],
            )
        if now - rating.received > window:
            raise conflict(
                f"A rating can be undone for {window} seconds after it is sent; "
                f"{feedback_id!r} was sent {now - rating.received:.0f} seconds ago.",
                [detail(["feedback_id"], f"older than {window} seconds")],
            )
        turn = Turn.objects.filter(project_id=project, correlation_id=rating.correlation_id).first()
        if not rating.correlation_id or turn is None:
            raise not_found(
                f"The rating {feedback_id!r} rates no queued turn.",
                [detail(["feedback_id"], "rates no queued turn")],
            )
        undone = rating_take_back(project, rating_rows_of(rating), by=principal.name, now=now)
        mine = _my_ratings(principal.name, project, step_id=rating.step_id)
        if not mine.filter(correlation_id=turn.correlation_id).exists():
            _lease(
                turn,
                principal.name,
                now + lease_seconds(turn.project_id),
                rating.step_id,
                now=now,
            )
        turn.refresh_from_db()
        broadcast_on_commit(
            "feedback.retracted",
            {"count": len(undone), "components": [rating.component_name], "by": principal.name},
            project=principal.project,
            audience=Action.STATS,
            totals=partial(live_counts, project),
        )
    return turn


def queue_progress(principal: Principal, *, now: float | None = None) -> QueueProgress:
    """How far this person is: their ratings today, and what is left for them.

    Cheap at any size: `rated_today` walks the index of this person's ratings from midnight;
    `left_for_me` counts the open turns through the partial index `turn_queue_open`, at most
    PROGRESS_CAP of them beyond those this person rated or skipped (their own rows, never the
    whole table). Past the cap it is PROGRESS_CAP with `left_at_least` set: "10000 or more".
    """
    principal.require(Action.QUEUE)
    now = time.time() if now is None else now
    who = principal.name
    today = datetime.fromtimestamp(now, tz=UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    project = project_pk(principal.project)
    mine = _my_ratings(who, project, step_id=None)
    rated_today = mine.filter(received__gte=today.timestamp(), received__lte=now).count()
    open_turns = Turn.objects.filter(
        project_id=project, ratings_needed__gt=0, admitted=True
    ).order_by()
    skips = Skip.objects.filter(username=who, step_id="")
    skipped = open_turns.filter(pk__in=skips.values("turn_id"))
    done = set(skipped.values_list("pk", flat=True))
    if ratings_per_turn(project) > 1:
        # With one rating a turn, a turn this person rated is closed: none of theirs is open.
        rated = open_turns.filter(
            correlation_id__in=mine.filter(step_id="").values("correlation_id")
        )
        done |= set(rated.values_list("pk", flat=True))
    counted = open_turns[: PROGRESS_CAP + len(done)].count()
    return QueueProgress(
        rated_today=rated_today,
        left_for_me=max(0, counted - len(done)),
        left_at_least=counted == PROGRESS_CAP + len(done),
    )


def queue_held(principal: Principal, turn_id: int, *, now: float | None = None) -> float | None:
    """When this person's live lease on `turn_id` expires; None if they hold none on it."""
    now = time.time() if now is None else now
    return (
        Lease.objects.filter(username=principal.name, turn_id=turn_id, expires__gt=now)
        .values_list("expires", flat=True)
        .first()
    )


def _my_ratings(who: str, project: int, *, step_id: str | None = "") -> QuerySet[Feedback]:
    """This person's counted ratings of the project: of whole turns (`step_id` ""), of one step
    id, or of anything (None)."""
    mine = counted_feedback(project).filter(source=FeedbackSource.HUMAN.value, annotator_id=who)
    return mine if step_id is None else mine.filter(step_id=step_id)


def _not_yours(turn_id: int) -> Exception:
    return not_found(
        f"You hold no lease on turn {turn_id}.",
        [detail(["turn"], "not a turn leased to you")],
    )


def _live_leases(now: float) -> Subquery:
    return Subquery(
        Lease.objects.filter(turn=OuterRef("pk"), step_id="", expires__gt=now)
        .values("turn")
        .annotate(held=Count("pk"))
        .values("held"),
        output_field=IntegerField(),
    )


def _candidates(who: str, project: int, now: float, kept: KeptFrom) -> QuerySet[Turn]:
    """Turns of `project` this person may be leased, most urgent first: open, neither rated nor
    skipped by them, no gold item (those come at their own rate: `gold_due`), not kept for
    others (feedback.assignments), and held by fewer people than they still need."""
    mine = _my_ratings(who, project).filter(correlation_id=OuterRef("correlation_id"))
    skipped = Skip.objects.filter(turn=OuterRef("pk"), step_id="", username=who)
    overruled_here = overruled(who, project, key=OuterRef("correlation_id"), step_id="")
    return (
        Turn.objects.filter(project_id=project, ratings_needed__gt=0, admitted=True)
        .filter(kept.allows())
        .exclude(Exists(mine))
        .exclude(Exists(skipped))
        .exclude(Exists(overruled_here))
        .exclude(Exists(GoldItem.objects.filter(turn=OuterRef("pk"))))
        .alias(held=Coalesce(_live_leases(now), Value(0)))
        .filter(held__lt=F("ratings_needed"))
        .order_by("-priority", "id")
    )


def _claim(who: str, project: int, now: float) -> Turn | None:
    """The turn to lease to `who`, with its row locked on PostgreSQL; None if none is left."""
    passed: list[int] = []
    kept = kept_from(who, project)
    for _ in range(CLAIM_ATTEMPTS):
        candidates = _candidates(who, project, now, kept).exclude(pk__in=passed)
        if connection.vendor == "postgresql":
            candidates = candidates.select_for_update(skip_locked=True, of=("self",))
        turn = candidates.first()
        if turn is None or connection.vendor != "postgresql":
            return turn
        # Counted again in a statement of its own: the scan's snapshot may predate a lease
        # that another person committed just before we took the lock.
        held = (
            Lease.objects.filter(turn=turn, step_id="", expires__gt=now)
            .exclude(username=who)
            .count()
        )
        if held < turn.ratings_needed:
            return turn
        passed.append(turn.pk)
    return None


def _unit_raters(
    project: int, now: float, *, key: OuterRef, step_id: str | OuterRef, turn: OuterRef
) -> tuple[QuerySet[Feedback], Subquery, Subquery]:
    """For a unit of the outer query (of `project`; its turn's correlation_id `key`, its step
    id, its turn): its counted human ratings, the number of distinct people they are from, and
    its live leases."""
    ratings = counted_feedback(project).filter(
        source=FeedbackSource.HUMAN.value, correlation_id=key, step_id=step_id
    )
    people = ratings.order_by().values("step_id").annotate(n=Count("annotator_id", distinct=True))
    leases = Lease.objects.filter(turn=turn, step_id=step_id, expires__gt=now)
    held = leases.order_by().values("step_id").annotate(n=Count("pk"))
    return (
        ratings,
        Subquery(people.values("n"), output_field=IntegerField()),
        Subquery(held.values("n"), output_field=IntegerField()),
    )


def _step_raters(project: int, now: float) -> tuple[QuerySet[Feedback], Subquery, Subquery]:
    return _unit_raters(
        project,
        now,
        key=OuterRef("turn__correlation_id"),
        step_id=OuterRef("step_id"),
        turn=OuterRef("turn"),
    )


def _session_raters(project: int, now: float) -> tuple[QuerySet[Feedback], Subquery, Subquery]:
    return _unit_raters(
        project, now, key=OuterRef("correlation_id"), step_id=SESSION_STEP, turn=OuterRef("pk")
    )


def _step_candidates(
    who: str, project: int, now: float, kinds: list[str], kept: KeptFrom
) -> QuerySet[TurnStep]:
    """Steps of these kinds in `project` this person may be leased, the most urgent turn's
    first: neither rated nor skipped by them, of a turn not kept for others, and with fewer
    people rating or holding them than the project's ratings per turn."""
    ratings, people, held = _step_raters(project, now)
    skipped = Skip.objects.filter(turn=OuterRef("turn"), step_id=OuterRef("step_id"), username=who)
    overruled_here = overruled(
        who, project, key=OuterRef("turn__correlation_id"), step_id=OuterRef("step_id")
    )
    return (
        TurnStep.objects.select_related("turn")
        .filter(turn__project_id=project, turn__admitted=True, kind__in=kinds)
        .filter(kept.allows("turn__component_name", "turn"))
        .exclude(Exists(ratings.filter(annotator_id=who)))
        .exclude(Exists(skipped))
        .exclude(Exists(overruled_here))
        .alias(taken=Coalesce(people, Value(0)) + Coalesce(held, Value(0)))
        .filter(taken__lt=ratings_per_turn(project))
        .order_by("-turn__priority", "turn_id", F("start").asc(nulls_last=True), "id")
    )


def _session_candidates(who: str, project: int, now: float, kept: KeptFrom) -> QuerySet[Turn]:
    """The turns that begin a session of `project` whose session this person may be leased,
    as `_step_candidates` a step: the session with the most urgent of its turns first."""
    ratings, people, held = _session_raters(project, now)
    skipped = Skip.objects.filter(turn=OuterRef("pk"), step_id=SESSION_STEP, username=who)
    overruled_here = overruled(who, project, key=OuterRef("correlation_id"), step_id=SESSION_STEP)
    its_turns = Turn.objects.filter(project_id=project, session_id=OuterRef("session_id"))
    urgency = Subquery(its_turns.order_by("-priority").values("priority")[:1])
    return (
        session_openers(project)
        .filter(admitted=True)
        .filter(kept.allows())
        .exclude(Exists(ratings.filter(annotator_id=who)))
        .exclude(Exists(skipped))
        .exclude(Exists(overruled_here))
        .alias(taken=Coalesce(people, Value(0)) + Coalesce(held, Value(0)), urgency=urgency)
        .filter(taken__lt=ratings_per_turn(project))
        .order_by("-urgency", "id")
    )


def _claim_step(who: str, project: int, now: float, kinds: list[str]) -> TurnStep | None:
    """The step to lease to `who`, its row locked on PostgreSQL (as `_claim` a turn's)."""
    kept = kept_from(who, project)
    return _claim_unit(
        lambda passed: _step_candidates(who, project, now, kinds, kept).exclude(pk__in=passed),
        _step_raters(project, now),
        ratings_per_turn(project),
    )


def _claim_session(who: str, project: int, now: float) -> Turn | None:
    """The turn whose session to lease to `who`, its row locked on PostgreSQL."""
    kept = kept_from(who, project)
    return _claim_unit(
        lambda passed: _session_candidates(who, project, now, kept).exclude(pk__in=passed),
        _session_raters(project, now),
        ratings_per_turn(project),
    )


def _claim_unit(
    candidates: Callable[[list[int]], QuerySet[Unit]],
    raters: tuple[QuerySet[Feedback], Subquery, Subquery],
    needed: int,
) -> Unit | None:
    """The first of `candidates` (all but those passed) with fewer people rating or holding it
    than `needed`, its row locked on PostgreSQL and counted again under the lock (as `_claim`
    a turn)."""
    passed: list[int] = []
    _, people, held = raters
    for _ in range(CLAIM_ATTEMPTS):
        found = candidates(passed)
        if connection.vendor == "postgresql":
            found = found.select_for_update(skip_locked=True, of=("self",))
        unit = found.first()
        if unit is None or connection.vendor != "postgresql":
            return unit
        taken = (
            type(unit)
            .objects.filter(pk=unit.pk)
            .annotate(taken=Coalesce(people, Value(0)) + Coalesce(held, Value(0)))
            .values_list("taken", flat=True)
            .get()
        )
        if taken < needed:
            return unit
        passed.append(unit.pk)
    return None


def _lease(turn: Turn, who: str, expires: float, step_id: str = "", *, now: float) -> None:
    """Give `turn` (or its step `step_id`) to `who` from `now` until `expires`, in place of any
    lease they held."""
    insert_rows(
        Lease, LEASE_COLUMNS, [(turn.pk, step_id, who, expires, now)], on_conflict=UPSERT_LEASE
    )
