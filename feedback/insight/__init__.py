"""What each person's work comes to over a period: items rated, time per item, skips, gold
accuracy, acceptance in review and agreement with the others (issue 27, item 3)."""
