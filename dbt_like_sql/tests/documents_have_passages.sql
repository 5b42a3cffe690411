-- Every document has at least one passage (a checked asset: documents).
{{ config(meta={'dagster': {'ref': {'name': 'documents'}}}) }}
select d.document_id from {{ ref('documents') }} d anti join {{ ref('passages') }} p using (document_id)
