"""`python -m bench.projects`: 20 projects with rubrics of their own and 1M ratings (run.py)."""
