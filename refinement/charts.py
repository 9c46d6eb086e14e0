"""The geometry of the components pages' charts, drawn as SVG by templates/refinement/partials/.

Plain numbers in, coordinates and labels out; no Django, no markup: the templates write the
SVG, so every label an agent supplied is escaped there like any other text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise

from core.instants import utc_text

WIDTH = 640
HEIGHT = 220
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 36  # margins around the plot, in SVG units
TIME_TICKS = 3
VALUE_TICKS = 5


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class Point:
    x: float
    y: float


@dataclass(frozen=True)
class Frame:
    """The drawing area of every chart, and its axes."""

    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    right: int = WIDTH - RIGHT
    bottom: int = HEIGHT - BOTTOM
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)

    @property
    def view_box(self) -> str:
        return f"0 0 {self.width} {self.height}"


@dataclass(frozen=True)
class LineChart:
    frame: Frame
    path: str  # an SVG path's `d`
    points: list[Point]
    dots: str  # a path's `d` with a dot at each measured value (round caps of empty segments)
    baseline: float | None  # y of the value 0 when it is inside the range


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Marker:
    x: float
    label: str


@dataclass(frozen=True)
class Histogram:
    frame: Frame
    bars: list[Bar]
    markers: list[Marker]


def _scale(low: float, high: float, start: float, end: float) -> tuple[float, float]:
    """(a, b) such that a + b * v maps [low, high] onto [start, end]."""
    if high <= low:
        return (start + end) / 2, 0.0
    b = (end - start) / (high - low)
    return start - b * low, b


def time_label(ts: float, span: float) -> str:
    if span < 3600:
        return utc_text(ts, "%H:%M:%S")
    return utc_text(ts, "%H:%M" if span < 86_400 else "%b %d %H:%M")


def line_chart(
    series: list[tuple[float, float]],
    *,
    low: float,
    high: float,
    step: bool = False,
    value_format: str = "{:.1f}",
) -> LineChart:
    """`series` of (ts, value), oldest first, on a time axis and a value axis [low, high].
    `step`: a value holds until the next one (a weight), rather than a line between them."""
    first, last = series[0][0], series[-1][0]
    frame = Frame()
    ax, bx = _scale(first, last, frame.left, frame.right)
    ay, by = _scale(low, high, frame.bottom, frame.top)
    points = [Point(round(ax + bx * t, 1), round(ay + by * v, 1)) for t, v in series]
    parts = [f"M{points[0].x},{points[0].y}"]
    for previous, point in pairwise(points):
        if step:
            parts.append(f"H{point.x}V{point.y}" if point.y != previous.y else f"H{point.x}")
        else:
            parts.append(f"L{point.x},{point.y}")
    span = last - first
    x_ticks = _distinct(
        [
            Tick(round(ax + bx * t, 1), time_label(t, span))
            for t in _spread(first, last, TIME_TICKS if span > 0 else 1)
        ]
    )
    y_ticks = [
        Tick(round(ay + by * v, 1), value_format.format(v)) for v in _spread(low, high, VALUE_TICKS)
    ]
    return LineChart(
        frame=Frame(x_ticks=x_ticks, y_ticks=y_ticks),
        path="".join(parts),
        points=points,
        dots="".join(f"M{p.x},{p.y}h0" for p in points),
        baseline=round(ay, 1) if low < 0 < high else None,
    )


def _distinct(ticks: list[Tick]) -> list[Tick]:
    """Ticks whose label differs from the one before (a short span repeats the minute)."""
    return [t for i, t in enumerate(ticks) if i == 0 or t.label != ticks[i - 1].label]


def _spread(low: float, high: float, n: int) -> list[float]:
    if n <= 1 or high <= low:
        return [low]
    return [low + (high - low) * i / (n - 1) for i in range(n)]


def histogram(edges: list[float], counts: list[int], markers: dict[str, float]) -> Histogram:
    """Bins with these `edges` (ms, ascending, one more than `counts`) on a log axis, and a
    vertical line at each marked value (p50, p95)."""
    frame = Frame()
    # A first edge of 0 (durations counted as zero) is drawn one bin's width below the next.
    logs = [math.log10(e) if e > 0 else math.nan for e in edges]
    if math.isnan(logs[0]):
        width = (logs[-1] - logs[1]) / max(1, len(counts) - 1) or 1.0
        logs[0] = logs[1] - width
    ax, bx = _scale(logs[0], logs[-1], frame.left, frame.right)
    tallest = max(counts) or 1
    ay, by = _scale(0, tallest, frame.bottom, frame.top)
    bars = []
    for i, count in enumerate(counts):
        x0, x1 = ax + bx * logs[i], ax + bx * logs[i + 1]
        y = ay + by * count
        bars.append(Bar(round(x0, 1), round(y, 1), round(max(x1 - x0 - 1, 1), 1), round(ay - y, 1)))
    marks = [
        Marker(round(ax + bx * math.log10(max(value, edges[1] if edges[0] == 0 else edges[0])), 1),
               f"{name} {_ms(value)}")
        for name, value in markers.items()
    ]  # fmt: skip
    # Powers of ten, and 2 and 5 times them when the range spans few decades.
    steps = (1.0,) if logs[-1] - logs[0] > 2.5 else (1.0, 2.0, 5.0)
    values = [
        m * 10.0**d
        for d in range(math.floor(logs[0]), math.ceil(logs[-1]) + 1)
        for m in steps
        if logs[0] <= math.log10(m * 10.0**d) <= logs[-1]
    ]
    x_ticks = [Tick(round(ax + bx * math.log10(v), 1), _ms(v)) for v in values]
    if not x_ticks:
        x_ticks = [Tick(round(ax + bx * v, 1), _ms(10.0**v)) for v in (logs[0], logs[-1])]
    y_ticks = [Tick(round(ay + by * v, 1), f"{v:,.0f}") for v in _spread(0, tallest, 3)]
    return Histogram(frame=Frame(x_ticks=x_ticks, y_ticks=y_ticks), bars=bars, markers=marks)


def _ms(value: float) -> str:
    if value >= 1000:
        return f"{value / 1000:,.3g} s"
    return f"{value:.3g} ms"
