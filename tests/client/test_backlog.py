"""The rules both buffers share (`Backlog`), without a thread, a loop or a host."""

from __future__ import annotations

import pytest

from learnportal_client import Experience, Feedback, FeedbackPolarity, LearnError
from learnportal_client.backlog import Backlog, Batch

UNAVAILABLE = LearnError("unavailable", "busy", retry_after=5.0)


def experiences(backlog: Backlog, count: int) -> list[str]:
    items = [Experience(reward=1.0) for _ in range(count)]
    for item in items:
        backlog.accept(item)
    return [i.experience_id for i in items]


def take(backlog: Backlog) -> Batch:
    batch, _ = backlog.next_batch()
    assert batch is not None, "no batch is due"
    return batch


def ids(batch: Batch) -> list[str]:
    return [u.item_id for u in batch.unsent(None)]


def test_nothing_is_due_before_its_time_unless_flushed() -> None:
    backlog = Backlog(max_items=10, max_interval=3600)
    added = experiences(backlog, 3)
    batch, wait = backlog.next_batch()
    assert batch is None
    assert wait is not None and wait > 3000
    mark = backlog.ask_flush()
    flushed = take(backlog)
    assert ids(flushed) == added
    assert not backlog.flushed(mark)
    assert backlog.settle(flushed, None) == []
    assert backlog.flushed(mark)


def test_a_full_kind_is_due_and_split_at_the_hosts_limit() -> None:
    backlog = Backlog(max_items=4, max_interval=3600)
    backlog.use_host_limit(3)
    assert not backlog.accept(Feedback(polarity=FeedbackPolarity.POSITIVE))
    added = experiences(backlog, 4)
    batch = take(backlog)
    assert (batch.field, ids(batch)) == ("experiences", added[:3])


def test_an_unavailable_batch_goes_back_first_held_for_the_hosts_retry_after() -> None:
    backlog = Backlog(max_items=10, max_interval=0.01)
    added = experiences(backlog, 2)
    backlog.ask_flush()
    assert backlog.settle(take(backlog), UNAVAILABLE) == []
    held, wait = backlog.next_batch()
    assert held is None
    assert wait is not None and wait > 4  # 5 s said by the host, not the 0.01 s backoff
    assert backlog.pending == 2
    backlog.begin_close()  # closing tries once more, whatever the hold
    assert ids(take(backlog)) == added


def test_too_large_halves_the_batch_and_keeps_the_order() -> None:
    backlog = Backlog(max_items=8, max_interval=3600)
    added = experiences(backlog, 8)
    assert backlog.settle(take(backlog), LearnError("too_large", "")) == []
    assert ids(take(backlog)) == added[:4]


def test_a_refusal_reports_the_items_it_names_and_sends_the_others_again() -> None:
    backlog = Backlog(max_items=3, max_interval=3600)
    added = experiences(backlog, 3)
    refusal = LearnError("invalid", "bad", [{"loc": ["experiences", 1, "reward"], "msg": "x"}])
    assert [u.item_id for u in backlog.settle(take(backlog), refusal)] == [added[1]]
    backlog.ask_flush()
    assert ids(take(backlog)) == [added[0], added[2]]


def test_a_last_try_that_fails_while_closing_stops_and_gives_up_everything_in_order() -> None:
    backlog = Backlog(max_items=2, max_interval=3600)
    added = experiences(backlog, 3)
    backlog.begin_close()
    assert backlog.settle(take(backlog), UNAVAILABLE) == []
    assert backlog.next_batch() == (None, None)
    assert [u.item_id for u in backlog.give_up()] == added
    assert backlog.pending == 0
    with pytest.raises(RuntimeError, match="closed"):
        backlog.accept(Experience())
