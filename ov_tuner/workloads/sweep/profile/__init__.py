"""Per-layer profile: where an inference's time goes, from OpenVINO's counters."""
