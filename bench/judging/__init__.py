"""`python -m bench.comparisons`: 100k comparisons judged side by side, their queue, judging page
and judgments timed in-process (run.py)."""
