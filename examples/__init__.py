"""Runnable examples of agents on LearnPortal (see the README, "Connecting an agent")."""
