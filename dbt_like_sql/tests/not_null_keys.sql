select 'document' as kind, document_id as id from {{ ref('documents') }}
where document_id is null or source_sha256 is null or canonical_sha256 is null
union all
select 'passage', chunk_id from {{ ref('passages') }} where chunk_id is null or document_id is null
