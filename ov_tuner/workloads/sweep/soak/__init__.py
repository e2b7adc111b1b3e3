"""A soak: one configuration for minutes, in windows, to see whether it holds."""
