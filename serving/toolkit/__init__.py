"""What the tools share: a tool's declaration (`tool_spec`) and what it is handed (`context`),
the filters every filtering tool takes and their resolution into a scope (`filters`), the answer
for a scope that matches nothing (`empty_scope`), checks of the ids a caller sends (`known_ids`),
`{"session": name}` references (`session_refs`), and the one search use case (`search`:
filters, the caller's other inputs, retrieval and abstention), which the search tool renders
and evaluation runs. Imports no tool and no server module.
"""
