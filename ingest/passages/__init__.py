"""Per-document stages from a registered source to its stored passages: parsing into canonical text
and blocks (over ingest.parsing), chunking with passage roles, bibliographic metadata with its
provenance, the integrity rules over stored passages, and the corpus-wide overlays (near-duplicate
passages, consolidated titles) the index builders read. Imports ingest.sources below it."""
