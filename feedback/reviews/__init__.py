"""A second pass over people's ratings: a reviewer accepts a rating, or rejects it with a
reason, which takes it back out of what counts (issue 27, item 1)."""
