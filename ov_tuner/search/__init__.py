"""Which configurations to measure: the search space, and the search policy (pure: it never imports the runtime)."""
