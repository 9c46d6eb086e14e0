"""Runnable examples of agents on LearnPortal (docs/how-to/python-client.md, docs/tutorials/first-agent.md)."""
