"""What an answer is made of, whatever the tool: the output contract's rules and windows
(`contract`), the output models (`outputs`), the builders that fill them from the corpus
(`served`), a hit's text and its matching sentences (`hit_rendering`, `match_window`), page
images (`page_images`), and the errors with the next valid call they name (`errors`,
`error_hints`). Imports no retrieval, tool or server module (docs/DESIGN.md §4).
"""
