select document_id, count(*) as n from {{ ref('documents') }} group by document_id having count(*) > 1
