"""Which turns enter the queue, decided as they and their feedback arrive, in the write's
transaction.

A project with no enabled rule takes every turn. Otherwise a turn enters when a rule takes it:
a rule about turns (no feedback criteria) as the turn arrives, one about feedback when a
feedback on the turn matches it (before or after the turn arrived); each samples what matches
at its `rate`, by a hash of the rule and the turn's correlation_id, so the same turn is taken
or left whatever the order things arrive in. A turn enters once, however many rules match:
the first by priority then age, whose priority then adds to the turn's (feedback.queue_state).

A rule's `metadata_key` reads the turn's `environment` (its metadata); its
`judge_agreement_below` the judge's weight on the feedback's dimension as measured now
(feedback.judges.weights), a judge not measured yet being below any. Each is read only for a
rule that asks it. Every turn a rule lets in is told (`intake.admitted`, live and by webhook),
by rule, after the write commits.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from feedback.intake.models import Admission, IntakeRule
from feedback.judges.weights import is_machine, judge_measures
from feedback.models import Turn
from feedback.selectors.turns import turn_ids

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from feedback.facts import Fact
    from feedback.queue_state import Held
    from feedback.services.rows import Queued

SPAN = float(2**64)
TOLD_TURNS = 20  # the correlation ids an `intake.admitted` event names, of one rule
Judges = dict[tuple[str, str], float | None]  # (judge, dimension): its weight, None unmeasured


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


@dataclass(frozen=True)
class About:
    """What the rules read of a turn besides its feedback: its component, and its
    metadata's top-level keys (None where no rule asks)."""

    component: str
    keys: frozenset[str] = field(default_factory=frozenset)


def metadata_keys(environment: Any) -> frozenset[str]:
    """The top-level keys of a turn's stored `environment` (JSON text), none when it is not
    an object."""
    if not environment:
        return frozenset()
    try:
        value = orjson.loads(environment) if isinstance(environment, str | bytes) else environment
    except orjson.JSONDecodeError:
        return frozenset()
    return frozenset(value) if isinstance(value, dict) else frozenset()


def _of_turn(rule: IntakeRule, about: About) -> bool:
    return rule.component in ("", about.component) and (
        not rule.metadata_key or rule.metadata_key in about.keys
    )


def takes_turn(rule: IntakeRule, about: About) -> bool:
    return not rule.about_feedback and _of_turn(rule, about)


def _judge_below(rule: IntakeRule, fact: Fact, judges: Judges) -> bool:
    if rule.judge_agreement_below is None:
        return True
    if not is_machine(fact.source):
        return False
    weight = judges.get((fact.submitted_by, fact.dimension))
    return weight is None or weight < rule.judge_agreement_below


def takes_feedback(rule: IntakeRule, about: About, fact: Fact, judges: Judges) -> bool:
    """Whether the rule is about feedback like `fact` on a turn like `about`."""
    return (
        rule.about_feedback
        and _of_turn(rule, about)
        and rule.source in ("", fact.source)
        and rule.polarity in ("", fact.polarity)
        and (rule.score_min is None or fact.score >= rule.score_min)
        and (rule.score_max is None or fact.score <= rule.score_max)
        and (rule.confidence_below is None or fact.confidence < rule.confidence_below)
        and _judge_below(rule, fact, judges)
    )


def judges_of(project: int, rules: list[IntakeRule], facts: Iterable[Fact]) -> Judges:
    """The weights the rules' `judge_agreement_below` read: of each machine judge among the
    facts, on its dimensions; none read when no rule asks."""
    if not any(rule.judge_agreement_below is not None for rule in rules):
        return {}
    wanted: dict[str, set[str]] = {}
    for fact in facts:
        if is_machine(fact.source):
            wanted.setdefault(fact.submitted_by, set()).add(fact.dimension)
    return {
        (judge, dimension): weight
        for judge, dimensions in sorted(wanted.items())
        for dimension, weight in judge_measures(project, judge, dimensions).items()
    }


def asks_metadata(rules: list[IntakeRule]) -> bool:
    return any(rule.metadata_key for rule in rules)


def entry_of(
    rules: list[IntakeRule], key: str, about: About, facts: Iterable[Fact], judges: Judges
) -> Entry:
    """How a turn stands with `rules`: taken by the first that matches it or one of its
    counted feedback `facts` and samples it, else left out."""
    facts = list(facts)
    for rule in rules:
        matched = takes_turn(rule, about) or any(
            takes_feedback(rule, about, fact, judges) for fact in facts
        )
        if matched and sampled(rule, key):
            return Entry(admitted=True, priority=rule.priority, rule=rule.pk)
    return LEFT_OUT


def new_turns_entries(
    project: int,
    components: Mapping[str, str],
    facts: Mapping[str, list[Fact]],
    environments: Mapping[str, Any],
) -> dict[str, Entry]:
    """The entry of each new turn (correlation_id: component; its stored `environment` in
    `environments`), given the feedback stored on it before it came."""
    rules = rules_of(project)
    if not rules:
        return dict.fromkeys(components, EVERY_TURN)
    judges = judges_of(project, rules, (f for key in components for f in facts.get(key, ())))
    read_keys = asks_metadata(rules)
    return {
        key: entry_of(
            rules,
            key,
            About(component, metadata_keys(environments.get(key)) if read_keys else frozenset()),
            facts.get(key, ()),
            judges,
        )
        for key, component in components.items()
    }


def admissions_record(
    project: int, turns: Mapping[int, tuple[str, Entry]], now: float | None = None
) -> None:
    """Keep, for each turn (by id: its correlation_id and entry) a rule took, which rule:
    what the rules' counts read; and tell, after the commit, by rule."""
    now = time.time() if now is None else now
    taken = {pk: (key, entry.rule) for pk, (key, entry) in turns.items() if entry.rule is not None}
    if not taken:
        return
    Admission.objects.bulk_create(
        (Admission(turn_id=pk, rule_id=rule, ts=now) for pk, (_, rule) in taken.items()),
        ignore_conflicts=True,
    )
    by_rule: dict[int, list[str]] = {}
    for key, rule in taken.values():
        by_rule.setdefault(rule, []).append(key)
    names = dict(IntakeRule.objects.filter(pk__in=by_rule).values_list("pk", "name"))
    slug = _slug(project)
    for rule, keys in sorted(by_rule.items()):
        broadcast_on_commit(
            "intake.admitted",
            {
                "rule": rule,
                "name": names.get(rule, ""),
                "count": len(keys),
                "correlation_ids": sorted(keys)[:TOLD_TURNS],
            },
            project=slug,
            audience=Action.MANAGE_PROJECT,
        )


def _slug(project: int) -> str:
    from core.projects.models import Project

    return str(Project.objects.filter(pk=project).values_list("slug", flat=True).get())


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
    judges = judges_of(project, rules, (f for key in left_out for f in facts.get(key, ())))
    environments: dict[int, Any] = {}
    if asks_metadata(rules):
        pks = [pk for pk, _ in left_out.values()]
        environments = dict(Turn.objects.filter(pk__in=pks).values_list("pk", "environment"))
    taken = {}
    for key, (pk, component) in left_out.items():
        about = About(component, metadata_keys(environments.get(pk)))
        entry = entry_of(rules, key, about, facts.get(key, ()), judges)
        if entry.admitted:
            taken[key] = entry
    by_priority: dict[int, list[int]] = {}
    for key, entry in taken.items():
        by_priority.setdefault(entry.priority, []).append(left_out[key][0])
    for priority, pks in by_priority.items():
        Turn.objects.filter(pk__in=pks).update(admitted=True, admitted_priority=priority)
    admissions_record(project, {left_out[key][0]: (key, entry) for key, entry in taken.items()})
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
        admissions_record(project, {ids[key]: (key, queued.entries[key]) for key in keys})
