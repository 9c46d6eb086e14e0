"""One run of `python -m bench.judges`, in this process through the services (as
bench/judging/run.py points its Django at the section's database once).

Two components, `good` (a turn of it is good 60% of the time) and `bad` (40%). Each judge, an
environment credential, scores every turn: the truth on a share `agreement` of them, else the
opposite. Four projects, the same turns and seeds in each: a judge agreeing 60% and one agreeing
95%, each weighed (`judges_weighed`, people having rated a calibration sample of 200 turns) and
each counted in full (the baseline: the same project with no calibration, so the judge is not
measured and counts as any pipeline that takes a judge's score for a reward). The judge's
feedback comes in batches of 500; a softmax adapt (applied, trust region and all) follows
each; the routing weights after the last, and the strategy's targets, are the figures. Weighing is turned on after the calibration, as a team would. The
batches are timed too: weighing's price at ingest, against the same feedback where nothing is
weighed (a fifth project, `judges_weighed` off).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.harness.report import log
from bench.judging.run import _closed, in_app

if TYPE_CHECKING:
    from bench.harness.databases import Database

SEED = 27
FULL = {"turns": 4000, "calibration": 200, "batch": 500}
QUICK = {"turns": 1000, "calibration": 100, "batch": 125}
GOOD_SHARE = {"good": 0.6, "bad": 0.4}
AGREEMENTS = (0.6, 0.95)
STRATEGY = "softmax"


@dataclass(frozen=True)
class Case:
    slug: str
    agreement: float
    weighed: bool  # judges_weighed
    calibrated: bool  # people rated a calibration sample


def cases() -> list[Case]:
    made = [
        Case(f"{'weighed' if calibrated else 'in-full'}-{round(a * 100)}", a, True, calibrated)
        for a in AGREEMENTS
        for calibrated in (True, False)
    ]
    return [*made, Case("unweighed-95", 0.95, False, False)]


def truths(turns: int, seed: int, prefix: str = "turn") -> list[tuple[str, str, float]]:
    """(correlation_id, component, the truth: 1 good or -1 bad) of each turn, alternating."""
    rng = random.Random(seed)
    drawn = []
    for i in range(turns):
        component = "good" if i % 2 else "bad"
        truth = 1.0 if rng.random() < GOOD_SHARE[component] else -1.0
        drawn.append((f"{prefix}-{i}", component, truth))
    return drawn


def judged(truth: float, agreement: float, rng: random.Random) -> float:
    return truth if rng.random() < agreement else -truth


def _item(key: str, score: float, source: str, component: str) -> Any:
    from learnportal_protocol import Feedback

    polarity = "positive" if score > 0 else "negative"
    return Feedback.model_validate(
        {
            "feedback_id": f"{source}-{key}",
            "correlation_id": key,
            "component_name": component,
            "score": score,
            "polarity": polarity,
            "source": source,
        }
    )


def _principals(case: Case) -> tuple[Any, Any]:
    """The judge (an environment credential) and a rater (a person) of the case's project."""
    from core.accounts.models import User
    from core.accounts.principals import Principal, principal_for_user
    from core.accounts.roles import Role
    from core.projects.selection import principal_in
    from core.projects.services import member_set, project_add

    project = project_add(slug=case.slug, name=case.slug)
    person = User.objects.create(username=f"rater-{case.slug}")
    member_set(project=project, person=person, role="annotator")
    rater = principal_in(principal_for_user(person), case.slug)
    judge = Principal(
        role=Role.ENVIRONMENT, name=f"judge-{case.slug}", is_human=False, project=case.slug
    )
    return judge, rater


def run_case(case: Case, sizes: dict[str, Any]) -> dict[str, Any]:
    from core.projects.models import Project
    from core.projects.selection import project_pk
    from feedback.judges.models import JudgeWeight
    from feedback.services.feedbacks import feedback_store
    from refinement import store
    from refinement.adapt import adapt_run, targets_for

    judge, rater = _principals(case)
    rng = random.Random(SEED + round(case.agreement * 100))
    calibration = truths(sizes["calibration"], SEED + 1, prefix="calibration")
    if case.calibrated:
        people = [_item(k, t, "human", "") for k, _, t in calibration]
        feedback_store(principal=rater, feedbacks=people)
        scored = [_item(k, judged(t, case.agreement, rng), "env", "") for k, _, t in calibration]
        feedback_store(principal=judge, feedbacks=scored)
    # Weighing turned on once the judge is calibrated, as a team would: its first feedback
    # after measures it.
    Project.objects.filter(slug=case.slug).update(judges_weighed=case.weighed)
    turns = truths(sizes["turns"], SEED)
    spent, steps = [], []
    for start in range(0, len(turns), sizes["batch"]):
        batch = [
            _item(k, judged(t, case.agreement, rng), "env", c)
            for k, c, t in turns[start : start + sizes["batch"]]
        ]
        t0 = time.perf_counter()
        feedback_store(principal=judge, feedbacks=batch)
        spent.append(time.perf_counter() - t0)
        if case.weighed:
            adapt_run(principal=judge, component_name="", strategy=STRATEGY)
            steps.append(store.routing_weights(project_pk(case.slug)))
    project = project_pk(case.slug)
    weight = JudgeWeight.objects.filter(project=project, judge=judge.key).first()
    result: dict[str, Any] = {
        "case": case.__dict__,
        "rows_s": sizes["turns"] / sum(spent),
        "judge_weight": None if weight is None else weight.weight,
        "judge_alpha": None if weight is None else weight.alpha,
        "judge_items": 0 if weight is None else weight.items,
    }
    if case.weighed:
        targets = targets_for(project, STRATEGY, ["bad", "good"])
        weights = steps[-1]
        result |= {
            "weights": weights,
            "targets": targets,
            "gap": weights["good"] - weights["bad"],
            "target_gap": targets["good"] - targets["bad"],
            "steps": [s["good"] - s["bad"] for s in steps],
        }
    log(f"judges: {case.slug}: weight {result['judge_weight']}, gap {result.get('gap')}")
    return result


def run(database: Database, sizes: dict[str, Any]) -> dict[str, Any]:
    from bench.harness.databases import app_env, manage

    env = app_env(database.create("judges"), debug=False)
    manage(env, "migrate", "--no-input", "-v", "0")
    in_app(env)
    results: dict[str, Any] = {"sizes": sizes, "cases": [run_case(c, sizes) for c in cases()]}
    _closed()
    database.drop(env)
    return results
