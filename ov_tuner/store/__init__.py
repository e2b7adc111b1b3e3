"""Results on disk: one SQLite file per sweep."""
