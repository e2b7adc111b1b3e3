"""The sweep's words: each of its records as a line."""
