"""`python -m bench.components`: the components pages at 10k and 1M calls (measure.py)."""
