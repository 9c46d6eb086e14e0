"""Which turns enter the queue, decided as they and their feedback arrive, in the write's
transaction.

A project with no enabled rule takes every turn. Otherwise a turn enters when a rule takes it:
a rule about turns (no feedback criteria) as the turn arrives, one about feedback when a
feedback on the turn matches it (before or after the turn arrived); each samples what matches
at its `rate`, by a hash of the rule and the turn's correlation_id, so the same turn is taken
or left whatever the order things arrive in. A turn enters once, however many rules match:
the first by priority then age, whose priority then adds to the turn's (feedback.queue_state).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from feedback.intake.models import Admission, IntakeRule
from feedback.models import Turn
from feedback.selectors.turns import turn_ids

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from feedback.facts import Fact
    from feedback.queue_state import Held
    from feedback.services.rows import Queued

SPAN = float(2**64)


@dataclass(frozen=True)
class Entry:
    """Whether a turn is in the queue, and the priority the rule that took it adds."""

    admitted: bool = True
    priority: int = 0
    rule: int | None = None


EVERY_TURN = Entry()
LEFT_OUT = Entry(admitted=False)


def rules_of(project: int) -> list[IntakeRule]:
    """The project's enabled rules, the first to take a turn first."""
    return list(
        IntakeRule.objects.filter(project_id=project, enabled=True).order_by("-priority", "id")
    )


def sampled(rule: IntakeRule, key: str) -> bool:
    digest = hashlib.sha256(f"{rule.pk}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / SPAN < rule.rate


def takes_turn(rule: IntakeRule, component: str) -> bool:
    return not rule.about_feedback and rule.component in ("", component)


def takes_feedback(rule: IntakeRule, component: str, fact: Fact) -> bool:
    """Whether the rule is about feedback like `fact` on a turn of `component`."""
    return (
        rule.about_feedback
        and rule.component in ("", component)
        and rule.source in ("", fact.source)
        and rule.polarity in ("", fact.polarity)
        and (rule.score_min is None or fact.score >= rule.score_min)
        and (rule.score_max is None or fact.score <= rule.score_max)
        and (rule.confidence_below is None or fact.confidence < rule.confidence_below)
    )


def entry_of(rules: list[IntakeRule], key: str, component: str, facts: Iterable[Fact]) -> Entry:
    """How a turn stands with `rules`: taken by the first that matches it or one of its
    counted feedback `facts` and samples it, else left out."""
    facts = list(facts)
    for rule in rules:
        matched = takes_turn(rule, component) or any(
            takes_feedback(rule, component, fact) for fact in facts
        )
        if matched and sampled(rule, key):
            return Entry(admitted=True, priority=rule.priority, rule=rule.pk)
    return LEFT_OUT


def new_turns_entries(
    project: int, components: Mapping[str, str], facts: Mapping[str, list[Fact]]
) -> dict[str, Entry]:
    """The entry of each new turn (correlation_id: component), given the feedback stored on
    it before it came."""
    rules = rules_of(project)
    if not rules:
        return dict.fromkeys(components, EVERY_TURN)
    return {
        key: entry_of(rules, key, component, facts.get(key, ()))
        for key, component in components.items()
    }


def admissions_record(project: int, turns: Mapping[int, Entry], now: float | None = None) -> None:
    """Keep, for each turn (by id) a rule took, which rule: what the rules' counts read."""
    now = time.time() if now is None else now
    Admission.objects.bulk_create(
        (
            Admission(turn_id=pk, rule_id=entry.rule, ts=now)
            for pk, entry in turns.items()
            if entry.rule is not None
        ),
        ignore_conflicts=True,
    )


def held_turns_admit(
    project: int, left_out: Mapping[str, tuple[int, str]], facts: Mapping[str, list[Fact]]
) -> dict[str, Entry]:
    """Let in the stored turns left out so far (correlation_id: (id, component)) that a rule
    now takes by their feedback `facts`: their entries, written."""
    if not left_out:
        return {}
    rules = [rule for rule in rules_of(project) if rule.about_feedback]
    if not rules:
        return {}
    taken = {
        key: entry
        for key, (_, component) in left_out.items()
        if (entry := entry_of(rules, key, component, facts.get(key, ()))).admitted
    }
    by_priority: dict[int, list[int]] = {}
    for key, entry in taken.items():
        by_priority.setdefault(entry.priority, []).append(left_out[key][0])
    for priority, pks in by_priority.items():
        Turn.objects.filter(pk__in=pks).update(admitted=True, admitted_priority=priority)
    admissions_record(project, {left_out[key][0]: entry for key, entry in taken.items()})
    return taken


def held_admit(project: int, held: Held, facts: Mapping[str, list[Fact]]) -> None:
    """Let in the held turns left out so far that their feedback now gets taken by a rule,
    and say so in `held`, so that their queue fields count the rule's priority."""
    left_out = {key: (turn.pk, turn.component) for key, turn in held.items() if not turn.admitted}
    for key, entry in held_turns_admit(project, left_out, facts).items():
        held[key] = held[key]._replace(admitted=True, admitted_priority=entry.priority)


def admissions_of_new(project: int, queued: Queued) -> None:
    """Keep which rule took each of the new turns just written."""
    keys = queued.admitted_by_rules()
    if keys:
        ids = turn_ids(project, set(keys))
        admissions_record(project, {ids[key]: queued.entries[key] for key in keys})
