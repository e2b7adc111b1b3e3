"""`python -m ov_tuner` runs the CLI."""

from ov_tuner.cli import app

app(prog_name="ov-tuner")
