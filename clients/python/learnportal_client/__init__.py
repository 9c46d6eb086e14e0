"""The Python client of LearnPortal's learn/* API."""

from __future__ import annotations
