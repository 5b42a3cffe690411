"""What comes in: the bundled library and a folder's own manifest, the files a batch reads and
every path it skips (intake), registration of a source under its content id, a failing document
set aside with its reason, and a document's symmetric removal. Imports ingest.parsing (validation)."""
