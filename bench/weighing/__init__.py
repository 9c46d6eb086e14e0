"""`python -m bench.judges`: how far a machine judge moves routing, by its agreement (issue 27)."""
