"""Each component's reward sums over the adapt window, kept at ingest and eviction
(feedback.rewards), are those of the experiences stored in that window."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.core.management import call_command

from feedback.models import Experience, RewardBucket
from feedback.reward_window import first_bucket, in_window
from feedback.rewards import project_latest_id
from feedback.selectors.experiences import reward_sums
from tests.builders import experience, experience_req
from tests.harness import default_pk

if TYPE_CHECKING:
    from pytest_django import Settings

    from tests.harness import Actor, Send


def stored_sums(window: int) -> dict[str, tuple[int, float]]:
    """The sums read from the stored experiences themselves, one by one."""
    latest = project_latest_id(default_pk())
    sums: dict[str, tuple[int, float]] = {}
    rows = Experience.objects.values_list("id", "component_name", "reward")
    for pk, name, reward in rows:
        if name and in_window(pk, latest, window):
            count, total = sums.get(name, (0, 0.0))
            sums[name] = (count + 1, total + min(1.0, max(-1.0, reward)))
    return sums


def kept_sums(window: int) -> dict[str, tuple[int, float]]:
    return {name: (count, total) for name, count, total in reward_sums(default_pk(), window)}


def assert_same(kept: dict[str, tuple[int, float]], expected: dict[str, tuple[int, float]]) -> None:
    assert set(kept) == set(expected)
    for name, (count, total) in expected.items():
        assert kept[name][0] == count, name
        assert kept[name][1] == pytest.approx(total), name


def batch(transport: Send, actor: Actor, *rewards: tuple[str, float]) -> None:
    items = [experience(name, reward=reward) for name, reward in rewards]
    status, reply = transport(actor, experience_req(*items))
    assert status == 200, reply


def test_every_batch_adds_its_rewards_clipped_to_the_sums_of_its_components(
    transport: Send, agent: Actor, env: Actor
) -> None:
    batch(transport, agent, ("search", 1.0), ("search", -0.5), ("write", 3.0))
    batch(transport, env, ("search", -7.0), ("", 1.0), ("write", 0.25))
    batch(transport, agent, ("search", 0.5))

    assert_same(kept_sums(1_000_000), stored_sums(1_000_000))
    count, total = kept_sums(1_000_000)["search"]
    assert count == 4
    assert total == pytest.approx(0.0)


def test_an_eviction_subtracts_what_it_drops(
    transport: Send, agent: Actor, env: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 3
    batch(transport, env, ("search", 1.0), ("write", 1.0))
    batch(transport, agent, ("search", -1.0), ("write", -1.0))
    batch(transport, agent, ("search", 1.0), ("search", 0.5), ("write", 0.25))

    assert Experience.objects.filter(owner="token:agent-1").count() == 3
    assert_same(kept_sums(1_000_000), stored_sums(1_000_000))


def test_the_sums_cover_the_newest_window_and_older_buckets_are_dropped(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    settings.LEARNPORTAL_ADAPT_WINDOW = 20
    for i in range(12):
        batch(transport, agent, *[(f"c{(i + j) % 3}", (-1.0) ** j) for j in range(5)])

    assert_same(kept_sums(20), stored_sums(20))
    first = first_bucket(project_latest_id(default_pk()), 20)
    assert min(RewardBucket.objects.values_list("bucket", flat=True)) == first
    assert sum(count for count, _ in kept_sums(20).values()) < 60  # not all 60 of them


def test_rebuild_rewards_recomputes_the_sums_from_the_stored_experiences(
    transport: Send, agent: Actor, settings: Settings
) -> None:
    batch(transport, agent, ("search", 1.0), ("search", -0.5), ("write", 0.75))
    batch(transport, agent, *[("write", -1.0)] * 30)
    settings.LEARNPORTAL_ADAPT_WINDOW = 10  # buckets of another span: read as none yet
    assert kept_sums(10) == {}

    call_command("rebuild_rewards")

    assert_same(kept_sums(10), stored_sums(10))
    assert kept_sums(10)["write"][0] >= 10
