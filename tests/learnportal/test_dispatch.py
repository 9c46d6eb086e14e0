"""Dispatch holds the handler functions themselves: a reader follows a message type to its code."""

from __future__ import annotations

import inspect
from functools import partial

from learnportal.dispatch import HANDLERS
from learnportal_protocol import REQUEST_MODELS


def test_every_request_type_has_an_imported_handler_function() -> None:
    assert set(HANDLERS) == set(REQUEST_MODELS)
    for message_type, entry in HANDLERS.items():
        # A partial is the wiring passing one app's handler what the other app owns.
        handler = entry.func if isinstance(entry, partial) else entry
        assert inspect.isfunction(handler), message_type
        assert handler.__module__ in {"feedback.handlers", "refinement.handlers"}, message_type
