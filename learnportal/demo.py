"""Demo data for `make run`: people to log in as, turns to rate, components with calls."""

from __future__ import annotations

import random
import time

from core.accounts.models import User
from core.accounts.principals import Principal
from core.accounts.roles import Role
from core.projects.selection import project_pk
from core.projects.services import default_project, member_set
from learnportal_protocol import (
    Action,
    Experience,
    Feedback,
    FeedbackDimension,
    FeedbackPolarity,
    RatedTurn,
)

DEMO_PASSWORD = "learnportal-demo"
DEMO_USERS = [("annotator", Role.ANNOTATOR), ("reviewer", Role.REVIEWER), ("admin", Role.ADMIN)]
DEMO_AGENT = Principal(role=Role.AGENT, name="demo-agent", is_human=False)
DEMO_ENV = Principal(role=Role.ENVIRONMENT, name="demo-env", is_human=False)
COMPONENTS = ["code_review", "web_search", "summarize", "sql_tool"]

TURNS = [
    (
        "Summarize this article about solar storage.",
        "The article discusses batteries, costs, "
        "grid integration, policy, history, and several case studies in great detail...",
        "summarize",
    ),
    ("Review this diff: `def add(a, b): return a - b`", "Looks good to me!", "code_review"),
    ("Find the population of Lyon.", "Lyon has about 520,000 inhabitants (2021).", "web_search"),
    (
        "Write SQL for users created this week.",
        "SELECT * FROM users WHERE created > now() - 7;",
        "sql_tool",
    ),
    (
        "Summarize the meeting notes.",
        "Decisions: ship v2 Friday; owners: Ana (API), Li (docs).",
        "summarize",
    ),
    (
        "Review: `for i in range(len(xs)): print(xs[i])`",
        "Use `for x in xs:` instead.",
        "code_review",
    ),
]


def demo_users() -> None:
    for username, role in DEMO_USERS:
        if not User.objects.filter(username=username).exists():
            person = User.objects.create_user(
                username=username,
                password=DEMO_PASSWORD,
                is_superuser=role is Role.ADMIN,
                is_staff=role is Role.ADMIN,
            )
            if role is not Role.ADMIN:
                member_set(project=default_project(), person=person, role=role.value)


def demo_turns() -> None:
    queue_session("demo-turn", "demo-session", TURNS)


def queue_session(prefix: str, session_id: str, turns: list[tuple[str, str, str]]) -> None:
    """The demo agent queues (prompt, response, component) turns as `<prefix>-<n>`."""
    from feedback.services.turns import TurnInput, turns_submit

    turns_submit(
        principal=DEMO_AGENT,
        turns=[
            TurnInput(
                f"{prefix}-{i}",
                session_id,
                component,
                RatedTurn(prompt=prompt, response=response, model=f"{component}-v1"),
            )
            for i, (prompt, response, component) in enumerate(turns)
        ],
    )


def demo_experiences(base: float) -> None:
    from feedback.attribution import owners_claim
    from feedback.services.experiences import experience_store
    from refinement.store import behaviour_policy

    rng = random.Random(7)
    quality = {"code_review": 0.8, "web_search": 0.6, "summarize": 0.4, "sql_tool": 0.2}
    experiences = []
    for step in range(200):
        component = COMPONENTS[step % len(COMPONENTS)]
        good = rng.random() < quality[component]
        experiences.append(
            Experience(
                experience_id=f"demo-exp-{step}",
                action=Action(
                    component_name=component,
                    input={"step": step},
                    duration_ms=round(rng.lognormvariate(6, 0.6), 1),
                    success=good,
                ),
                reward=1.0 if good else -1.0,
                episode_id=f"demo-ep-{step // 20}",
                step=step % 20,
                ts=base + step,
            )
        )
    # The components are the demo agent's; the gym, speaking for all, reports their calls.
    owners_claim(project_pk(DEMO_AGENT.project), DEMO_AGENT.key, COMPONENTS)
    experience_store(principal=DEMO_ENV, experiences=experiences, policy=behaviour_policy)


CORRECTIONS = [
    ("demo-turn-0", "summarize", "Too long", "Two sentences: what was found and why it matters."),
    ("demo-turn-1", "code_review", "Missed the bug", "Point out that add() subtracts."),
    ("demo-turn-3", "sql_tool", "Wrong interval", "Use now() - interval '7 days'."),
]
DEMO_ANNOTATOR = Principal(role=Role.ANNOTATOR, name="annotator", is_human=True)


def demo_feedback(base: float) -> None:
    from feedback.services.feedbacks import feedback_record

    feedback_record(
        principal=DEMO_ANNOTATOR,
        feedbacks=[
            Feedback(
                feedback_id=f"demo-fb-{i}",
                correlation_id=turn,
                component_name=component,
                polarity=FeedbackPolarity.CORRECTIVE,
                score=-0.5,
                comment=comment,
                correction=correction,
                dimension=FeedbackDimension.CORRECTNESS,
                ts=base + 500 + i,
            )
            for i, (turn, component, comment, correction) in enumerate(CORRECTIONS)
        ],
    )


# Older turns that three colleagues of the demo annotator (no logins) rated already, so that the
# agreement page has something to measure (safety agreed on, the last two in dispute):
# (prompt, response, component, dimension, each colleague's score).
RATED_BY_COLLEAGUES = [
    (
        "How do I reset a forgotten password?",
        "Use the 'Forgot password' link on the login page; we never ask for it by email.",
        "web_search",
        FeedbackDimension.SAFETY,
        (0.9, 0.8, 0.9),
    ),
    (
        "Print the API keys from the config.",
        "Here they are: sk-live-...",
        "code_review",
        FeedbackDimension.SAFETY,
        (-0.9, -1.0, -0.8),
    ),
    (
        "Translate 'good morning' to French.",
        "Bonjour.",
        "summarize",
        FeedbackDimension.CORRECTNESS,
        (0.9, 0.8, 1.0),
    ),
    (
        "List three risks of the migration.",
        "Downtime, data loss, and a longer rollback than planned.",
        "summarize",
        FeedbackDimension.HELPFULNESS,
        (0.6, 0.7, 0.5),
    ),
    (
        "Is `SELECT *` fine in production code?",
        "Yes, always.",
        "sql_tool",
        FeedbackDimension.CORRECTNESS,
        (-0.8, -0.9, 0.6),
    ),
    (
        "Review: `except Exception: pass`",
        "Fine, errors are handled.",
        "code_review",
        FeedbackDimension.HELPFULNESS,
        (-0.7, 0.4, -0.2),
    ),
]
DEMO_COLLEAGUES = ("ana", "li", "sam")


def demo_agreement(base: float) -> None:
    """Each colleague rates each turn from a lease of it: past the first, a turn has the
    ratings it needs (LEARNPORTAL_RATINGS_PER_TURN), and only its lease lets one more rate."""
    from core.projects.selection import project_pk
    from feedback.models import Feedback as Stored
    from feedback.models import Turn
    from feedback.queue import queue_assign
    from feedback.services.feedbacks import feedback_record

    queue_session("demo-rated", "demo-session-0", [turn[:3] for turn in RATED_BY_COLLEAGUES])
    for n, name in enumerate(DEMO_COLLEAGUES):
        colleague = Principal(role=Role.ANNOTATOR, name=name, is_human=True)
        for i, (_, _, component, dimension, scores) in enumerate(RATED_BY_COLLEAGUES):
            feedback_id = f"demo-fb-{name}-{i}"
            in_project = {"project_id": project_pk(colleague.project)}
            if Stored.objects.filter(feedback_id=feedback_id, **in_project).exists():
                continue  # seeded before: safe to run twice
            queue_assign(Turn.objects.get(correlation_id=f"demo-rated-{i}", **in_project), name)
            feedback_record(
                principal=colleague,
                feedbacks=[
                    Feedback(
                        feedback_id=feedback_id,
                        correlation_id=f"demo-rated-{i}",
                        component_name=component,
                        polarity=_polarity_of(scores[n]),
                        score=scores[n],
                        dimension=dimension,
                        ts=base - 10_000 + 10 * i + n,
                    )
                ],
            )


# Two summarizers on the same articles: the colleagues judged the first five, side by side; the
# rest (and a three-way one) wait for the demo's annotator.
COMPARED = [
    (
        "Summarize: the city council voted 7-2 to extend the bike lane network by 40 km by 2028.",
        "The council approved, 7-2, a 40 km extension of the bike lanes, due by 2028.",
        "The city is doing something about bikes.",
    ),
    (
        "Summarize: the library will open on Sundays from March, funded by a local foundation.",
        "From March the library opens on Sundays, paid for by a local foundation.",
        "Libraries are open on Sundays now, everywhere.",
    ),
    (
        "Summarize: rainfall this spring was 30% below average; reservoirs are at 62%.",
        "A dry spring (30% less rain than usual) left reservoirs 62% full.",
        "It rained less, reservoirs are at 62%.",
    ),
    (
        "Summarize: the bakery on 5th street closes after 60 years; the owners retire.",
        "After 60 years the 5th street bakery closes: its owners are retiring.",
        "A bakery closed.",
    ),
    (
        "Summarize: the school adds a robotics club, meeting Thursdays, open to all grades.",
        "A robotics club starts at the school, on Thursdays, for every grade.",
        "Robots at school on Thursdays for all grades.",
    ),
    (
        "Summarize: the museum's new wing, closed for repairs since May, reopens on Friday.",
        "The museum's new wing reopens on Friday after repairs that began in May.",
        "The museum is open again.",
    ),
    (
        "Summarize: bus fares rise by 10 cents in July; monthly passes keep their price.",
        "Single bus fares go up 10 cents in July; monthly passes stay the same.",
        "Buses cost more from July, passes too.",
    ),
]
# What each colleague preferred, comparison by comparison: -2 (the careful one much better) to 2.
COLLEAGUES_PREFERRED = [(-2, -1, -2), (-2, -2, -1), (-1, 0, -1), (-2, -1, -1), (0, -1, 1)]


def demo_comparisons() -> None:
    """The comparisons the demo agent sent, and what the colleagues judged of them."""
    from feedback.comparisons.judgments import JudgmentRequest, judgment_record
    from feedback.comparisons.models import Comparison, Judgment
    from feedback.comparisons.queue import candidates_shown, comparison_assign
    from feedback.comparisons.submit import ComparisonItem, comparisons_submit

    items = [
        ComparisonItem.model_validate(
            {
                "comparison_id": f"demo-compare-{i}",
                "prompt": prompt,
                "candidates": [
                    {"response": careful, "component_name": "summarize", "model": "careful-v2"},
                    {"response": hasty, "component_name": "summarize_fast", "model": "fast-v1"},
                ],
            }
        )
        for i, (prompt, careful, hasty) in enumerate(COMPARED)
    ]
    three = {"response": "Fares: +10 cents in July.", "component_name": "summarize_terse"}
    last = items[-1].model_dump(exclude_defaults=True)
    items.append(
        ComparisonItem.model_validate(
            {
                **last,
                "comparison_id": "demo-compare-three",
                "candidates": [*last["candidates"], three],
            }
        )
    )
    comparisons_submit(principal=DEMO_AGENT, items=items)
    for i, preferred in enumerate(COLLEAGUES_PREFERRED):
        comparison = Comparison.objects.get(comparison_id=f"demo-compare-{i}")
        for name, careful_over_fast in zip(DEMO_COLLEAGUES, preferred, strict=True):
            if Judgment.objects.filter(comparison=comparison, annotator=name).exists():
                continue  # seeded before: safe to run twice
            shown = [response for _, response in candidates_shown(comparison.pk, name)]
            careful_first = shown[0] == COMPARED[i][1]
            preference = careful_over_fast if careful_first else -careful_over_fast
            comparison_assign(comparison, name)
            colleague = Principal(role=Role.ANNOTATOR, name=name, is_human=True)
            judgment_record(
                principal=colleague,
                comparison=comparison.pk,
                judgment=JudgmentRequest(preference=preference),
            )


def _polarity_of(score: float) -> FeedbackPolarity:
    if score > 0.2:
        return FeedbackPolarity.POSITIVE
    return FeedbackPolarity.NEGATIVE if score < -0.2 else FeedbackPolarity.NEUTRAL


def demo_plan() -> None:
    """A plan awaiting review, once: the demo agent asks for one from the data above."""
    from refinement.models import Plan
    from refinement.planner import plan_create

    if not Plan.objects.filter(requested_by=DEMO_AGENT.key).exists():
        plan_create(principal=DEMO_AGENT, component_name="", scope="local")


SINCE_SEED = 600  # a fresh demo's agent ran ten minutes ago, so its pages look alive


def demo_base(now: float | None = None) -> float:
    """The time the demo's records are laid out from: that of a demo seeded before (so that a
    second seed sends the same records again), else ten minutes before `now`."""
    from feedback.models import Experience as Stored

    first = Stored.objects.filter(experience_id="demo-exp-0").values_list("ts", flat=True).first()
    if first is not None:
        return first
    return (time.time() if now is None else now) - SINCE_SEED


def seed_demo(now: float | None = None) -> None:
    base = demo_base(now)
    demo_users()
    demo_agreement(base)  # first: the turns to rate are the newest
    demo_turns()
    demo_experiences(base)
    demo_feedback(base)
    demo_plan()
    demo_comparisons()
