"""Gold items: turns whose answers a manager knows, mixed unmarked into people's queues, which
measure each person's accuracy and pause the queue of one who falls below the project's
threshold (issue 27, item 2)."""
