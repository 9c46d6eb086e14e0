"""`LearnClient` and `AsyncLearnClient`: learn/* and the REST side agents use, over HTTP.

Both are set up by `_HTTPClient` and carry out the exchanges of `exchanges.py`; what differs is
only how they wait (a thread's sleep, an awaited one). Where and as whom: the arguments, else
LEARNPORTAL_URL and LEARNPORTAL_TOKEN (`environment.py`).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import httpx

from learnportal_client import exchanges, stopping
from learnportal_client.buffer import AsyncLearnBuffer, LearnBuffer
from learnportal_client.calls import AsyncLearnCalls, LearnCalls
from learnportal_client.closing import Closing
from learnportal_client.environment import TOKEN_VARIABLE, URL_VARIABLE, given_or_environment
from learnportal_client.errors import LearnError, UnreachableError
from learnportal_client.ports import AsyncBuffer, Buffer, OnUnsent
from learnportal_client.retry import Deadline, Retry, Sleep, checked_deadline
from learnportal_client.session import AsyncLearnSession, LearnSession

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from types import TracebackType

    from learnportal_client.exchanges import Exchange
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
    from learnportal_protocol.messages import Capability, Envelope, Response

HTTP = TypeVar("HTTP", bound="httpx.Client | httpx.AsyncClient")
Transport = TypeVar("Transport", bound="httpx.BaseTransport | httpx.AsyncBaseTransport")
Result = TypeVar("Result")
Made = TypeVar("Made", Buffer, AsyncBuffer)  # how a client of this kind closes its buffers


def socket_url(base_url: str) -> str:
    scheme, _, rest = base_url.rstrip("/").partition("://")
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws/learn/"


class _HTTPClient(ABC, Generic[HTTP, Transport, Sleep, Made]):
    """What both clients set up alike: where, as whom, how to retry, the batch limit once known.

    `base_url` and `token` not given are LEARNPORTAL_URL and LEARNPORTAL_TOKEN of the
    environment (a ValueError names the one missing); an argument given wins.

    Every learn/* call retries `rate_limited` and `unavailable` after the host's `Retry-After`,
    resending the same bytes (same envelope id, same item ids), so a retry is never stored twice.
    `timeout` bounds each try; `deadline` (seconds, default none) bounds each request with all
    its tries and waits (a batch split at `max_batch` is several requests). `max_batch` skips
    discovery; `transport` (an httpx transport) and `sleep` are for tests.
    """

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        deadline: float | None = None,
        max_batch: int | None = None,
        transport: Transport | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self._base_url = given_or_environment(base_url, "base_url", URL_VARIABLE).rstrip("/")
        self._token = given_or_environment(token, "token", TOKEN_VARIABLE)
        self._retry = retry or Retry()
        self._timeout = timeout
        self._deadline = checked_deadline(deadline)
        self._max_batch = max_batch
        self._sleep: Sleep = sleep or self._default_sleep()
        self._buffers: weakref.WeakSet[Made] = weakref.WeakSet()  # closed before the client
        self._http: HTTP = self._connect(
            base_url=self._base_url,
            headers={"Authorization": f"Bearer {self._token}"},
            timeout=timeout,
            transport=transport,
        )

    @staticmethod
    @abstractmethod
    def _connect(**options: Any) -> HTTP:
        """The httpx client of this kind."""

    @staticmethod
    @abstractmethod
    def _default_sleep() -> Sleep:
        """How this kind waits between tries."""

    def _session_options(self, max_batch: int) -> dict[str, Any]:
        return {
            "url": socket_url(self._base_url),
            "token": self._token,
            "retry": self._retry,
            "deadline": self._deadline,
            "max_batch": max_batch,
            "sleep": self._sleep,
        }

    def _wait(self, error: Exception, tries: int, exchange: Exchange[Any]) -> float | None:
        """Seconds to wait before sending `exchange` again, or None to raise `error`."""
        if not isinstance(error, LearnError):
            return None
        return self._retry.wait(error, tries, resend_safe=exchange.resend_safe)


class LearnClient(
    _HTTPClient[httpx.Client, httpx.BaseTransport, Callable[[float], None], Buffer],
    LearnCalls,
    Closing,
):
    """A blocking client: `with LearnClient("http://127.0.0.1:8000", token) as client: ...`."""

    @staticmethod
    def _connect(**options: Any) -> httpx.Client:
        return httpx.Client(**options)

    @staticmethod
    def _default_sleep() -> Callable[[float], None]:
        return time.sleep

    def close(self) -> None:
        """Close the buffers made from this client (one more try of what they hold), then it."""
        self.close_buffers()
        self._http.close()

    def close_buffers(self, timeout: float = 10.0) -> None:
        """Close every buffer made from this client that is still open (see `LearnBuffer.close`)."""
        for buffer in list(self._buffers):
            buffer.close(timeout)

    def flush_on_signals(self, *signums: int, timeout: float = 10.0) -> None:
        """On SIGTERM (or `signums`), close this client's buffers, then do what the signal did
        before (its handler, or end the process by it). Call it from the main thread."""
        stopping.install(lambda: self.close_buffers(timeout), signums or stopping.STOP_SIGNALS)

    def send(self, request: Envelope) -> Response:
        return self._carry(exchanges.learn(request))

    def discover(self) -> Capability:
        """`GET /api/learn/`: the capability, its messages and the host's `max_batch`."""
        return self._carry(exchanges.DISCOVER)

    def batch_limit(self) -> int:
        if self._max_batch is None:
            self._max_batch = self.discover().max_batch
        return self._max_batch

    def routing(self) -> Routing:
        """`GET /api/routing/`: the weights to choose components by (see `choose`)."""
        return self._carry(exchanges.ROUTING)

    def submit_turns(self, turns: Iterable[QueuedTurn | Mapping[str, Any]]) -> TurnsCreated:
        """`POST /api/turns/`: put turns in the annotators' queue (split at the batch limit)."""
        batches = exchanges.turn_batches(turns, self.batch_limit())
        return exchanges.turns_total([self._carry(b) for b in batches])

    def turns(self, cursor: str = "", **filters: str | int | float | bool | None) -> TurnPage:
        """`GET /api/turns/` with its filters; pass a page's `next` as `cursor` for the next."""
        return self._carry(exchanges.turns_page(cursor, filters))

    def submit_comparisons(self, comparisons: Iterable[Mapping[str, Any]]) -> ComparisonsCreated:
        """`POST /api/comparisons/`: candidates for one prompt each, to be judged side by side
        (split at the batch limit)."""
        batches = exchanges.comparison_batches(comparisons, self.batch_limit())
        return exchanges.comparisons_total([self._carry(b) for b in batches])

    def leaderboard(self, by: str = "component") -> Leaderboard:
        """`GET /api/leaderboard/`: the components' (or models') strengths from judgments."""
        return self._carry(exchanges.leaderboard(by))

    def rating_review_next(self, project: str = "") -> ReviewLeased | None:
        """`POST /api/reviews/next/`: lease the next person's rating to review (the one held,
        while held); None when none is left for you."""
        return self._carry(exchanges.review_next(project))

    def rating_review_release(self, project: str = "") -> None:
        """`POST /api/reviews/release/`: give back the rating you hold for review."""
        self._carry(exchanges.review_release(project))

    def review_rating(
        self,
        feedback_id: str,
        decision: Literal["accept", "reject", "amend"],
        *,
        reason: str = "",
        answers: Mapping[str, Any] | None = None,
        comment: str = "",
        correction: str = "",
        correction_span: tuple[int, int] | None = None,
        rubric_version: int | None = None,
        project: str = "",
    ) -> ReviewCreated:
        """`POST /api/reviews/`: accept a person's rating (any row's `feedback_id`), reject it
        with a `reason`, or amend it with your own `answers` (and remarks), which take its place
        as your rating."""
        remarks = exchanges.remarks_of(comment, correction, correction_span)
        exchange = exchanges.review(
            feedback_id,
            decision,
            project=project,
            reason=reason,
            answers=answers,
            remarks=remarks,
            rubric_version=rubric_version,
        )
        return self._carry(exchange)

    def rating_reviews(
        self, cursor: str = "", *, decision: str = "", limit: int | None = None, project: str = ""
    ) -> ReviewPage:
        """`GET /api/reviews/`, newest first: an annotator's own ratings' reviews, or (for
        reviewers) all; pass a page's `next` as `cursor`."""
        return self._carry(
            exchanges.reviews_page(cursor, project=project, decision=decision, limit=limit)
        )

    def gold_mark(
        self, turn_id: int, answers: Mapping[str, Any], *, project: str = ""
    ) -> StoredGold:
        """`PUT /api/turns/<id>/gold/`: mark a turn as a gold item with its known answers
        (managers, site admins); the queue mixes it in at the project's `gold_rate`."""
        return self._carry(exchanges.gold_mark(turn_id, answers, project))

    def gold_unmark(self, turn_id: int, *, project: str = "") -> None:
        """`DELETE /api/turns/<id>/gold/`: take the mark off (its results go with it)."""
        self._carry(exchanges.gold_unmark(turn_id, project))

    def gold_comparison_mark(
        self, comparison: int, best: str, *, project: str = ""
    ) -> StoredGoldComparison:
        """`PUT /api/comparisons/<id>/gold/`: mark a comparison's known best candidate."""
        return self._carry(exchanges.gold_comparison_mark(comparison, best, project))

    def gold_comparison_unmark(self, comparison: int, *, project: str = "") -> None:
        self._carry(exchanges.gold_comparison_unmark(comparison, project))

    def gold_items(
        self, cursor: str = "", *, limit: int | None = None, project: str = ""
    ) -> GoldPage:
        """`GET /api/gold/`, newest first; pass a page's `next` as `cursor`."""
        return self._carry(exchanges.gold_page(cursor, project=project, limit=limit))

    def gold_people(self, project: str = "") -> GoldPeople:
        """`GET /api/gold/people/`: each person's accuracy on gold items, and their pause."""
        return self._carry(exchanges.gold_people(project))

    def gold_resume(self, username: str, *, project: str = "") -> PersonGold:
        """`POST /api/gold/people/<username>/resume/`: resume a paused queue."""
        return self._carry(exchanges.gold_resume(username, project))

    def intake_rules(self, project: str = "") -> IntakeRules:
        """`GET /api/intake-rules/`: which turns the project's queue takes (managers)."""
        return self._carry(exchanges.intake_rules(project))

    def intake_rule_add(self, *, project: str = "", **fields: Any) -> IntakeRule:
        """`POST /api/intake-rules/`: `name`, `rate` and the filter's fields (`component`,
        `metadata_key`, `source`, `polarity`, `score_min`, `score_max`, `confidence_below`,
        `judge_agreement_below`), `priority`."""
        return self._carry(exchanges.intake_rule_add(fields, project))

    def intake_rule_change(self, rule_id: int, *, project: str = "", **fields: Any) -> IntakeRule:
        """`PUT /api/intake-rules/<id>/`: the rule's fields, all of them."""
        return self._carry(exchanges.intake_rule_change(rule_id, fields, project))

    def intake_rule_remove(self, rule_id: int, *, project: str = "") -> None:
        self._carry(exchanges.intake_rule_remove(rule_id, project))

    def queue_assignments(self, project: str = "") -> QueueAssignments:
        """`GET /api/queue-assignments/`: the parts of the queue kept for named people."""
        return self._carry(exchanges.queue_assignments(project))

    def queue_assignment_add(
        self,
        *,
        usernames: list[str],
        component: str = "",
        rule: int | None = None,
        project: str = "",
    ) -> QueueAssignment:
        """Keep `component`'s turns, or the turns intake `rule` let in (neither: the whole
        queue) for these members."""
        fields = {"component": component, "rule": rule, "usernames": usernames}
        return self._carry(exchanges.queue_assignment_add(fields, project))

    def queue_assignment_change(
        self,
        assignment_id: int,
        *,
        usernames: list[str],
        component: str = "",
        rule: int | None = None,
        project: str = "",
    ) -> QueueAssignment:
        fields = {"component": component, "rule": rule, "usernames": usernames}
        return self._carry(exchanges.queue_assignment_change(assignment_id, fields, project))

    def queue_assignment_remove(self, assignment_id: int, *, project: str = "") -> None:
        self._carry(exchanges.queue_assignment_remove(assignment_id, project))

    def judges(self, project: str = "") -> Judges:
        """`GET /api/judges/`: each agent's and environment's agreement with people."""
        return self._carry(exchanges.judges(project))

    def judge_marks(self, project: str = "") -> MarkedJudges:
        """`GET /api/judges/marked/`: the people marked as judges (managers, site admins)."""
        return self._carry(exchanges.judge_marks(project))

    def judge_mark(self, username: str, *, project: str = "") -> MarkedJudge:
        """Mark a member as a judge: measured against the other people, weighed alike."""
        return self._carry(exchanges.judge_mark(username, project))

    def judge_unmark(self, username: str, *, project: str = "") -> None:
        self._carry(exchanges.judge_unmark(username, project))

    def annotators(
        self, since: float | None = None, until: float | None = None, project: str = ""
    ) -> Annotators:
        """`GET /api/annotators/`: each person's work from `since` to `until` (epoch seconds;
        by default the last 30 days); an annotator's token reads its own row only."""
        return self._carry(exchanges.annotators(since, until, project))

    def turn(self, turn_id: int) -> TurnDetail:
        """`GET /api/turns/<id>/`: one turn with its steps."""
        return self._carry(exchanges.turn(turn_id))

    def report_run(
        self, step_id: str, description: str, edits: Sequence[Mapping[str, Any]] = ()
    ) -> RunOutcome:
        """`POST /api/steps/<step_id>/runs/`: one successful run of a workflow step."""
        return self._carry(exchanges.step_run(step_id, description, edits))

    def list_feedback(
        self, cursor: str = "", **filters: str | int | float | bool | None
    ) -> FeedbackPage:
        """`GET /api/feedback/`, newest first: for an agent's or environment's token, the
        feedback it sent itself; filters `source`, `polarity`, `dimension`, `component`,
        `correlation_id`, `since`, `until`, `has_correction`, `limit`; `cursor=page.next`."""
        return self._carry(exchanges.feedback_page(cursor, filters))

    def projects(self) -> ProjectList:
        """`GET /api/projects/`: the projects this token may see."""
        return self._carry(exchanges.PROJECTS)

    def project(self, slug: str) -> Project:
        return self._carry(exchanges.project(slug))

    def project_update(self, slug: str, **changes: Any) -> Project:
        """Change a project's settings (its managers, site admins): `name`, `ratings_per_turn`,
        `lease_seconds`, `blind`, `priority_negative`, `priority_unsure`, `guidelines`,
        `guidelines_ack_required`, `comparisons_as_evidence`, `compare_turns`, `gold_rate`,
        `gold_min_items`, `gold_pause_below`, `judges_weighed`; the others are kept."""
        return self._carry(exchanges.project_update(slug, changes))

    def members(self, slug: str) -> MemberList:
        """A project's members with their roles there (its managers, site admins)."""
        return self._carry(exchanges.members(slug))

    def member_set(self, slug: str, username: str, role: str) -> Member:
        """Make a person a member of the project with `role`, or change their role there."""
        return self._carry(exchanges.member_set(slug, username, role))

    def invite(self, slug: str, username: str, role: str) -> Invitation:
        """Invite a person with no account yet into the project with `role` (its managers):
        their account, and the link where they choose a password."""
        return self._carry(exchanges.invite(slug, username, role))

    def member_remove(self, slug: str, username: str) -> None:
        self._carry(exchanges.member_remove(slug, username))

    def rubric(self, slug: str) -> Rubric:
        """The rubric the project's turns are rated on now."""
        return self._carry(exchanges.rubric(slug))

    def rubric_replace(
        self, slug: str, questions: Sequence[Mapping[str, Any]], *, preference: str = ""
    ) -> Rubric:
        """Make the project's next rubric version (its managers); a question with answers may
        be retired, not removed or retyped (`conflict`)."""
        return self._carry(exchanges.rubric_replace(slug, questions, preference))

    def rate(
        self,
        turn: str | int,
        answers: Mapping[str, Any],
        *,
        project: str = "",
        comment: str = "",
        correction: str = "",
        correction_span: tuple[int, int] | None = None,
        rubric_version: int | None = None,
        step_id: str = "",
    ) -> RatingCreated:
        """`POST /api/ratings/`: a person's answers to the rubric on one turn (its id or
        correlation_id), all stored or none; with `rubric_version` (the one they were given
        on), refused as `conflict` once the rubric has moved on; with `step_id`, a rating of
        that step of the turn, on the questions asked of its kind."""
        remarks = exchanges.remarks_of(comment, correction, correction_span)
        exchange = exchanges.rating(
            turn,
            answers,
            project=project,
            remarks=remarks,
            rubric_version=rubric_version,
            step_id=step_id,
        )
        return self._carry(exchange)

    def session(self) -> LearnSession:
        """A WebSocket session on /ws/learn/ (use it as a context manager)."""
        return LearnSession(**self._session_options(self.batch_limit()))

    def buffer(
        self, *, max_items: int = 500, max_interval: float = 1.0, on_unsent: OnUnsent | None = None
    ) -> LearnBuffer:
        """A background buffer of feedback and experiences, sending from a thread."""
        buffer = LearnBuffer(
            self, max_items=max_items, max_interval=max_interval, on_unsent=on_unsent
        )
        self._buffers.add(buffer)
        return buffer

    def _carry(self, exchange: Exchange[Result]) -> Result:
        deadline, tries = Deadline.after(self._deadline), 0
        while True:
            tries += 1
            try:
                return exchange.result(self._request(exchange, deadline.cap(self._timeout)))
            except Exception as error:
                wait = self._wait(error, tries, exchange)
                if wait is None or not deadline.allows(wait):
                    raise
                self._sleep(wait)

    def _request(self, exchange: Exchange[Any], timeout: float) -> httpx.Response:
        try:
            return self._http.request(
                exchange.method, exchange.url, timeout=timeout, **exchange.options
            )
        except httpx.TransportError as exc:
            raise UnreachableError(f"{exchange.method} {exchange.url}: {exc!r}") from None


class AsyncLearnClient(
    _HTTPClient[
        httpx.AsyncClient,
        httpx.AsyncBaseTransport,
        Callable[[float], Awaitable[None]],
        AsyncBuffer,
    ],
    AsyncLearnCalls,
):
    """The same client, awaited: `async with AsyncLearnClient(url, token) as client: ...`."""

    @staticmethod
    def _connect(**options: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(**options)

    @staticmethod
    def _default_sleep() -> Callable[[float], Awaitable[None]]:
        return asyncio.sleep

    async def __aenter__(self) -> AsyncLearnClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the buffers made from this client (one more try of what they hold), then it."""
        await self.close_buffers()
        await self._http.aclose()

    async def close_buffers(self, timeout: float = 10.0) -> None:
        """Close every buffer made from this client still open (see `AsyncLearnBuffer.aclose`)."""
        for buffer in list(self._buffers):
            await buffer.aclose(timeout)

    def flush_on_signals(self, *signums: int, timeout: float = 10.0) -> None:
        """On SIGTERM (or `signums`), close this client's buffers, then do what the signal did
        before (its handler, or end the process by it). Call it in the running event loop."""
        stopping.install_in_loop(
            lambda: self.close_buffers(timeout), signums or stopping.STOP_SIGNALS
        )

    async def send(self, request: Envelope) -> Response:
        return await self._carry(exchanges.learn(request))

    async def discover(self) -> Capability:
        return await self._carry(exchanges.DISCOVER)

    async def batch_limit(self) -> int:
        if self._max_batch is None:
            self._max_batch = (await self.discover()).max_batch
        return self._max_batch

    async def routing(self) -> Routing:
        return await self._carry(exchanges.ROUTING)

    async def submit_turns(self, turns: Iterable[QueuedTurn | Mapping[str, Any]]) -> TurnsCreated:
        batches = exchanges.turn_batches(turns, await self.batch_limit())
        return exchanges.turns_total([await self._carry(b) for b in batches])

    async def submit_comparisons(
        self, comparisons: Iterable[Mapping[str, Any]]
    ) -> ComparisonsCreated:
        batches = exchanges.comparison_batches(comparisons, await self.batch_limit())
        return exchanges.comparisons_total([await self._carry(b) for b in batches])

    async def leaderboard(self, by: str = "component") -> Leaderboard:
        return await self._carry(exchanges.leaderboard(by))

    async def rating_review_next(self, project: str = "") -> ReviewLeased | None:
        return await self._carry(exchanges.review_next(project))

    async def rating_review_release(self, project: str = "") -> None:
        await self._carry(exchanges.review_release(project))

    async def review_rating(
        self,
        feedback_id: str,
        decision: Literal["accept", "reject", "amend"],
        *,
        reason: str = "",
        answers: Mapping[str, Any] | None = None,
        comment: str = "",
        correction: str = "",
        correction_span: tuple[int, int] | None = None,
        rubric_version: int | None = None,
        project: str = "",
    ) -> ReviewCreated:
        remarks = exchanges.remarks_of(comment, correction, correction_span)
        exchange = exchanges.review(
            feedback_id,
            decision,
            project=project,
            reason=reason,
            answers=answers,
            remarks=remarks,
            rubric_version=rubric_version,
        )
        return await self._carry(exchange)

    async def rating_reviews(
        self, cursor: str = "", *, decision: str = "", limit: int | None = None, project: str = ""
    ) -> ReviewPage:
        return await self._carry(
            exchanges.reviews_page(cursor, project=project, decision=decision, limit=limit)
        )

    async def gold_mark(
        self, turn_id: int, answers: Mapping[str, Any], *, project: str = ""
    ) -> StoredGold:
        return await self._carry(exchanges.gold_mark(turn_id, answers, project))

    async def gold_unmark(self, turn_id: int, *, project: str = "") -> None:
        await self._carry(exchanges.gold_unmark(turn_id, project))

    async def gold_comparison_mark(
        self, comparison: int, best: str, *, project: str = ""
    ) -> StoredGoldComparison:
        return await self._carry(exchanges.gold_comparison_mark(comparison, best, project))

    async def gold_comparison_unmark(self, comparison: int, *, project: str = "") -> None:
        await self._carry(exchanges.gold_comparison_unmark(comparison, project))

    async def gold_items(
        self, cursor: str = "", *, limit: int | None = None, project: str = ""
    ) -> GoldPage:
        return await self._carry(exchanges.gold_page(cursor, project=project, limit=limit))

    async def gold_people(self, project: str = "") -> GoldPeople:
        return await self._carry(exchanges.gold_people(project))

    async def gold_resume(self, username: str, *, project: str = "") -> PersonGold:
        return await self._carry(exchanges.gold_resume(username, project))

    async def intake_rules(self, project: str = "") -> IntakeRules:
        return await self._carry(exchanges.intake_rules(project))

    async def intake_rule_add(self, *, project: str = "", **fields: Any) -> IntakeRule:
        return await self._carry(exchanges.intake_rule_add(fields, project))

    async def intake_rule_change(
        self, rule_id: int, *, project: str = "", **fields: Any
    ) -> IntakeRule:
        return await self._carry(exchanges.intake_rule_change(rule_id, fields, project))

    async def intake_rule_remove(self, rule_id: int, *, project: str = "") -> None:
        await self._carry(exchanges.intake_rule_remove(rule_id, project))

    async def queue_assignments(self, project: str = "") -> QueueAssignments:
        return await self._carry(exchanges.queue_assignments(project))

    async def queue_assignment_add(
        self,
        *,
        usernames: list[str],
        component: str = "",
        rule: int | None = None,
        project: str = "",
    ) -> QueueAssignment:
        fields = {"component": component, "rule": rule, "usernames": usernames}
        return await self._carry(exchanges.queue_assignment_add(fields, project))

    async def queue_assignment_change(
        self,
        assignment_id: int,
        *,
        usernames: list[str],
        component: str = "",
        rule: int | None = None,
        project: str = "",
    ) -> QueueAssignment:
        fields = {"component": component, "rule": rule, "usernames": usernames}
        return await self._carry(exchanges.queue_assignment_change(assignment_id, fields, project))

    async def queue_assignment_remove(self, assignment_id: int, *, project: str = "") -> None:
        await self._carry(exchanges.queue_assignment_remove(assignment_id, project))

    async def judges(self, project: str = "") -> Judges:
        return await self._carry(exchanges.judges(project))

    async def judge_marks(self, project: str = "") -> MarkedJudges:
        return await self._carry(exchanges.judge_marks(project))

    async def judge_mark(self, username: str, *, project: str = "") -> MarkedJudge:
        return await self._carry(exchanges.judge_mark(username, project))

    async def judge_unmark(self, username: str, *, project: str = "") -> None:
        await self._carry(exchanges.judge_unmark(username, project))

    async def annotators(
        self, since: float | None = None, until: float | None = None, project: str = ""
    ) -> Annotators:
        return await self._carry(exchanges.annotators(since, until, project))

    async def turns(self, cursor: str = "", **filters: str | int | float | bool | None) -> TurnPage:
        return await self._carry(exchanges.turns_page(cursor, filters))

    async def turn(self, turn_id: int) -> TurnDetail:
        return await self._carry(exchanges.turn(turn_id))

    async def report_run(
        self, step_id: str, description: str, edits: Sequence[Mapping[str, Any]] = ()
    ) -> RunOutcome:
        return await self._carry(exchanges.step_run(step_id, description, edits))

    async def list_feedback(
        self, cursor: str = "", **filters: str | int | float | bool | None
    ) -> FeedbackPage:
        return await self._carry(exchanges.feedback_page(cursor, filters))

    async def projects(self) -> ProjectList:
        return await self._carry(exchanges.PROJECTS)

    async def project(self, slug: str) -> Project:
        return await self._carry(exchanges.project(slug))

    async def project_update(self, slug: str, **changes: Any) -> Project:
        return await self._carry(exchanges.project_update(slug, changes))

    async def members(self, slug: str) -> MemberList:
        return await self._carry(exchanges.members(slug))

    async def member_set(self, slug: str, username: str, role: str) -> Member:
        return await self._carry(exchanges.member_set(slug, username, role))

    async def invite(self, slug: str, username: str, role: str) -> Invitation:
        return await self._carry(exchanges.invite(slug, username, role))

    async def member_remove(self, slug: str, username: str) -> None:
        await self._carry(exchanges.member_remove(slug, username))

    async def rubric(self, slug: str) -> Rubric:
        return await self._carry(exchanges.rubric(slug))

    async def rubric_replace(
        self, slug: str, questions: Sequence[Mapping[str, Any]], *, preference: str = ""
    ) -> Rubric:
        return await self._carry(exchanges.rubric_replace(slug, questions, preference))

    async def rate(
        self,
        turn: str | int,
        answers: Mapping[str, Any],
        *,
        project: str = "",
        comment: str = "",
        correction: str = "",
        correction_span: tuple[int, int] | None = None,
        rubric_version: int | None = None,
        step_id: str = "",
    ) -> RatingCreated:
        remarks = exchanges.remarks_of(comment, correction, correction_span)
        exchange = exchanges.rating(
            turn,
            answers,
            project=project,
            remarks=remarks,
            rubric_version=rubric_version,
            step_id=step_id,
        )
        return await self._carry(exchange)

    async def session(self) -> AsyncLearnSession:
        """A WebSocket session on /ws/learn/ that pipelines: `async with await client.session()`."""
        return AsyncLearnSession(**self._session_options(await self.batch_limit()))

    def buffer(
        self, *, max_items: int = 500, max_interval: float = 1.0, on_unsent: OnUnsent | None = None
    ) -> AsyncLearnBuffer:
        """The background buffer, sending from a task of the running event loop."""
        buffer = AsyncLearnBuffer(
            self, max_items=max_items, max_interval=max_interval, on_unsent=on_unsent
        )
        self._buffers.add(buffer)
        return buffer

    async def _carry(self, exchange: Exchange[Result]) -> Result:
        deadline, tries = Deadline.after(self._deadline), 0
        while True:
            tries += 1
            try:
                return exchange.result(await self._request(exchange, deadline.cap(self._timeout)))
            except Exception as error:
                wait = self._wait(error, tries, exchange)
                if wait is None or not deadline.allows(wait):
                    raise
                await self._sleep(wait)

    async def _request(self, exchange: Exchange[Any], timeout: float) -> httpx.Response:
        try:
            return await self._http.request(
                exchange.method, exchange.url, timeout=timeout, **exchange.options
            )
        except httpx.TransportError as exc:
            raise UnreachableError(f"{exchange.method} {exchange.url}: {exc!r}") from None
