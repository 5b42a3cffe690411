-- One row per passage, with its canonical interval and whether an overlay hides it as a duplicate.
select r.chunk_id, r.document_id, r.ordinal, r.section, r.chars, r.page_start, r.page_end,
       r.granularity, r.range_start, r.range_end, d.kept_chunk_id as duplicate_of
from {{ source('catalogue', 'raw_passages') }} r
left join {{ source('catalogue', 'raw_duplicates') }} d using (chunk_id)
