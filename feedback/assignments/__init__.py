"""A project's queue, or one component's part of it, kept for named people."""
