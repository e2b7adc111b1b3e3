"""The LLM's registration (registration.py, named by its entry point) and what it hands the kinds of output: its
words, report, figures and deploy forms, built from the answer workloads/llm computes."""
