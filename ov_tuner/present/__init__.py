"""What people see: verdicts worded (words/), laid out once as a document (document.py, sections/, documents.py)
and written for the terminal, HTML or Markdown (terminal.py, pages.py); figures (plots.py, heatmaps.py)."""
