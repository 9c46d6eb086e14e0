"""`python -m bench`: the app on a live server, section by section (run.py)."""
