"""A second pass over people's ratings: a reviewer accepts a rating, rejects it with a reason,
which takes it back out of what counts, or amends it: their own rating in its place (issue 27,
item 1)."""
