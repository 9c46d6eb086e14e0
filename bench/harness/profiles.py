"""Where the time of a call goes: Django's COMMIT as a stage, the garbage collector, cProfile.

The app's own steps are its stages (core/timing.py), recorded with `core.timing.recording()`;
these three cover what has no stage of the app's: the commit is Django's (its `commit`, on this
thread's connection, is wrapped for the block and unwrapped after), the collector Python's.
"""

from __future__ import annotations

import cProfile
import gc
import io
import pstats
import re
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from bench.harness.databases import ROOT
from core.timing import stage

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@contextmanager
def commit_staged() -> Iterator[None]:
    """Django's COMMIT of the default connection as the stage "COMMIT" inside the block."""
    from django.db import connections

    wrapper = connections["default"]
    original = wrapper.commit

    def commit() -> None:
        with stage("COMMIT"):
            original()

    wrapper.commit = commit  # type: ignore[method-assign]  # this instance, for the block
    try:
        yield
    finally:
        del wrapper.commit


class GcTimer:
    """Time spent in the cyclic garbage collector, and collections per generation."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = [0, 0, 0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.collections[info["generation"]] += 1

    @contextmanager
    def watching(self) -> Iterator[GcTimer]:
        gc.callbacks.append(self)
        try:
            yield self
        finally:
            gc.callbacks.remove(self)


def profiled(fn: Callable[[], Any], top: int = 18) -> dict[str, Any]:
    """cProfile of one call: wall seconds under the profiler, the top functions by own time
    (as rows and as pstats' listing)."""
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    fn()
    profiler.disable()
    wall = time.perf_counter() - start
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    stats.sort_stats("tottime").print_stats(top)
    rows = []
    # pstats keeps its table in `.stats`; typeshed's Stats leaves the attribute out.
    listing = stats.stats  # type: ignore[attr-defined]
    for (path, line, func), (_cc, calls, tottime, cumtime, _callers) in listing.items():
        if path == "~":
            where = re.sub(r" at 0x[0-9a-f]+", "", func).strip("<>")
        else:
            short = re.sub(r".*/site-packages/", "", path.replace(str(ROOT) + "/", ""))
            where = f"{short}:{line}({func})"
        rows.append({"function": where, "calls": calls, "tottime": tottime, "cumtime": cumtime})
    rows.sort(key=lambda r: r["tottime"], reverse=True)
    return {"wall_s": wall, "top": rows[:top], "text": stream.getvalue()}
