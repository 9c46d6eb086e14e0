"""A project's rubric as pure code, no database: its questions (`questions`), the default rubric
(`defaults`), an answer set checked against it (`answers`), which changes a rubric with answers
may take (`versions`) and how much annotators agree on each question (`agreement`)."""
