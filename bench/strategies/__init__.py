"""`python -m bench.adapt`: the adaptive strategies against MABWiser (run.py)."""
