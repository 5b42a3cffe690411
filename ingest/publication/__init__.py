"""The state made servable: the recorded corpus signature, the corpus-wide checks (metadata
coverage, index counts and signatures), publication of a coherent state as a generation, and a
benchmark's corpus as a state of its own with the marker that says it is complete."""
