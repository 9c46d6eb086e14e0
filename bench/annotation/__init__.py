"""`python -m bench.workspace`: the annotation workspace at 1M rows, and Label Studio (run.py)."""
