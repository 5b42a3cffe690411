"""Retrieval: from a searched text and a scope to ranked, selected passages. `parts` opens the
stores and encoders lazily (shared by an engine's variants, warmed up in the background);
`catalogue` answers which documents a scope admits; `engine` is the ranking pipeline over them
(`first_stage` dense and BM25, fusion and late interaction in `cooperative`, the second stage in
`rescan`, cross-encoder `reranking`, `furniture` and `selection`); `input_encoding` embeds a
search's inputs; `dense_prefilter` the int8 prescore of the unfiltered scan; `scope` the one
Scope class (docs/DESIGN.md §6).
"""
