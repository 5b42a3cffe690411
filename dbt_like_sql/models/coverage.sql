-- Metadata coverage: share of documents with each bibliographic field filled.
select count(*) as documents,
       avg(case when title is not null then 1 else 0 end) as title_coverage,
       avg(case when len(coalesce(authors, [])) > 0 then 1 else 0 end) as authors_coverage,
       avg(case when year is not null then 1 else 0 end) as year_coverage,
       min(year) as year_min, max(year) as year_max,
       sum(case when garbled_text then 1 else 0 end) as garbled_documents
from {{ ref('documents') }}
