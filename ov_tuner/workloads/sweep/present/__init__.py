"""What the sweep hands the kinds of output: its words, document sections, report, figures and deploy forms, built
from the answer ov_tuner.analyse computes. Nothing here computes (tests/test_layout.py)."""
