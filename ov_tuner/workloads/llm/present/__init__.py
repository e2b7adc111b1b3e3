"""What the LLM hands the kinds of output: its words, report, figures and deploy forms, built from the answer its
folder computes. Nothing here computes (tests/test_layout.py)."""
