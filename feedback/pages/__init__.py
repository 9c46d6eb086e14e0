"""Feedback's pages, one module a page or two: the turn list and rating a turn (`turns`), the
queue (`queue`), what both show of a turn being rated (`rating`), the explorer (`explorer`),
the annotators' agreement (`agreement`), and turns imported from a file (`file_import`)."""
