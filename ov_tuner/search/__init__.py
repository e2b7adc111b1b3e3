"""Which configurations to measure: the grid, and the search policy (pure: it never imports the runtime)."""
