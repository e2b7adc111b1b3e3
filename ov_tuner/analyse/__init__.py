"""Pure functions over stored results: answers, recommendations, diagnostics."""
