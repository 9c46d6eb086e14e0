"""A turn's run as the rating pages show it (templates/feedback/partials/step_tree.html): each
step in tree order with its depth, its bar on the run's timeline, its input and output (JSON
indented, long ones folded) and whether the rubric asks anything of its kind, so that a person
can rate that one step (`?step=<step id>`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from feedback.models import TurnStep
from feedback.selectors.turns import turn_steps

if TYPE_CHECKING:
    from feedback.models import Turn

FOLDED_LINES = 12  # a text of more lines than this shows folded, opened on demand
FOLDED_CHARACTERS = 1200
STEP_PARAMETER = "step"  # the query parameter of the step to rate
STEPS_PARAMETER = "steps"  # the queue's: hand out steps of these kinds (comma-separated)
MIN_BAR = 0.5  # percent: a step of no measurable length still shows as a mark
MAX_INDENT = 8  # deeper steps are drawn at this depth (their depth is still said)


@dataclass(frozen=True)
class StepRow:
    step: TurnStep
    depth: int
    indent: int  # the depth as drawn
    folds: bool  # it has steps under it, which can be folded away
    offset: float  # percent of the run's timeline before the step begins
    width: float  # percent of the run's timeline the step lasts
    duration: str  # "1.2 s", "35 ms", "" when unknown
    input: str
    output: str
    folded: bool  # its input or output is long
    ratable: bool  # the rubric asks a question of its kind


def step_rows(turn: Turn, asked: frozenset[str]) -> list[StepRow]:
    """The turn's steps, parents before their children (the earliest begun first among
    siblings), each with what its row shows; `asked`: the kinds of step the rubric rates."""
    steps = turn_steps(turn)
    if not steps:
        return []
    starts = [s.start for s in steps if s.start is not None]
    ends = [s.end if s.end is not None else s.start for s in steps if s.start is not None]
    first, last = (min(starts), max(e for e in ends if e is not None)) if starts else (0.0, 0.0)
    length = last - first
    rows = []
    ordered = _tree_order(steps)
    for index, (step, depth) in enumerate(ordered):
        below = ordered[index + 1][1] if index + 1 < len(ordered) else -1
        offset = width = 0.0
        if step.start is not None and length > 0:
            offset = 100 * (step.start - first) / length
            end = step.end if step.end is not None else step.start
            width = max(MIN_BAR, 100 * (end - step.start) / length)
            width = min(width, 100 - offset) if offset < 100 else MIN_BAR
        shown_input, shown_output = _shown(step.input), _shown(step.output)
        rows.append(
            StepRow(
                step=step,
                depth=depth,
                indent=min(depth, MAX_INDENT),
                folds=below > depth,
                offset=round(offset, 3),
                width=round(width, 3),
                duration=_duration(step),
                input=shown_input,
                output=shown_output,
                folded=_long(shown_input) or _long(shown_output),
                ratable=step.kind in asked,
            )
        )
    return rows


def step_chosen(turn: Turn, step_id: str) -> TurnStep | None:
    """The turn's step `step_id` (as a page's query or form names it), or None."""
    if not step_id:
        return None
    return TurnStep.objects.filter(turn=turn, step_id=step_id[:200]).first()


def _tree_order(steps: list[TurnStep]) -> list[tuple[TurnStep, int]]:
    """Depth first from the steps with no parent in the turn (a parent not sent makes a top
    step too), children in the order given (the earliest begun first)."""
    ids = {s.step_id for s in steps}
    children: dict[str, list[TurnStep]] = {}
    for step in steps:
        parent = step.parent_id if step.parent_id in ids else ""
        children.setdefault(parent, []).append(step)
    ordered: list[tuple[TurnStep, int]] = []
    pending = [(s, 0) for s in reversed(children.get("", []))]
    seen: set[str] = set()
    while pending:
        step, depth = pending.pop()
        if step.step_id in seen:
            continue
        seen.add(step.step_id)
        ordered.append((step, depth))
        pending.extend((c, depth + 1) for c in reversed(children.get(step.step_id, [])))
    # A cycle's steps have no top: they come last, flat, so that no step goes unshown.
    ordered += [(s, 0) for s in steps if s.step_id not in seen]
    return ordered


def _shown(text: str) -> str:
    """JSON indented for reading; any other text as it is."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.dumps(json.loads(stripped), indent=2, ensure_ascii=False)
        except ValueError:
            pass
    return text


def _long(text: str) -> bool:
    return len(text) > FOLDED_CHARACTERS or text.count("\n") >= FOLDED_LINES


def _duration(step: TurnStep) -> str:
    if step.start is None or step.end is None:
        return ""
    seconds = step.end - step.start
    if seconds < 0.0005:
        return "< 1 ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"
