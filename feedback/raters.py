"""Who may rate a turn: the one rule every path that stores a person's rating goes through (the
rating page, the queue, learn/feedback/req over every transport), inside the write's
transaction, after the turns' locks (feedback.services.feedbacks.feedback_record).

What is rated is a unit: a whole turn, or one step of it (a feedback's `step_id`), each rated
on its own by the same rules.

- A person's rating of a unit on a dimension is one: a later one supersedes the earlier, as an
  undo and a new rating would (feedback.retractions), so that however often one person rates a
  unit, one score of theirs counts, in the queue, the component's score and agreement. A resend
  of the same feedback_id with the same content is a retry and changes nothing; two ratings of
  one unit on one dimension in one batch are a `conflict` (which is the one meant?).
- A unit takes ratings from as many distinct people as its project needs (core.projects.rules,
  feedback.queue_state): a newcomer is refused `conflict` when it has them all, or when the
  ones left are leased to others; the one who holds its lease may always rate it.

An agent's or environment's feedback never rates a turn, so none of this applies to it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from core.projects.rules import ratings_per_turn_of
from feedback.facts import BATCH_ORDER
from feedback.models import Lease
from feedback.traces.steps import SESSION_STEP
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import ErrorCode, conflict, detail

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.accounts.principals import Principal
    from feedback.facts import Fact, Facts
    from feedback.queue_state import Held
    from learnportal_protocol.errors import LearnError

HUMAN = FeedbackSource.HUMAN.value
Unit = tuple[str, str]  # a turn's correlation_id, and a step id of it or "" for the whole turn
RATED_TWICE = "rates this {unit} on {dimension} again in the same batch"
RATED_ENOUGH = "this {unit} has the {needed} ratings it needs from distinct people"
LEASED_TO_OTHERS = "the ratings this {unit} still needs are leased to other people"
_REFUSALS = {
    "enough": re.compile(RATED_ENOUGH.format(unit=r"\w+", needed=r"\d+")),
    "leased": re.compile(LEASED_TO_OTHERS.format(unit=r"\w+")),
}


def raters_check(
    principal: Principal,
    batch: Sequence[Fact],
    stored: Facts,
    held: Held,
    *,
    positions: Sequence[int],
    now: float,
) -> set[int]:
    """The stored ratings (primary keys) this person's batch supersedes; refuse, naming each
    item, a batch that breaks the rule above.

    `batch` is the write's new facts (feedback.facts.batch_facts), `stored` the counted facts of
    their turns, `held` the stored turns (locked), and `positions` the index in the request of
    each row the facts were made from.
    """
    if not principal.is_human:
        return set()
    who = principal.name
    problems: list[dict[str, Any]] = []
    units: set[tuple[str, str, str]] = set()
    superseded: set[int] = set()
    # A unit of a held turn this person has not rated: the first item on it.
    newcomers: dict[Unit, int] = {}
    for fact in batch:
        key, index = fact.correlation_id, positions[fact.order - BATCH_ORDER]
        unit = (key, fact.step_id)
        mine = [
            f
            for f in stored.get(key, ())
            if f.source == HUMAN and f.annotator_id == who and f.step_id == fact.step_id
        ]
        if (*unit, fact.dimension) in units:
            said = RATED_TWICE.format(unit=unit_word(fact.step_id), dimension=fact.dimension)
            problems.append(_problem(index, said))
        elif not mine and key in held:
            newcomers.setdefault(unit, index)
        units.add((*unit, fact.dimension))
        superseded.update(f.order for f in mine if f.dimension == fact.dimension)
    problems.extend(_over_needed(who, newcomers, stored, held, now))
    if problems:
        raise conflict(
            f"{len(problems)} feedbacks rate a turn that {who} may not rate so; "
            "nothing was stored.",
            sorted(problems, key=lambda item: item["loc"][1]),
        )
    return superseded


def _over_needed(
    who: str, newcomers: dict[Unit, int], stored: Facts, held: Held, now: float
) -> list[dict[str, Any]]:
    """The items by which `who` would rate a unit beyond the people it needs."""
    if not newcomers:
        return []
    per_turn = ratings_per_turn_of(held[key][3] for key, _ in newcomers)
    leases: dict[tuple[int, str], set[str]] = defaultdict(set)
    turns = sorted({held[key][0] for key, _ in newcomers})
    live = Lease.objects.filter(turn_id__in=turns, expires__gt=now)
    for turn_id, step_id, username in live.values_list("turn_id", "step_id", "username"):
        leases[turn_id, step_id].add(username)
    problems = []
    for (key, step_id), index in newcomers.items():
        holders = leases[held[key][0], step_id]
        if who in holders:
            continue
        raters = {
            f.annotator_id
            for f in stored.get(key, ())
            if f.source == HUMAN and f.step_id == step_id
        }
        wanted = per_turn[held[key][3]]
        needed = wanted - len(raters)
        if needed <= 0:
            said = RATED_ENOUGH.format(unit=unit_word(step_id), needed=wanted)
            problems.append(_problem(index, said))
        elif needed <= len(holders):
            problems.append(_problem(index, LEASED_TO_OTHERS.format(unit=unit_word(step_id))))
    return problems


def newcomer_refused(error: LearnError) -> str | None:
    """Why `error` refused a person new to the turn: "enough" (it has the ratings it needs),
    "leased" (the ones left are leased to others); None when it is no such refusal."""
    if error.code != ErrorCode.CONFLICT:
        return None
    said = [str(item.get("msg")) for item in error.details]
    for why, pattern in _REFUSALS.items():
        if any(pattern.fullmatch(message) for message in said):
            return why
    return None


def unit_word(step_id: str) -> str:
    """The unit a rating with this step id rates, in a word."""
    if not step_id:
        return "turn"
    return "session" if step_id == SESSION_STEP else "step"


def _problem(index: int, message: str) -> dict[str, Any]:
    return detail(["feedbacks", index, "correlation_id"], message)
