"""Builders of the document's sections, one module per kind of content; ov_tuner.workloads.sweep.present.documents
orders them into what `show`, `sweep`, `recommend` and the report print."""
