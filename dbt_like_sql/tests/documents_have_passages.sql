select d.document_id from {{ ref('documents') }} d anti join {{ ref('passages') }} p using (document_id)
