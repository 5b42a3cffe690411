-- The bibliography as list_documents shows it: newest first, with passage counts.
select d.document_id, d.title, d.authors, d.year, d.venue, d.format, d.pages,
       count(p.chunk_id) as passages
from {{ ref('documents') }} d
left join {{ ref('passages') }} p using (document_id)
group by all
order by d.year desc nulls last, d.title
