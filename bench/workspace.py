"""`python -m bench.workspace`: the annotation workspace at 1M feedback rows and 200k turns.

1. Builds one database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL) with 200k
   turns and 1M feedback rows, written in bulk (`executemany` / `COPY`) with realistic
   distributions: `self`, `env` and human sources, the four polarities, five dimensions,
   corrections with spans, a dozen annotators who rate the same turns (so that agreement has
   something to measure), 50 components, sessions of ten turns.
2. Measures server time in-process (Django's test client in a process of its own on that
   database, no socket): the median and p95 of several requests of each endpoint and page.
   Endpoints of the workspace that are not routed yet (the explorer's `GET /api/feedback/`,
   `POST /api/queue/next/`, the explorer and queue pages, the exports) are skipped with a
   printed note, and measured as soon as their paths resolve. An export streams all 1M rows in
   a process of its own, for its rows/s and peak RSS.
3. Compares ingest with Label Studio 1.23.2, in the same run: the same 10k rated turns (turns
   and one human rating each) through LearnPortal's public API on a live server, and through
   Label Studio's import API (its own venv under var/bench/, created if missing, never the
   project's; a SQLite data dir under var/; a user, token and project made through its CLI and
   API), the three servers (LearnPortal with turns carried on the ratings, LearnPortal with turns
   sent first, Label Studio) storing batch by batch in turn, so that the shared machine's drift
   falls on every side alike. Prints the ratio and writes the figures into BENCHMARKS.md
   ("Annotation workspace").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from bench import report
from bench.environment import ROOT, BenchError, Database, Stack, app_env, free_port, manage

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

FULL = {"turns": 200_000, "feedback": 1_000_000, "requests": 15, "compare_turns": 10_000}
QUICK = {"turns": 20_000, "feedback": 100_000, "requests": 7, "compare_turns": 1_000}
TARGET_MS = 100.0
TARGET_RSS_MB = 200.0
COMPARE_GOAL = 25.0
BATCH = 1000
LABEL_STUDIO = "label-studio==1.23.2"
LS_VENV = ROOT / "var" / "bench" / "label-studio-venv"
COMPONENTS = [f"component-{i:02d}" for i in range(50)]
ANNOTATORS = [f"annotator-{i:02d}" for i in range(12)]
DIMENSIONS = ("helpfulness", "correctness", "safety", "tone", "plan_quality")
MODELS = ("agent-v1", "agent-v2", "agent-v3")
DAY = 86_400.0
CHILD = sys.argv[1:2] == ["child"]
SPAN_DAYS = 90


def log(message: str) -> None:
    # A child's stdout carries its result: its progress goes to stderr, straight through.
    stream = sys.stderr if CHILD else sys.stdout
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=stream, flush=True)


# --- the data: realistic rows, generated with one seed -----------------------------------------

SUBJECTS = ("the invoice", "a flight to Lisbon", "the failing test", "this diff", "the refund")
VERBS = ("Summarise", "Find", "Explain", "Fix", "Compare", "Draft a reply about")
CLAUSES = (
    "I looked at the three most recent records and the totals match.",
    "The tool returned an error on the second call, so I retried with a smaller page.",
    "Here is what changed between the two versions, line by line.",
    "According to the policy document, refunds over 30 days need a manager's approval.",
    "The cheapest option leaves at 07:40 and arrives at 10:05, with one stop.",
    "I could not confirm the second figure; the source page no longer lists it.",
    "The function returns early when the list is empty, which hides the real bug.",
)
COMMENTS = ("", "", "", "Too long.", "Missed the edge case.", "Good.", "Wrong figure.")


def turn_text(rng: random.Random, i: int) -> tuple[str, str]:
    prompt = f"{rng.choice(VERBS)} {rng.choice(SUBJECTS)} (request {i})."
    response = " ".join(rng.choice(CLAUSES) for _ in range(rng.randint(2, 6)))
    return prompt, response


def polarity_for(score: float, rng: random.Random) -> str:
    if rng.random() < 0.10:
        return "corrective"
    return "positive" if score > 0.2 else "negative" if score < -0.2 else "neutral"


@dataclass
class Built:
    turns: list[dict[str, Any]] = field(default_factory=list)
    feedback: list[dict[str, Any]] = field(default_factory=list)


def generate(turns: int, feedbacks: int, seed: int = 7) -> Built:
    """`turns` turns and `feedbacks` feedback rows: 20% human ratings (2.4 people a rated turn,
    on average, on the turn's dimension), the rest `self` (65%) and `env` (35%) judgements."""
    rng = random.Random(seed)
    start = time.time() - SPAN_DAYS * DAY
    out = Built()
    weights = [1 / (k + 1) for k in range(len(COMPONENTS))]
    components = rng.choices(COMPONENTS, weights, k=turns)
    for i in range(turns):
        prompt, response = turn_text(rng, i)
        out.turns.append(
            {
                "correlation_id": f"turn-{i:07d}-{rng.getrandbits(48):012x}",
                "session_id": f"session-{i // 10:06d}",
                "component_name": components[i],
                "prompt": prompt,
                "response": response,
                "model": rng.choice(MODELS),
                "environment": None,
                "version": "1.0",
                "submitted_by": "token:bench-agent",
                "created": start + i * (SPAN_DAYS * DAY / turns),
            }
        )
    human_rows = feedbacks // 5
    bias = {a: rng.gauss(0, 0.1) for a in ANNOTATORS}
    noise = {a: rng.uniform(0.1, 0.35) for a in ANNOTATORS}
    activity = [1 / (k + 2) for k in range(len(ANNOTATORS))]
    rows: list[dict[str, Any]] = []
    while len(rows) < human_rows:
        turn = out.turns[rng.randrange(turns)]
        raters = rng.choices((1, 2, 3, 4), (0.15, 0.40, 0.35, 0.10))[0]
        people: set[str] = set()
        while len(people) < raters:
            people.add(rng.choices(ANNOTATORS, activity)[0])
        dimension = rng.choices(DIMENSIONS, (0.35, 0.30, 0.10, 0.15, 0.10))[0]
        truth = rng.uniform(-1, 1)
        for person in sorted(people):
            score = max(-1.0, min(1.0, truth + bias[person] + rng.gauss(0, noise[person])))
            rows.append(_feedback(rng, turn, round(score * 20) / 20, dimension, "human", person))
    rows = rows[:human_rows]
    for _ in range(feedbacks - len(rows)):
        turn = out.turns[rng.randrange(turns)]
        source = "self" if rng.random() < 0.65 else "env"
        score = round(rng.uniform(-1, 1), 3)
        dimension = rng.choices(DIMENSIONS, (0.6, 0.25, 0.05, 0.05, 0.05))[0]
        rows.append(_feedback(rng, turn, score, dimension, source, ""))
    rng.shuffle(rows)
    now = time.time()
    for n, row in enumerate(rows):
        row["feedback_id"] = f"b_{n:08d}_{rng.getrandbits(32):08x}"
        row["ts"] = start + n * (SPAN_DAYS * DAY / len(rows))
        row["received"] = min(row["ts"] + 1, now)
        row["content_hash"] = f"{rng.getrandbits(128):032x}"
    out.feedback = rows
    return out


def _feedback(
    rng: random.Random,
    turn: dict[str, Any],
    score: float,
    dimension: str,
    source: str,
    person: str,
) -> dict[str, Any]:
    polarity = polarity_for(score, rng)
    correction = ""
    span: tuple[int | None, int | None] = (None, None)
    if polarity == "corrective":
        correction = "Say that the second figure could not be confirmed."
        if rng.random() < 0.7:
            length = len(turn["response"])
            a = rng.randrange(length)
            span = (a, min(length, a + rng.randint(5, 60)))
    # The rating page stores the rated turn with each human rating; agents send it now and then.
    rated = source == "human" or rng.random() < 0.1
    rated_turn = (
        orjson.dumps(
            {"prompt": turn["prompt"], "response": turn["response"], "model": turn["model"]}
        ).decode()
        if rated
        else None
    )
    return {
        "correlation_id": turn["correlation_id"],
        "session_id": turn["session_id"],
        "component_name": turn["component_name"],
        "rated_turn": rated_turn,
        "polarity": polarity,
        "score": score,
        "dimension": dimension,
        "confidence": round(rng.uniform(0.3, 1.0), 2),
        "comment": rng.choice(COMMENTS),
        "correction": correction,
        "span_start": span[0],
        "span_end": span[1],
        "source": source,
        "annotator_id": person,
        "submitted_by": f"user:{person}" if person else f"token:bench-{source}",
    }


# --- inside the app's process (python -m bench.workspace child TASK JSON) ----------------------


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    import django

    django.setup()


def _columns(model: Any) -> list[Any]:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def _bulk(model: Any, rows: list[dict[str, Any]], chunk: int = 50_000) -> None:
    """Rows written with the driver's own bulk path, every concrete column: a field that the
    rows do not name gets its model default (so that columns added later still load)."""
    from django.db import connection, transaction

    fields = _columns(model)
    names = [f.column for f in fields]
    defaults = {f.column: f.get_default() for f in fields}
    table = connection.ops.quote_name(model._meta.db_table)
    quoted = ", ".join(connection.ops.quote_name(n) for n in names)
    connection.ensure_connection()
    raw: Any = connection.connection
    for begin in range(0, len(rows), chunk):
        values = [
            tuple(row.get(n, defaults[n]) for n in names) for row in rows[begin : begin + chunk]
        ]
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with raw.cursor() as cur, cur.copy(f"COPY {table} ({quoted}) FROM STDIN") as copy:
                    for value in values:
                        copy.write_row(value)
            else:
                marks = ", ".join("?" * len(names))
                raw.executemany(f"INSERT INTO {table} ({quoted}) VALUES ({marks})", values)


def _queue_columns(built: Built, ratings_per_turn: int) -> None:
    """What a queue keeps on each turn, where the model has it (work-queue's denormalised
    `ratings_needed` and `priority`): the same values its feedback service would tally."""
    from feedback.models import Turn

    names = {f.name for f in Turn._meta.concrete_fields}
    if not names & {"ratings_needed", "priority"}:
        return
    raters: dict[str, set[str]] = {}
    negative: set[str] = set()
    for row in built.feedback:
        if row["source"] == "human":
            raters.setdefault(row["correlation_id"], set()).add(row["annotator_id"])
        elif row["score"] < 0:
            negative.add(row["correlation_id"])
    for turn in built.turns:
        key = turn["correlation_id"]
        if "ratings_needed" in names:
            turn["ratings_needed"] = max(0, ratings_per_turn - len(raters.get(key, ())))
        if "priority" in names:
            turn["priority"] = 1 if key in negative else 0


def _recount() -> None:
    """What the feedback service keeps at ingest (agreement's moments, the overview's
    counters), recounted from the bulk-written rows as `manage.py feedback_recount` does."""
    from django.db import transaction

    from feedback.counters import counters_rebuild
    from feedback.moments import moments_rebuild

    with transaction.atomic():
        moments_rebuild()
        counters_rebuild()


def child_build(*, turns: int, feedback: int, seed: int) -> dict[str, Any]:
    from django.conf import settings
    from django.db import connection

    from feedback.models import Feedback, Turn

    t0 = time.perf_counter()
    built = generate(turns, feedback, seed)
    _queue_columns(built, int(getattr(settings, "LEARNPORTAL_RATINGS_PER_TURN", 1)))
    generated = time.perf_counter() - t0
    t1 = time.perf_counter()
    _bulk(Turn, built.turns)
    _bulk(Feedback, built.feedback)
    inserted = time.perf_counter() - t1
    t2 = time.perf_counter()
    _recount()
    recounted = time.perf_counter() - t2
    with connection.cursor() as cursor:
        # Fresh statistics, and on PostgreSQL the visibility map that autovacuum keeps for a
        # table that grew over weeks (without it, an index-only scan reads the heap too).
        vacuum = connection.vendor == "postgresql" and not connection.in_atomic_block
        cursor.execute("VACUUM ANALYZE" if vacuum else "ANALYZE")
    human = [r for r in built.feedback if r["source"] == "human"]
    return {
        "turns": Turn.objects.count(),
        "feedback": Feedback.objects.count(),
        "human": len(human),
        "human_turns": len({r["correlation_id"] for r in human}),
        "corrections_with_span": sum(1 for r in built.feedback if r["span_start"] is not None),
        "generate_s": generated,
        "insert_s": inserted,
        "recount_s": recounted,
        "rows_s": (turns + feedback) / inserted,
    }


@dataclass(frozen=True)
class Probe:
    """One request to time: a path (skipped while nothing routes it) and who sends it."""

    label: str
    path: str
    who: str = "reviewer"  # reviewer or annotator; by session for pages, by token for /api/
    method: str = "get"
    query: dict[str, str] = field(default_factory=dict)
    new_rating: bool = False  # a new human rating before each request (not timed)


def routed(path: str) -> bool:
    """Whether a view of its own serves `path` (not the JSON 404 of every other api/ URL)."""
    from django.urls import Resolver404, resolve

    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.url_name != "api-not-found"


class Clients:
    """Django test clients for the bench's people: a session for pages, a token for /api/."""

    def __init__(self) -> None:
        from django.test import Client

        from core.accounts.models import ApiToken, User

        self.session: dict[str, Any] = {}
        self.token: dict[str, Any] = {}
        for role in ("reviewer", "annotator"):
            user, _ = User.objects.get_or_create(username=f"bench-{role}", defaults={"role": role})
            _, raw = ApiToken.issue(name=f"bench-{role}-{time.time_ns()}", user=user)
            session = Client()
            session.force_login(user)
            self.session[role] = session
            self.token[role] = Client(headers={"Authorization": f"Bearer {raw}"})

    def send(self, probe: Probe, path: str | None = None) -> Any:
        client = (self.token if probe.path.startswith("/api/") else self.session)[probe.who]
        call = getattr(client, probe.method)
        if probe.method == "post":
            return call(path or probe.path, data=b"{}", content_type="application/json")
        return call(path or probe.path, probe.query)


def time_probe(clients: Clients, probe: Probe, requests: int, budget_s: float = 20.0) -> Any:
    """Median and p95 of `requests` requests after one warm-up; fewer when one takes long."""
    if not routed(probe.path):
        note = f"skipped: {probe.method.upper()} {probe.path} is not routed on this branch"
        log(f"{probe.label}: {note}")
        return {"skipped": note}
    first = clients.send(probe)
    if first.status_code >= 400:
        raise BenchError(f"{probe.label}: {first.status_code} {first.content[:300]!r}")
    times: list[float] = []
    spent = 0.0
    while len(times) < requests and (spent < budget_s or len(times) < 3):
        if probe.new_rating:
            _new_rating(len(times))
        t0 = time.perf_counter()
        response = clients.send(probe)
        if hasattr(response, "streaming_content"):
            for _ in response.streaming_content:
                pass
        elapsed = time.perf_counter() - t0
        if response.status_code >= 400:
            raise BenchError(f"{probe.label}: {response.status_code}")
        times.append(elapsed)
        spent += elapsed
    return _figures(times, first.status_code)


def _new_rating(n: int) -> None:
    """One more human score on a rated turn, written as the feedback service writes rows."""
    from django.db import transaction

    from feedback.counters import FEEDBACK_COUNTED, counter_add
    from feedback.models import Feedback
    from feedback.moments import moments_recount

    row = Feedback.objects.filter(source="human").order_by("id").first()
    assert row is not None
    row.pk = None
    row.feedback_id = f"bench-fresh-{time.time_ns()}-{n}"
    row.annotator_id = f"bench-fresh-{n}"
    with transaction.atomic():
        row.save()
        # What the feedback service does with a new row, in its transaction.
        counter_add(FEEDBACK_COUNTED, 1)
        moments_recount([(row.correlation_id, row.dimension)])


def _figures(times: list[float], status: int) -> dict[str, Any]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(times),
        "status": status,
        "ms_p50": 1000 * statistics.median(times),
        "ms_p95": 1000 * p95,
    }


def now_probes(turn_pk: int) -> list[Probe]:
    """What main serves today."""
    from feedback.filters import encode_turn_cursor

    return [
        Probe("GET /api/agreement/", "/api/agreement/"),
        Probe("GET /api/agreement/ (after a new rating)", "/api/agreement/", new_rating=True),
        Probe("GET /api/turns/ (first page)", "/api/turns/", "annotator"),
        Probe(
            "GET /api/turns/?component_name=",
            "/api/turns/",
            "annotator",
            query={"component_name": "component-07"},
        ),
        Probe("page /agreement/", "/agreement/"),
        Probe("page / (overview)", "/", "annotator"),
        Probe("page /turns/ (queue list)", "/turns/", "annotator"),
        Probe(
            "page /turns/ (cursor 100k turns deep)",
            "/turns/",
            "annotator",
            query={"cursor": encode_turn_cursor(turn_pk)},
        ),
        Probe(
            "page /turns/?component=&open=1",
            "/turns/",
            "annotator",
            query={"component": "component-07", "open": "1"},
        ),
        Probe("page /turns/<pk>/ (rate one turn)", f"/turns/{turn_pk}/", "annotator"),
        Probe("page /plans/", "/plans/"),
        Probe("page /history/", "/history/"),
    ]


def workspace_probes(turn_pk: int) -> list[Probe]:
    """What the workspace branches add: measured as soon as their paths are routed."""
    return [
        Probe("GET /api/feedback/ (first page)", "/api/feedback/"),
        Probe(
            "GET /api/feedback/?source=human&dimension=correctness",
            "/api/feedback/",
            query={"source": "human", "dimension": "correctness"},
        ),
        Probe(
            "GET /api/feedback/?component=&has_correction=true",
            "/api/feedback/",
            query={"component": "component-07", "has_correction": "true"},
        ),
        Probe("page /explorer/", "/explorer/"),
        Probe("page /explorer/?source=human", "/explorer/", query={"source": "human"}),
        Probe("page /explorer/turns/<pk>/", f"/explorer/turns/{turn_pk}/"),
        Probe("page /queue/", "/queue/", "annotator"),
        Probe("POST /api/queue/next/", "/api/queue/next/", "annotator", method="post"),
    ]


def deep_cursor(clients: Clients, requests: int, pages: int = 40) -> Any:
    """`GET /api/feedback/` 20k rows deep: follow `next` 40 pages of 500, then time that page."""
    from urllib.parse import parse_qsl, urlsplit

    probe = Probe("GET /api/feedback/ (cursor 20k rows deep)", "/api/feedback/")
    if not routed(probe.path):
        return time_probe(clients, probe, requests)
    url = "/api/feedback/?limit=500"
    for _ in range(pages):
        response = clients.send(probe, url)
        if response.status_code != 200:
            raise BenchError(f"{probe.label}: {response.status_code} {response.content[:300]!r}")
        following = response.json().get("next")
        if not following:
            break
        url = following
    parts = urlsplit(url)
    deep = Probe(probe.label, parts.path, query=dict(parse_qsl(parts.query)))
    return time_probe(clients, deep, requests) | {"depth_rows": pages * 500}


def child_measure(*, requests: int) -> dict[str, Any]:
    from feedback.models import Turn

    clients = Clients()
    # A turn that people rated, near the middle of the queue.
    turn_pk = Turn.objects.order_by("id").values_list("id", flat=True)[Turn.objects.count() // 2]
    out: dict[str, Any] = {}
    for probe in now_probes(turn_pk):
        out[probe.label] = time_probe(clients, probe, requests)
        _say(probe.label, out[probe.label])
    for probe in workspace_probes(turn_pk):
        out[probe.label] = time_probe(clients, probe, requests)
        _say(probe.label, out[probe.label])
    deep = deep_cursor(clients, requests)
    out["GET /api/feedback/ (cursor 20k rows deep)"] = deep
    _say("GET /api/feedback/ (cursor 20k rows deep)", deep)
    return out


def _say(label: str, figures: dict[str, Any]) -> None:
    if "ms_p50" in figures:
        log(f"{label}: median {figures['ms_p50']:.1f} ms, p95 {figures['ms_p95']:.1f} ms")


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_export(*, kind: str) -> dict[str, Any]:
    """Stream one export of every row in this process: rows/s and the process's peak RSS."""
    path = f"/api/exports/{kind}.jsonl"
    if not routed(path):
        note = f"skipped: GET {path} is not routed on this branch"
        log(f"export {kind}: {note}")
        return {"skipped": note}
    clients = Clients()
    before = _peak_rss_mb()
    t0 = time.perf_counter()
    response = clients.send(Probe(f"export {kind}", path))
    if response.status_code != 200:
        raise BenchError(f"export {kind}: {response.status_code} {response.content[:300]!r}")
    lines = 0
    size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    elapsed = time.perf_counter() - t0
    return {
        "rows": lines,
        "bytes": size,
        "seconds": elapsed,
        "rows_s": lines / elapsed if elapsed else 0.0,
        "rss_before_mb": before,
        "rss_peak_mb": _peak_rss_mb(),
    }


CHILD_TASKS: dict[str, Callable[..., Any]] = {
    "build": child_build,
    "measure": child_measure,
    "export": child_export,
}


def child(env: dict[str, str], task: str, **kwargs: Any) -> Any:
    """Run one task above in a process of its own, set up on this run's database."""
    result = subprocess.run(
        [sys.executable, "-m", "bench.workspace", "child", task, orjson.dumps(kwargs).decode()],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=None,  # its progress lines go straight to this terminal
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BenchError(f"bench.workspace {task} failed (exit {result.returncode})")
    return orjson.loads(result.stdout.strip().splitlines()[-1])["result"]


# --- ingest of the same 10k rated turns: LearnPortal against Label Studio --------------------


def rated_turns(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """n turns with one human rating each, the same for both sides."""
    built = generate(n, 0, seed)
    rng = random.Random(seed)
    out = []
    for turn in built.turns:
        score = round(rng.uniform(-1, 1), 2)
        polarity = polarity_for(score, rng)
        out.append(
            {
                "turn": turn,
                "rating": {
                    "polarity": polarity,
                    "score": score,
                    "dimension": rng.choice(DIMENSIONS),
                    "confidence": round(rng.uniform(0.5, 1), 2),
                    "comment": rng.choice(COMMENTS),
                    "correction": "Say so plainly." if polarity == "corrective" else "",
                },
            }
        )
    return out


def _turn_item(turn: dict[str, Any]) -> dict[str, Any]:
    return {
        "correlation_id": turn["correlation_id"],
        "session_id": turn["session_id"],
        "component_name": turn["component_name"],
        "rated_turn": {
            "prompt": turn["prompt"],
            "response": turn["response"],
            "model": turn["model"],
        },
    }


def learnportal_bodies(
    items: list[dict[str, Any]], *, split: bool
) -> list[list[tuple[str, bytes]]]:
    """Per batch, the requests that store it: (`agent` or `annotator`, body).

    `split`: the turns through `POST /api/turns/` (agent), then the ratings naming them by
    correlation id; otherwise one `learn/feedback/req` whose ratings carry their `rated_turn`
    (kept as a turn too, per the contract), as Label Studio's import carries tasks with their
    annotations.
    """
    out = []
    for start in range(0, len(items), BATCH):
        part = items[start : start + BATCH]
        ratings = []
        for i in part:
            turn = _turn_item(i["turn"])
            if split:
                del turn["rated_turn"]
            ratings.append({"feedback_id": f"ws-{turn['correlation_id']}", **turn, **i["rating"]})
        feedback = {"type": "learn/feedback/req", "id": f"ws-{start}", "feedbacks": ratings}
        requests = [("annotator", orjson.dumps(feedback))]
        if split:
            turns = {"turns": [_turn_item(i["turn"]) for i in part]}
            requests.insert(0, ("agent", orjson.dumps(turns)))
        out.append(requests)
    return out


@dataclass
class Side:
    """One side of the comparison, set up and answering: `send(n)` stores batch n and returns
    the seconds it took at the client; `check()` raises unless every row was stored."""

    send: Callable[[int], float]
    check: Callable[[], None]
    facts: dict[str, Any]
    times: list[float] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        counted = self.times[1:]  # the first batch is a warm-up, on every side
        rows = BATCH * len(counted)
        return self.facts | {
            "rows": rows,
            "seconds": sum(counted),
            "rows_s": rows / sum(counted),
            "batch_ms_p50": 1000 * statistics.median(counted),
        }


@contextlib.contextmanager
def learnportal_side(
    database: Database, items: list[dict[str, Any]], *, split: bool
) -> Iterator[Side]:
    """The rated turns through the public API of a live server of its own."""
    bodies = learnportal_bodies(items, split=split)
    with Stack(database, "workspace-ingest") as stack:
        password = "bench-annotator-pass-1"
        manage(
            stack.env, "adduser", "bench-annotator", "--role", "annotator", "--password", password
        )
        personal = manage(stack.env, "createtoken", "bench-annotator", "--user")
        headers = {
            "agent": stack.headers("agent"),
            "annotator": {
                "Authorization": f"Bearer {personal}",
                "Content-Type": "application/json",
            },
        }
        paths = {"agent": "/api/turns/", "annotator": "/api/learn/"}
        with httpx.Client(base_url=stack.base_url, timeout=300) as client:

            def send(n: int) -> float:
                t0 = time.perf_counter()
                for who, body in bodies[n]:
                    response = client.post(paths[who], content=body, headers=headers[who])
                    if response.status_code not in (200, 201):
                        raise BenchError(
                            f"LearnPortal ingest: {response.status_code} {response.text[:300]}"
                        )
                return time.perf_counter() - t0

            def check() -> None:
                counts = _lp_counts(stack)
                if counts != (len(items), len(items)):
                    raise BenchError(
                        f"LearnPortal ingest stored {counts}, expected {len(items)} of each"
                    )

            yield Side(
                send,
                check,
                {
                    "requests": (
                        "POST /api/turns/ + learn/feedback/req" if split else "learn/feedback/req"
                    ),
                    "server": "uvicorn, DJANGO_DEBUG=0",
                },
            )


def _lp_counts(stack: Stack) -> tuple[int, int]:
    conn = stack.connect()
    try:
        turns = conn.execute("SELECT COUNT(*) FROM feedback_turn").fetchone()[0]
        human = conn.execute(
            "SELECT COUNT(*) FROM feedback_feedback WHERE source = 'human'"
        ).fetchone()[0]
    finally:
        conn.close()
    return int(turns), int(human)


LS_CONFIG = """<View>
  <Text name="prompt" value="$prompt"/>
  <Text name="response" value="$response"/>
  <Choices name="polarity" toName="response" choice="single">
    <Choice value="positive"/><Choice value="negative"/><Choice value="neutral"/>
    <Choice value="corrective"/>
  </Choices>
  <Number name="score" toName="response" min="-1" max="1" step="0.01"/>
  <Choices name="dimension" toName="response" choice="single">
    <Choice value="helpfulness"/><Choice value="correctness"/><Choice value="safety"/>
    <Choice value="tone"/><Choice value="plan_quality"/>
  </Choices>
  <Number name="confidence" toName="response" min="0" max="1" step="0.01"/>
  <TextArea name="comment" toName="response"/>
  <TextArea name="correction" toName="response"/>
</View>"""


def ls_tasks(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The same rated turns as Label Studio tasks, each with its one annotation."""

    def result(name: str, kind: str, value: dict[str, Any]) -> dict[str, Any]:
        return {"from_name": name, "to_name": "response", "type": kind, "value": value}

    tasks = []
    for i in items:
        t, r = i["turn"], i["rating"]
        values = [
            result("polarity", "choices", {"choices": [r["polarity"]]}),
            result("score", "number", {"number": r["score"]}),
            result("dimension", "choices", {"choices": [r["dimension"]]}),
            result("confidence", "number", {"number": r["confidence"]}),
        ]
        if r["comment"]:
            values.append(result("comment", "textarea", {"text": [r["comment"]]}))
        if r["correction"]:
            values.append(result("correction", "textarea", {"text": [r["correction"]]}))
        data = {k: t[k] for k in ("correlation_id", "session_id", "component_name", "prompt")}
        tasks.append(
            {
                "data": data | {"response": t["response"], "model": t["model"]},
                "annotations": [{"result": values}],
            }
        )
    return [tasks[s : s + BATCH] for s in range(0, len(tasks), BATCH)]


class LabelStudioUnavailable(BenchError):
    pass


def ls_venv() -> Path:
    """Label Studio's own venv (never the project's), created with it on first use."""
    binary = LS_VENV / "bin" / "label-studio"
    if binary.exists():
        return binary
    log(f"label studio: creating {LS_VENV.relative_to(ROOT)} and installing {LABEL_STUDIO}")
    LS_VENV.parent.mkdir(parents=True, exist_ok=True)
    base = getattr(sys, "_base_executable", sys.executable)
    steps = [
        [base, "-m", "venv", str(LS_VENV)],
        [str(LS_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", LABEL_STUDIO],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise LabelStudioUnavailable(
                f"`{' '.join(step)}` failed: {(done.stderr or done.stdout).strip()[-1500:]}"
            )
    return binary


@contextlib.contextmanager
def label_studio_server() -> Iterator[tuple[str, str]]:
    """Label Studio on a free loopback port with a fresh SQLite data dir: (base URL, token)."""
    binary = ls_venv()
    data = ROOT / "var" / "bench" / f"label-studio-data-{os.getpid()}"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    port = free_port()
    token = os.urandom(20).hex()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE_URL"))} | {
        "LABEL_STUDIO_BASE_DATA_DIR": str(data),
        "LATEST_VERSION_CHECK": "false",
        "COLLECT_ANALYTICS": "false",
        "SECRET_KEY": os.urandom(24).hex(),
        "DEBUG": "false",  # its default in `label-studio start`, said here for the record
    }
    command = [
        str(binary), "start", "--no-browser", "--internal-host", "127.0.0.1",
        "--port", str(port), "--data-dir", str(data),
        "--username", "bench@example.com", "--password", "bench-pass-123",
        "--user-token", token, "--enable-legacy-api-token",
    ]  # fmt: skip
    log_path = data / "server.log"
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LabelStudioUnavailable(
                    "label-studio exited at start:\n" + log_path.read_text()[-2000:]
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/health", timeout=5).status_code == 200:
                    break
            time.sleep(1)
        else:
            raise LabelStudioUnavailable("label-studio did not answer /health within 300 s")
        yield base, token
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        shutil.rmtree(data, ignore_errors=True)


@contextlib.contextmanager
def label_studio_side(items: list[dict[str, Any]]) -> Iterator[Side]:
    batches = ls_tasks(items)
    log("label studio: starting (its own venv, SQLite data dir under var/bench/)")
    with (
        label_studio_server() as (base, token),
        httpx.Client(
            base_url=base, headers={"Authorization": f"Token {token}"}, timeout=900
        ) as client,
    ):
        made = client.post(
            "/api/projects/", json={"title": "LearnPortal bench", "label_config": LS_CONFIG}
        )
        if made.status_code != 201:
            raise LabelStudioUnavailable(f"project: {made.status_code} {made.text[:300]}")
        project = made.json()["id"]
        version = client.get("/api/version/").json().get("release", "?")

        def send(n: int) -> float:
            t0 = time.perf_counter()
            response = client.post(f"/api/projects/{project}/import", json=batches[n])
            seconds = time.perf_counter() - t0
            if response.status_code != 201:
                raise LabelStudioUnavailable(
                    f"import: {response.status_code} {response.text[:300]}"
                )
            return seconds

        def check() -> None:
            state = client.get(f"/api/projects/{project}/").json()
            stored = (state.get("task_number"), state.get("total_annotations_number"))
            if stored != (len(items), len(items)):
                raise BenchError(f"label studio stored {state}, expected {len(items)} of each")

        yield Side(
            send,
            check,
            {"version": version, "server": "`label-studio start` (its Django server), SQLite"},
        )


def interleaved(sides: dict[str, Side], batches: int) -> dict[str, dict[str, Any]]:
    """Every side stores batch n before any stores batch n + 1, in an order that turns by one
    each batch, so that the machine's drift (it is shared) falls on all sides alike."""
    names = list(sides)
    for n in range(batches):
        turn = n % len(names)
        for name in names[turn:] + names[:turn]:
            sides[name].times.append(sides[name].send(n))
        if n % 5 == 4:
            log(f"ingest: {(n + 1) * BATCH} rated turns stored on each side")
    for side in sides.values():
        side.check()
    return {name: side.figures() for name, side in sides.items()}


# --- the report --------------------------------------------------------------------------------


def verdict_ms(figures: dict[str, Any]) -> str:
    if "ms_p50" not in figures:
        return "—"
    return report.verdict(figures["ms_p95"] < TARGET_MS)


def block(results: dict[str, Any]) -> str:
    meta = results["meta"]
    if "built" not in results:  # --compare-only
        return (
            "\n".join(
                [
                    f"### {report.DB_TITLE[meta['database']]}: {meta['started']} (comparison only)",
                    "",
                    f"- Command: `{meta['command']}`; took {meta['seconds'] / 60:.1f} min. Load "
                    f"average (1 min) at start / end: {meta['load'][0]} / {meta['load'][1]}.",
                    "",
                    compare_lines(results.get("compare") or {}),
                ]
            )
            + "\n"
        )
    built = results["built"]
    lines = [
        f"### {report.DB_TITLE[meta['database']]}: {meta['started']}",
        "",
        f"- Machine: {meta['nproc']} x {meta['cpu']}, {meta['memory']} RAM; Python "
        f"{meta['python']}; {meta['db_version']}.",
        f"- Command: `{meta['command']}`; took {meta['seconds'] / 60:.1f} min. Load average "
        f"(1 min) at start / end: {meta['load'][0]} / {meta['load'][1]}.",
        f"- Data: {built['turns']:,} turns, {built['feedback']:,} feedback rows "
        f"({built['human']:,} human ratings on {built['human_turns']:,} turns, "
        f"{built['corrections_with_span']:,} corrections with a span), built in "
        f"{built['insert_s']:.0f} s ({built['rows_s']:,.0f} rows/s, bulk insert), then "
        f"agreement's moments and the counters recounted from them in "
        f"{built.get('recount_s', 0):.1f} s (`manage.py feedback_recount`).",
        "",
        "Server time in-process (Django test client, no socket; DJANGO_DEBUG=0), "
        f"target p95 under {TARGET_MS:.0f} ms:",
        "",
    ]
    rows = []
    for label, figures in results["requests"].items():
        if "ms_p50" in figures:
            rows.append(
                [
                    label,
                    f"{figures['ms_p50']:.1f}",
                    f"{figures['ms_p95']:.1f}",
                    str(figures["n"]),
                    verdict_ms(figures),
                ]
            )
        else:
            rows.append([label, "—", "—", "0", "not routed yet"])
    lines.append(report._table(["request", "ms p50", "ms p95", "n", ""], rows, "lrrrr"))
    export = results.get("export") or {}
    lines += ["", "Export of every row, streamed, in a process of its own:", ""]
    if "rows_s" in export:
        lines.append(
            f"- `{export['kind']}`: {export['rows']:,} lines in {export['seconds']:.1f} s = "
            f"{export['rows_s']:,.0f} rows/s; peak RSS {export['rss_peak_mb']:.0f} MB "
            f"(after start-up: {export['rss_before_mb']:.0f} MB; target under "
            f"{TARGET_RSS_MB:.0f} MB) {report.verdict(export['rss_peak_mb'] < TARGET_RSS_MB)}."
        )
    else:
        lines.append(f"- {export.get('skipped', 'not run')}.")
    lines += ["", compare_lines(results.get("compare") or {})]
    return "\n".join(lines) + "\n"


def compare_lines(compare: dict[str, Any]) -> str:
    if not compare:
        return "Label Studio comparison: not run (--no-label-studio)."
    sides = [compare[k] for k in ("learnportal", "learnportal_split") if k in compare]
    if not sides:  # the sides run interleaved: without Label Studio none was measured
        return f"Label Studio comparison: not measured: {compare['label_studio'].get('error', '?')}"
    head = (
        f"Ingest of the same {sides[0]['rows']:,} rated turns (a turn and one human rating "
        f"each; batches of {BATCH}, sequential on each side, the sides interleaved batch by batch, after one warm-up batch):"
    )
    rows = [
        [f"LearnPortal: {s['requests']}", f"{s['rows_s']:,.0f}", f"{s['batch_ms_p50']:.0f}",
         s["server"]]
        for s in sides
    ]  # fmt: skip
    ls = compare["label_studio"]
    if "rows_s" in ls:
        rows.append(
            [
                f"Label Studio {ls['version']}: POST /api/projects/<id>/import with annotations",
                f"{ls['rows_s']:,.0f}",
                f"{ls['batch_ms_p50']:.0f}",
                ls["server"],
            ]
        )
        tail = "; ".join(
            f"LearnPortal ({s['requests']}) / Label Studio = **{s['rows_s'] / ls['rows_s']:.1f}x** "
            f"{report.verdict(s['rows_s'] / ls['rows_s'] >= COMPARE_GOAL)}"
            for s in sides
        )
        tail += f" (goal {COMPARE_GOAL:.0f}x)."
    else:
        tail = f"Label Studio could not be measured here: {ls.get('error', '?')}"
    table = report._table(["side", "rows/s", "batch ms p50", "server"], rows, "lrrl")
    return "\n".join([head, "", table, "", tail])


# --- the run -----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.workspace", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="20k turns, 100k rows, 1k compared")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", ""),
        help="a PostgreSQL server's admin URL (default: $DATABASE_URL; unset: SQLite)",
    )
    parser.add_argument("--no-label-studio", action="store_true", help="skip the comparison")
    parser.add_argument(
        "--compare-only",
        action="store_true",
        help="only the ingest comparison with Label Studio: no 1M build, requests or export",
    )
    parser.add_argument("--export", default="rewards", help="the export format to stream")
    parser.add_argument("--no-export", action="store_true", help="skip the streamed export")
    parser.add_argument("--keep", action="store_true", help="keep the bench databases")
    parser.add_argument(
        "--output",
        default=None,
        help="the markdown file whose block is replaced (default BENCHMARKS.md, none with "
        "--quick; '-' for none)",
    )
    return parser.parse_args(argv)


def _workspace(
    args: argparse.Namespace, database: Database, sizes: dict[str, Any], results: dict[str, Any]
) -> None:
    """The 1M workspace: build it, time its requests, stream an export."""
    env = app_env(database.create("workspace"), debug=False)
    manage(env, "migrate", "--no-input", "-v", "0")
    log(f"workspace: building {sizes['turns']:,} turns and {sizes['feedback']:,} feedback rows")
    results["built"] = child(env, "build", turns=sizes["turns"], feedback=sizes["feedback"], seed=7)
    b = results["built"]
    log(f"workspace: built in {b['insert_s']:.0f} s ({b['rows_s']:,.0f} rows/s)")
    results["requests"] = child(env, "measure", requests=sizes["requests"])
    if args.no_export:
        results["export"] = {"kind": args.export, "skipped": "not run (--no-export)"}
    else:
        log(f"workspace: streaming the {args.export} export")
        results["export"] = child(env, "export", kind=args.export) | {"kind": args.export}
    if "rows_s" in results["export"]:
        e = results["export"]
        log(f"export: {e['rows_s']:,.0f} rows/s, peak RSS {e['rss_peak_mb']:.0f} MB")
    database.drop(env)


def run(args: argparse.Namespace, database: Database) -> dict[str, Any]:
    sizes = QUICK if args.quick else FULL
    results: dict[str, Any] = {"sizes": sizes}
    if not args.compare_only:
        _workspace(args, database, sizes, results)
    if not args.no_label_studio:
        # One more batch than counted: the first is a warm-up on either side.
        items = rated_turns(sizes["compare_turns"] + BATCH)
        batches = len(items) // BATCH
        log(f"ingest: {len(items):,} rated turns, batch by batch, interleaved on three servers")
        try:
            with contextlib.ExitStack() as servers:
                running = {
                    name: servers.enter_context(learnportal_side(database, items, split=split))
                    for name, split in (("learnportal", False), ("learnportal_split", True))
                }
                running["label_studio"] = servers.enter_context(label_studio_side(items))
                measured = interleaved(running, batches)
            ls = measured.pop("label_studio")
            for side in measured.values():
                log(
                    f"ingest: Label Studio {ls['rows_s']:,.0f} rows/s; LearnPortal "
                    f"({side['requests']}) {side['rows_s']:,.0f} = "
                    f"{side['rows_s'] / ls['rows_s']:.1f}x (goal {COMPARE_GOAL:.0f}x)"
                )
        except LabelStudioUnavailable as exc:
            log(f"ingest: Label Studio unavailable: {exc}")
            measured, ls = {}, {"error": str(exc)}
        results["compare"] = measured | {"label_studio": ls}
    return results


def _terminate(signum: int, _frame: object) -> None:
    # Turn SIGTERM into an exception so that the servers and databases are cleaned up.
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    if (argv or sys.argv[1:])[:1] == ["child"]:
        task, raw = sys.argv[2], sys.argv[3]
        _setup()
        result = CHILD_TASKS[task](**orjson.loads(raw))
        sys.stdout.write("\n" + orjson.dumps({"result": result}).decode() + "\n")
        return 0
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    database = Database(args.database_url or None, keep=args.keep)
    record = report.RunRecord("workspace", database, argv or sys.argv[1:])
    log(f"workspace bench on {database.kind}")
    try:
        results = run(args, database)
    except BenchError as exc:
        print(f"bench.workspace failed: {exc}", file=sys.stderr)
        return 1
    finally:
        database.drop_all()
    # A quick or comparison-only run never replaces the block of a full one.
    record.finish(
        results,
        block,
        output=args.output,
        suffix="-quick" if args.quick else "-compare" if args.compare_only else "",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
