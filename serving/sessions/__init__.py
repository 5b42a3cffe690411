"""Sessions: named objects an agent keeps in the server process (a scope, evidence, a reading
list), each with its provenance. `store` is the bounded LRU store; `kinds` defines what each kind
holds (evidence quotes are held to the citation rules, hence the one import of `citation`). The
`{"session": name}` references tools take live in `toolkit.session_refs` (docs/DESIGN.md §7).
"""
