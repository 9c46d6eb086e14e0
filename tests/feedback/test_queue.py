"""The annotators' queue (feedback.queue): leases, distinct human ratings, skips, priority, undo.

Services called directly, as the people's principals; the REST endpoints over them are in
test_queue_api.py.
"""

from __future__ import annotations

import importlib
import io
import threading
import time
from collections import Counter
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.core.management import call_command
from django.db import connections

from core.accounts.roles import Role
from core.projects.models import DEFAULT_PRIORITY_NEGATIVE, DEFAULT_PRIORITY_UNSURE
from core.projects.selection import default_project_pk
from feedback.models import (
    ComponentStats,
    Feedback,
    Lease,
    Retraction,
    Skip,
    Turn,
)
from feedback.queue import (
    QueueLease,
    QueueProgress,
    queue_next,
    queue_progress,
    queue_release,
    queue_skip,
    queue_undo,
)
from feedback.selectors.overview import feedback_count
from feedback.selectors.turns import turn_queue
from feedback.selectors.visibility import counted_feedback
from feedback.services.experiences import experience_store
from feedback.services.feedbacks import feedback_record
from learnportal.dispatch import dispatch
from learnportal_protocol import Experience, FeedbackDimension, FeedbackPolarity
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.models import Action as ExperienceAction
from tests.factories import (
    FeedbackFactory,
    FeedbackItemFactory,
    PrincipalFactory,
    RatedTurnFactory,
    TurnFactory,
)
from tests.harness import at_once

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_django import Settings

    from core.accounts.principals import Principal
    from tests.harness import Broadcasts

pytestmark = pytest.mark.django_db

AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
ENV = PrincipalFactory.build(role=Role.ENVIRONMENT, name="gym-1")
ANN = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
BOB = PrincipalFactory.build(role=Role.ANNOTATOR, name="bob")
CAROL = PrincipalFactory.build(role=Role.REVIEWER, name="carol")
BOSS = PrincipalFactory.build(role=Role.ADMIN, name="boss")
LEASE = 600


def queued(*names: str, component: str = "search") -> list[Turn]:
    """Queue turns named `names` (in that order, so oldest first) as the agent."""
    return [TurnFactory.create(correlation_id=name, component_name=component) for name in names]


def rate(who: Principal, turn: Turn, **fields: Any) -> str:
    """`who` rates `turn` (their source: human for people, self or env for machines)."""
    fields.setdefault("polarity", FeedbackPolarity.POSITIVE)
    return FeedbackFactory.create(by=who, turn=turn, **fields).feedback_id


def leased(who: Principal) -> str | None:
    lease = queue_next(who)
    return None if lease is None else lease.turn.correlation_id


def needed(turn: Turn) -> int:
    turn.refresh_from_db()
    return turn.ratings_needed


def refused(call: Callable[[], object], code: ErrorCode) -> LearnError:
    with pytest.raises(LearnError) as caught:
        call()
    assert caught.value.code is code, caught.value.message
    return caught.value


# --- leases ----------------------------------------------------------------------------------


def test_a_person_is_leased_the_oldest_open_turn_for_lease_seconds(clock: Any) -> None:
    first, _ = queued("t-1", "t-2")
    lease = queue_next(ANN)
    assert isinstance(lease, QueueLease)
    assert lease.turn.pk == first.pk
    assert lease.expires == time.time() + LEASE


def test_the_lease_lasts_lease_seconds_from_now(settings: Settings) -> None:
    settings.LEARNPORTAL_LEASE_SECONDS = 30
    queued("t-1")
    lease = queue_next(ANN, now=1000.0)
    assert lease is not None and lease.expires == 1030.0


def test_asking_again_while_the_lease_lasts_gives_the_same_turn() -> None:
    queued("t-1", "t-2")
    assert [leased(ANN), leased(ANN), leased(ANN)] == ["t-1", "t-1", "t-1"]
    assert Lease.objects.count() == 1


def test_a_turn_needing_one_rating_is_leased_to_one_person_at_a_time() -> None:
    queued("t-1", "t-2")
    assert (leased(ANN), leased(BOB), leased(CAROL)) == ("t-1", "t-2", None)


def test_a_turn_needing_two_ratings_is_leased_to_two_people_at_once_and_no_more(
    settings: Settings,
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queued("t-1")
    assert (leased(ANN), leased(BOB), leased(CAROL)) == ("t-1", "t-1", None)


def test_a_lease_expires_and_the_turn_goes_to_someone_else(clock: Any) -> None:
    queued("t-1")
    assert leased(ANN) == "t-1"
    assert leased(BOB) is None
    clock.shift(timedelta(seconds=LEASE - 1))
    assert leased(BOB) is None
    clock.shift(timedelta(seconds=2))
    assert leased(BOB) == "t-1"
    assert leased(ANN) is None  # theirs has run out, and bob holds it now


def test_release_gives_the_turn_back_to_the_queue() -> None:
    turn, *_ = queued("t-1")
    assert leased(ANN) == "t-1"
    queue_release(ANN, turn.pk)
    assert not Lease.objects.filter(username="ann").exists()
    assert leased(BOB) == "t-1"


def test_another_persons_turn_cannot_be_released_or_skipped() -> None:
    turn, *_ = queued("t-1")
    assert leased(ANN) == "t-1"
    error = refused(lambda: queue_release(BOB, turn.pk), ErrorCode.NOT_FOUND)
    assert error.details[0]["loc"] == ["turn"]
    refused(lambda: queue_skip(BOB, turn.pk), ErrorCode.NOT_FOUND)
    refused(lambda: queue_release(ANN, turn.pk + 1000), ErrorCode.NOT_FOUND)
    assert list(Lease.objects.values_list("username", flat=True)) == ["ann"]
    assert not Skip.objects.exists()


# --- distinct human ratings -----------------------------------------------------------------


def test_a_rating_ends_the_persons_lease_and_the_turn_is_never_offered_to_them_again(
    settings: Settings,
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    turn, _ = queued("t-1", "t-2")
    assert leased(ANN) == "t-1"
    rate(ANN, turn)
    assert not Lease.objects.filter(username="ann").exists()
    assert needed(turn) == 1
    assert leased(ANN) == "t-2"
    assert leased(BOB) == "t-1"


def test_a_turn_needs_n_ratings_from_distinct_people(settings: Settings) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    turn, *_ = queued("t-1")
    rate(ANN, turn)
    rate(ANN, turn)  # the same person twice counts once
    assert needed(turn) == 1
    assert leased(ANN) is None
    assert leased(BOB) == "t-1"
    rate(BOB, turn)
    assert needed(turn) == 0
    assert leased(CAROL) is None


def test_an_agents_or_environments_feedback_never_counts_toward_the_ratings() -> None:
    turn, *_ = queued("t-1")
    rate(AGENT, turn, score=0.9)
    rate(ENV, turn, score=0.9)
    assert needed(turn) == 1
    assert turn_queue().get(pk=turn.pk).rated is False
    assert leased(ANN) == "t-1"
    rate(ANN, turn)
    assert turn_queue().get(pk=turn.pk).rated is True


def test_many_agent_feedbacks_leave_every_turn_to_rate() -> None:
    """The issue's case: one `self` feedback a turn used to mark it rated for everyone."""
    turns = queued(*[f"t-{i}" for i in range(30)])
    feedback_record(
        principal=AGENT,
        feedbacks=[
            FeedbackItem(correlation_id=t.correlation_id, polarity=FeedbackPolarity.POSITIVE)
            for t in turns
        ],
    )
    assert turn_queue().filter(rated=False).count() == 30
    assert queue_progress(ANN).left_for_me == 30


def test_a_turn_created_by_an_agents_feedback_still_needs_its_human_rating() -> None:
    feedback_record(
        principal=AGENT,
        feedbacks=[
            FeedbackItem(
                correlation_id="t-self",
                polarity=FeedbackPolarity.POSITIVE,
                rated_turn=RatedTurnFactory.build(),
            )
        ],
    )
    assert Turn.objects.get(correlation_id="t-self").ratings_needed == 1
    assert leased(ANN) == "t-self"


# --- skips -----------------------------------------------------------------------------------


def test_a_skipped_turn_is_never_offered_to_that_person_again(clock: Any) -> None:
    first, _ = queued("t-1", "t-2")
    assert leased(ANN) == "t-1"
    queue_skip(ANN, first.pk)
    assert leased(ANN) == "t-2"
    queue_skip(ANN, Turn.objects.get(correlation_id="t-2").pk)
    clock.shift(timedelta(seconds=LEASE * 3))
    assert leased(ANN) is None
    assert leased(BOB) == "t-1"  # a skip is one person's


# --- priority --------------------------------------------------------------------------------


def test_turns_with_negative_machine_feedback_or_unsure_ratings_come_first(
    settings: Settings,
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    plain, unsure, negative, env_negative = queued("plain", "unsure", "negative", "env-negative")
    rate(AGENT, plain, score=0.4)  # a positive agent feedback changes nothing
    rate(BOSS, unsure, confidence=0.2)
    rate(AGENT, negative, polarity=FeedbackPolarity.NEGATIVE, score=-0.6)
    rate(ENV, env_negative, score=-0.1)
    order = []
    while (lease := queue_next(ANN)) is not None:
        order.append(lease.turn.correlation_id)
        queue_skip(ANN, lease.turn.pk)
    # negative self/env feedback first (oldest first among them), then low confidence, then
    # the rest
    assert order == ["negative", "env-negative", "unsure", "plain"]


def test_an_environments_negative_reward_puts_its_turn_first() -> None:
    queued("t-1", "exp-bad")
    experience_store(
        principal=ENV,
        experiences=[Experience(experience_id="exp-bad", action=ExperienceAction(), reward=-1.0)],
        policy=lambda project, names: lambda name: None,
    )
    assert leased(ANN) == "exp-bad"


def test_feedback_sent_before_its_turn_counts_when_the_turn_arrives() -> None:
    feedback_record(
        principal=AGENT,
        feedbacks=[
            FeedbackItem(correlation_id="late", polarity=FeedbackPolarity.NEGATIVE, score=-1.0)
        ],
    )
    feedback_record(
        principal=ANN,
        feedbacks=[FeedbackItem(correlation_id="early-rated", polarity=FeedbackPolarity.POSITIVE)],
    )
    queued("early", "late", "early-rated")
    assert Turn.objects.get(correlation_id="late").priority > 0
    assert Turn.objects.get(correlation_id="early-rated").ratings_needed == 0
    assert [leased(ANN), leased(BOB), leased(CAROL)] == ["late", "early", None]


def carrying(key: str, **fields: Any) -> FeedbackItem:
    """A rating of turn `key` that carries the turn itself."""
    fields.setdefault("polarity", FeedbackPolarity.POSITIVE)
    return FeedbackItemFactory.build(
        correlation_id=key, rated_turn=RatedTurnFactory.build(), **fields
    )


def test_a_turn_carried_on_a_rating_is_stored_counting_all_that_came_before_it(
    settings: Settings,
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 3
    feedback_record(
        principal=ANN,
        feedbacks=[FeedbackItem(correlation_id="t", polarity=FeedbackPolarity.POSITIVE)],
    )
    feedback_record(
        principal=AGENT,
        feedbacks=[
            FeedbackItem(correlation_id="t", polarity=FeedbackPolarity.NEGATIVE, score=-0.5)
        ],
    )
    # Bob twice in one batch (on two dimensions) counts once; the turn is stored once, with
    # both people counted.
    feedback_record(
        principal=BOB,
        feedbacks=[carrying("t"), carrying("t", score=0.1, dimension=FeedbackDimension.TONE)],
    )
    turn = Turn.objects.get(correlation_id="t")
    assert (turn.ratings_needed, turn.priority) == (1, DEFAULT_PRIORITY_NEGATIVE)
    feedback_record(principal=CAROL, feedbacks=[carrying("t", confidence=0.2)])
    turn.refresh_from_db()
    assert (turn.ratings_needed, turn.priority) == (
        0,
        DEFAULT_PRIORITY_NEGATIVE + DEFAULT_PRIORITY_UNSURE,
    )
    assert Turn.objects.filter(correlation_id="t").count() == 1


# --- undo ------------------------------------------------------------------------------------


def test_an_undo_within_the_window_retracts_the_rating_and_leases_the_turn_back(
    clock: Any,
) -> None:
    turn, _ = queued("t-1", "t-2")
    assert leased(ANN) == "t-1"
    feedback_id = rate(ANN, turn, score=1.0, confidence=1.0)
    assert needed(turn) == 0
    assert leased(ANN) == "t-2"
    clock.shift(timedelta(seconds=59))

    undone = queue_undo(ANN, feedback_id)

    assert undone.pk == turn.pk and undone.ratings_needed == 1
    assert Feedback.objects.filter(feedback_id=feedback_id).exists()  # kept, not deleted
    retraction = Retraction.objects.get(feedback__feedback_id=feedback_id)
    assert retraction.by == "ann"
    assert not counted_feedback(default_project_pk()).filter(feedback_id=feedback_id).exists()
    assert turn_queue().get(pk=turn.pk).rated is False
    assert leased(ANN) == "t-1"  # the turn is theirs again, in place of t-2
    assert leased(BOB) == "t-2"
    stats = ComponentStats.objects.get(component_name="search")
    assert (stats.feedback_count, stats.score_weight) == (0, 0.0)
    rate(ANN, turn, score=-0.5)
    assert needed(turn) == 0


def test_an_undo_after_the_window_is_refused_and_changes_nothing(
    clock: Any, settings: Settings
) -> None:
    settings.LEARNPORTAL_UNDO_SECONDS = 60
    turn, *_ = queued("t-1")
    feedback_id = rate(ANN, turn)
    clock.shift(timedelta(seconds=61))
    error = refused(lambda: queue_undo(ANN, feedback_id), ErrorCode.CONFLICT)
    assert error.details[0]["loc"] == ["feedback_id"]
    assert not Retraction.objects.exists()
    assert needed(turn) == 0


def test_an_undone_rating_leaves_the_overviews_count_of_feedback() -> None:
    turn, *_ = queued("t-1")
    feedback_id = rate(ANN, turn)
    before = feedback_count(default_project_pk())
    queue_undo(ANN, feedback_id)
    assert (
        feedback_count(default_project_pk())
        == before - 1
        == counted_feedback(default_project_pk()).count()
    )


def test_a_rating_is_undone_once() -> None:
    turn, *_ = queued("t-1")
    feedback_id = rate(ANN, turn)
    queue_undo(ANN, feedback_id)
    refused(lambda: queue_undo(ANN, feedback_id), ErrorCode.CONFLICT)
    assert Retraction.objects.count() == 1


def test_nobody_undoes_another_persons_or_a_machines_feedback() -> None:
    turn, *_ = queued("t-1")
    anns = rate(ANN, turn)
    agents = rate(AGENT, turn)
    refused(lambda: queue_undo(BOB, anns), ErrorCode.NOT_FOUND)
    refused(lambda: queue_undo(BOSS, anns), ErrorCode.NOT_FOUND)
    refused(lambda: queue_undo(ANN, agents), ErrorCode.NOT_FOUND)
    refused(lambda: queue_undo(ANN, "no-such-feedback"), ErrorCode.NOT_FOUND)
    refused(lambda: queue_undo(AGENT, agents), ErrorCode.FORBIDDEN)
    assert not Retraction.objects.exists()


@pytest.mark.parametrize("machine", [AGENT, ENV], ids=["agent", "environment"])
def test_machines_may_not_use_the_queue(machine: Principal) -> None:
    turn, *_ = queued("t-1")
    refused(lambda: queue_next(machine), ErrorCode.FORBIDDEN)
    refused(lambda: queue_release(machine, turn.pk), ErrorCode.FORBIDDEN)
    refused(lambda: queue_skip(machine, turn.pk), ErrorCode.FORBIDDEN)
    refused(lambda: queue_progress(machine), ErrorCode.FORBIDDEN)
    assert not Lease.objects.exists()


# --- progress --------------------------------------------------------------------------------


def test_progress_counts_todays_ratings_and_the_turns_left_for_me(
    clock: Any, settings: Settings
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    turns = queued("t-1", "t-2", "t-3", "t-4")
    rate(ANN, turns[0])  # yesterday (the clock starts at 09:00 UTC)
    clock.shift(timedelta(hours=16))
    rate(ANN, turns[1])
    undone = rate(ANN, turns[2])
    queue_undo(ANN, undone)
    rate(BOB, turns[3])
    queue_skip(ANN, turns[2].pk)  # leased back to ann by the undo
    progress = queue_progress(ANN)
    assert progress.rated_today == 1
    assert progress.left_for_me == 1  # t-4: t-1 and t-2 rated by ann, t-3 skipped
    assert queue_progress(BOB).left_for_me == 3
    assert queue_progress(CAROL).rated_today == 0


# --- at once ---------------------------------------------------------------------------------

PEOPLE = [PrincipalFactory.build(role=Role.ANNOTATOR, name=f"p-{i}") for i in range(6)]


def _ask_at_once(people: list[Principal]) -> list[QueueLease | None]:
    """Every person asks for a turn at the same moment, each on a thread and a connection."""
    return at_once([partial(queue_next, who) for who in people])


def _never_beyond_need(rounds: int, settings: Settings, *, filled: bool) -> None:
    """Six people, two turns: no turn is held by more people than it needs. With `filled`
    (one writer at a time), every turn is held by exactly as many as it needs; with row locks
    skipped, a person may find every open turn locked by others at that instant and get none,
    but each turn goes to someone."""
    need = settings.LEARNPORTAL_RATINGS_PER_TURN
    for round_ in range(rounds):
        Lease.objects.all().delete()
        Turn.objects.all().delete()
        names = [f"r{round_}-t{i}" for i in range(2)]
        queued(*names)
        answers = _ask_at_once(PEOPLE)
        held = Counter(a.turn.correlation_id for a in answers if a is not None)
        assert set(held) == set(names), held
        assert all(count <= need for count in held.values()), held
        if filled:
            assert held == dict.fromkeys(names, need), held
        leases = Counter(Lease.objects.values_list("turn__correlation_id", flat=True))
        assert leases == held


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
@pytest.mark.parametrize("per_turn", [1, 2])
def test_people_asking_at_once_on_postgresql_never_share_a_turn_beyond_its_need(
    settings: Settings, per_turn: int
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = per_turn
    _never_beyond_need(5, settings, filled=False)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("per_turn", [1, 2])
def test_people_asking_at_once_on_any_database_never_share_a_turn_beyond_its_need(
    settings: Settings, per_turn: int
) -> None:
    """On SQLite the immediate transaction makes `queue_next` the one writer at a time."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = per_turn
    _never_beyond_need(3, settings, filled=connections["default"].vendor == "sqlite")


# --- after a change of N ------------------------------------------------------------------


def test_queue_recount_follows_a_new_number_of_ratings_per_turn(settings: Settings) -> None:
    rated, waiting = queued("rated", "waiting")
    rate(ANN, rated)
    assert (needed(rated), needed(waiting)) == (0, 1)
    settings.LEARNPORTAL_RATINGS_PER_TURN = 3
    call_command("queue_recount", stderr=io.StringIO())
    assert (needed(rated), needed(waiting)) == (2, 3)
    assert leased(ANN) == "waiting"
    assert leased(BOB) == "rated"


def test_the_migration_counts_the_turns_that_were_there_before_the_queue(
    settings: Settings,
) -> None:
    from django.apps import apps

    fill = importlib.import_module("feedback.migrations.0003_queue").fill_queue_columns
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    by_people, by_agent, unsure, untouched = queued("people", "agent", "unsure", "untouched")
    rate(ANN, by_people)
    rate(BOB, by_people)
    rate(AGENT, by_agent, score=-0.5)
    rate(ANN, unsure, confidence=0.1)
    # As the columns were when the migration added them: the field defaults, counted nothing.
    Turn.objects.update(ratings_needed=2, priority=0)

    fill(apps, None)

    assert [(needed(t), t.priority) for t in (by_people, by_agent, unsure, untouched)] == [
        (0, 0),
        (2, 2),
        (1, 1),
        (2, 0),
    ]


def test_progress_counts_what_is_left_up_to_a_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from feedback import queue

    monkeypatch.setattr(queue, "PROGRESS_CAP", 3)
    turns = queued(*[f"t-{i}" for i in range(5)])
    assert leased(ANN) == "t-0"
    queue_skip(ANN, turns[0].pk)
    assert queue_progress(ANN) == QueueProgress(rated_today=0, left_for_me=3, left_at_least=True)
    rate(BOB, turns[1])
    rate(BOB, turns[2])
    assert queue_progress(ANN) == QueueProgress(rated_today=0, left_for_me=2, left_at_least=False)


def _rate_at_once(people: list[Principal], turn: Turn) -> None:
    barrier = threading.Barrier(len(people))
    errors: list[BaseException] = []

    def send(who: Principal) -> None:
        try:
            barrier.wait(timeout=10)
            rate(who, turn)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(who,)) for who in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_people_rating_one_turn_at_once_on_postgresql_are_all_counted(
    settings: Settings,
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = len(PEOPLE)
    for round_ in range(5):
        (turn,) = queued(f"r{round_}")
        _rate_at_once(PEOPLE, turn)
        assert needed(turn) == 0


def _carry_at_once(people: list[Principal], key: str) -> list[int]:
    """Each person's rating of turn `key`, carrying it, sent at once: their replies' statuses."""
    barrier = threading.Barrier(len(people))
    statuses: list[int] = []

    def send(who: Principal) -> None:
        body = {
            "type": "learn/feedback/req",
            "id": f"{key}-{who.name}",
            "feedbacks": [carrying(key).model_dump(mode="json")],
        }
        try:
            barrier.wait(timeout=10)
            statuses.append(dispatch(who, orjson.dumps(body)).status)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send, args=(who,)) for who in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return statuses


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_people_carrying_one_new_turn_on_their_ratings_at_once_on_postgresql_are_all_counted(
    settings: Settings, broadcasts: Broadcasts
) -> None:
    """The turn is new to each of them: one stores it, the others' write of it fails and their
    request runs again (learnportal.dispatch.run), meeting it stored."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = len(PEOPLE)
    for round_ in range(3):
        key = f"new-{round_}"
        assert _carry_at_once(PEOPLE, key) == [200] * len(PEOPLE)
        assert Turn.objects.get(correlation_id=key).ratings_needed == 0


@pytest.mark.django_db(transaction=True)
def test_an_undo_is_broadcast_after_it_commits(broadcasts: Broadcasts) -> None:
    turn, *_ = queued("t-1")
    feedback_id = rate(ANN, turn)
    broadcasts.sent.clear()
    queue_undo(ANN, feedback_id)
    assert broadcasts.events() == ["feedback.retracted"]
    assert broadcasts.sent[0].payload == {"count": 1, "components": ["search"], "by": "ann"}


def test_a_turn_made_any_other_way_starts_needing_all_its_ratings(settings: Settings) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 3
    made = Turn.objects.create(
        correlation_id="orm", prompt="Q?", response="A.", model="m", submitted_by="x", created=0.0
    )
    assert made.ratings_needed == 3
