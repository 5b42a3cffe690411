"""Citation verification without a language model: a quote normalised with an offset map back
to the canonical text (`text`), the document's recorded glyph repairs (`repairs`), parts joined
across an ellipsis (`segments`), the closest passage when a quote is not found (`closest`,
bounded in time and cancellable through `cancel`), and the result models and bounds (`result`);
`verify` is the entry (`verify_quote`). Imports nothing else of serving (docs/DESIGN.md §5).
"""
