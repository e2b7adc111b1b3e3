"""Neighbours: the deployed configuration as copies side by side, against one copy alone."""
