"""What every bench command reports: progress, tables, the machine, and its block of BENCHMARKS.md.

A command's figures go three ways (`RunRecord.finish`): printed, written whole to
`bench-results/last-<name>[-<database>][<suffix>].json` (git-ignored; `--report` renders one
again), and, for a full run, as the command's marked block of BENCHMARKS.md
(`<!-- bench:<name>:start -->` ... `end`), which replaces that block alone.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import shlex
import sqlite3
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from bench.harness.databases import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from bench.harness.databases import Database

DB_TITLE = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
BENCHMARKS = ROOT / "BENCHMARKS.md"
RESULTS = ROOT / "bench-results"
STACK = (
    "django",
    "pydantic",
    "channels",
    "uvicorn",
    "daphne",
    "psycopg",
    "numpy",
    "mabwiser",
    "joblib",
)


def log(message: str) -> None:
    """Progress, on stderr: a child's stdout carries its result, a command's its figures."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """A markdown table; `align` is one letter a column, l or r (default: l then r)."""
    align = align or "l" + "r" * (len(header) - 1)
    marks = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def targets_table(rows: Sequence[Sequence[str]]) -> str:
    """The one table every block leads with: figure, measured (with its baseline), target."""
    return table(["figure", "measured", "target", ""], rows, "lllr")


def machine(database: Database | None = None, packages: Sequence[str] = STACK) -> dict[str, Any]:
    """The machine, the versions and the commit a run measured."""
    cpu, memory = "unknown", ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with contextlib.suppress(OSError, ValueError, IndexError):
        memory = f"{int(Path('/proc/meminfo').read_text().split()[1]) / 1024 / 1024:.1f} GiB"
    versions = {}
    for name in packages:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "?"
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "commit": commit or "?",
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory": memory,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "sqlite": sqlite3.sqlite_version,
        "db_version": database.version() if database else f"SQLite {sqlite3.sqlite_version}",
        "versions": versions,
    }


def run_line(meta: dict[str, Any]) -> str:
    """When, where and how a block's figures were measured, in one line."""
    load = meta.get("load", ["?", "?"])
    commit = f" at `{meta['commit']}`" if meta.get("commit") else ""
    took = f"{meta['seconds'] / 60:.1f} min, " if "seconds" in meta else ""
    return (
        f"Run {meta['started']}{commit}: `{meta['command']}`, {took}{meta['db_version']}, "
        f"{meta['nproc']} x {meta['cpu']}, Python {meta['python']}; load average {load[0]} "
        f"before, {load[1]} after" + (" (quick sizes)." if meta.get("quick") else ".")
    )


def write_marked_block(path: Path, name: str, body: str, heading: str = "") -> None:
    """Replace the block between this name's markers, or append it (after `heading`, a section's
    title and text, unless the file has that title already); nothing else changes."""
    start, end = f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"
    content = f"{start}\n{body.rstrip()}\n{end}"
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _m: content, text)
    else:
        title = heading.splitlines()[0] if heading else ""
        if title and title not in text.splitlines():
            content = f"{heading.rstrip()}\n\n{content}"
        text = text.rstrip() + "\n\n" + content + "\n"
    path.write_text(text)


def read_results(path: str) -> dict[str, Any]:
    """An earlier run's raw figures (`--report`)."""
    results: dict[str, Any] = orjson.loads(Path(path).read_bytes())
    return results


class RunRecord:
    """What a bench command records about its run: its command, when it started, the load then;
    `finish` adds the machine and writes the results out."""

    def __init__(self, name: str, argv: Sequence[str], database: Database | None = None) -> None:
        self.name = name
        self.database = database
        module = "bench" if name == "bench" else f"bench.{name}"
        self.command = " ".join(["python -m", module, *map(shlex.quote, argv)])
        self.started = time.time()
        self.load_before = os.getloadavg()

    def meta(self, **extra: Any) -> dict[str, Any]:
        return (
            machine(self.database)
            | {
                "command": self.command,
                "database": self.database.kind if self.database else "sqlite",
                "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.started)),
                "seconds": time.time() - self.started,
                "load": [round(self.load_before[0], 2), round(os.getloadavg()[0], 2)],
            }
            | extra
        )

    def finish(
        self,
        results: dict[str, Any],
        summary: Callable[[dict[str, Any]], str],
        write: Callable[[Path, dict[str, Any]], None],
        *,
        output: str | None,
        suffix: str = "",
        **meta: Any,
    ) -> None:
        """The results' meta, the summary printed, the raw figures in bench-results/, and the
        blocks `write` makes of them in BENCHMARKS.md. A run with a suffix (quick, partial)
        writes no block unless `output` names a file; '-' writes none."""
        results["meta"] = self.meta(**meta)
        print(summary(results))
        RESULTS.mkdir(exist_ok=True)
        database = f"-{self.database.kind}" if self.database else ""
        raw = RESULTS / f"last-{self.name}{database}{suffix}.json"
        raw.write_bytes(
            orjson.dumps(results, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)
        )
        log(f"raw figures in {raw.relative_to(ROOT)}")
        target = output or ("-" if suffix else str(BENCHMARKS))
        if target != "-":
            write(Path(target), results)
            log(f"wrote {target}")


def rewrite(
    path: str,
    summary: Callable[[dict[str, Any]], str],
    write: Callable[[Path, dict[str, Any]], None],
    output: str | None,
) -> None:
    """`--report JSON`: render an earlier run's figures again, run nothing."""
    results = read_results(path)
    print(summary(results))
    target = output or str(BENCHMARKS)
    if target != "-":
        write(Path(target), results)
        log(f"wrote {target}")
