"""The components pages' data, recorded through the ingest services themselves: calls and scores
of 10 components spread over 60 days, and a long history of one component's weight.
"""

from __future__ import annotations

import random
import time

from bench.harness.report import log

COMPONENTS = [f"tool-{i:02d}" for i in range(10)]
SHOWN = "tool-03"
SPAN_S = 60 * 86_400.0
BATCH = 1000
FEEDBACK_PER_CALLS = 5  # one score a fifth of the calls
REVISIONS = 2000


def _record(target: int, start: float, seed: int) -> float:
    """Calls (and a score for every fifth) through the ingest services up to `target` calls in
    all, their ts spread evenly over SPAN_S from `start`: seconds taken."""
    from core.accounts.principals import Principal
    from core.accounts.roles import Role
    from feedback.models import ComponentStats
    from feedback.services.experiences import experience_store
    from feedback.services.feedbacks import feedback_record
    from learnportal_protocol import Experience, FeedbackPolarity
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol.models import Action
    from refinement.store import behaviour_policy

    agent = Principal(role=Role.AGENT, name="bench-agent", is_human=False)
    rng = random.Random(seed)
    done = sum(ComponentStats.objects.values_list("calls_total", flat=True))
    t0 = time.perf_counter()
    while done < target:
        size = min(BATCH, target - done)
        calls, scores = [], []
        for i in range(done, done + size):
            component = COMPONENTS[i % len(COMPONENTS)]
            ts = start + SPAN_S * i / target if target else start
            good = rng.random() < 0.5 + 0.04 * (i % len(COMPONENTS))
            calls.append(
                Experience(
                    experience_id=f"c-{i}",
                    reward=1.0 if good else -1.0,
                    ts=ts,
                    action=Action(
                        component_name=component,
                        duration_ms=round(rng.lognormvariate(5.0, 0.7), 2),
                        success=good,
                    ),
                )
            )
            if (i // len(COMPONENTS)) % FEEDBACK_PER_CALLS == 0:  # every component's
                score = max(-1.0, min(1.0, rng.gauss(0.3 if good else -0.3, 0.4)))
                scores.append(
                    FeedbackItem(
                        feedback_id=f"f-{i}",
                        component_name=component,
                        score=score,
                        polarity=FeedbackPolarity.POSITIVE
                        if score >= 0
                        else FeedbackPolarity.NEGATIVE,
                        ts=ts,
                    )
                )
        experience_store(principal=agent, experiences=calls, policy=behaviour_policy)
        feedback_record(principal=agent, feedbacks=scores)
        done += size
        if done % 100_000 == 0:
            log(f"components: {done:,} calls recorded")
    return time.perf_counter() - t0


def _revisions(start: float) -> None:
    """A weight's history as a long run of adapts leaves it: REVISIONS changes of one path."""
    from refinement.models import Revision, StoreValue
    from refinement.paths import WEIGHT_PREFIX

    path = WEIGHT_PREFIX + SHOWN
    rng = random.Random(5)
    value, rows = 0.5, []
    for n in range(REVISIONS):
        after = min(1.0, max(0.0, value + rng.uniform(-0.1, 0.1)))
        ts = start + SPAN_S * n / REVISIONS
        rows.append(Revision(path=path, version=n + 1, before=value, after=after, actor="bench",
                             ts=ts))  # fmt: skip
        value = after
    Revision.objects.bulk_create(rows, batch_size=500)
    StoreValue.objects.update_or_create(
        path=path, defaults={"value": value, "version": REVISIONS, "updated": time.time()}
    )
