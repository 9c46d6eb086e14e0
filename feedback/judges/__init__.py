"""Machine judges calibrated against people: every agent or environment that sends `self` or
`env` feedback, measured on the turns people rated too (issue 27, item 5)."""
