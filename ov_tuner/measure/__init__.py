"""Measurement engines: the closed loop, cold start and per-layer profile."""
