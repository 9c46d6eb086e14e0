"""Each HTTP exchange of the clients, written once: what to send, and how to read the reply.

`LearnClient` and `AsyncLearnClient` only carry an `Exchange` out, and again when `Retry` says
so (after no answer, only if it is `resend_safe`); what they send and how they read it is here.
A request's body is encoded once, so every retry sends the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import quote

from learnportal_client.calls import RESEND_SAFE, chunks
from learnportal_client.rest import (
    Annotators,
    ComparisonsCreated,
    FeedbackPage,
    GoldPage,
    GoldPeople,
    IntakeRule,
    IntakeRules,
    Invitation,
    Judges,
    Leaderboard,
    MarkedJudge,
    MarkedJudges,
    Member,
    MemberList,
    PersonGold,
    Project,
    ProjectList,
    QueueAssignment,
    QueueAssignments,
    QueuedTurn,
    RatingCreated,
    ReviewCreated,
    ReviewLeased,
    ReviewPage,
    Routing,
    Rubric,
    RunOutcome,
    StoredGold,
    StoredGoldComparison,
    TurnDetail,
    TurnPage,
    TurnsCreated,
)
from learnportal_client.wire import (
    answer_of,
    decode,
    encode,
    error_of,
    item_json,
    model_of,
    request_json,
    response_of,
)
from learnportal_protocol.messages import Capability, Envelope, Response

if TYPE_CHECKING:
    import httpx
    from pydantic import BaseModel

Result = TypeVar("Result")
Answer = TypeVar("Answer", bound="BaseModel")
LEARN = "/api/learn/"
JSON = {"Content-Type": "application/json"}
# A reply read: its status, its decoded body and its Retry-After, to the result or a LearnError.
Reader = Callable[[int, Any, "str | None"], Result]


@dataclass(frozen=True)
class Exchange(Generic[Result]):
    method: str
    url: str
    read: Reader[Result]
    resend_safe: bool = True  # sending it twice changes nothing more than sending it once
    options: Mapping[str, Any] = field(default_factory=dict)  # httpx's request arguments

    def result(self, reply: httpx.Response) -> Result:
        retry_after: str | None = reply.headers.get("Retry-After")
        return self.read(reply.status_code, decode(reply.content), retry_after)


def learn(request: Envelope) -> Exchange[Response]:
    """`POST /api/learn/` with one request envelope."""
    body = encode(request_json(request))
    return Exchange(
        "POST",
        LEARN,
        partial(response_of, request.type, request.id),
        resend_safe=request.type in RESEND_SAFE,
        options={"content": body, "headers": JSON},
    )


def discovery_of(body: Any) -> Capability:
    """`GET /api/learn/` read leniently: a host without `max_batch` gets the default (1000)."""
    data = body if isinstance(body, dict) else {}
    known = {k: v for k, v in data.items() if k in Capability.model_fields}
    return Capability.model_validate(known, strict=False)


def _read_discovery(status: int, body: Any, retry_after: str | None) -> Capability:
    if status != 200:
        raise error_of(status, body, retry_after)
    return discovery_of(body)


DISCOVER = Exchange("GET", LEARN, _read_discovery)


def rest(
    model: type[Answer], method: str, url: str, *, resend_safe: bool = True, **options: Any
) -> Exchange[Answer]:
    """A REST call whose 2xx answer is `model`; a GET is always safe to send again."""
    read: Reader[Answer] = partial(answer_of, model)
    return Exchange(method, url, read, resend_safe or method == "GET", options)


ROUTING = rest(Routing, "GET", "/api/routing/")


def query(**filters: str | int | float | bool | None) -> dict[str, str]:
    return {
        key: str(value).lower() if isinstance(value, bool) else str(value)
        for key, value in filters.items()
        if value not in (None, "")
    }


def turns_page(
    cursor: str, filters: Mapping[str, str | int | float | bool | None]
) -> Exchange[TurnPage]:
    """`GET /api/turns/` with its filters, or the page a previous page's `next` names."""
    if cursor:
        return rest(TurnPage, "GET", cursor)
    return rest(TurnPage, "GET", "/api/turns/", params=query(**filters))


def feedback_page(
    cursor: str, filters: Mapping[str, str | int | float | bool | None]
) -> Exchange[FeedbackPage]:
    """`GET /api/feedback/` with its filters, or the page a previous page's `next` names."""
    if cursor:
        return rest(FeedbackPage, "GET", cursor)
    return rest(FeedbackPage, "GET", "/api/feedback/", params=query(**filters))


def turn_batches(
    turns: Iterable[QueuedTurn | Mapping[str, Any]], limit: int
) -> list[Exchange[TurnsCreated]]:
    """`POST /api/turns/`, split at the batch limit (each deduplicated by correlation_id)."""
    items = [item_json(model_of(QueuedTurn, t, ("turns", i))) for i, t in enumerate(turns)]
    return [
        rest(TurnsCreated, "POST", "/api/turns/", json={"turns": part})
        for part in chunks(items, limit)
    ]


def turn(turn_id: int) -> Exchange[TurnDetail]:
    return rest(TurnDetail, "GET", f"/api/turns/{int(turn_id)}/")


def turns_total(answers: Sequence[TurnsCreated]) -> TurnsCreated:
    return TurnsCreated(
        received=sum(a.received for a in answers), created=sum(a.created for a in answers)
    )


def comparison_batches(
    comparisons: Iterable[Mapping[str, Any]], limit: int
) -> list[Exchange[ComparisonsCreated]]:
    """`POST /api/comparisons/`, split at the batch limit (each deduplicated by comparison_id)."""
    items = [dict(c) for c in comparisons]
    return [
        rest(ComparisonsCreated, "POST", "/api/comparisons/", json={"comparisons": part})
        for part in chunks(items, limit)
    ]


def comparisons_total(answers: Sequence[ComparisonsCreated]) -> ComparisonsCreated:
    return ComparisonsCreated(
        received=sum(a.received for a in answers),
        created=sum(a.created for a in answers),
        comparisons=[c for a in answers for c in a.comparisons],
    )


def leaderboard(by: str) -> Exchange[Leaderboard]:
    return rest(Leaderboard, "GET", "/api/leaderboard/", params={"by": by})


def step_run(
    step_id: str, description: str, edits: Sequence[Mapping[str, Any]]
) -> Exchange[RunOutcome]:
    """`POST /api/steps/<step_id>/runs/`; not sent again without an answer (it counts runs)."""
    body = {"description": description, "edits": [dict(e) for e in edits]}
    return rest(RunOutcome, "POST", f"/api/steps/{step_id}/runs/", json=body, resend_safe=False)


# --- a team's side: projects, members, rubrics and ratings -------------------------------------

PROJECTS = rest(ProjectList, "GET", "/api/projects/")


def _project_url(slug: str, below: str = "") -> str:
    return f"/api/projects/{quote(slug, safe='')}/{below}"


def project(slug: str) -> Exchange[Project]:
    return rest(Project, "GET", _project_url(slug))


def project_update(slug: str, changes: Mapping[str, Any]) -> Exchange[Project]:
    """`PATCH` the settings given; the same settings twice are set once, so it may be sent
    again."""
    return rest(Project, "PATCH", _project_url(slug), json=dict(changes))


def members(slug: str) -> Exchange[MemberList]:
    return rest(MemberList, "GET", _project_url(slug, "members/"))


def member_set(slug: str, username: str, role: str) -> Exchange[Member]:
    """Setting a role twice sets it once, so it may be sent again."""
    body = {"username": username, "role": role}
    return rest(Member, "POST", _project_url(slug, "members/"), json=body)


def invite(slug: str, username: str, role: str) -> Exchange[Invitation]:
    """Sent again, it draws a new link for the same waiting person, the lost one dead."""
    body = {"username": username, "role": role}
    return rest(Invitation, "POST", _project_url(slug, "invitations/"), json=body)


def member_remove(slug: str, username: str) -> Exchange[None]:
    """Not sent again without an answer: a second would find no member and be refused."""
    url = _project_url(slug, f"members/{quote(username, safe='')}/")
    return Exchange("DELETE", url, _read_nothing, resend_safe=False)


def _read_nothing(status: int, body: Any, retry_after: str | None) -> None:
    if not 200 <= status < 300:
        raise error_of(status, body, retry_after)


def rubric(slug: str) -> Exchange[Rubric]:
    return rest(Rubric, "GET", _project_url(slug, "rubric/"))


def rubric_replace(
    slug: str, questions: Sequence[Mapping[str, Any]], preference: str
) -> Exchange[Rubric]:
    """`PUT` the next version; not sent again without an answer (it would make another)."""
    body = {"questions": [dict(q) for q in questions], "preference": preference}
    return rest(Rubric, "PUT", _project_url(slug, "rubric/"), json=body, resend_safe=False)


def rating(
    turn: str | int,
    answers: Mapping[str, Any],
    *,
    project: str,
    remarks: Mapping[str, Any],
    rubric_version: int | None = None,
    step_id: str = "",
) -> Exchange[RatingCreated]:
    """`POST /api/ratings/`; not sent again without an answer (a second rating replaces the
    first, and would be a rating of its own)."""
    body: dict[str, Any] = {"turn": str(turn), "answers": dict(answers), **remarks}
    if project:
        body["project"] = project
    if step_id:
        body["step_id"] = step_id
    if rubric_version is not None:
        body["rubric_version"] = rubric_version
    return rest(RatingCreated, "POST", "/api/ratings/", json=body, resend_safe=False)


def remarks_of(
    comment: str, correction: str, correction_span: tuple[int, int] | None
) -> dict[str, Any]:
    """What a rating adds to its answers, only what was given."""
    given: dict[str, Any] = {"comment": comment, "correction": correction}
    if correction_span is not None:
        given["correction_span"] = list(correction_span)
    return {key: value for key, value in given.items() if value}


# --- a reviewer's side: reviews of people's ratings --------------------------------------------


def review_next(project: str) -> Exchange[ReviewLeased | None]:
    """`POST /api/reviews/next/`: the rating held (the same one again while held), or None when
    none is left (204)."""
    return Exchange(
        "POST", "/api/reviews/next/", _read_held, options={"params": query(project=project)}
    )


def _read_held(status: int, body: Any, retry_after: str | None) -> ReviewLeased | None:
    if status == 204:
        return None
    return answer_of(ReviewLeased, status, body, retry_after)


def review_release(project: str) -> Exchange[None]:
    return Exchange(
        "POST", "/api/reviews/release/", _read_nothing, options={"params": query(project=project)}
    )


def review(
    feedback_id: str,
    decision: str,
    *,
    project: str,
    reason: str,
    answers: Mapping[str, Any] | None,
    remarks: Mapping[str, Any],
    rubric_version: int | None,
) -> Exchange[ReviewCreated]:
    """`POST /api/reviews/`; not sent again without an answer (a rating is reviewed once)."""
    body: dict[str, Any] = {"feedback_id": feedback_id, "decision": decision, **remarks}
    for name, value in (
        ("project", project),
        ("reason", reason),
        ("rubric_version", rubric_version),
    ):
        if value not in (None, ""):
            body[name] = value
    if answers is not None:
        body["answers"] = dict(answers)
    return rest(ReviewCreated, "POST", "/api/reviews/", json=body, resend_safe=False)


def reviews_page(
    cursor: str, *, project: str, decision: str, limit: int | None
) -> Exchange[ReviewPage]:
    """`GET /api/reviews/`, newest first; `cursor` a page's `next`."""
    params = query(project=project, decision=decision, limit=limit, cursor=cursor)
    return rest(ReviewPage, "GET", "/api/reviews/", params=params)


# --- a manager's side: gold items ------------------------------------------------------------


def gold_mark(turn_id: int, answers: Mapping[str, Any], project: str) -> Exchange[StoredGold]:
    """`PUT /api/turns/<id>/gold/`: the same answers twice mark it once, so it may be sent
    again."""
    body = {"answers": dict(answers), **({"project": project} if project else {})}
    return rest(StoredGold, "PUT", f"/api/turns/{int(turn_id)}/gold/", json=body)


def gold_comparison_mark(
    comparison: int, best: str, project: str
) -> Exchange[StoredGoldComparison]:
    """A PUT: the same best candidate twice marks it once, so it may be sent again."""
    body = {"best": best, **({"project": project} if project else {})}
    url = f"/api/comparisons/{int(comparison)}/gold/"
    return rest(StoredGoldComparison, "PUT", url, json=body)


def gold_comparison_unmark(comparison: int, project: str) -> Exchange[None]:
    url = f"/api/comparisons/{int(comparison)}/gold/"
    options = {"params": query(project=project)}
    return Exchange("DELETE", url, _read_nothing, resend_safe=False, options=options)


def gold_unmark(turn_id: int, project: str) -> Exchange[None]:
    """Not sent again without an answer: a second would find no gold item."""
    url = f"/api/turns/{int(turn_id)}/gold/"
    options = {"params": query(project=project)}
    return Exchange("DELETE", url, _read_nothing, resend_safe=False, options=options)


def gold_page(cursor: str, *, project: str, limit: int | None) -> Exchange[GoldPage]:
    return rest(
        GoldPage, "GET", "/api/gold/", params=query(project=project, limit=limit, cursor=cursor)
    )


def gold_people(project: str) -> Exchange[GoldPeople]:
    return rest(GoldPeople, "GET", "/api/gold/people/", params=query(project=project))


def gold_resume(username: str, project: str) -> Exchange[PersonGold]:
    """Not sent again without an answer: a second finds the queue running, a conflict."""
    url = f"/api/gold/people/{quote(username, safe='')}/resume/"
    return rest(PersonGold, "POST", url, resend_safe=False, params=query(project=project))


# --- a manager's side: intake rules; a reviewer's: the judges, the people --------------------------------

INTAKE_RULES = "/api/intake-rules/"


def intake_rules(project: str) -> Exchange[IntakeRules]:
    return rest(IntakeRules, "GET", INTAKE_RULES, params=query(project=project))


def intake_rule_add(fields: Mapping[str, Any], project: str) -> Exchange[IntakeRule]:
    """Not sent again without an answer: a second would be a second rule."""
    body = {**fields, **({"project": project} if project else {})}
    return rest(IntakeRule, "POST", INTAKE_RULES, json=body, resend_safe=False)


def intake_rule_change(
    rule_id: int, fields: Mapping[str, Any], project: str
) -> Exchange[IntakeRule]:
    """A PUT: the same fields twice change it once, so it may be sent again."""
    body = {**fields, **({"project": project} if project else {})}
    return rest(IntakeRule, "PUT", f"{INTAKE_RULES}{int(rule_id)}/", json=body)


def intake_rule_remove(rule_id: int, project: str) -> Exchange[None]:
    url, options = f"{INTAKE_RULES}{int(rule_id)}/", {"params": query(project=project)}
    return Exchange("DELETE", url, _read_nothing, resend_safe=False, options=options)


QUEUE_ASSIGNMENTS = "/api/queue-assignments/"


def queue_assignments(project: str) -> Exchange[QueueAssignments]:
    return rest(QueueAssignments, "GET", QUEUE_ASSIGNMENTS, params=query(project=project))


def queue_assignment_add(fields: Mapping[str, Any], project: str) -> Exchange[QueueAssignment]:
    """Not sent again without an answer: a second would be refused as assigned already."""
    body = {**fields, **({"project": project} if project else {})}
    return rest(QueueAssignment, "POST", QUEUE_ASSIGNMENTS, json=body, resend_safe=False)


def queue_assignment_change(
    assignment_id: int, fields: Mapping[str, Any], project: str
) -> Exchange[QueueAssignment]:
    body = {**fields, **({"project": project} if project else {})}
    url = f"{QUEUE_ASSIGNMENTS}{int(assignment_id)}/"
    return rest(QueueAssignment, "PUT", url, json=body)


def queue_assignment_remove(assignment_id: int, project: str) -> Exchange[None]:
    url = f"{QUEUE_ASSIGNMENTS}{int(assignment_id)}/"
    options = {"params": query(project=project)}
    return Exchange("DELETE", url, _read_nothing, resend_safe=False, options=options)


def judges(project: str) -> Exchange[Judges]:
    return rest(Judges, "GET", "/api/judges/", params=query(project=project))


def judge_marks(project: str) -> Exchange[MarkedJudges]:
    return rest(MarkedJudges, "GET", "/api/judges/marked/", params=query(project=project))


def judge_mark(username: str, project: str) -> Exchange[MarkedJudge]:
    """Marking twice marks once: it may be sent again."""
    body = {"username": username, **({"project": project} if project else {})}
    return rest(MarkedJudge, "POST", "/api/judges/marked/", json=body)


def judge_unmark(username: str, project: str) -> Exchange[None]:
    url, options = (
        f"/api/judges/marked/{quote(username, safe='')}/",
        {"params": query(project=project)},
    )
    return Exchange("DELETE", url, _read_nothing, resend_safe=False, options=options)


def annotators(since: float | None, until: float | None, project: str) -> Exchange[Annotators]:
    params = query(since=since, until=until, project=project)
    return rest(Annotators, "GET", "/api/annotators/", params=params)
