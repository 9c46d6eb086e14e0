"""`python -m bench.loop`: does an agent routed by the portal learn (runtime.py, summary.py)."""
