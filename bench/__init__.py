"""LearnPortal's benchmarks: a library with thin command lines (`make bench` runs them all).

The commands, each argument parsing and calls: `python -m bench` (bench/__main__.py: the app
on a live server), `bench.adapt` (the strategies against MABWiser), `bench.workspace` (the
annotation workspace against Label Studio), `bench.components` (the components pages),
`bench.loop` (the learning loop). What they share is in bench/harness; what each measures in
its package: live, strategies, annotation, pages, learning. A task that must run inside the
app's own process goes through bench/child.py. The app's steps are timed by its own stages
(core/timing.py), never by patching its names. Method and current figures: BENCHMARKS.md.
"""
