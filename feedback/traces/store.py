"""Storing a batch's steps on their turns, inside the turns' transaction: each step id once a
turn (the first sent wins, as a span resent by an exporter's retry), the turn's count and the
tree's depth within their settings counting the steps stored before, or nothing stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings

from core.columns import Columns
from feedback.bulk import Row, insert_rows
from feedback.models import TurnStep
from feedback.sessions import SESSION_STEP, opens_session
from feedback.traces.steps import step_depths
from learnportal_protocol.errors import detail, invalid

if TYPE_CHECKING:
    from feedback.queue_state import Held
    from feedback.traces.steps import Step

STEP_COLUMNS = Columns(TurnStep)(
    "turn",
    "step_id",
    "parent_id",
    "name",
    "kind",
    "input",
    "output",
    "start",
    "end",
    "status",
    "error",
    "tokens_in",
    "tokens_out",
    "cost",
    "attributes",
)

# Where each step came from in the request: the turn's index there, and the step's in its list.
Sent = list[tuple[int, int, "Step"]]


def steps_add(held: Held, sent: dict[str, Sent]) -> None:
    """Store the steps `sent` for each turn (by correlation_id; `held`: the stored turns, all of
    them) that its turn does not have yet; `invalid` naming each step over a bound."""
    turn_ids = {key: held[key][0] for key in sent}
    stored: dict[int, dict[str, str]] = {pk: {} for pk in turn_ids.values()}
    rows = TurnStep.objects.filter(turn_id__in=list(stored)).values_list(
        "turn_id", "step_id", "parent_id"
    )
    for turn_id, step_id, parent_id in rows:
        stored[turn_id][step_id] = parent_id
    problems: list[dict[str, Any]] = []
    new: list[Row] = []
    for key, steps in sent.items():
        turn_id = turn_ids[key]
        parents = dict(stored[turn_id])
        fresh = []
        for item in steps:
            if item[2].step_id not in parents:  # the first of two items of one turn counts
                parents[item[2].step_id] = item[2].parent_id
                fresh.append(item)
        problems.extend(_over_bounds(parents, fresh))
        new.extend(_row(turn_id, step) for _, _, step in fresh)
    if problems:
        raise invalid(f"{len(problems)} steps are refused; nothing was stored.", problems)
    insert_rows(TurnStep, STEP_COLUMNS, new)


def _over_bounds(parents: dict[str, str], fresh: Sent) -> list[dict[str, Any]]:
    if not fresh:
        return []
    most, deepest = settings.LEARNPORTAL_MAX_STEPS, settings.LEARNPORTAL_MAX_STEP_DEPTH
    if len(parents) > most:
        turn = fresh[0][0]
        said = f"the turn would have {len(parents)} steps; at most {most} (LEARNPORTAL_MAX_STEPS)"
        return [detail(["turns", turn, "steps"], said)]
    depths = step_depths(parents)
    problems = []
    for turn, index, step in fresh:
        depth = depths.get(step.step_id)
        if depth is None:
            said = "its parents lead back to it: the steps of a turn are a tree"
        elif depth > deepest:
            said = f"{depth} steps deep; at most {deepest} (LEARNPORTAL_MAX_STEP_DEPTH)"
        else:
            continue
        problems.append(detail(["turns", turn, "steps", index, "parent_id"], said))
    return problems


def _row(turn_id: int, step: Step) -> Row:
    return (
        turn_id,
        step.step_id,
        step.parent_id,
        step.name,
        step.kind.value,
        step.input,
        step.output,
        step.start,
        step.end,
        step.status.value,
        step.error,
        step.tokens_in,
        step.tokens_out,
        step.cost,
        orjson.dumps(step.attributes).decode(),
    )


NOT_A_STEP = "is not a step of the turn {correlation_id!r}"
NOT_AN_OPENER = "names the session of the turn {correlation_id!r}, which does not begin one"
SESSION_UNCORRECTED = "a rating of a session corrects no one response: rate its turns for that"


def steps_named_check(held: Held, named: list[tuple[int, str, str, bool]]) -> None:
    """`invalid` naming each feedback that names a step its turn does not have, or the session
    (SESSION_STEP) of a turn that does not begin one, or corrects a session: `named` holds
    (index in the request, correlation_id, step_id, has a correction), `held` the stored
    turns."""
    wanted: dict[int, set[str]] = {}
    for _, key, step_id, _ in named:
        if key in held and step_id != SESSION_STEP:
            wanted.setdefault(held[key][0], set()).add(step_id)
    found: set[tuple[int, str]] = set()
    for turn_id, step_ids in wanted.items():
        found.update(
            (turn_id, step_id)
            for step_id in TurnStep.objects.filter(
                turn_id=turn_id, step_id__in=sorted(step_ids)
            ).values_list("step_id", flat=True)
        )
    sessions = [held[key][0] for _, key, step_id, _ in named if step_id == SESSION_STEP]
    found.update((turn_id, SESSION_STEP) for turn_id in opens_session(sorted(set(sessions))))
    problems = []
    for index, key, step_id, corrects in named:
        if key not in held or (held[key][0], step_id) not in found:
            said = NOT_AN_OPENER if step_id == SESSION_STEP else NOT_A_STEP
            problems.append(
                detail(
                    ["feedbacks", index, "step_id"],
                    f"step_id {step_id!r} {said.format(correlation_id=key)}",
                )
            )
        elif step_id == SESSION_STEP and corrects:
            problems.append(detail(["feedbacks", index, "correction"], SESSION_UNCORRECTED))
    if problems:
        raise invalid(
            f"{len(problems)} feedbacks name a step or session their turn does not have, or "
            "correct a session; nothing was stored.",
            problems,
        )
