"""Jobs on a sweep's answer that search nothing: soaks, cold starts, per-layer profiles. Each compiles, measures and
stores what it measured as it goes."""
