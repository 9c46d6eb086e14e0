"""Ingest as the tables grow (issue 11, item 3): rows/s through the API at 0 and at 2M stored rows.

Two sections' worlds at once: one database left empty, one seeded with `stored` feedback rows
and as many experience rows, each with its own server. The same bodies as the ingest sections
(1000 items a batch through POST /api/learn/) then go to both, batch by batch interleaved, so
that both meet the same drift of a shared machine, and the figure is rate at 2M / rate at 0.

The seed is honest and quick: one batch of each kind is sent through the API first; its rows are
the template, copied `stored` times by one INSERT ... SELECT per chunk (PostgreSQL:
`generate_series`; SQLite: a recursive CTE) with fresh random client ids (feedback_id,
correlation_id, experience_id), fresh content hashes, older timestamps, and the experiences
spread over 20 other owners (as many agents would store them; the one owner's quota of 1M is not
crossed). Every index is written row by row, as the API would have grown it. Then what a
deployment would have run: PostgreSQL `VACUUM ANALYZE` and a `CHECKPOINT`; SQLite `ANALYZE` and a
WAL checkpoint (no `VACUUM`: it repacks the file, which a deployment rarely does).

After each API batch the same rows are also written again by the driver into the API's own
table under new ids (`executemany` / `COPY`, one commit): the physical floor at the same size,
so that a slowdown the driver shares is the storage's, and one it does not is the app's.
"""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, Any

import httpx

from bench.harness import payloads
from bench.harness.children import run_child
from bench.harness.rawdb import insert_committed, read_back
from bench.harness.report import log
from bench.harness.servers import Stack

if TYPE_CHECKING:
    from bench.harness.databases import Database

KINDS = ("feedback", "experience")
SEED_OWNERS = 20
SEED_CHUNK = 250_000
TEMPLATE = 1000  # the rows of the first batch, copied to seed


def _expressions(kind: str, vendor: str, stored: int) -> dict[str, str]:
    """The seeded value of each column that must differ from the template's (`s.n` numbers the
    copy; `t` is the template row)."""
    if vendor == "postgresql":
        hex32 = "md5(random()::text || s.n::text)"
        uuid = "gen_random_uuid()::text"
    else:
        hex32 = "lower(hex(randomblob(16)))"
        uuid = (
            "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || "
            "substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(2)) || '-' || "
            "hex(randomblob(6)))"
        )
    older = f"({stored} - s.n) * 0.25"  # spread over the days before the run
    if kind == "feedback":
        return {
            "feedback_id": f"'b_' || {hex32}",
            "correlation_id": uuid,
            "content_hash": hex32,
            "ts": f"t.ts - {older}",
            "received": f"t.received - {older}",
        }
    return {
        "experience_id": uuid,
        "owner": f"'bench-seed-' || (s.n % {SEED_OWNERS})",
        "episode_id": "'ep-seed-' || (s.n / 50)",
        "content_hash": hex32,
        "ts": f"t.ts - {older}",
    }


def seed(conn: Any, vendor: str, table: str, columns: list[str], kind: str, stored: int) -> float:
    """Copy the table's first TEMPLATE rows until it holds `stored` rows; return the seconds."""
    start = time.perf_counter()
    template = f"seed_template_{kind}"
    quoted = ", ".join(f'"{c}"' for c in columns)
    exprs = _expressions(kind, vendor, stored)
    select = ", ".join(exprs.get(c, f't."{c}"') for c in columns)
    if vendor == "postgresql":
        conn.execute(
            f"CREATE TEMP TABLE {template} AS SELECT (row_number() OVER (ORDER BY id) - 1) AS rn, "
            f'{quoted} FROM "{table}" ORDER BY id LIMIT {TEMPLATE}'
        )
        conn.execute(f"CREATE INDEX ON {template} (rn)")
        insert = (  # % doubled: psycopg reads %s placeholders
            f'INSERT INTO "{table}" ({quoted}) SELECT {select.replace("%", "%%")} '
            f"FROM generate_series(%s::bigint, %s::bigint) AS s(n) "
            f"JOIN {template} AS t ON t.rn = s.n %% {TEMPLATE}"
        )
    else:
        conn.execute("PRAGMA cache_size=-1048576")  # the seed only: 1 GiB, to seed quickly
        conn.execute(
            f"CREATE TEMP TABLE {template} AS SELECT (row_number() OVER (ORDER BY id) - 1) AS rn, "
            f'{quoted} FROM "{table}" ORDER BY id LIMIT {TEMPLATE}'
        )
        conn.execute(f"CREATE INDEX {template}_rn ON {template} (rn)")
        insert = (
            f'INSERT INTO "{table}" ({quoted}) '
            "WITH RECURSIVE s(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM s WHERE n < ?) "
            f"SELECT {select} FROM s CROSS JOIN {template} AS t WHERE t.rn = s.n % {TEMPLATE}"
        )
    have = TEMPLATE
    while have < stored:
        upto = min(stored, have + SEED_CHUNK)
        if vendor == "postgresql":
            conn.execute(insert, [have, upto - 1])
            conn.commit()
        else:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(insert, [have, upto - 1])
            conn.execute("COMMIT")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        have = upto
        log(f"growth: {kind}: {have:,} rows seeded ({time.perf_counter() - start:.0f} s)")
    if vendor == "postgresql":
        conn.execute(f"DROP TABLE {template}")
        conn.commit()
        conn.autocommit = True
        conn.execute(f'VACUUM ANALYZE "{table}"')
        conn.autocommit = False
    else:
        conn.execute(f"DROP TABLE {template}")
        conn.execute(f'ANALYZE "{table}"')
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA cache_size=-65536")  # back to the app's
    return time.perf_counter() - start


class DriverCopy:
    """The rows an API batch stored, written again by the driver into the same table under new
    ids, one commit: the physical insert at the table's current size."""

    def __init__(self, conn: Any, vendor: str, table: str, columns: list[str]) -> None:
        self.conn, self.vendor, self.table, self.columns = conn, vendor, table, columns

    def copy(self, ids: list[str]) -> float:
        rows = read_back(self.conn, self.vendor, self.table, self.columns, ids)
        rows = [(f"{row[0]}-raw", *row[1:]) for row in rows]
        return insert_committed(self.conn, self.vendor, self.table, self.columns, rows)


# (label, cache_size, wal_autocheckpoint): the app's pragmas first (learnportal/settings.py).
COMMIT_VARIANTS = (
    ("the app's: 64 MiB cache, autocheckpoint 10000 (40 MiB of WAL)", -65536, 10000),
    ("SQLite's default autocheckpoint, 1000", -65536, 1000),
    ("page cache 512 MiB", -524288, 10000),
    ("no autocheckpoint", -65536, 0),
)
KEY_COLUMNS = ("feedback_id", "correlation_id", "experience_id")


def commit_profile(
    conn: Any, table: str, columns: list[str], size: int, batches: int = 12
) -> dict[str, Any]:
    """SQLite: where the driver's insert of a batch goes, `executemany` against `COMMIT`, with
    the app's pragmas and with one changed at a time; and how many pages one commit writes to
    the WAL. The rows are the table's newest `size` under new keys placed beside the old ones
    (so random keys stay random), one commit a batch."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    template = conn.execute(
        f'SELECT {quoted} FROM "{table}" ORDER BY id DESC LIMIT {size}'
    ).fetchall()
    keys = [i for i, c in enumerate(columns) if c in KEY_COLUMNS]
    insert = f'INSERT INTO "{table}" ({quoted}) VALUES ({", ".join("?" * len(columns))})'
    made = [0]

    def fresh() -> list[tuple[Any, ...]]:
        made[0] += 1
        tag = f"-p{made[0]}"
        return [
            tuple(f"{v}{tag}" if i in keys else v for i, v in enumerate(row)) for row in template
        ]

    def write(rows: list[tuple[Any, ...]]) -> tuple[float, float]:
        conn.execute("BEGIN IMMEDIATE")
        t0 = time.perf_counter()
        conn.executemany(insert, rows)
        t1 = time.perf_counter()
        conn.execute("COMMIT")
        return t1 - t0, time.perf_counter() - t1

    out: dict[str, Any] = {"variants": {}}
    for label, cache, checkpoint in COMMIT_VARIANTS:
        conn.execute(f"PRAGMA cache_size={cache}")
        conn.execute(f"PRAGMA wal_autocheckpoint={checkpoint}")
        write(fresh())  # warm-up
        split = [write(fresh()) for _ in range(batches)]
        out["variants"][label] = {
            "executemany_ms": 1000 * statistics.median(t[0] for t in split),
            "commit_ms": 1000 * statistics.median(t[1] for t in split),
            # The mean too: a larger autocheckpoint pays its checkpoint every few commits.
            "commit_ms_mean": 1000 * statistics.mean(t[1] for t in split),
        }
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    write(fresh())
    out["wal_pages_per_commit"] = int(conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    conn.execute("PRAGMA cache_size=-65536")
    conn.execute("PRAGMA wal_autocheckpoint=10000")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return out


def _index_io(conn: Any, vendor: str, tables: list[str]) -> dict[str, list[int]]:
    """PostgreSQL: blocks of each index read from outside shared_buffers and hit inside it."""
    if vendor != "postgresql":
        return {}
    rows = conn.execute(
        "SELECT indexrelname, idx_blks_read, idx_blks_hit FROM pg_statio_user_indexes "
        "WHERE relname = ANY(%s)",
        [tables],
    ).fetchall()
    conn.commit()
    return {name: [int(read), int(hit)] for name, read, hit in rows}


def _sizes(conn: Any, vendor: str, tables: list[str]) -> dict[str, float]:
    """MB on disk of each table with its indexes."""
    out = {}
    for table in tables:
        if vendor == "postgresql":
            row = conn.execute("SELECT pg_total_relation_size(%s)", [table]).fetchone()
            conn.commit()
            out[table] = row[0] / 1e6
        else:
            try:
                row = conn.execute(
                    "SELECT SUM(pgsize) FROM dbstat WHERE name = ? OR name IN "
                    "(SELECT name FROM sqlite_master WHERE tbl_name = ? AND type = 'index')",
                    [table, table],
                ).fetchone()
                out[table] = (row[0] or 0) / 1e6
            except Exception:  # dbstat is a compile-time option of SQLite
                out[table] = -1.0
    return out


def growth(
    database: Database,
    *,
    server_kind: str,
    debug: bool,
    stored: int,
    batches: int,
    size: int,
    warm: int = 2,
    driver: bool = True,
) -> dict[str, Any]:
    """`driver=False` leaves out the driver's copy after each API batch: on SQLite its write,
    through a connection of its own, makes the server's connection drop its page cache at the
    next batch, which a deployment whose only writer is the app does not pay."""
    vendor = database.kind
    with (
        Stack(database, "growth-empty", server_kind=server_kind, debug=debug) as empty,
        Stack(database, "growth-full", server_kind=server_kind, debug=debug) as full,
    ):
        meta = run_child(full.env, "meta")
        tables = [meta[kind]["table"] for kind in KINDS]
        stacks = {"empty": empty, "full": full}
        conns = {name: s.connect() for name, s in stacks.items()}
        # Bodies for each stack, built before any clock: the template batch, warm-ups, timed.
        bodies: dict[tuple[str, str], list[tuple[list[str], bytes]]] = {}
        for n, kind in enumerate(KINDS):
            for m, name in enumerate(stacks):
                count = warm + batches + (1 if name == "full" else 0)
                bodies[name, kind] = payloads.batches(kind, count, size, seed=100 + 10 * n + m)
        clients = {
            (name, kind): httpx.Client(
                base_url=s.base_url,
                headers=s.headers("env" if kind == "feedback" else "agent"),
                timeout=300,
            )
            for name, s in stacks.items()
            for kind in KINDS
        }
        try:
            seconds = {}
            for kind in KINDS:
                _post(clients["full", kind], kind, bodies["full", kind].pop(0)[1], size)
                log(f"growth: seeding {stored:,} {kind} rows on {vendor}")
                seconds[kind] = seed(
                    conns["full"], vendor, meta[kind]["table"], meta[kind]["columns"], kind, stored
                )
            sizes = _sizes(conns["full"], vendor, tables)
            log(f"growth: seeded in {sum(seconds.values()):.0f} s; MB on disk: {sizes}")
            copies = {
                (name, kind): DriverCopy(
                    conns[name], vendor, meta[kind]["table"], meta[kind]["columns"]
                )
                for name in stacks
                for kind in KINDS
            }
            times: dict[tuple[str, str, str], list[float]] = {}
            io_before: dict[str, list[int]] = {}
            for n in range(warm + batches):
                if n == warm:
                    io_before = _index_io(conns["full"], vendor, tables)
                # Alternate which database goes first, so neither always follows the other.
                order = list(stacks) if n % 2 else list(reversed(stacks))
                for kind in KINDS:
                    for name in order:
                        ids, body = bodies[name, kind][n]
                        api = _post(clients[name, kind], kind, body, size)
                        raw = copies[name, kind].copy(ids) if driver else 0.0
                        if n >= warm:
                            times.setdefault((name, kind, "api"), []).append(api)
                            times.setdefault((name, kind, "raw"), []).append(raw)
                if (n + 1) % 10 == 0:
                    log(f"growth: {n + 1 - warm}/{batches} batches each way")
            io_after = _index_io(conns["full"], vendor, tables)
            counts = {
                name: {
                    kind: int(
                        conns[name]
                        .execute(f'SELECT COUNT(*) FROM "{meta[kind]["table"]}"')
                        .fetchone()[0]
                    )
                    for kind in KINDS
                }
                for name in stacks
            }
            profile = {}
            if vendor == "sqlite":
                log("growth: the driver's insert, executemany against COMMIT, by pragma")
                profile = {
                    f"{name} {kind}": commit_profile(
                        conns[name], meta[kind]["table"], meta[kind]["columns"], size
                    )
                    for name in stacks
                    for kind in KINDS
                }
        finally:
            for client in clients.values():
                client.close()
            for conn in conns.values():
                conn.close()
    rate = {key: len(ts) * size / sum(ts) if sum(ts) else 0.0 for key, ts in times.items()}
    result: dict[str, Any] = {
        "stored": stored,
        "driver": driver,
        "batches": batches,
        "batch": size,
        "seed_seconds": seconds,
        "mb_on_disk": sizes,
        "counts": counts,
        "commit_profile": profile,
        "index_io": {
            name: [after[0] - io_before.get(name, [0, 0])[0], after[1] - io_before[name][1]]
            for name, after in io_after.items()
            if name in io_before
        },
    }
    for kind in KINDS:
        result[kind] = {
            "api_rows_s_0": rate["empty", kind, "api"],
            "api_rows_s_full": rate["full", kind, "api"],
            "raw_rows_s_0": rate["empty", kind, "raw"],
            "raw_rows_s_full": rate["full", kind, "raw"],
            "api_batch_ms_p50_0": 1000 * statistics.median(times["empty", kind, "api"]),
            "api_batch_ms_p50_full": 1000 * statistics.median(times["full", kind, "api"]),
            "ratio": rate["full", kind, "api"] / rate["empty", kind, "api"],
            "raw_ratio": rate["full", kind, "raw"] / rate["empty", kind, "raw"] if driver else 0.0,
        }
    return result


def _post(client: httpx.Client, kind: str, body: bytes, size: int) -> float:
    field = {"feedback": "recorded", "experience": "stored"}[kind]
    start = time.perf_counter()
    response = client.post("/api/learn/", content=body)
    elapsed = time.perf_counter() - start
    if response.status_code != 200 or response.json().get(field) != size:
        raise RuntimeError(f"growth {kind}: {response.status_code} {response.text[:500]}")
    return elapsed
