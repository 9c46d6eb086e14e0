"""The projects bench's database, inside the app's process (bench/child.py): projects, rubrics and
members through the product's services; turns, ratings and their feedback rows in bulk, each
rating's rows made by the ratings service's own pieces (answers checked and normalised, scores,
the feedback items, their provenance, hash and row), so that they are the rows it would store.

`child_build` writes a project a chunk of turns at a time (memory bounded by the chunk), then
recounts what the feedback service keeps at ingest, as `manage.py feedback_recount` does, and
`verify` checks the result against the services themselves.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from bench.annotation.build import analyze, bulk_load, recount
from bench.harness.databases import BenchError
from bench.harness.report import log
from bench.teams.data import RUBRICS, ProjectData, ProjectPlan, TurnDraw, answers_for, plan

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from core.projects.models import Project
    from feedback.models import Turn
    from feedback.rubrics.questions import Rubric

# Fields of a feedback row that depend on when and under which id it was stored.
STAMPS = frozenset({"feedback_id", "ts", "received", "content_hash"})


@dataclass
class Team:
    """One project as built: its row, the rubric it rates on now and its people."""

    plan: ProjectPlan
    project: Project
    rubric: Rubric
    version: int
    people: dict[str, Principal]  # annotators, by username

    def person(self, name: str) -> Principal:
        return self.people[name]


def _users(names: set[str]) -> dict[str, Any]:
    from django.contrib.auth.hashers import make_password

    from core.accounts.models import User

    have = {u.username: u for u in User.objects.filter(username__in=names)}
    missing = [User(username=n, password=make_password(None)) for n in sorted(names - set(have))]
    User.objects.bulk_create(missing)
    return {u.username: u for u in User.objects.filter(username__in=names)}


def teams_make(plans: list[ProjectPlan]) -> list[Team]:
    """Each planned project, its settings, members and rubric, through the product's services."""
    from core.accounts.principals import principal_for_user
    from core.projects.selection import principal_in
    from core.projects.services import member_set, project_add, project_update
    from feedback.services.rubrics import rubric_current, rubric_replace

    users = _users(
        {n for p in plans for n in (*p.annotators, p.reviewer, p.manager)}  # one pool
    )
    teams = []
    for spec in plans:
        project = project_add(slug=spec.slug, name=f"Team {spec.index + 1} ({spec.rubric})")
        member_set(project=project, person=users[spec.manager], role="manager")
        member_set(project=project, person=users[spec.reviewer], role="reviewer")
        for name in spec.annotators:
            member_set(project=project, person=users[name], role="annotator")
        manager = principal_in(principal_for_user(users[spec.manager]), spec.slug)
        project = project_update(
            project=project,
            changes={"ratings_per_turn": spec.ratings_per_turn, "blind": spec.blind},
            member=manager,
        )
        questions = RUBRICS[spec.rubric]
        if questions is not None:
            rubric_replace(member=manager, project=project, data=questions)
        stored = rubric_current(project.pk)
        people = {
            name: principal_in(principal_for_user(users[name]), spec.slug)
            for name in spec.annotators
        }
        teams.append(Team(spec, project, stored.rubric, stored.version, people))
    return teams


def rating_rows(
    team: Team,
    turn: Turn,
    person: str,
    answers: dict[str, Any],
    remarks: tuple[str, str, tuple[int, int] | None],
    *,
    rating_id: str,
    ts: float,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The Rating row and the feedback rows that `rating_record` stores for this rating (but
    its id and time, given here), by the service's own pieces."""
    from feedback.idempotency import content_hash
    from feedback.provenance import provenance_of
    from feedback.rubrics.answers import answers_clean
    from feedback.rubrics.scores import scores_of
    from feedback.services.ratings import Remarks, rating_feedbacks
    from feedback.services.rows import FEEDBACK_COLUMNS, feedback_row

    principal = team.person(person)
    clean = answers_clean(team.rubric, answers, response=turn.response)
    scores = scores_of(team.rubric, clean)
    comment, correction, span = remarks
    items = rating_feedbacks(turn, rating_id, scores, Remarks(comment, correction, span))
    rows = []
    for index, item in enumerate(items):
        source, annotator_id, problems = provenance_of(principal, item, index)
        if problems or not item.component_name:
            raise BenchError(f"a generated rating is one the service refuses: {problems}")
        resolved = {"source": source.value, "annotator_id": annotator_id}
        row = feedback_row(
            item,
            component=item.component_name,
            source=source,
            annotator_id=annotator_id,
            owner=principal.key,
            content_hash=content_hash(item, principal.key, resolved),
            received=ts,
            project=team.project.pk,
        )
        rows.append(dict(zip(FEEDBACK_COLUMNS, row, strict=True)) | {"ts": ts})
    rating = {
        "rating_id": rating_id,
        "project_id": team.project.pk,
        "turn_id": turn.pk,
        "annotator": person,
        "rubric_version": team.version,
        "answers": orjson.dumps(clean).decode(),
        "comment": comment,
        "correction": correction,
        "span_start": span[0] if span else None,
        "span_end": span[1] if span else None,
        "ts": ts,
    }
    return rating, rows


def _turns_load(team: Team, draws: list[TurnDraw]) -> list[Turn]:
    """The chunk's turns written, and read back as (unsaved-looking) model instances with ids:
    ids are handed out in insertion order, so the new ones are the chunk's, in order."""
    from django.db.models import Max

    from feedback.models import Turn

    pk = team.project.pk
    last = Turn.objects.aggregate(last=Max("id"))["last"] or 0
    bulk_load(Turn, [d.fields | {"project_id": pk} for d in draws])
    ids = list(Turn.objects.filter(id__gt=last).order_by("id").values_list("id", flat=True))
    if len(ids) != len(draws):
        raise BenchError(f"{team.plan.slug}: wrote {len(draws)} turns, read back {len(ids)}")
    return [Turn(pk=i, project_id=pk, **d.fields) for i, d in zip(ids, draws, strict=True)]


def _project_load(team: Team, seed: int, chunk: int) -> dict[str, int]:
    from feedback.models import Feedback, Rating

    data = ProjectData(team.plan, seed)
    counts = {"turns": 0, "ratings": 0, "feedback": 0}
    n = 0
    for draws in data.turns(chunk):
        turns = _turns_load(team, draws)
        ratings: list[dict[str, Any]] = []
        feedback: list[dict[str, Any]] = []
        for turn, draw in zip(turns, draws, strict=True):
            for person in draw.raters:
                answers = answers_for(team.plan.questions, draw, person, data.rng)
                rating, rows = rating_rows(
                    team,
                    turn,
                    person,
                    answers,
                    data.remarks(turn.response),
                    rating_id=f"{data.rng.getrandbits(128):032x}",
                    ts=data.rated_at(draw),
                )
                ratings.append(rating)
                feedback += rows
                n += 1
        bulk_load(Rating, ratings)
        bulk_load(Feedback, feedback)
        counts["turns"] += len(turns)
        counts["ratings"] += len(ratings)
        counts["feedback"] += len(feedback)
    return counts


def child_projects(*, projects: int, ratings: int, seed: int) -> dict[str, Any]:
    """Only the projects, their rubrics and members (the ingest comparison's database)."""
    teams = teams_make(plan(projects, ratings, seed))
    return {"projects": [t.plan.slug for t in teams]}


def child_build(*, projects: int, ratings: int, seed: int, chunk: int = 5000) -> dict[str, Any]:
    """Every project and its ratings; then the moments and counters recounted, statistics."""
    plans = plan(projects, ratings, seed)
    t0 = time.perf_counter()
    teams = teams_make(plans)
    made: dict[str, Any] = {}
    for team in teams:
        made[team.plan.slug] = _project_load(team, seed, chunk) | {
            "rubric": team.plan.rubric,
            "ratings_per_turn": team.plan.ratings_per_turn,
            "annotators": len(team.plan.annotators),
        }
        c = made[team.plan.slug]
        log(
            f"projects: {team.plan.slug} ({team.plan.rubric}): {c['turns']:,} turns, "
            f"{c['ratings']:,} ratings, {c['feedback']:,} feedback rows"
        )
    inserted = time.perf_counter() - t0
    t1 = time.perf_counter()
    recount()
    recounted = time.perf_counter() - t1
    analyze()
    totals = {k: sum(c[k] for c in made.values()) for k in ("turns", "ratings", "feedback")}
    return {
        "projects": made,
        **totals,
        "insert_s": inserted,
        "recount_s": recounted,
        "rows_s": (totals["turns"] + totals["ratings"] + totals["feedback"]) / inserted,
        "verified": verify(plans, seed),
    }


def verify(plans: list[ProjectPlan], seed: int, sample: int = 40) -> dict[str, Any]:
    """The built data checked through the product: each project's counted ratings; the queue
    fields of a sample of turns as the feedback service works them out; and, in one project of
    each rubric, a new rating given through `rating_record` (rolled back) stored as the rows
    `rating_rows` makes of the same answers."""
    from feedback.facts import stored_facts
    from feedback.models import Turn
    from feedback.queue_state import queue_fields_of
    from feedback.selectors.ratings import counted_ratings

    teams = {t.plan.slug: t for t in _teams_read(plans)}
    rng = random.Random(seed)
    checked: dict[str, Any] = {"ratings": 0, "queue_fields": 0, "ratings_by_service": []}
    for spec in plans:
        team = teams[spec.slug]
        counted = counted_ratings(team.project.pk).count()
        if counted != spec.ratings:
            raise BenchError(f"{spec.slug}: {counted} ratings count, {spec.ratings} planned")
        checked["ratings"] += counted
        turns = list(Turn.objects.filter(project_id=team.project.pk).order_by("?")[:sample])
        keys = {t.correlation_id: team.project.pk for t in turns}
        fields = queue_fields_of(keys, stored_facts(team.project.pk, keys))
        wrong = [t.pk for t in turns if fields[t.correlation_id] != (t.ratings_needed, t.priority)]
        if wrong:
            raise BenchError(
                f"{spec.slug}: turns {wrong[:5]} have queue fields the service disowns"
            )
        checked["queue_fields"] += len(turns)
    first_of_kind = {p.rubric: p for p in reversed(plans)}  # the largest project of each
    for spec in first_of_kind.values():
        checked["ratings_by_service"].append(_rated_as_the_service_rates(teams[spec.slug], rng))
    return checked


def _teams_read(plans: list[ProjectPlan]) -> list[Team]:
    from core.accounts.models import User
    from core.accounts.principals import principal_for_user
    from core.projects.models import Project
    from core.projects.selection import principal_in
    from feedback.services.rubrics import rubric_current

    out = []
    for spec in plans:
        project = Project.objects.get(slug=spec.slug)
        stored = rubric_current(project.pk)
        users = User.objects.filter(username__in=spec.annotators)
        people = {u.username: principal_in(principal_for_user(u), spec.slug) for u in users}
        out.append(Team(spec, project, stored.rubric, stored.version, people))
    return out


def _rated_as_the_service_rates(team: Team, rng: random.Random) -> str:
    from django.db import transaction

    from feedback.models import Feedback, Rating, Turn
    from feedback.services.ratings import Remarks, rating_record

    pk = team.project.pk
    for turn in Turn.objects.filter(project_id=pk, ratings_needed__gt=0).order_by("id")[:50]:
        rated = set(Rating.objects.filter(turn=turn).values_list("annotator", flat=True))
        person = next((p for p in team.plan.annotators if p not in rated), None)
        if person is not None:
            break
    else:
        raise BenchError(f"{team.plan.slug}: no open turn left that someone may rate")
    draw = TurnDraw(fields={"response": turn.response}, raters=[], truth=0.3, flavour=4)
    answers = answers_for(team.plan.questions, draw, person, rng)
    remarks = ("Close, not quite.", "Say so plainly.", (0, min(5, len(turn.response))))
    _, expected = rating_rows(team, turn, person, answers, remarks, rating_id="x", ts=0.0)
    with transaction.atomic():
        outcome = rating_record(
            principal=team.person(person),
            turn=str(turn.pk),
            answers=answers,
            remarks=Remarks(remarks[0], remarks[1], remarks[2]),
        )
        stored = list(
            Feedback.objects.filter(project_id=pk, feedback_id__startswith=outcome.rating_id)
            .order_by("id")
            .values(*expected[0])
        )
        rating = Rating.objects.get(rating_id=outcome.rating_id)
        transaction.set_rollback(True)
    same = [{k: v for k, v in row.items() if k not in STAMPS} for row in expected]
    got = [{k: v for k, v in row.items() if k not in STAMPS} for row in stored]
    if same != got or rating.rubric_version != team.version:
        raise BenchError(f"{team.plan.slug}: the service stored {got}, the bench {same}")
    return f"{team.plan.slug} ({team.plan.rubric}): {len(got)} feedback rows as the service's"
