"""Jobs besides the sweep: capacity under camera load, soaks, cold starts, per-layer profiles. Each compiles, measures
and stores what it measured as it goes."""
