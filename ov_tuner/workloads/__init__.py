"""Workloads the engine tunes beyond one model's sweep, each in a folder of its own: its records, its trial, its
search of the load it serves, its answer and its job (its words live in present/words)."""
