"""LearnPortal's benchmarks: `python -m bench` (or `make bench`).

Each section runs against a fresh database of its own (a temporary SQLite file under
`var/bench-<pid>/`, or a `learnportal_bench_<pid>_<n>` database on the PostgreSQL server given by
`--database-url` / `DATABASE_URL`) and a server started as a subprocess on a free port, so the
development database is never touched. Results are printed and written to `BENCHMARKS.md`.
"""
