select p.chunk_id, p.document_id from {{ ref('passages') }} p
anti join {{ ref('documents') }} d using (document_id)
