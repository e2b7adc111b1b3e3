"""Capacity: how many cameras a configuration serves, in an open loop on the camera search."""
