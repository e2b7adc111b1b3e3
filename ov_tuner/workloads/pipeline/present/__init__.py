"""What the pipeline hands the kinds of output: its words, report sections, figures and deploy forms, built from the
answer its folder computes. Nothing here computes (tests/test_layout.py)."""
