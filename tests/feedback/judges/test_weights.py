"""Machine feedback weighed by its judge's agreement with people (issue 27, item 5): where a
project weighs judges, an agent's or environment's feedback counts in the stats and as routing
evidence as far as its judge agrees with people, a judge not yet measured in full (and a
refinement resting on it one risk level higher); elsewhere nothing changes."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings

from core.projects.models import Project
from core.projects.selection import project_pk
from feedback.judges.models import JudgeWeight
from feedback.models import Experience, Feedback
from feedback.selectors import reward_sums
from refinement import store
from refinement.adapt import targets_for
from tests.builders import adapt_req, feedback, feedback_req, review_req, stats_req, weight_proposal
from tests.harness import Actor, default_pk, http_send, human_actor, ok, token_actor

if TYPE_CHECKING:
    from pytest_django import Settings

pytestmark = pytest.mark.django_db

CALIBRATION = 40


@pytest.fixture(autouse=True)
def measured_each_time(settings: Settings) -> None:
    """Each feedback measures its judge afresh: the tests read the weight of the moment."""
    settings.LEARNPORTAL_JUDGE_WEIGHT_SECONDS = 0


def weighing(slug: str = "default") -> None:
    Project.objects.filter(slug=slug).update(judges_weighed=True)


def scored(key: str, score: float, **fields: Any) -> dict[str, Any]:
    polarity = "positive" if score > 0 else "negative" if score < 0 else "neutral"
    return feedback(correlation_id=key, score=score, polarity=polarity, **fields)


def calibrate(
    judge: Actor, agreeing: float, *, project: str = "default", seed: int = 3
) -> dict[str, float]:
    """People rate CALIBRATION turns +1 or -1; the judge agrees on a share `agreeing` of them
    (else the opposite): the people's scores, by turn."""
    pick = random.Random(seed)
    person = human_actor(f"rater-{project}", "annotator", project=project)
    truth = {f"cal-{i}": 1.0 if i % 2 else -1.0 for i in range(CALIBRATION)}
    ok(http_send(person, feedback_req(*(scored(k, s, source="human") for k, s in truth.items()))))
    judged = [
        scored(key, score if pick.random() < agreeing else -score, source="env")
        for key, score in truth.items()
    ]
    ok(http_send(judge, feedback_req(*judged)))
    return truth


def judge_new_turns(
    judge: Actor, agreeing: float, *, count: int = 100, seed: int = 4
) -> dict[str, float]:
    """The judge scores new turns no person rated: those of `good` are good, those of `bad`
    bad; it says so on a share `agreeing` of them (else the opposite). The sum of its scores
    of each component."""
    pick = random.Random(seed)
    items = []
    sent: dict[str, float] = {}
    for i in range(count):
        component, truth = ("good", 1.0) if i % 2 else ("bad", -1.0)
        score = truth if pick.random() < agreeing else -truth
        items.append(scored(f"new-{i}", score, source="env", component_name=component))
        sent[component] = sent.get(component, 0.0) + score
    ok(http_send(judge, feedback_req(*items)))
    return sent


def stored_weight(judge: str, project: int | None = None) -> JudgeWeight:
    return JudgeWeight.objects.get(
        project=project or default_pk(), judge=judge, dimension="helpfulness"
    )


def sums(project: int | None = None) -> dict[str, tuple[int, float]]:
    window = settings.LEARNPORTAL_ADAPT_WINDOW
    return {name: (n, total) for name, n, total in reward_sums(project or default_pk(), window)}


def avg_score(actor: Actor, component: str) -> float:
    body = ok(http_send(actor, stats_req(component)))
    return float(body["components"][0]["avg_score"])


def test_by_default_machine_feedback_counts_in_full_and_is_no_routing_evidence(
    env: Actor,
) -> None:
    calibrate(env, 0.6)
    person = human_actor("pia", "annotator")
    ok(http_send(env, feedback_req(scored("t-1", 1.0, source="env", component_name="c"))))
    ok(http_send(person, feedback_req(scored("t-1", -0.5, source="human", component_name="c"))))
    assert avg_score(env, "c") == pytest.approx(0.25)
    assert not Experience.objects.exists()
    assert not JudgeWeight.objects.exists()


def test_a_measured_judge_counts_in_the_stats_by_its_agreement(env: Actor) -> None:
    weighing()
    calibrate(env, 0.8)
    ok(http_send(env, feedback_req(scored("new-1", 1.0, source="env", component_name="c"))))
    weight = stored_weight("token:gym-1")
    assert weight.items == CALIBRATION
    assert weight.weight is not None
    assert weight.weight == pytest.approx(max(0.0, min(1.0, weight.alpha or 0.0)))
    assert 0 < weight.weight < 1
    # A person's rating counts in full beside it: the mean is weighed by the judge's weight.
    person = human_actor("pia", "annotator")
    ok(http_send(person, feedback_req(scored("new-1", -1.0, source="human", component_name="c"))))
    expected = (weight.weight * 1.0 + 1.0 * -1.0) / (weight.weight + 1.0)
    assert avg_score(env, "c") == pytest.approx(expected)


def test_a_judge_not_yet_measured_counts_in_full_as_evidence_too(env: Actor) -> None:
    weighing()
    ok(http_send(env, feedback_req(scored("t-1", 0.5, source="env", component_name="c"))))
    assert stored_weight("token:gym-1").weight is None
    assert sums() == {"c": (1, 0.5)}
    stored = Feedback.objects.get()
    experience = Experience.objects.get()
    assert experience.experience_id == f"feedback-{stored.feedback_id}"
    assert (experience.owner, experience.episode_id) == ("token:gym-1", "t-1")
    assert (experience.component_name, experience.success) == ("c", True)
    assert experience.behaviour_prob is None


def test_a_judge_that_disagrees_with_people_moves_nothing(env: Actor) -> None:
    weighing()
    calibrate(env, 0.0)  # always the opposite: alpha below 0, weight 0
    assert stored_weight("token:gym-1").weight is None  # measured before its first batch
    judge_new_turns(env, 1.0, count=10)
    assert stored_weight("token:gym-1").weight == 0.0
    assert sums() == {}
    assert not Experience.objects.filter(component_name__in=["good", "bad"]).exists()


@dataclass(frozen=True)
class Moved:
    weights_gap: float  # the weight of `good` less that of `bad`, after one adapt
    targets_gap: float  # the same of the strategy's targets, where the weights head
    sums: dict[str, tuple[int, float]]
    sent: dict[str, float]  # the judge's own scores of each component, summed


def adapted(agreeing: float, slug: str) -> Moved:
    """In a project of its own that weighs judges, a judge agreeing `agreeing` of the time is
    calibrated, then judges 100 new turns; one softmax adapt follows."""
    Project.objects.create(slug=slug, name=slug, judges_weighed=True)
    judge = token_actor(f"judge-{slug}", "environment", project=slug)
    calibrate(judge, agreeing, project=slug)
    sent = judge_new_turns(judge, agreeing)
    ok(http_send(judge, adapt_req("softmax")))
    project = project_pk(slug)
    weights = store.routing_weights(project)
    targets = targets_for(project, "softmax", ["bad", "good"])
    return Moved(
        weights["good"] - weights["bad"], targets["good"] - targets["bad"], sums(project), sent
    )


def test_a_judge_agreeing_60_percent_moves_routing_less_than_one_agreeing_95() -> None:
    careless, careful = adapted(0.6, "careless"), adapted(0.95, "careful")
    careless_weight = stored_weight("token:judge-careless", project_pk("careless")).weight
    careful_weight = stored_weight("token:judge-careful", project_pk("careful")).weight
    assert careless_weight is not None and careful_weight is not None
    assert careless_weight < 0.5 < careful_weight
    # The same turns, as many experiences: each says its score times its judge's weight.
    for moved, weight in ((careless, careless_weight), (careful, careful_weight)):
        for component in ("good", "bad"):
            count, total = moved.sums[component]
            assert count == 50
            assert total == pytest.approx(weight * moved.sent[component])
    assert careful.targets_gap > careless.targets_gap + 0.3
    assert careful.weights_gap > careless.weights_gap + 0.1


def risk_of_moving(actor: Actor, component: str) -> dict[str, Any]:
    """The review of a small step of the component's weight (low by the step alone)."""
    return ok(http_send(actor, review_req(weight_proposal(component, 0.5, 0.55))))


def test_a_refinement_resting_on_a_judge_not_yet_measured_is_one_risk_level_higher(
    env: Actor, boss: Actor
) -> None:
    assert risk_of_moving(boss, "good")["risk_level"] == "low"
    weighing()
    judge_new_turns(env, 1.0, count=40)
    review = risk_of_moving(boss, "good")
    assert review["risk_level"] == "medium"
    assert any("not yet measured" in r and "token:gym-1" in r for r in review["reasons"])


def test_once_measured_the_judge_no_longer_raises_the_risk(env: Actor, boss: Actor) -> None:
    weighing()
    calibrate(env, 1.0)
    judge_new_turns(env, 1.0, count=40)
    assert stored_weight("token:gym-1").weight == pytest.approx(1.0)
    assert risk_of_moving(boss, "good")["risk_level"] == "low"


def test_where_people_give_most_of_the_feedback_the_judge_raises_nothing(
    env: Actor, boss: Actor
) -> None:
    weighing()
    person = human_actor("pia", "annotator")
    people = [scored(f"p-{i}", 1.0, source="human", component_name="good") for i in range(3)]
    ok(http_send(person, feedback_req(*people)))
    ok(http_send(env, feedback_req(scored("j-1", 1.0, source="env", component_name="good"))))
    assert risk_of_moving(boss, "good")["risk_level"] == "low"


def test_a_manager_turns_weighing_on_and_an_annotator_may_not(ann: Actor) -> None:
    lead = human_actor("lead", "manager")
    refused = ann.rest("patch", "/api/projects/default/", {"judges_weighed": True})
    assert refused.status_code == 403
    assert Project.objects.get(pk=default_pk()).judges_weighed is False
    changed = lead.rest("patch", "/api/projects/default/", {"judges_weighed": True})
    assert changed.status_code == 200, changed.content
    assert changed.json()["judges_weighed"] is True
