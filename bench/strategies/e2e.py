"""3. End to end: `refinement.adapt.adapt_run` in Django on a fresh SQLite database holding the
same experiences, split into the read, the strategy and the apply by the app's stages
(core/timing.py), with probes of the read it replaced, a stats read beside adapts, and a
cProfile listing. `worker` is a task of bench/child.py; `e2e_section` runs it.
"""

from __future__ import annotations

import math
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.harness.children import run_child
from bench.harness.databases import Database, app_env, manage, sqlite_connect, sqlite_path
from bench.harness.figures import best_of, percentile
from bench.harness.profiles import commit_staged, profiled
from bench.harness.rawdb import insert_committed
from bench.harness.report import log
from bench.strategies.data import STRATEGIES, Data
from core.timing import recording

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence


OWNER_NAME = "bench"
EPISODE = 50
LOAD_BATCH = 100_000


def _release() -> None:
    """Close this thread's connection for good: the app's SQLite pool keeps a closed one open,
    and the file is copied or replaced next (its WAL checkpointed into it by the last close)."""
    from django.db import connection

    from core.sqlite.base import close_idle

    connection.close()
    close_idle()


def _db_path(var_dir: Path) -> Path:
    return sqlite_path({"LEARNPORTAL_VAR_DIR": str(var_dir)})


def component_name(i: int) -> str:
    return f"component-{i:04d}"


def experience_rows(
    data: Data,
    columns: Sequence[str],
    owner: str,
    start: int,
    stop: int,
    t0: float,
    *,
    project: int,
) -> list[tuple[Any, ...]]:
    """Rows for `feedback_experience` of `project` in the given column order, ~230 bytes of
    payload each."""
    names = [component_name(i) for i in range(data.n_arms)]
    idx = range(start, stop)
    arm = data.arm[start:stop].tolist()
    won = (data.reward01[start:stop] > 0.5).tolist()
    step = [i % EPISODE for i in idx]
    episode = [f"ep-{i // EPISODE:07d}" for i in idx]
    values = {
        "experience_id": [f"bench-{i:08d}" for i in idx],
        "owner": [owner] * len(idx),
        "episode_id": episode,
        "step": step,
        "component_name": [names[a] for a in arm],
        "reward": [1.0 if w else -1.0 for w in won],
        "done": [s == EPISODE - 1 for s in step],
        "duration_ms": [20.0 + (i * 7919 % 1000) / 10.0 for i in idx],
        "success": won,
        "behaviour_prob": [1.0 / data.n_arms] * len(idx),
        "state": [
            f'{{"episode":"{e}","step":{s},"query":"q{i % 997}"}}'
            for i, e, s in zip(idx, episode, step, strict=True)
        ],
        "action": [f'{{"component_name":"{names[a]}","tool":"search"}}' for a in arm],
        "next_state": [
            f'{{"episode":"{e}","step":{s + 1}}}' for e, s in zip(episode, step, strict=True)
        ],
        "ts": [t0 + i * 1e-3 for i in idx],
        "content_hash": [f"{i:032x}" for i in idx],
        "attributed": [True] * len(idx),
        "project_id": [project] * len(idx),
    }
    missing = [c for c in columns if c not in values]
    if missing:
        raise RuntimeError(f"bench.adapt does not know how to fill experience columns {missing}")
    return list(zip(*(values[c] for c in columns), strict=True))


def _bulk_load(data: Data, var_dir: Path, owner: str, start: int, stop: int) -> dict[str, Any]:
    """Rows [start, stop) by the driver's executemany, one transaction per 100,000; then the
    aggregates of rows [0, stop): `ComponentStats`, the quota, and the reward buckets adapt
    reads, by `rebuild_rewards` (the backfill an existing database gets), timed."""
    from django.db import transaction

    from core.projects.models import DEFAULT_PROJECT
    from core.projects.selection import project_pk
    from feedback.models import ComponentOwner, ComponentStats, Experience, ExperienceQuota
    from feedback.rewards import rewards_rebuild
    from feedback.services.rows import EXPERIENCE_COLUMNS

    project = project_pk(DEFAULT_PROJECT)
    table = Experience._meta.db_table
    columns = list(EXPERIENCE_COLUMNS)
    _release()
    conn = sqlite_connect(_db_path(var_dir))
    t0 = time.time() - data.size * 1e-3
    build_s = insert_s = 0.0
    for first in range(start, stop, LOAD_BATCH):
        t = time.perf_counter()
        last = min(first + LOAD_BATCH, stop)
        rows = experience_rows(data, columns, owner, first, last, t0, project=project)
        build_s += time.perf_counter() - t
        insert_s += insert_committed(conn, "sqlite", table, columns, rows)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    counts = np.bincount(data.arm[:stop], minlength=data.n_arms)
    wins = np.bincount(data.arm[:stop], weights=data.reward01[:stop], minlength=data.n_arms)
    now = time.time()
    ComponentStats.objects.all().delete()
    ComponentStats.objects.bulk_create(
        ComponentStats(
            project_id=project,
            component_name=component_name(i),
            calls_total=int(counts[i]),
            calls_success=int(wins[i]),
            calls_failed=int(counts[i] - wins[i]),
            last_called=now,
        )
        for i in range(data.n_arms)
    )
    # The bench agent's components, as its first reported calls would claim them.
    ComponentOwner.objects.all().delete()
    ComponentOwner.objects.bulk_create(
        ComponentOwner(
            project_id=project, component_name=component_name(i), owner=owner, claimed=now
        )
        for i in range(data.n_arms)
    )
    ExperienceQuota.objects.update_or_create(owner=owner, defaults={"stored": stop})
    t = time.perf_counter()
    with transaction.atomic():
        buckets = rewards_rebuild()
    backfill_s = time.perf_counter() - t
    _release()
    return {
        "rows": stop,
        "loaded": stop - start,
        "arms": data.n_arms,
        "build_s": build_s,
        "insert_s": insert_s,
        "rows_per_s": (stop - start) / insert_s,
        "backfill_s": backfill_s,
        "buckets": buckets,
        "db_mb": _db_path(var_dir).stat().st_size / 2**20,
    }


def _timed_adapt(strategy: str, principal: Any) -> dict[str, Any]:
    """One adapt, its time split by the app's stages: read (every `read:` stage), the strategy,
    and the apply (the rest), with its SQL statements counted."""
    from django.db import connection

    from refinement.adapt import adapt_run

    queries = 0

    def count(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal queries
        queries += 1
        return execute(sql, params, many, context)

    with recording() as stages, commit_staged(), connection.execute_wrapper(count):
        start = time.perf_counter()
        outcome = adapt_run(principal=principal, component_name="", strategy=strategy)
        total = time.perf_counter() - start
    phases = dict(stages.seconds)
    read = sum(secs for label, secs in phases.items() if label.startswith("read:"))
    strat = phases.get("strategy", 0.0)
    return {
        "total_s": total,
        "read_s": read,
        "strategy_s": strat,
        "apply_s": total - read - strat,
        "phases": phases | {"apply: the rest (plan, weights, ORM, Python)": total - stages.total},
        "calls": stages.calls,
        "queries": queries,
        "moved": len(outcome.updated),
        "message": outcome.message[:160],
    }


def _read_probes(data: Data, stored: int, repeats: int) -> dict[str, Any]:
    """What adapt reads now (the kept sums; PPO's bounded replay) against the read it replaced
    (every experience: `fetchall` of the whole table) and a SQL GROUP BY over it."""
    from django.conf import settings
    from django.db import connection

    from core.projects.models import DEFAULT_PROJECT
    from core.projects.selection import project_pk
    from feedback.models import Experience
    from refinement import store
    from refinement.evidence import component_names, load_evidence

    project = project_pk(DEFAULT_PROJECT)
    table = connection.ops.quote_name(Experience._meta.db_table)
    names = component_names(project)
    weights = store.routing_weights(project)

    def fetch_all() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT component_name, reward, behaviour_prob FROM {table} "
                "WHERE component_name <> '' ORDER BY id"
            )
            return len(cursor.fetchall())

    def group_by() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT component_name, COUNT(*), SUM(reward) FROM {table} "
                "WHERE component_name <> '' GROUP BY component_name"
            )
            return len(cursor.fetchall())

    sums_s, evidence = best_of(
        repeats, lambda: load_evidence(project, names, weights, replay=False)
    )
    counts = np.bincount(data.arm[:stored], minlength=data.n_arms)
    if not np.array_equal(evidence.counts, counts):
        raise RuntimeError("the kept reward sums differ from the loaded data")
    replay_s, replayed = best_of(
        repeats, lambda: load_evidence(project, names, weights, replay=True)
    )
    return {
        "sums_s": sums_s,
        "replay_s": replay_s,
        "replay_rows": replayed.size,
        "replay_limit": settings.LEARNPORTAL_REPLAY_WINDOW,
        "fetch_all_s": best_of(1, fetch_all)[0],
        "group_by_s": best_of(1, group_by)[0],
    }


def _latency_during_adapt(principal: Any, component: str, adapts: int) -> dict[str, Any]:
    """A stats read of one component (what learn/stats/req reads) in a thread of its own, on
    its own connection, every 2 ms: for 2 s alone, then while `adapts` ucb1 adapts run back
    to back in this thread, as another request would be served beside them in one process."""
    import threading

    from django.db import connection

    from core.projects.selection import project_pk
    from feedback.selectors import component_records
    from refinement.adapt import adapt_run

    project = project_pk(principal.project)

    idle: list[float] = []
    busy: list[float] = []
    during = threading.Event()
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                start = time.perf_counter()
                component_records(project, component)
                elapsed = time.perf_counter() - start
                (busy if during.is_set() else idle).append(elapsed)
                time.sleep(0.002)
        finally:
            connection.close()

    thread = threading.Thread(target=reader)
    thread.start()
    time.sleep(2.0)
    during.set()
    start = time.perf_counter()
    for _ in range(adapts):
        adapt_run(principal=principal, component_name="", strategy="ucb1")
    adapt_s = (time.perf_counter() - start) / adapts
    during.clear()
    time.sleep(0.5)
    stop.set()
    thread.join()

    def pct(values: list[float], q: float) -> float:
        return percentile(values, q / 100) * 1e3 if values else math.nan

    return {
        "adapts": adapts,
        "adapt_s": adapt_s,
        "idle_n": len(idle),
        "busy_n": len(busy),
        "idle_ms_p50": pct(idle, 50),
        "idle_ms_p95": pct(idle, 95),
        "busy_ms_p50": pct(busy, 50),
        "busy_ms_p95": pct(busy, 95),
        "busy_ms_max": max(busy) * 1e3 if busy else math.nan,
    }


def _profile_adapt(strategy: str, principal: Any, top: int = 18) -> dict[str, Any]:
    from refinement.adapt import adapt_run

    def one() -> None:
        adapt_run(principal=principal, component_name="", strategy=strategy)

    return {"strategy": strategy} | profiled(one, top)


def worker(
    *, var_dir: str, read_repeats: int, adapt_repeats: int, sizes: list[int]
) -> dict[str, Any]:
    """Inside a Django process set up on the fresh database: load, probe, adapt, profile."""
    from django.conf import settings

    from core.accounts.principals import Principal
    from core.accounts.roles import Role
    from refinement.trust_region import STEP_LIMIT

    folder = Path(var_dir)
    data = Data(
        np.load(folder / "means.npy"), np.load(folder / "arm.npy"), np.load(folder / "reward.npy")
    )
    principal = Principal(role=Role.AGENT, name=OWNER_NAME, is_human=False)
    db_path = _db_path(folder)
    pristine = folder / "pristine.sqlite3"

    def restore() -> None:
        _release()
        for suffix in ("-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(pristine, db_path)
        # Written back now, so that the kernel's writeback of the copy (360 MiB at 1M
        # experiences) does not compete with the adapt timed next.
        os.sync()

    adapts: dict[str, dict[str, Any]] = {}
    loads, reads = {}, {}
    stored = 0
    for size in sizes:
        if stored:
            restore()  # the adapts of the smaller size leave no trace in the larger
        log(f"e2e: loading to {size:,} experiences for {data.n_arms:,} components")
        loads[str(size)] = _bulk_load(data, folder, principal.key, stored, size)
        stored = size
        load = loads[str(size)]
        log(
            f"e2e: loaded at {load['rows_per_s']:,.0f} rows/s, {load['db_mb']:.0f} MiB; "
            f"backfill of the reward sums {load['backfill_s']:.2f} s"
        )
        shutil.copyfile(db_path, pristine)
        reads[str(size)] = _read_probes(data, size, read_repeats)
        _release()
        for strategy in STRATEGIES:
            tries = []
            for _ in range(adapt_repeats):  # best of a few: the machine is shared
                restore()
                tries.append(_timed_adapt(strategy, principal))
            adapts[f"{strategy}@{size}"] = a = min(tries, key=lambda t: t["total_s"])
            a["tries_s"] = [t["total_s"] for t in tries]
            log(
                f"e2e adapt {strategy} at {size:,}: {a['total_s']:.3f} s = read "
                f"{a['read_s']:.3f} + strategy {a['strategy_s']:.3f} + apply {a['apply_s']:.3f}; "
                f"{a['queries']:,} queries, {a['moved']} moved"
            )
    restore()
    log("e2e: a stats read beside adapts")
    latency = _latency_during_adapt(principal, component_name(7), 5)
    log(
        f"e2e: stats read p50/p95 {latency['idle_ms_p50']:.2f}/{latency['idle_ms_p95']:.2f} ms "
        f"alone, {latency['busy_ms_p50']:.2f}/{latency['busy_ms_p95']:.2f} ms during adapts"
    )
    restore()
    log("e2e: cProfile of one adapt (ucb1)")
    profile = _profile_adapt("ucb1", principal)
    _release()
    return {
        "latency": latency,
        "sizes": sizes,
        "loads": loads,
        "reads": reads,
        "adapts": adapts,
        "profile": profile,
        "settings": {
            "auto_apply_max_risk": settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK,
            "max_step": STEP_LIMIT[settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK],
            "strategy_params": dict(settings.LEARNPORTAL_STRATEGY_PARAMS),
            "debug": settings.DEBUG,
            "adapt_window": settings.LEARNPORTAL_ADAPT_WINDOW,
            "replay_window": settings.LEARNPORTAL_REPLAY_WINDOW,
        },
    }


def e2e_section(data: Data, sizes: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh SQLite database, migrated, then `worker` in it."""
    database = Database(None)
    try:
        db_env = database.create("adapt")
        env = app_env(db_env, debug=False)
        var_dir = Path(db_env["LEARNPORTAL_VAR_DIR"])
        start = time.perf_counter()
        manage(env, "migrate", "--no-input", "-v", "0")
        migrate_s = time.perf_counter() - start
        np.save(var_dir / "means.npy", data.means)
        np.save(var_dir / "arm.npy", data.arm)
        np.save(var_dir / "reward.npy", data.reward01)
        result: dict[str, Any] = run_child(
            env,
            "adapt_e2e",
            var_dir=str(var_dir),
            read_repeats=sizes["read_repeats"],
            adapt_repeats=sizes["repeats"],
            sizes=sorted({sizes["e2e_small"], data.size}),
        )
        result["migrate_s"] = migrate_s
        return result
    finally:
        database.drop_all()
