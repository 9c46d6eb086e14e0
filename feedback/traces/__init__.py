"""A turn's run as steps (the spans of its trace): their shape, their checks and their rows."""
