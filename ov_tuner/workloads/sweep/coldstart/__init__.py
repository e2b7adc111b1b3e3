"""Cold start: why the first inference is slow, each figure from fresh processes."""
