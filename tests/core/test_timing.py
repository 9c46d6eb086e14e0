"""core.timing: stages time nothing unless recorded, and a recording's stages add up."""

from __future__ import annotations

import threading
import time

from core.timing import recording, stage, staged


def test_a_stage_outside_a_recording_is_the_one_shared_empty_context() -> None:
    assert stage("parse") is stage("another")
    with stage("parse"):
        pass


def test_a_stage_counts_its_own_time_without_the_stages_inside_it() -> None:
    with recording() as times:
        with stage("outer"):
            time.sleep(0.01)
            with stage("inner"):
                time.sleep(0.02)
        with stage("inner"):
            pass

    assert times.calls == {"outer": 1, "inner": 2}
    assert times.seconds["inner"] >= 0.02
    assert 0.01 <= times.seconds["outer"] < 0.02
    assert times.total == times.seconds["outer"] + times.seconds["inner"]


@staged("double")
def double(value: int) -> int:
    return 2 * value


def test_a_staged_function_answers_as_itself_and_is_counted_only_while_recorded() -> None:
    assert double(2) == 4
    with recording() as times:
        assert double(3) == 6
    assert double(4) == 8

    assert times.calls == {"double": 1}
    assert double.__name__ == "double"


def test_a_recording_sees_only_its_own_thread() -> None:
    def elsewhere() -> None:
        with stage("other thread"):
            pass

    with recording() as times:
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        with stage("here"):
            pass

    assert times.calls == {"here": 1}


def test_a_stage_that_raises_is_timed_and_the_recording_ends_with_its_block() -> None:
    with recording() as times:
        try:
            with stage("refused"):
                raise ValueError("no")
        except ValueError:
            pass

    assert times.calls == {"refused": 1}
    assert stage("after") is stage("again")
