"""Builders of the document's sections, one module per kind of content; ov_tuner.registry.sweep.documents orders them
into what `show`, `sweep`, `recommend` and the report print."""
