"""Measurement engines: the closed loop, the open loop under camera load, what the host does meanwhile, outputs."""
