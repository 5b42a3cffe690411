-- One row per materialised document: source, parse and bibliographic fields with provenance.
select s.document_id, s.format, s.original_name, s.library_file, s.source_sha256, s.bytes,
       p.parser, p.parser_version, p.pages, p.garbled_text, p.canonical_sha256, p.canonical_chars,
       coalesce(t.title, m.title) as title, m.title_provenance, m.authors, m.authors_provenance,
       m.year, m.year_provenance, m.venue, m.venue_provenance, m.licence
from {{ source('catalogue', 'raw_sources') }} s
join {{ source('catalogue', 'raw_parsed') }} p using (document_id)
left join {{ source('catalogue', 'raw_metadata') }} m using (document_id)
left join {{ source('catalogue', 'raw_titles') }} t using (document_id)
